//! The fallback handler: every request not for `/__proxy` goes to the
//! upstream of its API family, checked on the way in and out.

use super::coding::{self, Decoded};
use super::record::Exchange;
use super::upstreams::{rewrite_audience, Family};
use super::{own_answer, Shared};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderName, StatusCode};
use axum::response::Response;
use futures_util::{Stream, StreamExt};
use psi_drift::{Direction, Kind, Note};
use serde_json::json;
use std::sync::Arc;

/// The operation whose request body names an audience.
const TOKEN_OPERATION: &str = "getToken";

/// Headers of one connection, not of the message (RFC 9110 7.6.1), plus
/// `Host` (set for the upstream) and `Content-Length` (set for the body
/// sent).
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// A body read up to the limit: whole, or its first bytes and the rest
/// still to come.
pub(crate) enum Read<S> {
    Whole(Bytes),
    Over { head: Bytes, rest: S },
}

/// Reads `stream` until it ends or holds more than `limit` bytes.
pub(crate) async fn read_up_to<S, E>(mut stream: S, limit: usize) -> Result<Read<S>, E>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    let mut buffer = Vec::new();
    while let Some(chunk) = stream.next().await {
        buffer.extend_from_slice(&chunk?);
        if buffer.len() > limit {
            return Ok(Read::Over {
                head: Bytes::from(buffer),
                rest: stream,
            });
        }
    }
    Ok(Read::Whole(Bytes::from(buffer)))
}

/// Headers without the hop-by-hop ones (and those the `Connection` header names).
pub(crate) fn end_to_end(headers: &HeaderMap, also: &[HeaderName]) -> HeaderMap {
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_ascii_lowercase())
        .collect();
    let mut kept = HeaderMap::new();
    for (name, value) in headers {
        let lower = name.as_str();
        if HOP_BY_HOP.contains(&lower) || named.iter().any(|n| n == lower) || also.contains(name) {
            continue;
        }
        kept.append(name.clone(), value.clone());
    }
    kept
}

pub(crate) fn content_type(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
}

pub(crate) async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let method = parts.method.clone();
    let path = parts.uri.path().to_owned();
    let path_and_query = parts
        .uri
        .path_and_query()
        .map_or_else(|| path.clone(), |pq| pq.as_str().to_owned());
    let documents = psi_drift::Documents::bundled();
    let route = documents.route(method.as_str(), &path);
    let operation_id = route.map(|r| r.operation_id.to_owned());
    let family = Family::of_server(route.map_or_else(|| documents.server_of(&path), |r| r.server));
    if route.is_none() {
        shared.drift.note(Note {
            operation_id: None,
            direction: Direction::Request,
            kind: Kind::UndeclaredPath,
            pointer: "",
            status: None,
            expected: None,
            example: Some(format!("{method} {path}")),
        });
    }
    let Some(upstream) = shared.upstreams.get(family) else {
        return own_answer(
            StatusCode::BAD_GATEWAY,
            json!({
                "error": format!("no upstream for the {} family: start the proxy with {} (or --upstream)", family.server(), family.flag()),
                "flag": family.flag(),
            }),
        );
    };
    // What a recording keeps, copied only when there is a recording.
    let mut exchange = shared
        .recorder
        .as_ref()
        .map(|_| Exchange::new(method.as_str(), &path_and_query, operation_id.clone()));

    // The request: read up to the limit, checked, the audience rewritten.
    let request_headers = end_to_end(&parts.headers, &[header::HOST, header::CONTENT_LENGTH]);
    if let Some(exchange) = &mut exchange {
        exchange.request_headers(&request_headers);
    }
    let read = match read_up_to(body.into_data_stream(), shared.max_body).await {
        Ok(read) => read,
        Err(_) => {
            return own_answer(
                StatusCode::BAD_REQUEST,
                json!({"error": "the request body could not be read"}),
            )
        }
    };
    let outgoing = match read {
        Read::Whole(bytes) => {
            let mut bytes = bytes;
            if operation_id.as_deref() == Some(TOKEN_OPERATION) {
                let own = own_prefixes(&shared, &parts.headers);
                if let Some(rewritten) = rewrite_audience(&bytes, &own, &shared.upstreams) {
                    bytes = Bytes::from(rewritten);
                }
            }
            if let Some(id) = &operation_id {
                let ct = content_type(&parts.headers);
                match coding::decode(
                    header_text(&parts.headers, header::CONTENT_ENCODING),
                    &bytes,
                    shared.max_body,
                ) {
                    Decoded::Body(decoded) => shared.drift.request(id, ct, &decoded),
                    Decoded::TooLarge => too_large(&shared, Some(id), Direction::Request, None),
                    Decoded::Unreadable => {}
                }
            }
            if let Some(exchange) = &mut exchange {
                exchange.request_body(content_type(&parts.headers), &bytes);
            }
            reqwest::Body::from(bytes)
        }
        Read::Over { head, rest } => {
            too_large(&shared, operation_id.as_deref(), Direction::Request, None);
            if let Some(exchange) = &mut exchange {
                exchange.request_body_omitted();
            }
            let stream = futures_util::stream::once(async move { Ok(head) }).chain(rest);
            reqwest::Body::wrap_stream(stream)
        }
    };

    let mut forwarded = shared
        .http
        .request(method.clone(), format!("{upstream}{path_and_query}"))
        .headers(request_headers);
    if let Some(length) = parts.headers.get(header::CONTENT_LENGTH) {
        // Only a body passed on whole keeps its length (a rewritten one
        // gets its own from reqwest).
        if operation_id.as_deref() != Some(TOKEN_OPERATION) {
            forwarded = forwarded.header(header::CONTENT_LENGTH, length.clone());
        }
    }
    let answer = match forwarded.body(outgoing).send().await {
        Ok(answer) => answer,
        Err(error) => {
            let error = error.without_url();
            tracing::warn!(upstream, error = %error_chain(&error), "upstream unreachable");
            return own_answer(
                StatusCode::BAD_GATEWAY,
                json!({"error": "upstream unreachable", "upstream": upstream}),
            );
        }
    };

    // The answer: passed on as it came, checked after its coding is undone.
    let status = answer.status();
    let answer_headers = end_to_end(answer.headers(), &[]);
    if let Some(exchange) = &mut exchange {
        exchange.answer_headers(status.as_u16(), &answer_headers);
    }
    let mut response = Response::builder().status(status);
    if let Some(headers) = response.headers_mut() {
        *headers = answer_headers.clone();
    }
    let body = match read_up_to(answer.bytes_stream(), shared.max_body).await {
        Ok(Read::Whole(bytes)) => {
            let decoded = coding::decode(
                header_text(&answer_headers, header::CONTENT_ENCODING),
                &bytes,
                shared.max_body,
            );
            if let Some(id) = &operation_id {
                let ct = content_type(&answer_headers);
                match &decoded {
                    Decoded::Body(decoded) => {
                        shared.drift.answer(id, status.as_u16(), ct, decoded);
                    }
                    Decoded::TooLarge => {
                        too_large(&shared, Some(id), Direction::Answer, Some(status.as_u16()));
                    }
                    // An unread coding: the status and nothing else.
                    Decoded::Unreadable => shared.drift.answer(id, status.as_u16(), ct, b""),
                }
            }
            if let Some(exchange) = &mut exchange {
                match decoded {
                    Decoded::Body(decoded) => {
                        exchange.answer_body(content_type(&answer_headers), &decoded);
                    }
                    _ => exchange.answer_body_omitted(),
                }
            }
            Body::from(bytes)
        }
        Ok(Read::Over { head, rest }) => {
            too_large(
                &shared,
                operation_id.as_deref(),
                Direction::Answer,
                Some(status.as_u16()),
            );
            if let Some(exchange) = &mut exchange {
                exchange.answer_body_omitted();
            }
            Body::from_stream(futures_util::stream::once(async move { Ok(head) }).chain(rest))
        }
        Err(error) => {
            let error = error.without_url();
            tracing::warn!(upstream, error = %error_chain(&error), "upstream answer broke off");
            return own_answer(
                StatusCode::BAD_GATEWAY,
                json!({"error": "upstream unreachable", "upstream": upstream}),
            );
        }
    };
    if let (Some(recorder), Some(exchange)) = (&shared.recorder, exchange) {
        recorder.write(exchange);
    }
    response.body(body).unwrap_or_else(|_| {
        own_answer(
            StatusCode::BAD_GATEWAY,
            json!({"error": "the upstream's answer could not be passed on", "upstream": upstream}),
        )
    })
}

/// The prefixes an audience naming the proxy starts with: its listening
/// address and the `Host` the client reached it by.
fn own_prefixes(shared: &Shared, headers: &HeaderMap) -> Vec<String> {
    let mut own = vec![shared.url.clone()];
    if let Some(host) = header_text(headers, header::HOST) {
        own.push(format!("http://{host}"));
        own.push(format!("https://{host}"));
    }
    own
}

pub(crate) fn header_text(headers: &HeaderMap, name: HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

pub(crate) fn too_large(
    shared: &Shared,
    operation_id: Option<&str>,
    direction: Direction,
    status: Option<u16>,
) {
    shared.drift.note(Note {
        operation_id,
        direction,
        kind: Kind::TooLarge,
        pointer: "",
        status,
        expected: Some(format!("at most {} bytes (--max-body)", shared.max_body)),
        example: None,
    });
}

/// An error with its causes, for the log (given without its URL, whose
/// query may carry what a recording would redact).
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
