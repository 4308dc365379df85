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

use axum::http::{HeaderValue, StatusCode};
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
            return Some("status is not an HTTP status (100 to 999)".to_owned());
        }
        if self.count == 0 {
            return Some("count must be at least 1: a fault for no call never applies".to_owned());
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
