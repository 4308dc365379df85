//! The whole sandbox as one axum `Router`: every API's routes, the control
//! API and the documents served from their examples, with the middleware
//! of [`crate::http`] around them.

use crate::http::api_errors::{Owner, Problem};
use crate::http::{limits, operation, panic, request_log};
use crate::state::AppState;
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
            crate::auth::control_door::guard,
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
