//! What wraps every request, as one middleware: outermost the log line
//! ([`crate::request_log`]), then the size limits and plain-number rewrite
//! ([`crate::limits`]), then the after-processing faults
//! ([`crate::faults`]) around the router.
//!
//! One middleware rather than one layer each: every axum `from_fn` layer
//! clones the service inside it and boxes a future per request, which
//! measured about a tenth of a lookup's own work for the three.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

/// The middleware (`axum::middleware::from_fn(per_request::around)`).
pub async fn around(request: Request, next: Next) -> Response {
    crate::request_log::logged(request, |request| {
        crate::limits::enforce(request, |request| {
            crate::faults::after_processing(request, |request| next.run(request))
        })
    })
    .await
}
