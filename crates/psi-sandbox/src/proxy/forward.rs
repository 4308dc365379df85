//! The fallback handler: every request not for `/__proxy` goes to the
//! upstream of its API family, checked on the way in and out.

use super::client::Outgoing;
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

/// Headers of one connection, not of the message (RFC 9110 7.6.1).
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

/// Reads `stream` until it ends or holds more than `limit` bytes. A body
/// that came in one chunk is that chunk, not copied.
pub(crate) async fn read_up_to<S, E>(mut stream: S, limit: usize) -> Result<Read<S>, E>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    let mut first = Bytes::new();
    // Set from the second chunk on.
    let mut joined: Option<Vec<u8>> = None;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        let length = match &mut joined {
            None if first.is_empty() => {
                first = chunk;
                first.len()
            }
            None => {
                let mut buffer = Vec::with_capacity(first.len() + chunk.len());
                buffer.extend_from_slice(&first);
                buffer.extend_from_slice(&chunk);
                joined.insert(buffer).len()
            }
            Some(buffer) => {
                buffer.extend_from_slice(&chunk);
                buffer.len()
            }
        };
        if length > limit {
            return Ok(Read::Over {
                head: joined.map_or(first, Bytes::from),
                rest: stream,
            });
        }
    }
    Ok(Read::Whole(joined.map_or(first, Bytes::from)))
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

/// `headers` without the hop-by-hop ones; moved as they are (in their
/// order) when there are none, as in most answers.
fn into_end_to_end(headers: HeaderMap) -> HeaderMap {
    if HOP_BY_HOP.iter().any(|name| headers.contains_key(*name)) {
        end_to_end(&headers, &[])
    } else {
        headers
    }
}

pub(crate) fn content_type(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
}

pub(crate) async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let method = parts.method.clone();
    let path = parts.uri.path();
    let path_and_query = parts.uri.path_and_query().map_or(path, |pq| pq.as_str());
    // The family's own address prefix (`/shop-config`) is not the
    // upstream's: the documents' paths and the upstream's URL take the rest.
    let prefixed = Family::of_prefix(path);
    let below = prefixed.map_or(0, |(family, _)| family.own_prefix().len());
    let (path, rest) = (&path[below..], &path_and_query[below..]);
    let documents = psi_drift::Documents::bundled();
    let route = documents
        .route(method.as_str(), path)
        .filter(|route| prefixed.is_none_or(|(family, _)| family.server() == route.server));
    let operation_id = route.map(|r| r.operation_id);
    let family = match prefixed {
        Some((family, _)) => family,
        None => Family::of_server(route.map_or_else(|| documents.server_of(path), |r| r.server)),
    };
    if route.is_none() {
        shared.drift.note(Note {
            operation_id: None,
            direction: Direction::Request,
            kind: Kind::UndeclaredPath,
            pointer: "",
            status: None,
            expected: None,
            example: Some(format!("{method} {}", parts.uri.path())),
        });
    }
    let Some(upstream) = shared.client.target(family) else {
        return own_answer(
            StatusCode::BAD_GATEWAY,
            json!({
                "error": format!("no upstream for the {} family: start the proxy with {} (or --upstream)", family.server(), family.flag()),
                "flag": family.flag(),
            }),
        );
    };
    // What a recording keeps, copied only when there is a recording.
    let mut exchange = shared.recorder.as_ref().map(|_| {
        let whole = parts.uri.path_and_query().map_or("/", |pq| pq.as_str());
        Exchange::new(method.as_str(), whole, operation_id.map(str::to_owned))
    });

    // The request: read up to the limit, checked, the audience rewritten.
    let mut request_headers = end_to_end(&parts.headers, &[header::HOST]);
    if let Some(exchange) = &mut exchange {
        // A recording keeps the message's headers, not its length.
        let recorded = end_to_end(&parts.headers, &[header::HOST, header::CONTENT_LENGTH]);
        exchange.request_headers(&recorded);
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
            if operation_id == Some(TOKEN_OPERATION) {
                let own = own_prefixes(&shared, &parts.headers);
                if let Some(rewritten) = rewrite_audience(&bytes, &own, &shared.upstreams) {
                    bytes = Bytes::from(rewritten);
                }
                // The client's length is not the rewritten body's: the
                // upstream's client (`client.rs`) sets the body's own.
                request_headers.remove(header::CONTENT_LENGTH);
            }
            if let Some(id) = operation_id {
                let ct = content_type(&parts.headers);
                match coding::decode(
                    header_text(&parts.headers, header::CONTENT_ENCODING),
                    &bytes,
                    shared.max_body,
                ) {
                    Decoded::Body(decoded) => shared.drift.request(id, ct, &decoded),
                    Decoded::TooLarge => too_large(&shared, Some(id), Direction::Request, None),
                    Decoded::Unreadable(why) => unread(&shared, id, Direction::Request, None, why),
                }
            }
            if let Some(exchange) = &mut exchange {
                exchange.request_body(content_type(&parts.headers), &bytes);
            }
            Outgoing::Whole(bytes)
        }
        Read::Over { head, rest } => {
            too_large(&shared, operation_id, Direction::Request, None);
            if let Some(exchange) = &mut exchange {
                exchange.request_body_omitted();
            }
            let stream = futures_util::stream::once(async move { Ok(head) }).chain(rest);
            Outgoing::Stream(Box::pin(stream))
        }
    };

    let sent = shared
        .client
        .send(upstream, method, rest, request_headers, outgoing)
        .await;
    let answer = match sent {
        Ok(answer) => answer,
        Err(error) => return unreachable(&upstream.url, &*error, "upstream unreachable"),
    };

    // The answer: passed on as it came, checked after its coding is undone.
    let (answer_parts, answer_body) = answer.into_parts();
    let status = answer_parts.status;
    let answer_headers = into_end_to_end(answer_parts.headers);
    if let Some(exchange) = &mut exchange {
        exchange.answer_headers(status.as_u16(), &answer_headers);
    }
    let body = match read_up_to(answer_body.into_data_stream(), shared.max_body).await {
        Ok(Read::Whole(bytes)) => {
            let decoded = coding::decode(
                header_text(&answer_headers, header::CONTENT_ENCODING),
                &bytes,
                shared.max_body,
            );
            if let Some(id) = operation_id {
                let ct = content_type(&answer_headers);
                let status = status.as_u16();
                match &decoded {
                    Decoded::Body(decoded) => shared.drift.answer(id, status, ct, decoded),
                    Decoded::TooLarge => {
                        too_large(&shared, Some(id), Direction::Answer, Some(status))
                    }
                    // An unread coding: the status and nothing else.
                    Decoded::Unreadable(why) => {
                        shared.drift.answer(id, status, ct, b"");
                        unread(&shared, id, Direction::Answer, Some(status), why.clone());
                    }
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
                operation_id,
                Direction::Answer,
                Some(status.as_u16()),
            );
            if let Some(exchange) = &mut exchange {
                exchange.answer_body_omitted();
            }
            Body::from_stream(futures_util::stream::once(async move { Ok(head) }).chain(rest))
        }
        Err(error) => return unreachable(&upstream.url, &error, "upstream answer broke off"),
    };
    if let (Some(recorder), Some(exchange)) = (&shared.recorder, exchange) {
        recorder.write(exchange);
    }
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = answer_headers;
    response
}

/// The 502 naming `upstream`; the error is logged without the URL (whose
/// query may carry what a recording would redact).
fn unreachable(upstream: &str, error: &dyn std::error::Error, what: &str) -> Response {
    tracing::warn!(upstream, error = %error_chain(error), "{what}");
    own_answer(
        StatusCode::BAD_GATEWAY,
        json!({"error": "upstream unreachable", "upstream": upstream}),
    )
}

/// A body whose content coding the proxy does not undo: passed on
/// unchecked, and said so in the report (`why` names the coding).
fn unread(
    shared: &Shared,
    operation_id: &str,
    direction: Direction,
    status: Option<u16>,
    why: String,
) {
    shared.drift.note(Note {
        operation_id: Some(operation_id),
        direction,
        kind: Kind::UncheckedCoding,
        pointer: "",
        status,
        expected: Some(
            "a content coding the proxy undoes (gzip, deflate, br): the body is not checked"
                .to_owned(),
        ),
        example: Some(format!("Content-Encoding {why}")),
    });
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

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, value.parse().unwrap());
        }
        headers
    }

    fn names(headers: &HeaderMap) -> Vec<&str> {
        headers.iter().map(|(name, _)| name.as_str()).collect()
    }

    #[test]
    fn hop_by_hop_headers_and_those_connection_names_are_dropped_in_order() {
        let answer = headers(&[
            ("content-type", "application/json"),
            ("connection", "close, x-private"),
            ("x-private", "1"),
            ("transfer-encoding", "chunked"),
            ("date", "now"),
            ("x-kept", "2"),
        ]);
        assert_eq!(
            names(&into_end_to_end(answer)),
            ["content-type", "date", "x-kept"]
        );
        let plain = headers(&[("x-b", "1"), ("content-type", "text/plain"), ("x-a", "2")]);
        assert_eq!(
            names(&into_end_to_end(plain)),
            ["x-b", "content-type", "x-a"]
        );
    }
}
