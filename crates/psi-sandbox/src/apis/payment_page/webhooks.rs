//! Notifications, as the service sends them: signed in `X-Signature` with
//! the demo webhook secret ([`crate::auth::signature`]), retried with backoff
//! until a 2xx answer, every attempt recorded for `GET /__sandbox/webhooks`
//! (a log of at most `--max-deliveries`, see [`queue`]).
//!
//! - The session notification: the session record (the JSON of
//!   `GET /pps/api/v1/session-record/{id}`) POSTed to the session's
//!   `url_data.webhook_url`; a session without one is not notified.
//! - The invoice notification: POSTed to every invoice webhook
//!   subscription (`/__sandbox/webhook-subscriptions`), not to the session's
//!   `webhook_url`.

use super::State as Pages;
use crate::AppState;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::Json;
use chrono::{DateTime, FixedOffset};
use psi_payment_page::types::SessionRecord;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Attempts per notification, including the first.
const MAX_ATTEMPTS: usize = 5;
/// Wait before the first retry; it doubles after each failed attempt
/// (100, 200, 400, 800 ms), short so tests need not wait long.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// A receiver that does not answer within this counts as failed.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(2);

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

/// Queues the notification of `record` and sends it in the background.
/// Called after the data lock is released.
pub(super) fn notify(state: &AppState, record: &SessionRecord, url: &str) {
    let status = record
        .session_status
        .as_ref()
        .map(|s| s.to_string())
        .unwrap_or_default();
    let body = serde_json::to_string(record).expect("a session record serialises");
    let delivery = WebhookDelivery {
        kind: DeliveryKind::Session,
        session_id: record.session_id.clone().unwrap_or_default(),
        session_status: status,
        url: url.to_owned(),
        body,
        delivered: false,
        attempts: Vec::new(),
    };
    send_in_background(state, delivery);
}

/// Queues the invoice notification of a completed session's transaction
/// (docs/service-notes.md: the correspondence id and, per format, the address to
/// fetch it from, the merchant's order reference and the transaction id),
/// signed and retried like the session notification, to every invoice
/// webhook subscription.
pub(super) fn notify_invoice(state: &AppState, session_id: &str, transaction_id: &str) {
    let subscribers = state.data().webhook_subscriptions.urls();
    if subscribers.is_empty() {
        return;
    }
    let Some(transaction) = state.data().transactions.get(transaction_id).cloned() else {
        return;
    };
    let address = |format: &str| {
        format!(
            "{}/api/order/{}/correspondences/invoices/{}/{format}",
            state.url, transaction.id, transaction.correspondence_id
        )
    };
    let notification = serde_json::json!({
        "correspondence_id": transaction.correspondence_id.to_string(),
        "pdf_url": address("pdf"),
        "eml_url": address("eml"),
        "transaction_id": transaction.id,
        "order_reference": transaction.partner_transaction_id(),
    });
    let body = notification.to_string();
    for url in subscribers {
        let delivery = WebhookDelivery {
            kind: DeliveryKind::Invoice,
            session_id: session_id.to_owned(),
            session_status: "INVOICE".to_owned(),
            url,
            body: body.clone(),
            delivered: false,
            attempts: Vec::new(),
        };
        send_in_background(state, delivery);
    }
}

fn send_in_background(state: &AppState, delivery: WebhookDelivery) {
    let number = queue(
        &mut state.data().payment_page,
        delivery,
        state.limits.max_deliveries,
    );
    tokio::spawn(deliver(state.clone(), number));
}

/// Appends `delivery` to the log and answers its number. A log holding
/// `max` notifications first drops its oldest finished ones (delivered,
/// given up or not sent), down to half of `max`; one still being sent is
/// never dropped, nor anything after it.
fn queue(pages: &mut Pages, delivery: WebhookDelivery, max: usize) -> usize {
    let log = &pages.webhooks;
    if log.len() >= max.max(1) {
        let wanted = log.len() - max / 2;
        let finished = log
            .iter()
            .take(wanted)
            .take_while(|delivery| is_finished(delivery))
            .count();
        pages.webhooks.drop_front(finished);
        pages.webhooks_dropped += finished;
    }
    pages.webhooks.push(delivery) + pages.webhooks_dropped
}

/// Delivered, out of attempts, or never to be sent (`--webhook-allow`).
fn is_finished(delivery: &WebhookDelivery) -> bool {
    let refused = delivery
        .attempts
        .last()
        .and_then(|attempt| attempt.error.as_deref())
        .is_some_and(|error| error.starts_with(NOT_SENT));
    delivery.delivered || delivery.attempts.len() >= MAX_ATTEMPTS || refused
}

/// The log position of the delivery numbered `number`, if it is kept.
fn position(pages: &Pages, number: usize) -> Option<usize> {
    number
        .checked_sub(pages.webhooks_dropped)
        .filter(|position| *position < pages.webhooks.len())
}

/// The prefix of a logged attempt that was never sent (`--webhook-allow`).
const NOT_SENT: &str = "not sent: ";

/// Resumes the notifications a stopped sandbox left pending (in the
/// `--state` file: not delivered, attempts left, not refused by the
/// allow-list): each goes on with its next attempt after the backoff that
/// attempt has. Called once as the sandbox starts.
pub fn resume(state: &AppState) {
    let pending: Vec<usize> = state
        .data()
        .payment_page
        .webhooks
        .iter()
        .enumerate()
        .filter(|(_, delivery)| !is_finished(delivery))
        .map(|(position, _)| position)
        .collect();
    // No notification was dropped yet: a position is its number.
    for number in pending {
        tokio::spawn(deliver(state.clone(), number));
    }
}

/// Sends until a 2xx answer or the attempts are used up, from the attempt
/// the delivery has reached (the first for a new one).
async fn deliver(state: AppState, number: usize) {
    let (url, body, made) = {
        let data = state.data();
        let Some(position) = position(&data.payment_page, number) else {
            return;
        };
        let delivery = &data.payment_page.webhooks[position];
        (
            delivery.url.clone(),
            delivery.body.clone(),
            delivery.attempts.len(),
        )
    };
    if let Some(refusal) = state.webhook_refusal(&url) {
        // Stored before the allow-list was set: logged, never sent.
        let attempt = Attempt {
            at: state.clock.now_local(),
            signature: String::new(),
            status: None,
            error: Some(format!("{NOT_SENT}{refusal}")),
        };
        record(&state, number, attempt, false);
        return;
    }
    for attempt in made + 1..=MAX_ATTEMPTS {
        if attempt > 1 {
            // 100 ms before the second attempt, doubling after each.
            tokio::time::sleep(FIRST_BACKOFF * (1u32 << (attempt - 2))).await;
        }
        let result = send_once(&state, &url, &body).await;
        let delivered = result
            .status
            .is_some_and(|status| (200..300).contains(&status));
        record(&state, number, result, delivered);
        if delivered {
            return;
        }
    }
}

/// One signed POST; signed anew so the timestamp is that of the attempt.
async fn send_once(state: &AppState, url: &str, body: &str) -> Attempt {
    let at = state.clock.now_local();
    let secret = state.webhook_secret.as_bytes();
    let signature = crate::auth::signature::sign(secret, at.timestamp(), body.as_bytes());
    let sent = state
        .http
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(crate::auth::signature::SIGNATURE_HEADER, &signature)
        .body(body.to_owned())
        .timeout(ATTEMPT_TIMEOUT)
        .send()
        .await;
    let (status, error) = match sent {
        Ok(response) => (Some(response.status().as_u16()), None),
        Err(error) => (None, Some(error.to_string())),
    };
    Attempt {
        at,
        signature,
        status,
        error,
    }
}

fn record(state: &AppState, number: usize, attempt: Attempt, delivered: bool) {
    let mut data = state.data();
    let pages = &mut data.payment_page;
    // A delivery being sent is never dropped, so it is found.
    if let Some(position) = position(pages, number) {
        let delivery = &mut pages.webhooks[position];
        delivery.attempts.push(attempt);
        delivery.delivered |= delivered;
    }
}

/// `GET /__sandbox/webhooks`: every notification so far, oldest first.
pub(super) async fn list(State(state): State<AppState>) -> impl IntoResponse {
    let deliveries = state.data().payment_page.webhooks.to_vec();
    Json(deliveries)
}
