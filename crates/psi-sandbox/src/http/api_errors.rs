//! The error body of the API that owns a path.
//!
//! The checks that run before any handler (size limits, path ids, exact
//! numbers, unknown paths) and hyper's own refusals (see [`crate::http::serve`])
//! answer in the error shape of the API the request was meant for, always
//! as `application/json`:
//!
//! | path prefix | API | error body |
//! |---|---|---|
//! | `/pps/`, `/order/`, `/shop/consumer/`, `/transaction/`, `/api/order/` | payment APIs | `{"decline": {"category", "reasons", "invalid_fields"}}` |
//! | `/oauth/token`, `/api/oauth/token` | token endpoints | `{"error", "error_description"}` |
//! | `/shop-config/` | shop configuration | `{"message", "errors": {field: [..]}}` |
//! | `/api/` (other) | storefront module | `{"success": false, "message"}` |
//! | `/__sandbox` and anything else | test-control API | `{"error"}` |

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// The API that owns a path, by the error body it answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// Payment page, pay later, bank accounts, order status (with the
    /// invoice retrieval), transaction status: the decline body.
    Payment,
    /// The token server and the platform's token endpoint.
    Token,
    ShopConfig,
    Storefront,
    /// The test-control API, and paths no API owns.
    Control,
}

/// Prefixes of the payment APIs (see `apis/`).
const PAYMENT_PREFIXES: &[&str] = &[
    "/pps/",
    "/order/",
    "/shop/consumer/",
    "/transaction/",
    "/api/order/",
];

impl Owner {
    /// The owner of `path` (the path part of the request URI, undecoded).
    pub fn of_path(path: &str) -> Owner {
        if path == "/oauth/token" || path == "/api/oauth/token" {
            Owner::Token
        } else if PAYMENT_PREFIXES.iter().any(|p| path.starts_with(p)) {
            Owner::Payment
        } else if path.starts_with("/shop-config/") {
            Owner::ShopConfig
        } else if path.starts_with("/api/") {
            Owner::Storefront
        } else {
            Owner::Control
        }
    }

    /// `status` with this API's error body, as `application/json`.
    pub fn refuse(self, status: StatusCode, problem: Problem) -> Response {
        (status, Json(self.body(status, problem))).into_response()
    }

    /// This API's error body. `reason` is the decline reason; `field`, when
    /// given, is the JSON path (`$.a.b[0]`) or path parameter name the
    /// problem is in.
    pub fn body(self, status: StatusCode, problem: Problem) -> serde_json::Value {
        let Problem {
            reason,
            field,
            message,
        } = problem;
        let located = match &field {
            Some(field) => format!("{field}: {message}"),
            None => message.clone(),
        };
        match self {
            Owner::Payment => crate::errors::decline_body(
                Some(decline_category(status)),
                &[reason],
                field.map(|field| (field, message)).into_iter().collect(),
            ),
            Owner::Token => serde_json::json!({
                "error": "invalid_request",
                "error_description": located,
            }),
            Owner::ShopConfig => {
                let errors = match field {
                    // The service keys errors by dotted field path, not `$.`.
                    Some(field) => serde_json::json!({ dotted(&field): [message] }),
                    None => serde_json::json!({}),
                };
                serde_json::json!({"message": located, "errors": errors})
            }
            Owner::Storefront => serde_json::json!({"success": false, "message": located}),
            Owner::Control => serde_json::json!({"error": located}),
        }
    }
}

/// What went wrong, for [`Owner::refuse`].
#[derive(Debug, Clone)]
pub struct Problem {
    pub reason: &'static str,
    pub field: Option<String>,
    pub message: String,
}

impl Problem {
    pub fn new(reason: &'static str, message: impl Into<String>) -> Self {
        Problem {
            reason,
            field: None,
            message: message.into(),
        }
    }

    pub fn at(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

/// The provider's public documentation (docs/service-notes.md) give a category per status; the refusals made before a
/// handler runs are all about the request's form, so the rest are SYNTAX.
fn decline_category(status: StatusCode) -> &'static str {
    match status.as_u16() {
        404 => "RESOURCE_NOT_FOUND",
        _ => "SYNTAX",
    }
}

/// `$.address.postal_code` -> `address.postal_code`.
fn dotted(field: &str) -> String {
    field
        .strip_prefix("$.")
        .or_else(|| field.strip_prefix('$'))
        .unwrap_or(field)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_their_api() {
        for (path, owner) in [
            ("/pps/api/v1/session", Owner::Payment),
            ("/order/paylater/v1/12-1/status", Owner::Payment),
            (
                "/shop/consumer/v1/partners/p/consumer/b/bank-accounts",
                Owner::Payment,
            ),
            ("/transaction/status/v2/transactions/1", Owner::Payment),
            (
                "/api/order/1/correspondences/invoices/2/pdf",
                Owner::Payment,
            ),
            ("/oauth/token", Owner::Token),
            ("/api/oauth/token", Owner::Token),
            ("/shop-config/v2/partners/p/shops/s", Owner::ShopConfig),
            ("/api/_action/order/1/gateway/info", Owner::Storefront),
            ("/api/gateway/order-management/load/1", Owner::Storefront),
            ("/__sandbox/clock/advance", Owner::Control),
            ("/nowhere", Owner::Control),
        ] {
            assert_eq!(Owner::of_path(path), owner, "{path}");
        }
    }
}
