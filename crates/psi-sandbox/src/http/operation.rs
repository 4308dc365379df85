//! The operationId each route serves, declared beside the route, and the
//! armed faults applied there.
//!
//! [`declare`] puts a middleware on one method of one route: it takes one
//! hit of an armed fault of that operation ([`crate::faults`]) before the
//! handler runs, answers for it or replaces the handler's answer after
//! processing, and marks the answer with its [`OperationId`] for the
//! request log line ([`super::request_log`]). The armed faults reach it
//! as a request extension that [`super::app`] adds.

use crate::faults::{Fault, Faults};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::MethodRouter;
use axum::Extension;
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
    Extension(faults): Extension<Faults>,
    request: Request,
    next: Next,
) -> Response {
    serve(&faults, id.0, request, |request| next.run(request)).await
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
/// replaced afterwards.
async fn with_fault<F, Fut>(fault: Fault, request: Request, handler: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: std::future::Future<Output = Response>,
{
    if fault.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(fault.delay_ms)).await;
    }
    if fault.after_processing {
        let _processed = handler(request).await;
        return fault.replacement();
    }
    match fault.before_processing() {
        Some(answer) => answer,
        None => handler(request).await,
    }
}
