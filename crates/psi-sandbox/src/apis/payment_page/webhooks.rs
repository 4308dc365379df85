//! Notifications, as the service sends them: signed in `X-Signature` with
//! the demo webhook secret ([`crate::auth::signature`]), retried with backoff
//! until a 2xx answer, every attempt recorded for `GET /__sandbox/webhooks`
//! (a log of at most `--max-deliveries`, see
//! [`crate::state::payment_page::PaymentPageState::queue_delivery`]).
//!
//! - The session notification: the session record (the JSON of
//!   `GET /pps/api/v1/session-record/{id}`) POSTed to the session's
//!   `url_data.webhook_url`; a session without one is not notified.
//! - The invoice notification: POSTed to every invoice webhook
//!   subscription (`/__sandbox/webhook-subscriptions`), not to the session's
//!   `webhook_url`.

use crate::models::payment_page::webhook_delivery::{Attempt, WebhookDelivery, MAX_ATTEMPTS};
use crate::state::AppState;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::Json;
use psi_payment_page::types::SessionRecord;
use std::time::Duration;

/// Wait before the first retry; it doubles after each failed attempt
/// (100, 200, 400, 800 ms), short so tests need not wait long.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// A receiver that does not answer within this counts as failed.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(2);

/// Queues the notification of `record` and sends it in the background.
/// Called after the data lock is released.
pub(super) fn notify(state: &AppState, record: &SessionRecord, url: &str) {
    send_in_background(state, WebhookDelivery::of_session(record, url));
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
        let delivery = WebhookDelivery::of_invoice(session_id, url, body.clone());
        send_in_background(state, delivery);
    }
}

fn send_in_background(state: &AppState, delivery: WebhookDelivery) {
    let number = state
        .data()
        .payment_page
        .queue_delivery(delivery, state.limits.max_deliveries);
    tokio::spawn(deliver(state.clone(), number));
}

/// Resumes the notifications a stopped sandbox left pending (in the
/// `--state` file: not delivered, attempts left, not refused by the
/// allow-list): each goes on with its next attempt after the backoff that
/// attempt has. Called once as the sandbox starts.
pub fn resume(state: &AppState) {
    let pending = state.data().payment_page.pending_deliveries();
    for number in pending {
        tokio::spawn(deliver(state.clone(), number));
    }
}

/// Sends until a 2xx answer or the attempts are used up, from the attempt
/// the delivery has reached (the first for a new one).
async fn deliver(state: AppState, number: usize) {
    let (url, body, made) = {
        let data = state.data();
        let Some(delivery) = data.payment_page.delivery(number) else {
            return;
        };
        (
            delivery.url.clone(),
            delivery.body.clone(),
            delivery.attempts.len(),
        )
    };
    if let Some(refusal) = state.webhook_refusal(&url) {
        // Stored before the allow-list was set: logged, never sent.
        let attempt = Attempt::not_sent(state.clock.now_local(), &refusal);
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
    state
        .data()
        .payment_page
        .record_attempt(number, attempt, delivered);
}

/// `GET /__sandbox/webhooks`: every notification so far, oldest first.
pub(super) async fn list(State(state): State<AppState>) -> impl IntoResponse {
    let deliveries = state.data().payment_page.webhooks.to_vec();
    Json(deliveries)
}
