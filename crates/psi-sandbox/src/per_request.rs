//! What wraps every request, as one middleware: outermost the log line
//! ([`crate::request_log`]), then the size limits and plain-number rewrite
//! ([`crate::limits`]), then the after-processing faults
//! ([`crate::faults`]) around the router, all in one task-local scope
//! for what the handler leaves them ([`crate::call_notes`]).
//!
//! One middleware rather than one layer each, and served as hyper's own
//! service around the router ([`PerRequest`]) rather than as an axum
//! `from_fn` layer: such a layer is put around every route, and clones a
//! boxed service and boxes a future per request, which measured about a
//! tenth of a lookup's own work for three of them.

use crate::api_errors::{Owner, Problem};
use crate::hot_routes::HotRoutes;
use crate::AppState;
use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use futures_util::FutureExt as _;
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The router with [`around`] around it, as hyper serves it; the hot
/// routes ([`crate::hot_routes`]) are served inside [`around`] without the
/// router.
#[derive(Clone)]
pub struct PerRequest {
    /// One reference count for both, taken once per request.
    inner: Arc<Inner>,
}

struct Inner {
    state: AppState,
    hot: HotRoutes,
    router: TowerToHyperService<axum::Router>,
}

impl PerRequest {
    pub fn new(state: AppState, router: axum::Router) -> Self {
        PerRequest {
            inner: Arc::new(Inner {
                hot: HotRoutes::new(state.clone()),
                state,
                router: TowerToHyperService::new(router),
            }),
        }
    }
}

impl<B> hyper::service::Service<hyper::Request<B>> for PerRequest
where
    B: hyper::body::Body<Data = axum::body::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn call(&self, request: hyper::Request<B>) -> Self::Future {
        let inner = self.inner.clone();
        Box::pin(async move {
            let response = around(request.map(Body::new), |request| async move {
                if let Some(refused) = crate::control_door::refusal(&inner.state, &request) {
                    return refused;
                }
                match inner.hot.serve(request).await {
                    Ok(response) => response,
                    // Boxed: the router's future is large, and without the box
                    // it would be part of (and moved with) every request's.
                    Err(request) => {
                        let routed = hyper::service::Service::call(&inner.router, request);
                        match Box::pin(routed).await {
                            Ok(response) => response,
                            Err(never) => match never {},
                        }
                    }
                }
            })
            .await;
            Ok(response)
        })
    }
}

/// The middleware: `serve` answers the request.
///
/// A panic anywhere inside is caught here and answered 500 in the error
/// shape of the API owning the path, so a client sees an answer, never a
/// dropped connection. The data lock recovers from the poison such a panic
/// leaves ([`crate::state::Shared::data`]), so the next request is served.
pub async fn around<F, Fut>(request: Request, serve: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    // A `Uri` clone shares its bytes: the path is kept for the rare panic.
    let uri = request.uri().clone();
    let answered = crate::call_notes::scoped(crate::request_log::logged(request, |request| {
        crate::limits::enforce(request, |request| {
            crate::faults::after_processing(request, serve)
        })
    }));
    match std::panic::AssertUnwindSafe(answered).catch_unwind().await {
        Ok(response) => response,
        Err(panic) => panicked(uri.path(), panic.as_ref()),
    }
}

/// The answer to a request whose handling panicked.
fn panicked(path: &str, panic: &(dyn std::any::Any + Send)) -> Response {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic");
    tracing::error!(path, panic = message, "a request's handling panicked");
    Owner::of_path(path).refuse(
        axum::http::StatusCode::INTERNAL_SERVER_ERROR,
        Problem::new(
            "INTERNAL_ERROR",
            "the sandbox failed while handling this request; it keeps serving",
        ),
    )
}

/// The same as an axum middleware, for the router driven in-process.
#[cfg(test)]
pub async fn layer(request: Request, next: axum::middleware::Next) -> Response {
    around(request, |request| next.run(request)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn answer_of_a_panic(path: &str) -> (u16, serde_json::Value) {
        let request = Request::builder()
            .uri(path)
            .body(Body::empty())
            .expect("a request");
        let response = around(request, |_| async { panic!("a handler's bug") }).await;
        let status = response.status().as_u16();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .expect("the body");
        (status, serde_json::from_slice(&bytes).expect("JSON"))
    }

    #[tokio::test]
    async fn a_panicking_handler_answers_500_in_the_apis_error_shape() {
        let (status, body) = answer_of_a_panic("/pps/api/v1/session").await;
        assert_eq!(status, 500);
        assert_eq!(body["decline"]["reasons"][0], "INTERNAL_ERROR", "{body}");
        let (status, body) = answer_of_a_panic("/__sandbox/transactions").await;
        assert_eq!(status, 500);
        assert!(body["error"].is_string(), "{body}");
    }
}
