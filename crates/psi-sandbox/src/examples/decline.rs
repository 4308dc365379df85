//! The refusal of a request to a document served from its examples: the
//! payment APIs' error body. The request's checks, the answer (a `Prefer`
//! it cannot honour) and the router (an unknown path or method) refuse
//! with it.

use axum::http::StatusCode;
use axum::response::Response;

/// A decline (the payment APIs' error body) with one reason.
pub fn decline(status: StatusCode, reason: &str, fields: Vec<(String, String)>) -> Response {
    crate::errors::decline(status, &[reason], fields)
}
