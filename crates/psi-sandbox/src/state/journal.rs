//! The request journal: the most recent requests the sandbox answered, for
//! a test that asks what the sandbox received (`GET /__sandbox/requests`;
//! `DELETE` empties it).
//!
//! Each entry is what the request log line shows (method, path with IBANs
//! masked, operationId, status, duration) and when it was answered (UTC,
//! wall clock). Calls to the control API itself are not kept. At most
//! [`KEPT`] entries are kept, the oldest dropped first.

use serde::Serialize;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// How many requests the journal keeps.
pub const KEPT: usize = 1_000;

/// One answered request.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    #[serde(serialize_with = "method_name")]
    pub method: axum::http::Method,
    /// Path and query, every IBAN in them masked.
    pub path: String,
    /// The operationId the route declares; `-` for routes that are no
    /// document's operation (the hosted page).
    pub operation_id: &'static str,
    pub status: u16,
    /// When the answer was ready (UTC, wall clock).
    pub at: chrono::DateTime<chrono::Utc>,
    pub duration_ms: f64,
}

fn method_name<S: serde::Serializer>(
    method: &axum::http::Method,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(method.as_str())
}

/// The journal, shared by the request log layer (which writes it) and the
/// control API (which reads and empties it).
#[derive(Clone, Default)]
pub struct Journal(Arc<Mutex<VecDeque<Entry>>>);

impl Journal {
    /// Keeps `entry`, dropping the oldest beyond [`KEPT`].
    pub fn record(&self, entry: Entry) {
        let mut entries = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() >= KEPT {
            entries.pop_front();
        }
        entries.push_back(entry);
    }

    /// Every kept entry, oldest first.
    pub fn entries(&self) -> Vec<Entry> {
        let entries = self.0.lock().unwrap_or_else(|p| p.into_inner());
        entries.iter().cloned().collect()
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}
