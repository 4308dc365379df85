//! Injected faults: the next N calls to an operation answer a given status,
//! are delayed, or are processed and then answered differently, so
//! merchants can test their retry handling and that they accept every
//! success answer.
//!
//! Two kinds, armed through `POST /__sandbox/faults`:
//! - before processing (the default): the call is delayed by `delay_ms`,
//!   then answers `status` with an empty JSON object, and nothing happens;
//!   without `status` it proceeds after the delay.
//! - `"after_processing": true`: the handler runs normally (a booking is
//!   made, an account deleted, whatever the call does, also its refusals)
//!   and its answer is replaced by `status` with `body` (any JSON; no body
//!   at all when absent) and `content_type` (default `application/json`
//!   when there is a body).
//!
//! Every handler calls [`inject`] first; [`after_processing`], a layer
//! around the whole router, replaces the answer of a call for which
//! [`inject`] found an after-processing fault (handed over in a task-local
//! slot, as the handler runs inside the layer's task).

use crate::AppState;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::future::Future;
use std::time::Duration;

/// A fault armed through `POST /__sandbox/faults`.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
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
    /// Process the call, then replace its answer.
    #[serde(default)]
    pub after_processing: bool,
    /// The replacing body (after processing only); absent: no body.
    #[serde(default, deserialize_with = "present")]
    pub body: Option<serde_json::Value>,
    /// The replacing body's Content-Type (after processing only).
    pub content_type: Option<String>,
}

/// `"body": null` is a JSON body `null`, not an absent body.
fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(deserializer).map(Some)
}

fn one() -> u32 {
    1
}

impl Fault {
    /// Why the control API refuses to arm this fault, if it does.
    pub fn problem(&self) -> Option<String> {
        if self.after_processing {
            match self.status.map(StatusCode::from_u16) {
                None => return Some("after_processing needs a status".to_owned()),
                Some(Err(_)) => return Some("status is not an HTTP status".to_owned()),
                Some(Ok(_)) => {}
            }
            if let Some(content_type) = &self.content_type {
                if HeaderValue::from_str(content_type).is_err() {
                    return Some("content_type is not a header value".to_owned());
                }
            }
        } else if self.body.is_some() || self.content_type.is_some() {
            return Some("body and content_type need after_processing".to_owned());
        }
        None
    }
}

/// Called first by every handler: names the call's operation for the
/// request log and applies an armed fault of `operation`.
/// `Some(response)` replaces the handler's answer at once; an
/// after-processing fault is left for [`after_processing`] and answers
/// `None`.
///
/// An armed fault is applied in a boxed future of its own: its delay's
/// timer and the fault itself would otherwise be part of every handler's
/// future, which is moved as the request's future is built.
pub async fn inject(state: &AppState, operation: &'static str) -> Option<Response> {
    crate::call_notes::name_operation(operation);
    let fault = take(state, operation)?;
    Box::pin(applied(fault)).await
}

/// What an armed `fault` does to the call (see [`inject`]).
async fn applied(fault: Fault) -> Option<Response> {
    if fault.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(fault.delay_ms)).await;
    }
    if fault.after_processing {
        // Outside the layer (a handler called directly) there is no slot
        // and the fault is spent without effect.
        crate::call_notes::replace_answer(fault);
        return None;
    }
    let status = StatusCode::from_u16(fault.status?).ok()?;
    let mut response = (status, axum::Json(serde_json::json!({}))).into_response();
    if status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert("retry-after", HeaderValue::from_static("0"));
    }
    Some(response)
}

/// Takes one hit of the first armed fault of `operation`.
fn take(state: &AppState, operation: &str) -> Option<Fault> {
    let mut faults = state.faults.lock().unwrap_or_else(|p| p.into_inner());
    let position = faults
        .iter()
        .position(|f| f.operation == operation && f.count > 0)?;
    faults[position].count -= 1;
    let fault = faults[position].clone();
    if faults[position].count == 0 {
        faults.remove(position);
    }
    Some(fault)
}

/// Around the router ([`crate::per_request`]): `serve` answers `request`
/// and, when its handler met an after-processing fault, the fault's
/// status, body and Content-Type are answered instead.
pub async fn after_processing<F, Fut>(request: Request, serve: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let response = serve(request).await;
    match crate::call_notes::take_replacement() {
        Some(fault) => replacement(&fault),
        None => response,
    }
}

fn replacement(fault: &Fault) -> Response {
    let status = fault
        .status
        .and_then(|status| StatusCode::from_u16(status).ok())
        .unwrap_or(StatusCode::OK);
    let Some(body) = &fault.body else {
        return status.into_response();
    };
    let content_type = fault.content_type.as_deref().unwrap_or("application/json");
    let content_type = HeaderValue::from_str(content_type)
        .unwrap_or_else(|_| HeaderValue::from_static("application/json"));
    (
        status,
        [(header::CONTENT_TYPE, content_type)],
        body.to_string(),
    )
        .into_response()
}
