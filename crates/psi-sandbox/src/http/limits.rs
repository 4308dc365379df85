//! The checks every request passes before routing: size limits, then
//! numbers written with an exponent rewritten as plain decimals
//! ([`crate::numbers::normalize`]; exactness is checked where a declared
//! field takes a number, [`crate::typed`]).
//!
//! | limit | answer |
//! |---|---|
//! | request target longer than [`MAX_URI_BYTES`] | 414 |
//! | header names and values together over [`MAX_HEADER_BYTES`] | 431 |
//! | body over [`MAX_BODY_BYTES`] (declared or sent) | 413 |
//! | body unreadable (broken chunking, connection lost) | 400 |
//!
//! Each in the error body of the API that owns the path
//! ([`crate::refusals`]). Heads too large for hyper itself to parse are
//! answered the same way by [`crate::http::serve`].

use crate::refusals::{Family, Problem};
use axum::body::HttpBody as _;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

/// The longest request target (path and query) served.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// The most header bytes (names, values and ": " and CRLF each) served.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;
/// The largest body served; also axum's default body limit.
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Before routing ([`crate::router`]): the rest of the stack answers
/// `request` if it is within the limits; otherwise the refusal is answered.
///
/// A request without a body (every GET a client sends) has nothing to
/// read or rewrite: it goes on as it came, without a new body. Reading a
/// body is boxed, so that its future is not part of every request's
/// (the whole request's future is moved as it is built, layer by layer).
pub async fn enforce(request: Request, next: Next) -> Response {
    let refused = |request: &Request, (status, problem)| {
        Family::of_path(request.uri().path()).refuse(status, problem)
    };
    if let Err(refusal) = head_within_limits(&request) {
        return refused(&request, refusal);
    }
    if request.body().is_end_stream() {
        return next.run(request).await;
    }
    let family = Family::of_path(request.uri().path());
    match Box::pin(with_plain_body(request)).await {
        Ok(request) => next.run(request).await,
        Err((status, problem)) => family.refuse(status, problem),
    }
}

/// The request target, the headers and the declared body length.
fn head_within_limits(request: &Request) -> Result<(), (StatusCode, Problem)> {
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |target| target.as_str().len());
    if target > MAX_URI_BYTES {
        return Err((
            StatusCode::URI_TOO_LONG,
            Problem::new(
                "URI_TOO_LONG",
                format!("the request target is {target} bytes, at most {MAX_URI_BYTES} are served"),
            ),
        ));
    }
    let headers: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if headers > MAX_HEADER_BYTES {
        return Err((
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Problem::new(
                "HEADERS_TOO_LARGE",
                format!("the headers are {headers} bytes, at most {MAX_HEADER_BYTES} are served"),
            ),
        ));
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|length| length.to_str().ok())
        .and_then(|length| length.parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        return Err(too_large());
    }
    Ok(())
}

/// The request with its whole body read (within the limit) and its
/// numbers rewritten as plain decimals.
async fn with_plain_body(request: Request) -> Result<Request, (StatusCode, Problem)> {
    let (mut parts, body) = request.into_parts();
    let bytes = read_body(body).await?;
    let bytes = match plain_numbers(&bytes) {
        Some(rewritten) => {
            parts
                .headers
                .insert(header::CONTENT_LENGTH, HeaderValue::from(rewritten.len()));
            rewritten
        }
        None => bytes,
    };
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// The whole body, read here so that an oversized or broken one is
/// answered in the API's shape rather than by the extractor's plain text.
async fn read_body(body: Body) -> Result<Bytes, (StatusCode, Problem)> {
    axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .map_err(|error| {
            let too_long = std::error::Error::source(&error)
                .is_some_and(|source| source.is::<http_body_util::LengthLimitError>());
            if too_long {
                too_large()
            } else {
                (
                    StatusCode::BAD_REQUEST,
                    Problem::new("MALFORMED_BODY", "the body could not be read"),
                )
            }
        })
}

fn too_large() -> (StatusCode, Problem) {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        Problem::new(
            "PAYLOAD_TOO_LARGE",
            format!("the body is larger than {MAX_BODY_BYTES} bytes"),
        ),
    )
}

/// `None`: the body is not JSON or its numbers are plain decimals already;
/// `Some`: the body with its numbers rewritten ([`crate::numbers::normalize`]).
fn plain_numbers(body: &[u8]) -> Option<Bytes> {
    let starts_like_json = body
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'{' | b'['));
    if !starts_like_json {
        return None;
    }
    // Not JSON (or nested past serde_json's depth limit): the handler's
    // parser answers that in its own words.
    let text = std::str::from_utf8(body).ok()?;
    serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
    crate::numbers::normalize(text).map(Bytes::from)
}
