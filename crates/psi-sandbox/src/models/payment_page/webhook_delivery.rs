//! A notification and its attempts, as the delivery log keeps them: the
//! session notification (the session record, to the session's
//! `url_data.webhook_url`) and the invoice notification (to every invoice
//! webhook subscription).

use chrono::{DateTime, Duration, FixedOffset};
use psi_payment_page::types::SessionRecord;
use serde::{Deserialize, Serialize};

/// Attempts per notification, including the first.
pub const MAX_ATTEMPTS: usize = 5;

/// The wait before the second attempt; it doubles after each failed
/// attempt (100, 200, 400, 800 ms of sandbox time), short so tests need
/// not wait long.
const FIRST_BACKOFF_MS: i64 = 100;

/// The prefix of a logged attempt that was never sent (`--webhook-allow`).
const NOT_SENT: &str = "not sent: ";

/// One notification of one session state, or of one invoice.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WebhookDelivery {
    pub kind: DeliveryKind,
    pub session_id: String,
    /// The session's status, or `INVOICE`.
    pub session_status: String,
    pub url: String,
    /// The raw body, the same bytes on every attempt.
    pub body: String,
    /// A receiver answered 2xx.
    pub delivered: bool,
    pub attempts: Vec<Attempt>,
    /// The sandbox time the next attempt is due at; `None` once finished.
    /// Read as absent from a state file that does not hold it
    /// ([`WebhookDelivery::due`] then derives it from the attempts).
    #[serde(default)]
    pub next_attempt_at: Option<DateTime<FixedOffset>>,
}

/// What a notification is about: `session` or `invoice` in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryKind {
    Session,
    Invoice,
}

/// One POST of a notification.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Attempt {
    /// Sandbox time of the attempt.
    pub at: DateTime<FixedOffset>,
    /// The X-Signature header sent, signed at `at`.
    pub signature: String,
    /// The receiver's status, when it answered.
    pub status: Option<u16>,
    /// Why no answer came (connection refused, timeout).
    pub error: Option<String>,
}

impl Attempt {
    /// An attempt never sent at `at`, because of `refusal` (its host is not
    /// on the `--webhook-allow` list).
    pub fn not_sent(at: DateTime<FixedOffset>, refusal: &str) -> Self {
        Self {
            at,
            signature: String::new(),
            status: None,
            error: Some(format!("{NOT_SENT}{refusal}")),
        }
    }
}

impl WebhookDelivery {
    /// The session notification of `record` to `url`, not sent yet.
    pub fn of_session(record: &SessionRecord, url: &str) -> Self {
        let status = record
            .session_status
            .as_ref()
            .map(|s| s.to_string())
            .unwrap_or_default();
        let body = serde_json::to_string(record).expect("a session record serialises");
        Self {
            kind: DeliveryKind::Session,
            session_id: record.session_id.clone().unwrap_or_default(),
            session_status: status,
            url: url.to_owned(),
            body,
            delivered: false,
            attempts: Vec::new(),
            next_attempt_at: None,
        }
    }

    /// The invoice notification `body` of the session `session_id`'s
    /// transaction to `url`, not sent yet.
    pub fn of_invoice(session_id: &str, url: String, body: String) -> Self {
        Self {
            kind: DeliveryKind::Invoice,
            session_id: session_id.to_owned(),
            session_status: "INVOICE".to_owned(),
            url,
            body,
            delivered: false,
            attempts: Vec::new(),
            next_attempt_at: None,
        }
    }

    /// The same notification again, not sent yet: the same kind, session,
    /// receiver and body (`POST /__sandbox/webhooks/{number}/resend`).
    pub fn resent(&self) -> Self {
        Self {
            kind: self.kind,
            session_id: self.session_id.clone(),
            session_status: self.session_status.clone(),
            url: self.url.clone(),
            body: self.body.clone(),
            delivered: false,
            attempts: Vec::new(),
            next_attempt_at: None,
        }
    }

    /// When the next attempt is due on the sandbox clock, `None` once
    /// finished: the time kept, else (a state file that does not hold it,
    /// or a delivery not scheduled yet) the last attempt's time plus
    /// its backoff, or `now` before the first attempt.
    pub fn due(&self, now: DateTime<FixedOffset>) -> Option<DateTime<FixedOffset>> {
        if self.is_finished() {
            return None;
        }
        if let Some(at) = self.next_attempt_at {
            return Some(at);
        }
        Some(match self.attempts.last() {
            Some(last) => last.at + backoff(self.attempts.len()),
            None => now,
        })
    }

    /// Adds `attempt`, delivered when a receiver answered 2xx, and
    /// schedules the next one [`backoff`] after it unless finished.
    pub fn record(&mut self, attempt: Attempt, delivered: bool) {
        let at = attempt.at;
        self.attempts.push(attempt);
        self.delivered |= delivered;
        self.next_attempt_at = if self.is_finished() {
            None
        } else {
            Some(at + backoff(self.attempts.len()))
        };
    }

    /// Delivered, out of attempts, or never to be sent (`--webhook-allow`).
    pub fn is_finished(&self) -> bool {
        let refused = self
            .attempts
            .last()
            .and_then(|attempt| attempt.error.as_deref())
            .is_some_and(|error| error.starts_with(NOT_SENT));
        self.delivered || self.attempts.len() >= MAX_ATTEMPTS || refused
    }
}

/// The wait after the `made`-th failed attempt: 100 ms after the first,
/// doubling after each.
pub fn backoff(made: usize) -> Duration {
    let doublings = made.saturating_sub(1).min(16) as u32;
    Duration::milliseconds(FIRST_BACKOFF_MS << doublings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_from_100_ms() {
        let waits: Vec<i64> = (1..MAX_ATTEMPTS)
            .map(|made| backoff(made).num_milliseconds())
            .collect();
        assert_eq!(waits, [100, 200, 400, 800]);
    }

    #[test]
    fn a_failed_attempt_schedules_the_next_and_the_last_none() {
        let now = DateTime::parse_from_rfc3339("2026-11-02T10:00:00+01:00").expect("a time");
        let mut delivery = WebhookDelivery::of_invoice("s", "http://x/".into(), "{}".into());
        assert_eq!(delivery.due(now), Some(now));
        let failed = |at| Attempt {
            at,
            signature: String::new(),
            status: Some(500),
            error: None,
        };
        delivery.record(failed(now), false);
        assert_eq!(delivery.due(now), Some(now + Duration::milliseconds(100)));
        // A state file without the due time: derived from the attempts.
        delivery.next_attempt_at = None;
        assert_eq!(delivery.due(now), Some(now + Duration::milliseconds(100)));
        for _ in 1..MAX_ATTEMPTS {
            delivery.record(failed(now), false);
        }
        assert_eq!(delivery.due(now), None);
        assert_eq!(delivery.next_attempt_at, None);
    }
}
