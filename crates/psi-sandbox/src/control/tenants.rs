//! The tenants of the control API ([`crate::state::tenants`]):
//!
//! | method | path | does |
//! |---|---|---|
//! | POST | /__sandbox/tenants | `{"name"?}` creates a tenant (the `--seed` entries stored in it): 201 its id, credentials, control token and addresses; 409 for a name taken, 400 past `--max-tenants`; 403 for a tenant's own control token |
//! | GET | /__sandbox/tenants | every tenant's id and client ids (no secret); a tenant's control token sees itself only |
//! | DELETE | /__sandbox/tenants/{tenant} | removes the tenant and all it keeps (also in the state file): 204; 404 unknown, 409 for the demo tenant, 403 for a tenant's own control token |
//!
//! Only the operator (`--control-token`) or a tokenless call to a sandbox
//! without one creates and deletes tenants: a tenant's control token sees
//! and changes that tenant alone.

use super::Seeding;
use crate::audiences::Addresses;
use crate::auth::control_door::ControlCaller;
use crate::http::extract::Current;
use crate::outbox::Outbox;
use crate::refusals::{control_error, control_error_with_limit};
use crate::settings::Limits;
use crate::state::tenants::{Credentials, TenantError};
use crate::state::Tenants;
use axum::body::Bytes;
use axum::extract::{FromRef, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get};
use axum::{Extension, Json, Router};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Tenants>: FromRef<S>,
    Limits: FromRef<S>,
    Outbox: FromRef<S>,
    Seeding: FromRef<S>,
{
    Router::new()
        .route("/__sandbox/tenants", get(list).post(create))
        .route("/__sandbox/tenants/{tenant}", delete(remove))
}

#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
struct NewTenant {
    /// `^[a-z0-9][a-z0-9-]{0,39}$`; absent: `t-` and 12 hex digits.
    name: Option<String>,
}

/// A tenant without its secrets.
#[derive(Serialize)]
struct Summary<'a> {
    tenant: &'a str,
    client_id: &'a str,
    platform_client_id: &'a str,
}

fn operator_only() -> Response {
    control_error(
        StatusCode::FORBIDDEN,
        "a tenant's control token acts on its own tenant only; creating and deleting tenants needs the operator's --control-token",
    )
}

/// `POST /__sandbox/tenants`.
async fn create(
    State(tenants): State<Arc<Tenants>>,
    State(limits): State<Limits>,
    State(outbox): State<Outbox>,
    State(seeding): State<Seeding>,
    Extension(caller): Extension<ControlCaller>,
    body: Bytes,
) -> Response {
    if !caller.sees_all() {
        return operator_only();
    }
    let new: NewTenant = match body.is_empty() {
        true => NewTenant::default(),
        false => match super::server::control_body(&body) {
            Ok(new) => new,
            Err(response) => return response,
        },
    };
    let id = new.name.unwrap_or_else(Tenants::fresh_id);
    let credentials = Credentials::random(&id);
    let tenant = match tenants.add(id, credentials) {
        Ok(tenant) => tenant,
        Err(error) => return refused(error, limits.max_tenants),
    };
    if let Err(error) = seeding.apply(&tenant.id).await {
        return control_error(StatusCode::INTERNAL_SERVER_ERROR, error);
    }
    let credentials = &tenant.credentials;
    let body = serde_json::json!({
        "tenant": tenant.id,
        "client_id": credentials.client_id,
        "client_secret": credentials.client_secret,
        "platform_client_id": credentials.platform_client_id,
        "platform_client_secret": credentials.platform_client_secret,
        "control_token": credentials.control_token,
        "url": outbox.url,
        "addresses": Addresses::of(&outbox.url),
    });
    (StatusCode::CREATED, Json(body)).into_response()
}

/// `GET /__sandbox/tenants`.
async fn list(
    State(tenants): State<Arc<Tenants>>,
    Extension(caller): Extension<ControlCaller>,
    Current(own): Current,
) -> Response {
    let tenants = match caller.sees_all() {
        true => tenants.all(),
        false => vec![own],
    };
    let shown: Vec<Summary<'_>> = tenants
        .iter()
        .map(|tenant| Summary {
            tenant: &tenant.id,
            client_id: &tenant.credentials.client_id,
            platform_client_id: &tenant.credentials.platform_client_id,
        })
        .collect();
    Json(shown).into_response()
}

/// `DELETE /__sandbox/tenants/{tenant}`.
async fn remove(
    State(tenants): State<Arc<Tenants>>,
    State(limits): State<Limits>,
    Extension(caller): Extension<ControlCaller>,
    Path(id): Path<String>,
) -> Response {
    if !caller.sees_all() {
        return operator_only();
    }
    match tenants.remove(&id) {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(error) => refused(error, limits.max_tenants),
    }
}

fn refused(error: TenantError, max: usize) -> Response {
    let status = match &error {
        TenantError::Name(_) | TenantError::Taken(_) => StatusCode::BAD_REQUEST,
        TenantError::Exists(_) | TenantError::Demo => StatusCode::CONFLICT,
        TenantError::Unknown(_) => StatusCode::NOT_FOUND,
        TenantError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        TenantError::Full(_) => {
            return control_error_with_limit(
                StatusCode::BAD_REQUEST,
                error.to_string(),
                format!("at most {max} tenants (--max-tenants)"),
            );
        }
    };
    control_error(status, error.to_string())
}
