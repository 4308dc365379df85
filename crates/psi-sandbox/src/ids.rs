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
//! the API ([`crate::refusals`]), naming the path parameter; a segment that
//! is not UTF-8 once decoded is refused the same way.

use crate::refusals::{Family, Problem};
use axum::extract::{FromRequestParts, RawPathParams, Request};
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::future::{Either, FutureExt as _, Ready};
use std::convert::Infallible;
use std::task::{Context, Poll};

/// The rule as a route layer (`route_layer(ids::Check)`): a plain tower
/// layer rather than an axum `from_fn` middleware, which would clone the
/// boxed route and box a future on every request.
#[derive(Clone, Copy)]
pub struct Check;

impl<S> tower::Layer<S> for Check {
    type Service = Checked<S>;

    fn layer(&self, route: S) -> Checked<S> {
        Checked { route }
    }
}

/// A route behind the rule.
#[derive(Clone)]
pub struct Checked<S> {
    route: S,
}

impl<S> tower::Service<Request> for Checked<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<Ready<Result<Response, Infallible>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.route.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        match refused(request) {
            Ok(request) => Either::Right(self.route.call(request)),
            Err(refusal) => Either::Left(futures_util::future::ready(Ok(refusal))),
        }
    }
}

/// The request back when its path ids pass, the refusal otherwise.
fn refused(request: Request) -> Result<Request, Response> {
    let (mut parts, body) = request.into_parts();
    // Borrowed, decoded: no string is copied (refused when a decoded
    // segment is not UTF-8, as `Path` is). Reading the router's match
    // never waits.
    let params = RawPathParams::from_request_parts(&mut parts, &())
        .now_or_never()
        .expect("path parameters are read without waiting");
    let family = Family::of_path(parts.uri.path());
    // The storefront's handlers check orderId against its documented
    // pattern and answer per operation (7.x info: 404, others: 400); only
    // an id axum cannot even decode is answered here, the same way.
    let refusal = if family == Family::Storefront {
        params.is_err().then(|| {
            let status = if parts.uri.path().ends_with("/gateway/info") {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::BAD_REQUEST
            };
            family.refuse(
                status,
                Problem::new("INVALID_PATH_PARAMETER", "orderId is not valid UTF-8").at("orderId"),
            )
        })
    } else {
        let refused = match &params {
            Ok(params) => params.iter().find_map(|(name, value)| {
                refusal(value).map(|rule| Problem::new("UNKNOWN_ID", rule).at(name))
            }),
            Err(_) => Some(Problem::new(
                "UNKNOWN_ID",
                "a path segment is not valid UTF-8 once percent-decoded",
            )),
        };
        refused.map(|problem| family.refuse(StatusCode::NOT_FOUND, problem))
    };
    match refusal {
        Some(refusal) => Err(refusal),
        None => Ok(Request::from_parts(parts, body)),
    }
}

/// Why `id` (percent-decoded) is no id, if it is not.
pub fn refusal(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        Some("must not be empty")
    } else if has_control_character(id) {
        Some("must not contain control characters")
    } else if id == "." || id == ".." {
        Some("must not be a dot-segment (. or ..)")
    } else if id.contains('/') {
        Some("must not contain /")
    } else {
        None
    }
}

/// Whether `id` holds a control character (Unicode's `Cc`: U+0000 to
/// U+001F and U+007F to U+009F). An ASCII id, the usual one, is checked
/// byte by byte without decoding its characters.
fn has_control_character(id: &str) -> bool {
    if id.is_ascii() {
        id.bytes().any(|b| b < b' ' || b == 0x7f)
    } else {
        id.chars().any(char::is_control)
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
        for byte in 0..=0x7fu8 {
            let id = char::from(byte).to_string();
            assert_eq!(
                super::has_control_character(&id),
                char::from(byte).is_control(),
                "{byte:#x}"
            );
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
