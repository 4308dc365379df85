//! A handler's panic answered as a 500 in the owning API's error shape.
//!
//! tower-http's `CatchPanic` answers without knowing the request; this
//! middleware keeps the path, so the answer has the error shape of the API
//! the client called. The data lock recovers from the poison such a panic
//! leaves ([`crate::state::Tenant::data`]), so the next request is served.

use crate::refusals::{Family, Problem};
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use futures_util::FutureExt as _;
use std::panic::AssertUnwindSafe;

/// Runs the rest of the stack; a panic in it is answered 500.
pub async fn answer_500(request: Request, next: Next) -> Response {
    // A `Uri` clone shares its bytes: the path is kept for the rare panic.
    let uri = request.uri().clone();
    match AssertUnwindSafe(next.run(request)).catch_unwind().await {
        Ok(response) => response,
        Err(panic) => panicked(uri.path(), panic.as_ref()),
    }
}

fn panicked(path: &str, panic: &(dyn std::any::Any + Send)) -> Response {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic");
    tracing::error!(path, panic = message, "a request's handling panicked");
    Family::of_path(path).refuse(
        StatusCode::INTERNAL_SERVER_ERROR,
        Problem::new(
            "INTERNAL_ERROR",
            "the sandbox failed while handling this request; it keeps serving",
        ),
    )
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::extract::Request;
    use axum::routing::get;
    use tower::ServiceExt as _;

    async fn a_buggy_handler() -> &'static str {
        panic!("a handler's bug")
    }

    async fn answer_of_a_panic(path: &str) -> (u16, serde_json::Value) {
        let app = axum::Router::new()
            .route(path, get(a_buggy_handler))
            .layer(axum::middleware::from_fn(super::answer_500));
        let request = Request::builder()
            .uri(path)
            .body(Body::empty())
            .expect("a request");
        let response = app.oneshot(request).await.expect("infallible");
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
