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

use crate::hot_routes::HotRoutes;
use crate::AppState;
use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
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
    hot: HotRoutes,
    router: TowerToHyperService<axum::Router>,
}

impl PerRequest {
    pub fn new(state: AppState, router: axum::Router) -> Self {
        PerRequest {
            inner: Arc::new(Inner {
                hot: HotRoutes::new(state),
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
pub async fn around<F, Fut>(request: Request, serve: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    crate::call_notes::scoped(crate::request_log::logged(request, |request| {
        crate::limits::enforce(request, |request| {
            crate::faults::after_processing(request, serve)
        })
    }))
    .await
}

/// The same as an axum middleware, for the router driven in-process.
#[cfg(test)]
pub async fn layer(request: Request, next: axum::middleware::Next) -> Response {
    around(request, |request| next.run(request)).await
}
