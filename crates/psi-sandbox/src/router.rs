//! The whole sandbox as one service: an axum `Router` with every API's
//! routes, the control API and the documents served from their examples,
//! inside the middleware of [`crate::http`].

use crate::app::App;
use crate::http::{limits, operation, panic, request_log, save, tenant};
use crate::refusals::{Family, Problem};
use axum::extract::Request;
use axum::http::{StatusCode, Uri};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::Response;
use axum::{Extension, Router};
use std::convert::Infallible;
use tower::ServiceBuilder;

/// The whole sandbox: the router of every route, inside the middleware
/// every request passes, outermost first: the request log, a panic
/// answered 500, the control door, the size limits, the request's tenant,
/// the extension the operation layer reads (the documented answers), and
/// the save step (the tenant's changes written before the answer leaves).
///
/// The middleware wrap the finished router once, as axum suggests for
/// middleware that runs before routing; `Router::layer` would wrap each
/// route on its own, and every call would clone each layer's boxed route.
pub fn app(
    state: App,
) -> impl tower::Service<Request, Response = Response, Error = Infallible, Future: Send + 'static>
       + Clone
       + Send
       + Sync
       + 'static {
    let routes = Router::new()
        .merge(crate::control::server::routes())
        .merge(crate::control::tenants::routes())
        .merge(crate::control::health::routes())
        .merge(crate::apis::routes())
        .merge(crate::apis::from_examples::routes(&state.examples))
        .route_layer(crate::ids::Check)
        .fallback(unknown_path)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state.clone());
    ServiceBuilder::new()
        .layer(from_fn_with_state(state.tenants.clone(), request_log::log))
        .layer(from_fn(panic::answer_500))
        .layer(from_fn_with_state(
            state.control_door.clone(),
            crate::auth::control_door::guard,
        ))
        .layer(from_fn(limits::enforce))
        .layer(from_fn_with_state(
            tenant::Resolver {
                tenants: state.tenants.clone(),
                tokens: state.tokens.clone(),
            },
            tenant::resolve,
        ))
        .layer(Extension(operation::Operations {
            documented: documented_answers(&state),
        }))
        .layer(from_fn(save::after))
        .service(routes)
}

/// The hand-emulated APIs' documented examples, for `Prefer: code=…`.
fn documented_answers(state: &App) -> operation::DocumentedAnswers {
    let preferred = state.preferred.clone();
    operation::DocumentedAnswers::new(move |operation, headers| {
        preferred.answer(operation, headers)
    })
}

async fn unknown_path(uri: Uri) -> Response {
    Family::of_path(uri.path()).refuse(
        StatusCode::NOT_FOUND,
        Problem::new("UNKNOWN_PATH", "no operation is served at this path"),
    )
}

async fn method_not_allowed(uri: Uri) -> Response {
    Family::of_path(uri.path()).refuse(
        StatusCode::METHOD_NOT_ALLOWED,
        Problem::new(
            "METHOD_NOT_ALLOWED",
            "the path is served, but not with this method",
        ),
    )
}
