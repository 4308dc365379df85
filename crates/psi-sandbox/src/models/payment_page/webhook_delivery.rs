//! A notification and its attempts, as the delivery log keeps them: the
//! session notification (the session record, to the session's
//! `url_data.webhook_url`) and the invoice notification (to every invoice
//! webhook subscription).

use chrono::{DateTime, FixedOffset};
use psi_payment_page::types::SessionRecord;
use serde::{Deserialize, Serialize};

/// Attempts per notification, including the first.
pub const MAX_ATTEMPTS: usize = 5;

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
        }
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
