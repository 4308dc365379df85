//! The test-control API, under the reserved prefix `/__sandbox`: what a
//! buyer, the provider's back office or a flaky network would do.
//!
//! | method | path | does |
//! |---|---|---|
//! | GET | /__sandbox | the addresses (`Addresses`), the demo credentials, the webhook secret and the sandbox time `now` |
//! | POST | /__sandbox/clock/advance | `{"seconds": n}` moves the sandbox clock |
//! | POST | /__sandbox/faults | `{"operation", "status"?, "delay_ms"?, "count"?}` arms a fault answering before processing |
//! | POST | /__sandbox/faults | `{"operation", "after_processing": true, "status", "body"?, "content_type"?, "count"?}` processes the call, then answers `status` with `body` (no body when absent) |
//! | DELETE | /__sandbox/faults | disarms all faults |
//! | GET | /__sandbox/sessions | every session's record, oldest first |
//! | POST | /__sandbox/sessions/{id}/complete | the buyer completes (`{"payment_option"?, "transfer_type"?}`) |
//! | POST | /__sandbox/sessions/{id}/cancel | the buyer cancels |
//! | POST | /__sandbox/sessions/{id}/fail | the payment fails |
//! | GET | /__sandbox/transactions/{id} | the stored transaction (`StoredTransaction`) |
//! | POST | /__sandbox/pay-later/{transaction_id}/withdraw | withdraws a booking |
//! | POST | /__sandbox/storefront/orders | seeds a storefront order |
//! | POST | /__sandbox/webhook-subscriptions | `{"url"}` subscribes a receiver to invoice notifications |
//! | GET | /__sandbox/webhook-subscriptions | the invoice webhook subscriptions |
//! | DELETE | /__sandbox/webhook-subscriptions | removes every subscription |
//! | GET | /__sandbox/webhooks | every notification sent (session and invoice) with its attempts |
//! | GET | /__sandbox/shop-config/{partner_profile_id}/{shop_id} | the stored shop configuration |
//!
//! Errors of the control API are `{"error": "..."}`.

use crate::audiences::Addresses;
use crate::control_client::StoredTransaction;
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

pub const PREFIX: &str = "/__sandbox";

pub fn routes() -> Router<AppState> {
    Router::new()
        .route(PREFIX, get(about))
        .route("/__sandbox/clock/advance", post(advance_clock))
        .route("/__sandbox/faults", post(arm_fault).delete(disarm_faults))
        .route("/__sandbox/transactions/{transaction_id}", get(transaction))
}

async fn about(State(state): State<AppState>) -> impl IntoResponse {
    Json(serde_json::json!({
        "url": state.url,
        "addresses": Addresses::of(&state.url),
        "client_id": crate::DEMO_CLIENT_ID,
        "client_secret": crate::DEMO_CLIENT_SECRET,
        "platform_client_id": crate::DEMO_PLATFORM_CLIENT_ID,
        "platform_client_secret": crate::DEMO_PLATFORM_CLIENT_SECRET,
        "webhook_secret": crate::DEMO_WEBHOOK_SECRET,
        "now": state.clock.now_local(),
    }))
}

#[derive(Deserialize)]
struct Advance {
    seconds: i64,
}

async fn advance_clock(
    State(state): State<AppState>,
    Json(advance): Json<Advance>,
) -> impl IntoResponse {
    state
        .clock
        .advance(chrono::Duration::seconds(advance.seconds));
    Json(serde_json::json!({"now": state.clock.now_local()}))
}

async fn arm_fault(
    State(state): State<AppState>,
    Json(fault): Json<crate::faults::Fault>,
) -> Response {
    if let Some(problem) = fault.problem() {
        return control_error(StatusCode::BAD_REQUEST, problem);
    }
    state
        .faults
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(fault);
    StatusCode::NO_CONTENT.into_response()
}

/// `GET /__sandbox/transactions/{id}`: what the sandbox stored when the
/// buyer completed the session.
async fn transaction(
    State(state): State<AppState>,
    Path(transaction_id): Path<String>,
) -> Response {
    let stored = state
        .data()
        .transactions
        .get(&transaction_id)
        .map(StoredTransaction::of);
    match stored {
        Some(stored) => Json(stored).into_response(),
        None => control_error(
            StatusCode::NOT_FOUND,
            format!("no transaction {transaction_id}"),
        ),
    }
}

fn control_error(status: StatusCode, message: String) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}

async fn disarm_faults(State(state): State<AppState>) -> impl IntoResponse {
    state
        .faults
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clear();
    StatusCode::NO_CONTENT
}
