//! `GET /__sandbox/health`: 200 `{"status":"ok"}` while the sandbox
//! serves, for a container's `HEALTHCHECK` (`psi-sandbox health`), a load
//! balancer or an orchestrator's probe.
//!
//! It lives under the control prefix but passes no door
//! ([`crate::auth::control_door`]): a probe comes by whatever address reaches the
//! sandbox and carries no control token, and the answer says nothing
//! beyond that the process serves.

use axum::routing::get;
use axum::{Json, Router};

/// The path of the health check.
pub const PATH: &str = crate::auth::control_door::HEALTH_PATH;

/// The health check's one route.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new().route(PATH, get(health))
}

async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "status": "ok" }))
}
