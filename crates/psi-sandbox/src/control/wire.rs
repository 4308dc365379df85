//! What the control API's server and its Rust client share: the path
//! prefix and the shapes both sides read and write, which are the types
//! generated from `openapi/sandbox-control.yaml` ([`super::types`]).

/// Path prefix of the control API.
pub use crate::auth::control_door::PREFIX;

/// A stored transaction as `GET /__sandbox/transactions/{id}` answers it,
/// and a request the sandbox answered as `GET /__sandbox/requests` lists it.
pub use super::types::{JournalEntry, StoredTransaction};
