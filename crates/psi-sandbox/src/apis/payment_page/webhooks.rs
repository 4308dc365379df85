//! Notifications, as the service sends them: signed in `X-Signature`
//! ([`crate::auth::signature`]: a session notification with the sandbox's
//! webhook secret, an invoice notification with its subscription's secret
//! as the provider signs those), retried with backoff
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
//!
//! Both are also sent on demand (`POST /__sandbox/sessions/{id}/notify`,
//! `POST /__sandbox/transactions/{id}/notify-invoice`), and a logged one is
//! sent again as a new delivery (`POST /__sandbox/webhooks/{number}/resend`).
//!
//! Attempts run on the tenant's clock: each delivery's next attempt is due
//! at a time of its tenant's clock (at once for a new one, then 100 ms
//! after the first failed attempt, doubling, [`backoff`]), and one
//! scheduler task per sandbox ([`schedule`]) sleeps until the earliest due
//! time of any tenant, woken early (through the outbox,
//! [`crate::outbox::Outbox::wake`]) when a delivery is queued or attempted
//! or a clock is advanced, so `POST /__sandbox/clock/advance` sends what
//! is then due at once. Each clock runs with wall time, so without an
//! advance the backoff takes its wall time.

use crate::http::extract::Current;
#[cfg(doc)]
use crate::models::payment_page::webhook_delivery::backoff;
use crate::models::payment_page::webhook_delivery::{Attempt, DeliveryKind, WebhookDelivery};
use crate::outbox::Outbox;
use crate::refusals::control_error;
use crate::state::{Tenant, Tenants};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use psi_payment_page::types::SessionRecord;
use serde::Serialize;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// A receiver that does not answer within this counts as failed.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(2);

/// Queues the notification of `record` and sends it in the background.
/// Called after the data lock is released.
/// Answers the delivery's number.
pub(super) fn notify(outbox: &Outbox, tenant: &Tenant, record: &SessionRecord, url: &str) -> usize {
    send_in_background(outbox, tenant, WebhookDelivery::of_session(record, url))
}

/// Queues the invoice notification of a completed session's transaction
/// to every invoice webhook subscription, retried like the session
/// notification and signed with each subscription's secret. Its body has
/// the provider's fields (docs/service-notes.md, "Invoice notifications"):
/// `id`, the event's number (the delivery number of its first delivery, so
/// unique within the sandbox), `shop_transaction_id` (the first basket's,
/// else the merchant's transaction id), `gateway_payment_reference` (`GD`
/// and the transaction id's 17 digits), `gateway_transaction_id`,
/// `invoice_id` (the correspondence id) and the address of each format.
/// Answers the deliveries' numbers (none without a subscription), or
/// `None` for an unknown transaction.
pub(super) fn notify_invoice(
    outbox: &Outbox,
    tenant: &Tenant,
    session_id: &str,
    transaction_id: &str,
) -> Option<Vec<usize>> {
    let transaction = tenant.data().transactions.get(transaction_id).cloned()?;
    let address = |format: &str| {
        format!(
            "{}/api/order/{}/correspondences/invoices/{}/{format}",
            outbox.url, transaction.id, transaction.correspondence_id
        )
    };
    let shop_transaction_id = transaction
        .baskets()
        .into_iter()
        .find_map(|basket| basket.shop_transaction_id.map(|id| id.to_string()))
        .or_else(|| transaction.partner_transaction_id());
    let transaction_text = transaction.id.to_string();
    let digits = transaction_text.rsplit('-').next().unwrap_or_default();
    let now = tenant.clock.now_local();
    let numbers = {
        let mut data = tenant.data();
        let subscribers = data.webhook_subscriptions.urls();
        let notification = serde_json::json!({
            "id": data.payment_page.next_delivery_number(),
            "shop_transaction_id": shop_transaction_id,
            "gateway_payment_reference": format!("GD{digits}"),
            "gateway_transaction_id": transaction_text,
            "invoice_id": transaction.correspondence_id.to_string(),
            "eml_url": address("eml"),
            "pdf_url": address("pdf"),
        });
        let body = notification.to_string();
        subscribers
            .into_iter()
            .map(|url| {
                let delivery = WebhookDelivery::of_invoice(session_id, url, body.clone());
                data.payment_page
                    .queue_delivery(delivery, outbox.max_deliveries, now)
            })
            .collect::<Vec<_>>()
    };
    if !numbers.is_empty() {
        outbox.wake();
    }
    Some(numbers)
}

/// Queues `delivery`, due now, wakes the scheduler and answers its number.
fn send_in_background(outbox: &Outbox, tenant: &Tenant, delivery: WebhookDelivery) -> usize {
    let now = tenant.clock.now_local();
    let number = tenant
        .data()
        .payment_page
        .queue_delivery(delivery, outbox.max_deliveries, now);
    outbox.wake();
    number
}

/// Starts the scheduler that sends each delivery's attempts when they are
/// due on its tenant's clock, the unfinished ones of a `--state` file first
/// (each at the due time kept, at once when that has passed). Called once
/// as the sandbox starts; the sandbox aborts the task when it stops.
pub fn schedule(tenants: &Arc<Tenants>, outbox: &Outbox) -> tokio::task::JoinHandle<()> {
    tokio::spawn(run_schedule(Arc::downgrade(tenants), outbox.clone()))
}

/// Takes what is due in every tenant, sends each in its own task, then
/// sleeps until the next due time of any tenant or a wake-up (a queued or
/// attempted delivery, a clock advance), whichever comes first; with
/// nothing scheduled, until a wake-up. Each tenant's clock runs with wall
/// time, so a sleep of the difference ends at the due time unless a clock
/// is moved meanwhile, which wakes it. It holds the state only while it
/// looks (a weak reference otherwise), so a state nothing else holds is
/// dropped, and the scheduler ends at its next wake-up.
async fn run_schedule(tenants: Weak<Tenants>, outbox: Outbox) {
    let wake = outbox.wake_up();
    loop {
        let wait = {
            let Some(tenants) = tenants.upgrade() else {
                return;
            };
            let mut wait: Option<Duration> = None;
            for tenant in tenants.all() {
                let now = tenant.clock.now_local();
                let (due, next) = {
                    let mut data = tenant.data();
                    let due = data.payment_page.take_due(now);
                    (due, data.payment_page.next_due())
                };
                // Background changes: handed to the writer, nobody waits.
                drop(tenant.save());
                for number in due {
                    tokio::spawn(attempt(outbox.clone(), tenant.clone(), number));
                }
                if let Some(at) = next {
                    let until = (at - now).to_std().unwrap_or_default();
                    wait = Some(wait.map_or(until, |wait| wait.min(until)));
                }
            }
            wait
        };
        let woken = wake.notified();
        match wait {
            Some(wait) => {
                let _ = tokio::time::timeout(wait, woken).await;
            }
            None => woken.await,
        }
    }
}

/// Sends the next attempt of the delivery numbered `number` of `tenant` and
/// records it, which schedules the one after unless it is finished, then
/// wakes the scheduler to see the new due time.
async fn attempt(outbox: Outbox, tenant: Arc<Tenant>, number: usize) {
    let (kind, url, body) = {
        let data = tenant.data();
        let Some(delivery) = data.payment_page.delivery(number) else {
            return;
        };
        (delivery.kind, delivery.url.clone(), delivery.body.clone())
    };
    let (attempt, delivered) = match outbox.refusal(&url) {
        // Stored before the allow-list was set: logged, never sent.
        Some(refusal) => (Attempt::not_sent(tenant.clock.now_local(), &refusal), false),
        None => {
            let attempt = send_once(&outbox, &tenant, kind, &url, &body).await;
            let delivered = attempt
                .status
                .is_some_and(|status| (200..300).contains(&status));
            (attempt, delivered)
        }
    };
    tenant
        .data()
        .payment_page
        .record_attempt(number, attempt, delivered);
    tenant.save().wait().await;
    outbox.wake();
}

/// One signed POST: a session notification signed anew, so the timestamp
/// is that of the attempt; an invoice notification with its subscription's
/// secret (the same signature on every attempt, as it has no timestamp).
async fn send_once(
    outbox: &Outbox,
    tenant: &Tenant,
    kind: DeliveryKind,
    url: &str,
    body: &str,
) -> Attempt {
    let at = tenant.clock.now_local();
    let signature = match kind {
        DeliveryKind::Session => {
            crate::auth::signature::sign(outbox.secret.as_bytes(), at.timestamp(), body.as_bytes())
        }
        DeliveryKind::Invoice => {
            let secret = tenant
                .data()
                .webhook_subscriptions
                .secret_for(url)
                .map(str::to_owned)
                .unwrap_or_else(|| outbox.secret.clone());
            crate::auth::signature::sign_invoice(secret.as_bytes(), body.as_bytes())
        }
    };
    let sent = outbox
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

/// `GET /__sandbox/webhooks`: every notification so far, oldest first.
/// Each with its `number`, which `POST /__sandbox/webhooks/{number}/resend`
/// names it by.
pub(super) async fn list(tenant: Current) -> impl IntoResponse {
    let data = tenant.data();
    let deliveries: Vec<Listed<'_>> = data
        .payment_page
        .numbered_deliveries()
        .map(|(number, delivery)| Listed { number, delivery })
        .collect();
    Json(serde_json::to_value(deliveries).expect("deliveries serialise"))
}

/// A delivery as the control API shows it: its number, then its fields.
#[derive(Serialize)]
struct Listed<'a> {
    number: usize,
    #[serde(flatten)]
    delivery: &'a WebhookDelivery,
}

/// The deliveries numbered `numbers` as the control API shows them (a
/// delivery queued just now is kept: only finished ones are dropped).
fn listed(tenant: &Tenant, numbers: &[usize]) -> Vec<serde_json::Value> {
    let data = tenant.data();
    numbers
        .iter()
        .filter_map(|&number| {
            let delivery = data.payment_page.delivery(number)?;
            serde_json::to_value(Listed { number, delivery }).ok()
        })
        .collect()
}

/// `POST /__sandbox/webhooks/{number}/resend`: the delivery numbered
/// `number` again, as a new delivery with the same kind, session, receiver
/// and body, signed anew at each of its own attempts. 202 with the new
/// delivery (its number, no attempt yet); 404 for a number not kept.
pub(super) async fn resend(
    State(outbox): State<Outbox>,
    tenant: Current,
    Path(number): Path<String>,
) -> Response {
    let kept = number.parse::<usize>().ok().and_then(|number| {
        tenant
            .data()
            .payment_page
            .delivery(number)
            .map(WebhookDelivery::resent)
    });
    let Some(again) = kept else {
        return not_found(format!("no delivery {number} is kept"));
    };
    let number = send_in_background(&outbox, &tenant, again);
    accepted(listed(&tenant, &[number]).pop())
}

/// `POST /__sandbox/sessions/{id}/notify`: the session notification of the
/// session as it is now (the record `GET /pps/api/v1/session-record/{id}`
/// answers) to its `url_data.webhook_url`, whatever its status. 202 with
/// the new delivery; 404 for an unknown session, 409 for one without a
/// `webhook_url`.
pub(super) async fn notify_session(
    State(outbox): State<Outbox>,
    tenant: Current,
    Path(session_id): Path<String>,
) -> Response {
    let now = tenant.clock.now_local();
    let found = {
        let mut data = tenant.data();
        let url = data
            .payment_page
            .sessions
            .get(&session_id)
            .map(|session| session.webhook_url.clone());
        url.zip(data.payment_page.record(&session_id, now))
    };
    match found {
        None => not_found(format!("no session {session_id}")),
        Some((None, _)) => control_error(
            StatusCode::CONFLICT,
            format!("session {session_id} has no url_data.webhook_url to notify"),
        ),
        Some((Some(url), record)) => {
            let number = notify(&outbox, &tenant, &record, &url);
            accepted(listed(&tenant, &[number]).pop())
        }
    }
}

/// `POST /__sandbox/transactions/{id}/notify-invoice`: the invoice
/// notification of the stored transaction to every subscription. 202 with
/// the new deliveries, one per subscription (none without one); 404 for an
/// unknown transaction.
pub(super) async fn notify_transaction_invoice(
    State(outbox): State<Outbox>,
    tenant: Current,
    Path(transaction_id): Path<String>,
) -> Response {
    let session_id = tenant
        .data()
        .transactions
        .get(&transaction_id)
        .map(|transaction| transaction.session_id.to_string());
    let numbers = session_id
        .and_then(|session_id| notify_invoice(&outbox, &tenant, &session_id, &transaction_id));
    match numbers {
        Some(numbers) => accepted(listed(&tenant, &numbers)),
        None => not_found(format!("no transaction {transaction_id}")),
    }
}

fn accepted(body: impl Serialize) -> Response {
    (StatusCode::ACCEPTED, Json(body)).into_response()
}

fn not_found(message: String) -> Response {
    control_error(StatusCode::NOT_FOUND, message)
}
