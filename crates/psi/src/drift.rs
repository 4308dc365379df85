//! The drift report: what the service's answers and notifications carry
//! that the documents do not say (the `drift` feature).
//!
//! Turned on with [`ClientBuilder::drift`](crate::ClientBuilder::drift),
//! read with [`Client::drift`](crate::Client::drift). Each final answer of
//! every call the client makes (every API, the token requests included;
//! 2xx and not) is checked against the bundled OpenAPI documents before it
//! is decoded, and so is each notification verified by a
//! [`WebhookVerifier`](crate::webhook::WebhookVerifier) given the client
//! ([`with_drift`](crate::webhook::WebhookVerifier::with_drift)). What a
//! call returns is the same with the report on or off: the checker reads a
//! copy of the bytes psi has already read, and records.
//!
//! Each [`Finding`] names the operation, the [`Direction`] (`Answer` or
//! `Notification`), the [`Kind`], the JSON pointer in the body (array
//! indices as `*`), the status, how often it was seen, up to
//! [`Limits::max_examples`] redacted example values (never a secret or a
//! token; an IBAN by its last four characters), and the document and schema
//! that say otherwise. The report keeps at most [`Limits::max_findings`]
//! distinct findings; past that, new ones are only counted
//! ([`Report::dropped`]), so memory stays bounded however long a client runs.
//!
//! Which answers are checked: the answer a call ends with, not one that is
//! retried or sent again with a fresh token (those are dropped unread). A
//! 2xx of an operation that declares no body, or a file, is checked for its
//! status only (its body is not read by psi). A notification's media type
//! is not checked (the verifier sees the body, not the request's headers).
//!
//! Cost: an answer without findings is checked as its bytes are read
//! again, against schemas compiled once, without building a JSON value and
//! without taking the report's lock: on the overhead benchmark's small
//! answer about 4,000 instructions of a call's 107,000 (BENCHMARKS.md,
//! "The drift report's cost"). Off, the runtime's hook is one `Option`
//! check per answer.

pub use psi_drift::{
    Direction, Finding, Kind, Limits, Report, INVOICE_NOTIFICATION, SESSION_NOTIFICATION,
};

use std::sync::Arc;

/// The runtime's observer of answers, recording into `drift`.
pub(crate) fn observer(drift: Arc<psi_drift::Drift>) -> psi_runtime::Observer {
    Arc::new(move |received: &psi_runtime::Received<'_>| {
        drift.answer(
            received.operation_id,
            received.status,
            received.content_type,
            received.body,
        );
    })
}
