//! The test-control API, under the reserved prefix `/__sandbox`: what a
//! buyer, the provider's back office or a flaky network would do.
//!
//! | method | path | does |
//! |---|---|---|
//! | GET | /__sandbox | the demo credentials and this list |
//! | POST | /__sandbox/clock/advance | `{"seconds": n}` moves the sandbox clock |
//! | POST | /__sandbox/faults | `{"operation", "status"?, "delay_ms"?, "count"?}` arms a fault |
//! | DELETE | /__sandbox/faults | disarms all faults |
//! | POST | /__sandbox/sessions/{id}/complete | the buyer completes (`{"payment_option"?, "transfer_type"?}`) |
//! | POST | /__sandbox/sessions/{id}/cancel | the buyer cancels |
//! | POST | /__sandbox/sessions/{id}/fail | the payment fails |
//! | POST | /__sandbox/pay-later/{transaction_id}/withdraw | withdraws a booking |
//! | POST | /__sandbox/storefront/orders | seeds a storefront order |
//! | GET | /__sandbox/webhooks | the webhook deliveries so far |
//! | GET | /__sandbox/shop-config/{partner_profile_id}/{shop_id} | the stored shop configuration |

use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

pub const PREFIX: &str = "/__sandbox";

pub fn routes() -> Router<AppState> {
    Router::new()
        .route(PREFIX, get(about))
        .route("/__sandbox/clock/advance", post(advance_clock))
        .route("/__sandbox/faults", post(arm_fault).delete(disarm_faults))
}

async fn about(State(state): State<AppState>) -> impl IntoResponse {
    Json(serde_json::json!({
        "url": state.url,
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
) -> impl IntoResponse {
    state
        .faults
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(fault);
    StatusCode::NO_CONTENT
}

async fn disarm_faults(State(state): State<AppState>) -> impl IntoResponse {
    state
        .faults
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clear();
    StatusCode::NO_CONTENT
}
