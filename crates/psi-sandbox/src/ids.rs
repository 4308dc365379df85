//! The rule for ids taken from the path (partner profile, shop, buyer,
//! bank account reference, transaction, session, ...), checked after
//! routing for every route.
//!
//! The specification types these ids as plain strings and states no
//! pattern (except the storefront's orderId, which its handlers check
//! against `^[0-9a-f]{32}$`). So the sandbox refuses only what no id can
//! reasonably be, and would turn a stored key into a path trick:
//!
//! - an empty id;
//! - an id with a control character (`\0`, a line break, DEL, ...), also
//!   when percent-encoded (`%00`);
//! - a dot-segment (`.` or `..`) or an id containing `/` (`..%2F..`): an id
//!   is one path segment, and these would address another resource once
//!   the id is put back into a path.
//!
//! Anything else (spaces, `%`, unicode, very long ids) is an id. No
//! resource can have a refused id, so it answers 404 (not found: the status
//! every such operation declares, and for the shop configuration the one the
//! specification gives for an unknown partner profile) in the error body of
//! the API ([`crate::api_errors`]), naming the path parameter; a segment that
//! is not UTF-8 once decoded is refused the same way.

use crate::api_errors::{Owner, Problem};
use axum::extract::rejection::RawPathParamsRejection;
use axum::extract::{RawPathParams, Request};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;

/// The middleware (`route_layer(axum::middleware::from_fn(ids::check))`).
pub async fn check(
    // Borrowed, decoded: no string is copied (refused when a decoded
    // segment is not UTF-8, as `Path` is).
    params: Result<RawPathParams, RawPathParamsRejection>,
    request: Request,
    next: Next,
) -> Response {
    let owner = Owner::of_path(request.uri().path());
    // The storefront's handlers check orderId against its documented
    // pattern and answer per operation (7.x info: 404, others: 400); only
    // an id axum cannot even decode is answered here, the same way.
    if owner == Owner::Storefront {
        if params.is_err() {
            let status = if request.uri().path().ends_with("/gateway/info") {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::BAD_REQUEST
            };
            return owner.refuse(
                status,
                Problem::new("INVALID_PATH_PARAMETER", "orderId is not valid UTF-8").at("orderId"),
            );
        }
        return next.run(request).await;
    }
    let refused = match params {
        Ok(params) => params.iter().find_map(|(name, value)| {
            refusal(value).map(|rule| Problem::new("UNKNOWN_ID", rule).at(name))
        }),
        Err(_) => Some(Problem::new(
            "UNKNOWN_ID",
            "a path segment is not valid UTF-8 once percent-decoded",
        )),
    };
    match refused {
        Some(problem) => owner.refuse(StatusCode::NOT_FOUND, problem),
        None => next.run(request).await,
    }
}

/// Why `id` (percent-decoded) is no id, if it is not.
pub fn refusal(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        Some("must not be empty")
    } else if id.chars().any(char::is_control) {
        Some("must not contain control characters")
    } else if id == "." || id == ".." {
        Some("must not be a dot-segment (. or ..)")
    } else if id.contains('/') {
        Some("must not contain /")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::refusal;

    #[test]
    fn only_unreasonable_ids_are_refused() {
        for id in [
            "", "\0", "a\nb", "x\u{7f}", "\u{85}", ".", "..", "../..", "a/b",
        ] {
            assert!(refusal(id).is_some(), "{id:?}");
        }
        for id in [
            "partner-1",
            "shop 7",
            "...",
            ".hidden",
            "a..b",
            "100%",
            "Zürich",
            "12-34567890123456789",
            &"x".repeat(5000),
        ] {
            assert_eq!(refusal(id), None, "{id:?}");
        }
    }
}
