//! The HTTP floor: the one axum [`Router`] every request goes through, the
//! middleware around it, the error answers and the connection server.
//!
//! Around the routes, outermost first (each an axum middleware, a tower
//! layer):
//!
//! 1. [`request_log`]: one INFO event per request, with the operationId
//!    the route declared ([`operation`]), also kept in the [`journal`].
//! 2. [`panic`]: a handler's panic becomes a 500 in the owning API's error
//!    shape, so the client sees an answer and the sandbox keeps serving.
//! 3. [`crate::control::door`]: what a control call must show.
//! 4. [`limits`]: size limits, and numbers with an exponent rewritten.
//! 5. The armed faults as a request extension, for the routes' declared
//!    operations ([`operation::declare`]).
//!
//! Inside the router, after routing: the path-id rule ([`crate::ids`]) and
//! per route its operation ([`operation`]).

pub mod api_errors;
pub mod extract;
pub mod journal;
pub mod limits;
pub mod operation;
mod panic;
pub mod request_log;
pub mod serve;

use crate::AppState;
use api_errors::{Owner, Problem};
use axum::http::{StatusCode, Uri};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::Response;
use axum::{Extension, Router};

/// The whole sandbox as one router: every API's routes, the control API
/// and the documents served from their examples, with the middleware above.
pub fn app(state: AppState) -> Router {
    Router::new()
        .merge(crate::auth::routes())
        .merge(crate::control::server::routes())
        .merge(crate::control::health::routes())
        .merge(crate::apis::routes())
        .merge(crate::examples::routes(&state.examples))
        .route_layer(crate::ids::Check)
        .fallback(unknown_path)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(Extension(state.faults.clone()))
        .layer(Extension(documented_answers(&state)))
        .layer(from_fn(limits::enforce))
        .layer(from_fn_with_state(
            state.control_door.clone(),
            crate::control::door::guard,
        ))
        .layer(from_fn(panic::answer_500))
        .layer(from_fn_with_state(state.journal.clone(), request_log::log))
        .with_state(state)
}

/// The hand-emulated APIs' documented examples, for `Prefer: code=…`.
fn documented_answers(state: &AppState) -> operation::DocumentedAnswers {
    let preferred = state.preferred.clone();
    operation::DocumentedAnswers::new(move |operation, headers| {
        preferred.answer(operation, headers)
    })
}

async fn unknown_path(uri: Uri) -> Response {
    Owner::of_path(uri.path()).refuse(
        StatusCode::NOT_FOUND,
        Problem::new("UNKNOWN_PATH", "no operation is served at this path"),
    )
}

async fn method_not_allowed(uri: Uri) -> Response {
    Owner::of_path(uri.path()).refuse(
        StatusCode::METHOD_NOT_ALLOWED,
        Problem::new(
            "METHOD_NOT_ALLOWED",
            "the path is served, but not with this method",
        ),
    )
}
