//! The test-control API, under the reserved prefix `/__sandbox`: what a
//! buyer, the provider's back office or a flaky network would do.
//!
//! | method | path | does |
//! |---|---|---|
//! | GET | /__sandbox | the addresses (`Addresses`), the demo credentials, the webhook secret (`null` when the operator chose one), the sandbox time `now` and the `documents` served from their examples (`name`, `url`, `audience`, `audience_chosen_by_sandbox`, `operations`) |
//! | POST | /__sandbox/clock/advance | `{"seconds": n}` moves the tenant's clock; 400 `{"error", "limit"}` if it would leave 1970..=9999 |
//! | POST | /__sandbox/faults | `{"operation", "status"?, "delay_ms"?, "count"?, "network"?}` arms a fault answering before processing, an error status in the operation's error body (400 beyond `--max-faults` armed) |
//! | POST | /__sandbox/faults | `{"operation", "after_processing": true, "status"?, "body"?, "content_type"?, "count"?, "network"?}` processes the call, then answers `status` with `body` (no body when absent) |
//! | | | `"network"`: `drop` (the connection closes without an answer), `empty` (status and headers, no body), `truncated` (half the body) |
//! | DELETE | /__sandbox/faults | disarms all faults |
//! | GET | /__sandbox/sessions | every session's record, oldest first |
//! | POST | /__sandbox/sessions/{id}/complete | the buyer completes (`{"payment_option"?, "transfer_type"?}`) |
//! | POST | /__sandbox/sessions/{id}/cancel | the buyer cancels |
//! | POST | /__sandbox/sessions/{id}/fail | the payment fails (`{"category"?}`: a 422 decline category, default RISK_DECISION) |
//! | POST | /__sandbox/sessions/{id}/expire | the session expires now |
//! | POST | /__sandbox/sessions/{id}/fraud-cancel | FRAUD_CANCELLATION_REQUESTED |
//! | POST | /__sandbox/sessions/{id}/notify | sends the session notification of the session as it is now to its `webhook_url`, as a new delivery: 202 the new delivery, 404 unknown, 409 without a `webhook_url` |
//! | GET | /__sandbox/transactions/{id} | the stored transaction (`StoredTransaction`) |
//! | POST | /__sandbox/transactions/{id}/notify-invoice | sends the transaction's invoice notification to every subscription: 202 the new deliveries (none without a subscription), 404 unknown |
//! | POST | /__sandbox/transactions | stores a transaction as the back office has it (`--seed`); 201 `StoredTransaction`, 422 naming each field the session checks refuse, 409 for an existing id |
//! | POST | /__sandbox/pay-later/{transaction_id}/withdraw | withdraws a booking |
//! | POST | /__sandbox/storefront/orders | seeds a storefront order |
//! | POST | /__sandbox/webhook-subscriptions | `{"url"}` subscribes a receiver to invoice notifications |
//! | GET | /__sandbox/webhook-subscriptions | the invoice webhook subscriptions |
//! | DELETE | /__sandbox/webhook-subscriptions | removes every subscription |
//! | GET | /__sandbox/webhooks | every notification sent (session and invoice) with its `number`, attempts and `next_attempt_at` (sandbox time; `null` once finished) |
//! | POST | /__sandbox/webhooks/{number}/resend | sends a logged notification again (same body, signed anew) as a new delivery: 202 the new delivery, 404 for a number not kept |
//! | | | attempts are due on the sandbox clock (at once, then 100 ms after a failure, doubling, five in all): an advance sends what it makes due at once |
//! | GET | /__sandbox/shop-config/{partner_profile_id}/{shop_id} | the stored shop configuration |
//! | GET | /__sandbox/requests | the request journal: the last 1,000 requests outside the control API (`method`, `path` with IBANs masked, `operation_id`, `status`, `at`, `duration_ms`), oldest first |
//! | DELETE | /__sandbox/requests | empties the request journal |
//! | POST | /__sandbox/reset | empties the tenant's every collection (also in the state file), disarms its faults, empties its journal and stores the `--seed` entries in it again; its clock, its credentials, the signing key (issued tokens stay valid) and the settings stay; the operator without `?tenant=` resets every tenant; 200 `{"seeded", "tenants"}` |
//!
//! Errors of the control API are `{"error": "..."}`. Every call passes
//! the door ([`crate::auth::control_door`]) first: a `Host` naming this
//! sandbox, the operator's or a tenant's control token (no token only on a
//! sandbox without `--control-token`), and `application/json` on writes;
//! the door also decides which
//! tenant the call acts on (every call here acts on that one tenant; the
//! tenants themselves are `control/tenants.rs`).

use super::wire::{StoredTransaction, PREFIX};
use super::Seeding;
use crate::audiences::Addresses;
use crate::auth::control_door::{ControlCaller, TenantNamed};
use crate::examples::Served;
use crate::http::extract::Current;
use crate::outbox::Outbox;
use crate::refusals::{control_error, control_error_with_limit};
use crate::settings::Limits;
use crate::state::Tenants;
use axum::body::Bytes;
use axum::extract::{FromRef, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Extension;
use axum::{Json, Router};
use serde::Deserialize;
use std::sync::Arc;

/// The control API's routes.
pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Tenants>: FromRef<S>,
    Arc<Served>: FromRef<S>,
    Limits: FromRef<S>,
    Outbox: FromRef<S>,
    Seeding: FromRef<S>,
{
    Router::new()
        .route(PREFIX, get(about))
        .route("/__sandbox/clock/advance", post(advance_clock))
        .route("/__sandbox/faults", post(arm_fault).delete(disarm_faults))
        .route("/__sandbox/transactions", post(store_transaction))
        .route("/__sandbox/transactions/{transaction_id}", get(transaction))
        .route("/__sandbox/requests", get(requests).delete(forget_requests))
        .route("/__sandbox/reset", post(reset))
}

/// The sandbox as the calling tenant sees it: its id and credentials. The
/// demo webhook secret is shown; one the operator chose is not (they know
/// it, and anyone else reaching the control API should not).
async fn about(
    State(examples): State<Arc<Served>>,
    State(outbox): State<Outbox>,
    tenant: Current,
) -> impl IntoResponse {
    let webhook_secret =
        (outbox.secret == crate::demo::DEMO_WEBHOOK_SECRET).then_some(&outbox.secret);
    let credentials = &tenant.credentials;
    Json(serde_json::json!({
        "tenant": tenant.id,
        "url": outbox.url,
        "addresses": Addresses::of(&outbox.url),
        "client_id": credentials.client_id,
        "client_secret": credentials.client_secret,
        "platform_client_id": credentials.platform_client_id,
        "platform_client_secret": credentials.platform_client_secret,
        "webhook_secret": webhook_secret,
        "now": tenant.clock.now_local(),
        "documents": examples.about(),
    }))
}

#[derive(Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
struct Advance {
    seconds: i64,
}

/// Answers 200 `{"now"}`, or 400 `{"error", "limit"}` when the clock would
/// leave its range (see [`crate::state::clock`]) or the body is not `{"seconds": <i64>}`.
async fn advance_clock(State(outbox): State<Outbox>, tenant: Current, body: Bytes) -> Response {
    let advance: Advance = match control_body(&body) {
        Ok(advance) => advance,
        Err(response) => return response,
    };
    match tenant.clock.advance(advance.seconds) {
        Ok(_) => {
            // What the move makes due is sent now, not after the sleep
            // the scheduler started before it.
            outbox.wake();
            Json(serde_json::json!({"now": tenant.clock.now_local()})).into_response()
        }
        Err(refused) => control_error_with_limit(
            StatusCode::BAD_REQUEST,
            refused.to_string(),
            crate::state::clock::OutOfRange::limit(),
        ),
    }
}

/// A control-API body, or 400 `{"error"}` naming the field (axum's own
/// `Json` rejection answers in plain text).
pub(super) fn control_body<T: serde::de::DeserializeOwned + serde::Serialize>(
    body: &[u8],
) -> Result<T, Response> {
    let text = std::str::from_utf8(body)
        .map_err(|_| control_error(StatusCode::BAD_REQUEST, "the body is not UTF-8"))?;
    crate::typed::parse(text).map_err(|refusal| {
        control_error(
            StatusCode::BAD_REQUEST,
            format!("{}: {}", refusal.json_path, refusal.rule),
        )
    })
}

async fn arm_fault(State(limits): State<Limits>, tenant: Current, body: Bytes) -> Response {
    let fault: crate::faults::Fault = match control_body(&body) {
        Ok(fault) => fault,
        Err(response) => return response,
    };
    if let Some(problem) = fault.problem() {
        return control_error(StatusCode::BAD_REQUEST, problem);
    }
    match tenant.faults.arm(fault, limits.max_faults) {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(max) => control_error(
            StatusCode::BAD_REQUEST,
            format!(
                "at most {max} faults are armed at once (--max-faults); DELETE /__sandbox/faults disarms them"
            ),
        ),
    }
}

/// `GET /__sandbox/transactions/{id}`: what the sandbox stored when the
/// buyer completed the session.
async fn transaction(tenant: Current, Path(transaction_id): Path<String>) -> Response {
    let stored = tenant.data().transactions.get(&transaction_id).map(stored);
    match stored {
        Some(stored) => Json(stored).into_response(),
        None => control_error(
            StatusCode::NOT_FOUND,
            format!("no transaction {transaction_id}"),
        ),
    }
}

/// A transaction as `POST /__sandbox/transactions` (and `--seed`) takes
/// it: what a completed session would have stored.
#[derive(Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
struct NewTransaction {
    /// `12-` and 17 digits; absent: a fresh one.
    transaction_id: Option<String>,
    /// As in a session request.
    order_data: psi_payment_page::types::OrderData,
    /// Default `OPEN_INVOICE`.
    payment_option: Option<String>,
    /// Default `BANK_TRANSFER`.
    transfer_type: Option<String>,
    /// Default: now on the sandbox clock.
    created: Option<chrono::DateTime<chrono::FixedOffset>>,
    /// Default: 14 days after `created`.
    due_date: Option<chrono::NaiveDate>,
}

/// `POST /__sandbox/transactions`: stores a transaction directly, as if
/// its session had been completed (no session, no webhook). 201 with the
/// stored transaction; 400 naming the field of a body that is not this
/// shape, 422 naming every field a session's checks refuse (the same
/// checks, so that every stored order reads back whole); 409 when the id
/// is taken.
async fn store_transaction(tenant: Current, body: Bytes) -> Response {
    let new: NewTransaction = match control_body(&body) {
        Ok(new) => new,
        Err(response) => return response,
    };
    let id = match new.transaction_id.as_deref() {
        None => crate::state::TransactionId::random(),
        Some(text) => match crate::state::TransactionId::parse(text) {
            Some(id) => id,
            None => {
                return control_error(
                    StatusCode::BAD_REQUEST,
                    "$.transaction_id: must be 12- followed by 17 digits",
                )
            }
        },
    };
    let created = new.created.unwrap_or_else(|| tenant.clock.now_local());
    let today = tenant.clock.now_local().date_naive();
    if let Err(invalid) = crate::apis::payment_page::check_order_data(&new.order_data, today) {
        let fields: Vec<String> = invalid
            .into_iter()
            .map(|(path, message)| format!("{path}: {message}"))
            .collect();
        return control_error(StatusCode::UNPROCESSABLE_ENTITY, fields.join("; "));
    }
    let transaction = crate::state::Transaction {
        id,
        session_id: uuid::Uuid::new_v4(),
        created,
        request: crate::state::StoredRequest::new(&psi_payment_page::types::SessionRequest {
            order_data: Some(new.order_data),
            url_data: None,
            extra_members: Default::default(),
        }),
        payment_option: crate::state::label(
            new.payment_option
                .unwrap_or_else(|| "OPEN_INVOICE".to_owned()),
        ),
        transfer_type: crate::state::label(
            new.transfer_type
                .unwrap_or_else(|| "BANK_TRANSFER".to_owned()),
        ),
        correspondence_id: uuid::Uuid::new_v4(),
        due_date: new.due_date.unwrap_or_else(|| {
            created.date_naive() + chrono::Days::new(crate::state::PAYMENT_TERM_DAYS)
        }),
    };
    let stored = stored(&transaction);
    {
        let mut data = tenant.data();
        if data
            .transactions
            .get(stored.transaction_id.as_str())
            .is_some()
        {
            return control_error(
                StatusCode::CONFLICT,
                format!("transaction {} exists", stored.transaction_id.as_str()),
            );
        }
        data.transactions.insert(transaction);
    }
    (StatusCode::CREATED, Json(stored)).into_response()
}

async fn disarm_faults(tenant: Current) -> impl IntoResponse {
    tenant.faults.clear();
    StatusCode::NO_CONTENT
}

/// A stored transaction in the control API's shape.
fn stored(transaction: &crate::state::Transaction) -> StoredTransaction {
    StoredTransaction {
        transaction_id: transaction
            .id
            .to_string()
            .parse()
            .expect("a transaction id of the sandbox matches the document's pattern"),
        session_id: transaction.session_id,
        created: transaction.created,
        payment_option: transaction.payment_option.to_string(),
        transfer_type: transaction.transfer_type.to_string(),
        correspondence_id: transaction.correspondence_id,
        due_date: transaction.due_date,
        order_data: transaction.request.get().order_data,
    }
}

/// `GET /__sandbox/requests`: the request journal, oldest first.
async fn requests(tenant: Current) -> Response {
    Json(tenant.journal.entries()).into_response()
}

/// `DELETE /__sandbox/requests`: empties the request journal.
async fn forget_requests(tenant: Current) -> StatusCode {
    tenant.journal.clear();
    StatusCode::NO_CONTENT
}

/// `POST /__sandbox/reset`: a clean tenant for the next test. Every
/// collection of the tenant is emptied (sessions, transactions, bookings,
/// bank accounts, shop configurations, storefront orders, subscriptions,
/// the delivery log), in the state file too; its faults are disarmed and
/// its request journal emptied; then the `--seed` entries are stored in it
/// again. Its clock, its credentials, the signing key (so every issued
/// token stays valid) and the settings stay. A tenant's control token
/// resets that tenant; the operator's token (or a tokenless call) resets
/// the tenant the `tenant` parameter names, every tenant when it names
/// none and the caller is the operator, the demo tenant otherwise.
/// Answers 200 `{"seeded", "tenants"}`: the seed entries stored and the
/// tenants reset.
async fn reset(
    State(tenants): State<Arc<Tenants>>,
    State(seeding): State<Seeding>,
    Current(tenant): Current,
    Extension(caller): Extension<ControlCaller>,
    Extension(TenantNamed(named)): Extension<TenantNamed>,
) -> Response {
    let every = caller == ControlCaller::Operator && !named;
    let tenants = match every {
        true => tenants.all(),
        false => vec![tenant],
    };
    let mut seeded = 0;
    for tenant in &tenants {
        tenant.empty().wait().await;
        match seeding.apply(&tenant.id).await {
            Ok(stored) => seeded += stored,
            Err(error) => return control_error(StatusCode::INTERNAL_SERVER_ERROR, error),
        }
    }
    let ids: Vec<&str> = tenants.iter().map(|tenant| tenant.id.as_str()).collect();
    Json(serde_json::json!({ "seeded": seeded, "tenants": ids })).into_response()
}
