//! The operationId each route serves, declared beside the route, and the
//! armed faults applied there.
//!
//! [`declare`] puts a middleware on one method of one route: it takes one
//! hit of an armed fault of that operation ([`crate::faults`]) before the
//! handler runs, answers for it or replaces the handler's answer after
//! processing, answers a documented example when the request asks for
//! one (`Prefer: code=…`, [`DocumentedAnswers`]), and marks the answer with
//! its [`OperationId`] for the request log line ([`super::request_log`]).
//! The armed faults and the documented answers reach it as one request
//! extension ([`Operations`]) that [`crate::router`] adds.

use crate::faults::{Fault, Faults, Network};
use crate::refusals::{Family, Problem};
use crate::state::Tenant;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use axum::Extension;
use std::sync::Arc;
use std::time::Duration;

/// The operationId (as the documents name it) whose handler made an
/// answer; a response extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperationId(pub &'static str);

/// `route` serves the operation `id`: faults armed for `id` apply to it and
/// its answers are logged under `id`.
pub fn declare<S>(id: &'static str, route: MethodRouter<S>) -> MethodRouter<S>
where
    S: Clone + Send + Sync + 'static,
{
    route.layer(axum::middleware::from_fn_with_state(
        OperationId(id),
        declared,
    ))
}

async fn declared(
    State(id): State<OperationId>,
    Extension(operations): Extension<Operations>,
    request: Request,
    next: Next,
) -> Response {
    let Operations { documented } = operations;
    let faults = request
        .extensions()
        .get::<Arc<Tenant>>()
        .map(|tenant| tenant.faults.clone())
        .unwrap_or_default();
    serve(&faults, id.0, request, |request| async move {
        match (documented.0)(id.0, request.headers()) {
            Some(answer) => answer,
            None => next.run(request).await,
        }
    })
    .await
}

/// What the middleware of every declared route reads besides the
/// tenant's armed faults: the documented answers. A request extension that
/// [`crate::router`] adds.
#[derive(Clone)]
pub struct Operations {
    pub documented: DocumentedAnswers,
}

/// The documented answers a request asks for with `Prefer: code=<status>`
/// (and `example=<name>`), by operationId: the example of that status from
/// the operation's document, instead of the handler's work; `None` when
/// the request asks for none.
#[derive(Clone)]
pub struct DocumentedAnswers(Arc<AnswerFor>);

type AnswerFor = dyn Fn(&'static str, &HeaderMap) -> Option<Response> + Send + Sync;

impl DocumentedAnswers {
    pub fn new(
        answer: impl Fn(&'static str, &HeaderMap) -> Option<Response> + Send + Sync + 'static,
    ) -> Self {
        DocumentedAnswers(Arc::new(answer))
    }
}

/// Answers `request` for the operation `id`: through `handler`, unless an
/// armed fault of `id` answers before it or replaces its answer. The
/// answer carries [`OperationId`]. For handlers that learn their
/// operation only from the request (documents served from their examples).
pub async fn serve<F, Fut>(
    faults: &Faults,
    id: &'static str,
    request: Request,
    handler: F,
) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: std::future::Future<Output = Response>,
{
    let mut response = match faults.take(id) {
        None => handler(request).await,
        Some(fault) => Box::pin(with_fault(fault, request, handler)).await,
    };
    response.extensions_mut().insert(OperationId(id));
    response
}

/// What an armed `fault` does to the call: a delay, then its answer
/// instead of the handler's, or the handler's work with its answer
/// replaced afterwards; either answer may be lost to a network failure
/// ([`Network`]).
async fn with_fault<F, Fut>(fault: Fault, request: Request, handler: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: std::future::Future<Output = Response>,
{
    if fault.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(fault.delay_ms)).await;
    }
    let answer = if fault.after_processing {
        let processed = handler(request).await;
        match fault.status {
            Some(_) => replacement(&fault),
            None => processed,
        }
    } else if fault.network == Some(Network::Drop) {
        return close_without_answer();
    } else {
        let path = request.uri().path().to_owned();
        match before_processing(&fault, &path) {
            Some(answer) => answer,
            None => handler(request).await,
        }
    };
    match fault.network {
        None => answer,
        Some(Network::Drop) => close_without_answer(),
        Some(Network::Empty) => cut(answer, false).await,
        Some(Network::Truncated) => cut(answer, true).await,
    }
}

/// Asks the connection server to close the connection without an answer
/// ([`super::serve`] does, when an answer carries [`CloseWithoutAnswer`]).
fn close_without_answer() -> Response {
    let mut response = Response::new(Body::empty());
    response.extensions_mut().insert(CloseWithoutAnswer);
    response
}

/// Marks an answer that must never be sent: the connection closes instead.
#[derive(Debug, Clone, Copy)]
pub struct CloseWithoutAnswer;

/// `answer` with its whole length announced but only half of its body
/// (`half`) or none of it sent before the connection fails.
async fn cut(answer: Response, half: bool) -> Response {
    let (mut parts, body) = answer.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    parts.headers.insert(
        axum::http::header::CONTENT_LENGTH,
        axum::http::HeaderValue::from(bytes.len()),
    );
    let sent = if half {
        bytes.slice(..bytes.len() / 2)
    } else {
        Bytes::new()
    };
    let frames = [
        Ok(sent),
        Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionAborted,
            "an armed fault cuts the answer",
        )),
    ];
    Response::from_parts(parts, Body::from_stream(futures_util::stream::iter(frames)))
}

/// The answer of a fault before processing to a call of `path`, if
/// it has a status (without one the call proceeds after the delay):
/// an error status in the error body of the API owning `path`, any
/// other with an empty JSON object.
fn before_processing(fault: &Fault, path: &str) -> Option<Response> {
    let status = StatusCode::from_u16(fault.status?).ok()?;
    let mut response = if status.is_client_error() || status.is_server_error() {
        injected(path, status)
    } else {
        (status, axum::Json(serde_json::json!({}))).into_response()
    };
    if status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert("retry-after", HeaderValue::from_static("0"));
    }
    Some(response)
}

/// The answer replacing the handler's after processing: the fault's
/// status, body and Content-Type.
fn replacement(fault: &Fault) -> Response {
    let status = fault
        .status
        .and_then(|status| StatusCode::from_u16(status).ok())
        .unwrap_or(StatusCode::OK);
    let Some(body) = &fault.body else {
        return status.into_response();
    };
    let content_type = fault.content_type.as_deref().unwrap_or("application/json");
    let content_type = HeaderValue::from_str(content_type)
        .unwrap_or_else(|_| HeaderValue::from_static("application/json"));
    (
        status,
        [(header::CONTENT_TYPE, content_type)],
        body.to_string(),
    )
        .into_response()
}

/// An injected error `status` in the error body of the API owning `path`:
/// the reason is the status's name (`SERVICE_UNAVAILABLE`); a payment
/// API's decline carries the category its documents give the status.
fn injected(path: &str, status: StatusCode) -> Response {
    let reason = status
        .canonical_reason()
        .unwrap_or("ERROR")
        .to_ascii_uppercase()
        .replace([' ', '-'], "_");
    let message = format!(
        "an armed fault (POST /__sandbox/faults) answers {}",
        status.as_u16()
    );
    match Family::of_path(path) {
        Family::Payment => {
            crate::refusals::decline(status, &[&reason], vec![("$".to_owned(), message)])
        }
        family => family.refuse(status, Problem::new("INJECTED_FAULT", message)),
    }
}
