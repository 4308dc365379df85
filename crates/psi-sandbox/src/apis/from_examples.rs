//! The routes of the documents served from their examples
//! ([`crate::examples`]): one route per distinct path, whose handler picks
//! the operation by path template and method, applies the tenant's armed
//! faults of its operationId, checks the token against the document's
//! audience by the tenant's clock, then answers from the examples.

use crate::auth::{Refusal, Tokens, Verified};
use crate::examples::{Served, Target};
use crate::refusals::decline;
use crate::state::Tenant;
use axum::extract::{FromRef, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::any;
use axum::Router;
use std::sync::Arc;

/// The routes of `served`. The router's state `S` only has to give the
/// token checker (an axum substate, [`FromRef`]); the armed faults are the
/// request's tenant's, the compiled documents the routes' own.
pub fn routes<S>(served: &Served) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
{
    served
        .routes()
        .into_iter()
        .fold(Router::new(), |router, (path, targets)| {
            router.route(
                &path,
                any(move |State(tokens): State<Tokens>, request: Request| {
                    let targets = targets.clone();
                    async move { serve(&tokens, &targets, request).await }
                }),
            )
        })
}

async fn serve(tokens: &Tokens, targets: &[Target], request: Request) -> Response {
    let (target, path_values) = match Target::find(targets, request.method(), request.uri().path())
    {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    let faults = request
        .extensions()
        .get::<Arc<Tenant>>()
        .map(|tenant| tenant.faults.clone())
        .unwrap_or_default();
    crate::http::operation::serve(&faults, target.operation_id(), request, |request| {
        documented(tokens, target, path_values, request)
    })
    .await
}

/// The answer to `request` for `target`, its path parameters read as
/// `path_values`: the token, then the request's checks and the documented
/// answer.
async fn documented(
    tokens: &Tokens,
    target: &Target,
    path_values: Vec<(String, String)>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    if let Some(audience) = target.audience() {
        let checked = match (
            parts.extensions.get::<Verified>(),
            parts.extensions.get::<Arc<Tenant>>(),
        ) {
            (Some(Verified(Ok(claims))), Some(tenant)) => {
                tokens.check_audience(claims, audience, &tenant.clock)
            }
            (Some(Verified(Err(refusal))), _) => Err(*refusal),
            _ => Err(Refusal::Missing),
        };
        if let Err(refusal) = checked {
            return decline(StatusCode::UNAUTHORIZED, &[refusal.reason()], Vec::new());
        }
    }
    let body = match axum::body::to_bytes(body, crate::http::limits::MAX_BODY_BYTES).await {
        Ok(body) => body,
        Err(_) => {
            let problem = ("$".to_owned(), "the body could not be read".to_owned());
            return decline(StatusCode::BAD_REQUEST, &["MALFORMED_BODY"], vec![problem]);
        }
    };
    let query = parts.uri.query().unwrap_or("");
    target.respond(&path_values, &parts.headers, query, &body)
}
