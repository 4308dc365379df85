//! Which tenant a request belongs to, decided once before routing from
//! the credentials it carries ([`crate::state::tenants`]):
//!
//! | request | tenant |
//! |---|---|
//! | a control call (`/__sandbox/...`) | decided by the control door ([`crate::auth::control_door`]) |
//! | `Authorization: Bearer <access token>` | the token's subject (`sub`), when this sandbox signed it |
//! | `POST /oauth/token`, `POST /api/oauth/token` | the one whose (platform) client is the body's `client_id` |
//! | the hosted page (`/pps/landing/{session_id}`) | the one keeping the session |
//! | anything else | the demo tenant |
//!
//! The tenant goes on as a request extension (`Arc<Tenant>`, read by the
//! handlers' [`Current`](super::extract::Current) and the operation layer's
//! faults) and on the answer (read by the request journal); the verified
//! claims of a bearer token go on as [`Verified`], so its signature is
//! checked once. A request naming no known tenant is the demo tenant's:
//! its credentials are then refused by the handler as they are today (a
//! token of a deleted tenant names one no longer known: 401).

use crate::auth::control_door::is_control_path;
use crate::auth::Tokens;
use crate::auth::{Refusal, Verified};
use crate::state::{Tenant, Tenants};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, Method};
use axum::middleware::Next;
use axum::response::Response;
use std::sync::Arc;

/// The hosted page's path prefix, followed by the session id.
const LANDING: &str = "/pps/landing/";

/// What the middleware reads: the tenants and the token checker.
#[derive(Clone)]
pub struct Resolver {
    pub tenants: Arc<Tenants>,
    pub tokens: Tokens,
}

/// Before routing ([`crate::router`]): puts the request's tenant on it and
/// on its answer.
pub async fn resolve(State(state): State<Resolver>, mut request: Request, next: Next) -> Response {
    if is_control_path(request.uri().path()) {
        return next.run(request).await;
    }
    let tenant = match tenant_of(&state, &mut request).await {
        Ok(tenant) => tenant,
        Err(answer) => return answer,
    };
    request.extensions_mut().insert(tenant.clone());
    let mut response = next.run(request).await;
    response.extensions_mut().insert(tenant);
    response
}

async fn tenant_of(state: &Resolver, request: &mut Request) -> Result<Arc<Tenant>, Response> {
    let tenants = &state.tenants;
    let path = request.uri().path();
    if request.method() == Method::POST && (path == "/oauth/token" || path == "/api/oauth/token") {
        let platform = path == "/api/oauth/token";
        let client_id = Box::pin(client_id_of(request)).await?;
        let found = client_id.and_then(|id| match platform {
            true => tenants.by_platform_client_id(&id),
            false => tenants.by_client_id(&id),
        });
        return Ok(found.unwrap_or_else(|| tenants.demo()));
    }
    if let Some(session) = path.strip_prefix(LANDING) {
        let session = session.split('/').next().unwrap_or_default();
        let found = tenants
            .all()
            .into_iter()
            .find(|tenant| tenant.data().payment_page.sessions.contains_key(session));
        return Ok(found.unwrap_or_else(|| tenants.demo()));
    }
    if request.headers().contains_key(header::AUTHORIZATION) {
        let verified = state.tokens.verify(request.headers());
        let tenant = verified
            .as_ref()
            .ok()
            .and_then(|claims| tenants.get(&claims.sub));
        let verified = match (&tenant, verified) {
            // Signed here, for a tenant no longer served.
            (None, Ok(_)) => Err(Refusal::Invalid),
            (_, verified) => verified,
        };
        request.extensions_mut().insert(Verified(verified));
        return Ok(tenant.unwrap_or_else(|| tenants.demo()));
    }
    Ok(tenants.demo())
}

/// The `client_id` of a token request's JSON body, which is read (the size
/// limits have bounded it) and put back for the handler.
async fn client_id_of(request: &mut Request) -> Result<Option<String>, Response> {
    #[derive(serde::Deserialize)]
    struct ClientId {
        client_id: Option<String>,
    }
    let body = std::mem::replace(request.body_mut(), Body::empty());
    let bytes = match axum::body::to_bytes(body, super::limits::MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => {
            use crate::refusals::{Family, Problem};
            return Err(Family::of_path(request.uri().path()).refuse(
                axum::http::StatusCode::BAD_REQUEST,
                Problem::new("MALFORMED_BODY", "the body could not be read"),
            ));
        }
    };
    let client_id = serde_json::from_slice::<ClientId>(&bytes)
        .ok()
        .and_then(|body| body.client_id);
    *request.body_mut() = Body::from(bytes);
    Ok(client_id)
}
