//! The Idempotency-Key of a session creation: how long a key may be, how
//! long it is remembered, and what is remembered of the call it came with.

use super::canonical;
use chrono::{DateTime, Duration, FixedOffset};
use serde::{Deserialize, Serialize};

/// The longest Idempotency-Key the document allows.
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 64;

/// How long an Idempotency-Key is remembered (docs/service-notes.md).
pub const IDEMPOTENCY_KEY_LIFETIME: Duration = Duration::hours(24);

/// A session creation made with an Idempotency-Key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RememberedCall {
    /// The digest of the request body's canonical text ([`canonical`]): a
    /// repeat is the same call when it has the same digest.
    #[serde(default)]
    pub digest: String,
    /// The body itself, in a state file that holds no digest: read only to
    /// take its digest, never written.
    #[serde(default, skip_serializing)]
    pub body: Option<serde_json::Value>,
    pub session_id: String,
    pub remembered_at: DateTime<FixedOffset>,
}

impl RememberedCall {
    /// The digest a repeat is compared with: the one kept, or, from a state
    /// file that holds the body instead, the body's.
    pub fn request_digest(&self) -> String {
        match (&self.digest, &self.body) {
            (digest, Some(legacy)) if digest.is_empty() => {
                canonical::digest(&legacy.to_string()).unwrap_or_default()
            }
            (digest, _) => digest.clone(),
        }
    }
}
