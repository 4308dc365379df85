//! What the control API's server and its Rust client share: the path
//! prefix and the shapes both sides read and write.

use chrono::{DateTime, FixedOffset, NaiveDate, Utc};
use psi_payment_page::types::OrderData;
use serde::{Deserialize, Serialize};

/// Path prefix of the control API.
pub use crate::auth::control_door::PREFIX;

/// A stored transaction as `GET /__sandbox/transactions/{id}` answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredTransaction {
    /// The transaction the completed session created.
    pub transaction_id: String,
    /// The completed session's id.
    pub session_id: String,
    /// When the record was created (sandbox clock).
    pub created: DateTime<FixedOffset>,
    /// What the buyer chose, e.g. `OPEN_INVOICE`.
    pub payment_option: String,
    /// E.g. `BANK_TRANSFER`.
    pub transfer_type: String,
    /// The invoice's correspondence id.
    pub correspondence_id: uuid::Uuid,
    /// The invoice's due date (moved by a pay later booking).
    pub due_date: NaiveDate,
    /// The order data of the session request, as stored.
    pub order_data: Option<OrderData>,
}

/// A request the sandbox answered, as `GET /__sandbox/requests` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path and query, every IBAN in them masked (`DE89…3000`).
    pub path: String,
    /// The operationId the route serves; `-` for the hosted page.
    pub operation_id: String,
    /// The answer's status.
    pub status: u16,
    /// When the answer was ready (UTC, wall clock).
    pub at: DateTime<Utc>,
    /// How long the answer took, in milliseconds.
    pub duration_ms: f64,
}
