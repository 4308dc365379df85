//! Injected faults: the next N calls to an operation answer a given status,
//! or are delayed, so merchants can test their retry handling.

use crate::AppState;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::time::Duration;

/// A fault armed through `POST /__sandbox/faults`.
#[derive(Debug, Clone, Deserialize)]
pub struct Fault {
    /// The operationId, as in the documents (`getPayLaterStatus`).
    pub operation: String,
    /// Status to answer; absent: the call proceeds after the delay.
    pub status: Option<u16>,
    #[serde(default)]
    pub delay_ms: u64,
    /// How many of the next calls it hits.
    #[serde(default = "one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

/// Called first by every handler: applies an armed fault of `operation`.
/// `Some(response)` replaces the handler's answer.
pub async fn inject(state: &AppState, operation: &str) -> Option<Response> {
    let fault = {
        let mut faults = state.faults.lock().unwrap_or_else(|p| p.into_inner());
        let position = faults
            .iter()
            .position(|f| f.operation == operation && f.count > 0)?;
        faults[position].count -= 1;
        let fault = faults[position].clone();
        if faults[position].count == 0 {
            faults.remove(position);
        }
        fault
    };
    if fault.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(fault.delay_ms)).await;
    }
    let status = StatusCode::from_u16(fault.status?).ok()?;
    let mut response = (status, axum::Json(serde_json::json!({}))).into_response();
    if status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert("retry-after", axum::http::HeaderValue::from_static("0"));
    }
    Some(response)
}
