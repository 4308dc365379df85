//! Injected faults: the next N calls to an operation answer a given status,
//! are delayed, or are processed and then answered differently, so
//! merchants can test their retry handling and that they accept every
//! success answer.
//!
//! Two kinds, armed through `POST /__sandbox/faults`:
//! - before processing (the default): the call is delayed by `delay_ms`,
//!   then answers `status` in the error body of the API the operation
//!   belongs to (a payment API's decline with the category that fits the
//!   status), and nothing happens; without `status` it proceeds after the
//!   delay.
//! - `"after_processing": true`: the handler runs normally (a booking is
//!   made, an account deleted, whatever the call does, also its refusals)
//!   and its answer is replaced by `status` with `body` (any JSON; no body
//!   at all when absent) and `content_type` (default `application/json`
//!   when there is a body).
//!
//! Either kind can fail the way networks do (`"network"`): `drop` closes
//! the connection without an answer (before processing, or after it: the
//! state changed and the client never hears), `empty` sends the answer's
//! status and headers and closes before its body, `truncated` closes
//! halfway through the body.
//!
//! Each route declares its operationId ([`crate::http::operation`]); the
//! middleware there takes one hit of a fault armed for it and applies it.

use crate::http::api_errors::{Owner, Problem};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::sync::{Arc, Mutex};

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
    /// How the connection fails instead of carrying the whole answer.
    pub network: Option<Network>,
}

/// A failure of the connection instead of a whole answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// The connection closes without an answer.
    Drop,
    /// The status and headers are sent, then the connection closes.
    Empty,
    /// The status, headers and half of the body are sent, then the
    /// connection closes.
    Truncated,
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
        if self
            .status
            .is_some_and(|status| StatusCode::from_u16(status).is_err())
        {
            return Some("status is not an HTTP status".to_owned());
        }
        if self.after_processing {
            if self.status.is_none() && self.network.is_none() {
                return Some("after_processing needs a status or a network failure".to_owned());
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

/// The armed faults, shared by the control API (which arms them) and
/// every route (which spends them).
#[derive(Clone, Default)]
pub struct Faults(Arc<Mutex<Vec<Fault>>>);

impl Faults {
    /// Arms `fault`, unless `max` are armed already.
    pub fn arm(&self, fault: Fault, max: usize) -> Result<(), usize> {
        let mut faults = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if faults.len() >= max {
            return Err(max);
        }
        faults.push(fault);
        Ok(())
    }

    /// Disarms every fault.
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// Takes one hit of the first armed fault of `operation`.
    pub fn take(&self, operation: &str) -> Option<Fault> {
        let mut faults = self.0.lock().unwrap_or_else(|p| p.into_inner());
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
}

impl Fault {
    /// The answer of a fault before processing to a call of `path`, if
    /// it has a status (without one the call proceeds after the delay):
    /// an error status in the error body of the API owning `path`, any
    /// other with an empty JSON object.
    pub fn before_processing(&self, path: &str) -> Option<Response> {
        let status = StatusCode::from_u16(self.status?).ok()?;
        let mut response = if status.is_client_error() || status.is_server_error() {
            injected(path, status)
        } else {
            (status, axum::Json(serde_json::json!({}))).into_response()
        };
        if status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert("retry-after", HeaderValue::from_static("0"));
        }
        Some(response)
    }

    /// The answer replacing the handler's after processing: the fault's
    /// status, body and Content-Type.
    pub fn replacement(&self) -> Response {
        let status = self
            .status
            .and_then(|status| StatusCode::from_u16(status).ok())
            .unwrap_or(StatusCode::OK);
        let Some(body) = &self.body else {
            return status.into_response();
        };
        let content_type = self.content_type.as_deref().unwrap_or("application/json");
        let content_type = HeaderValue::from_str(content_type)
            .unwrap_or_else(|_| HeaderValue::from_static("application/json"));
        (
            status,
            [(header::CONTENT_TYPE, content_type)],
            body.to_string(),
        )
            .into_response()
    }
}

/// An injected error `status` in the error body of the API owning `path`:
/// the reason is the status's name (`SERVICE_UNAVAILABLE`); a payment
/// API's decline carries the category its documents give the status.
fn injected(path: &str, status: StatusCode) -> Response {
    let reason = status
        .canonical_reason()
        .unwrap_or("ERROR")
        .to_ascii_uppercase()
        .replace([' ', '-'], "_");
    let message = format!(
        "an armed fault (POST /__sandbox/faults) answers {}",
        status.as_u16()
    );
    match Owner::of_path(path) {
        Owner::Payment => {
            crate::errors::decline(status, &[&reason], vec![("$".to_owned(), message)])
        }
        owner => owner.refuse(status, Problem::new("INJECTED_FAULT", message)),
    }
}
