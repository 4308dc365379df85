//! The token server and the platform's token endpoint: they check the
//! client's credentials against the tenant whose client it names
//! ([`crate::http::tenant`]) and the audience asked for, and issue a token
//! whose subject is the tenant ([`crate::auth::Tokens::issue`]).

use crate::audiences::{self, PLATFORM_AUDIENCE};
use crate::auth::Tokens;
use crate::examples::Served;
use crate::http::extract::Current;
use crate::http::operation::declare;
use crate::media_type::{self, Expected};
use crate::refusals::{parse_body, platform_token_error, token_error, Family};
use crate::state::Tenant;
use axum::extract::FromRef;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use std::sync::Arc;

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
    Arc<Served>: FromRef<S>,
{
    Router::new()
        .route("/oauth/token", declare("getToken", post(service_token)))
        .route(
            "/api/oauth/token",
            declare("getPlatformToken", post(platform_token)),
        )
}

/// Compared as digests, so the time taken says nothing about the secret.
fn same(given: &str, expected: &str) -> bool {
    use sha2::{Digest, Sha256};
    Sha256::digest(given.as_bytes()) == Sha256::digest(expected.as_bytes())
}

/// A token for `audience`, issued to `tenant` (its id is the subject) at
/// the time of its clock.
fn issue(tokens: &Tokens, tenant: &Tenant, audience: &str, scope: Option<String>) -> Response {
    match tokens.issue(audience, &tenant.id, scope, &tenant.clock) {
        Ok(issued) => Json(serde_json::json!({"access_token": issued.token, "expires_in": issued.expires_in, "token_type": "Bearer"})).into_response(),
        Err(error) => token_error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", &error.to_string()),
    }
}

/// The fields of a token request, each checked for presence and type.
struct TokenRequest {
    client_id: String,
    client_secret: String,
    audience: String,
}

/// Reads the token request: every field is required (the document marks
/// only two, the specification's table lists four), `grant_type` must be
/// `client_credentials`. The error names the field.
fn token_request(body: &[u8]) -> Result<TokenRequest, Response> {
    let invalid =
        |description: String| token_error(StatusCode::BAD_REQUEST, "invalid_request", &description);
    let document: serde_json::Value = serde_json::from_slice(body)
        .map_err(|error| invalid(format!("the body is not JSON: {error}")))?;
    if !document.is_object() {
        return Err(invalid("the body must be a JSON object".to_owned()));
    }
    let field = |name: &str| match document.get(name) {
        None | Some(serde_json::Value::Null) => Err(invalid(format!("{name} is required"))),
        Some(serde_json::Value::String(text)) => Ok(text.clone()),
        Some(_) => Err(invalid(format!("{name} must be a string"))),
    };
    let request = TokenRequest {
        client_id: field("client_id")?,
        client_secret: field("client_secret")?,
        audience: field("audience")?,
    };
    if field("grant_type")? != "client_credentials" {
        return Err(token_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "grant_type must be client_credentials",
        ));
    }
    Ok(request)
}

async fn service_token(
    State(tokens): State<Tokens>,
    State(examples): State<Arc<Served>>,
    tenant: Current,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if let Err(expected) = media_type::check(&headers, &body, Expected::Json) {
        let status = StatusCode::UNSUPPORTED_MEDIA_TYPE;
        return token_error(status, "invalid_request", &expected.message());
    }
    let request = match token_request(&body) {
        Ok(request) => request,
        Err(response) => return response,
    };
    let credentials = &tenant.credentials;
    if !same(&request.client_id, &credentials.client_id)
        || !same(&request.client_secret, &credentials.client_secret)
    {
        return Family::Token.unauthorized("unknown client or wrong secret");
    }
    if !audiences::token_server_audiences(tokens.url()).contains(&request.audience)
        && !examples.has_audience(&request.audience)
    {
        let description = format!(
            "audience {} is not an API of this sandbox",
            request.audience
        );
        return token_error(StatusCode::BAD_REQUEST, "invalid_target", &description);
    }
    issue(&tokens, &tenant, &request.audience, None)
}

async fn platform_token(
    State(tokens): State<Tokens>,
    tenant: Current,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if let Err(expected) = media_type::check(&headers, &body, Expected::Json) {
        return platform_token_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, &expected.message());
    }
    let request: psi_storefront::types::PlatformTokenRequest = match parse_body(&body) {
        Ok(request) => request,
        Err(response) => return response,
    };
    let credentials = &tenant.credentials;
    let id_ok = request
        .client_id
        .as_deref()
        .is_some_and(|id| same(id, &credentials.platform_client_id));
    let secret_ok = request
        .client_secret
        .as_ref()
        .is_some_and(|s| same(s.expose(), &credentials.platform_client_secret));
    if !(id_ok && secret_ok) {
        return Family::Token.unauthorized("unknown platform client or wrong secret");
    }
    issue(&tokens, &tenant, PLATFORM_AUDIENCE, request.scope)
}
