//! The token server and the platform's token endpoint: signed JWTs with
//! `aud` and `exp`, checked by every API.
//!
//! A token is issued for one audience (the address of one API, as in the
//! specification's table) and every API rejects a missing, expired,
//! tampered or wrong-audience token with 401.

use crate::errors::parse_body;
use crate::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use psi::Api;
use serde::{Deserialize, Serialize};

/// The audience of the storefront platform's own tokens.
const PLATFORM_AUDIENCE: &str = "platform";

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub aud: String,
    pub exp: i64,
    pub iat: i64,
    pub sub: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// The key tokens are signed with: random per sandbox, so a token of one
/// sandbox run is worthless in the next.
pub struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl Keys {
    pub fn random() -> Self {
        let secret: [u8; 32] = rand::random();
        Self {
            encoding: EncodingKey::from_secret(&secret),
            decoding: DecodingKey::from_secret(&secret),
        }
    }
}

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/oauth/token", post(service_token))
        .route("/api/oauth/token", post(platform_token))
}

fn unauthorized(reason: &str) -> Response {
    (
        StatusCode::UNAUTHORIZED,
        Json(serde_json::json!({"error": "invalid_client", "error_description": reason})),
    )
        .into_response()
}

fn issue(state: &AppState, audience: &str, subject: &str, scope: Option<String>) -> Response {
    let now = state.clock.now().timestamp();
    let lifetime = state.token_lifetime.as_secs() as i64;
    let claims = Claims {
        aud: audience.to_owned(),
        exp: now + lifetime,
        iat: now,
        sub: subject.to_owned(),
        scope,
    };
    match jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &state.keys.encoding) {
        Ok(token) => Json(serde_json::json!({"access_token": token, "expires_in": lifetime, "token_type": "Bearer"})).into_response(),
        Err(error) => (StatusCode::INTERNAL_SERVER_ERROR, Json(serde_json::json!({"error": error.to_string()}))).into_response(),
    }
}

async fn service_token(State(state): State<AppState>, body: axum::body::Bytes) -> Response {
    if let Some(fault) = crate::faults::inject(&state, "getToken").await {
        return fault;
    }
    let request: psi_token::types::TokenRequest = match parse_body(&body) {
        Ok(request) => request,
        Err(response) => return response,
    };
    if request.client_id != crate::DEMO_CLIENT_ID
        || request.client_secret.expose() != crate::DEMO_CLIENT_SECRET
    {
        return unauthorized("unknown client or wrong secret");
    }
    let Some(audience) = request.audience else {
        return (StatusCode::BAD_REQUEST, Json(serde_json::json!({"error": "invalid_request", "error_description": "audience is required"}))).into_response();
    };
    if !state.audiences().contains(&audience) {
        return (StatusCode::BAD_REQUEST, Json(serde_json::json!({"error": "invalid_target", "error_description": "unknown audience"}))).into_response();
    }
    issue(&state, &audience, &request.client_id, None)
}

async fn platform_token(State(state): State<AppState>, body: axum::body::Bytes) -> Response {
    if let Some(fault) = crate::faults::inject(&state, "getPlatformToken").await {
        return fault;
    }
    let request: psi_storefront::types::PlatformTokenRequest = match parse_body(&body) {
        Ok(request) => request,
        Err(response) => return response,
    };
    let id_ok = request.client_id.as_deref() == Some(crate::DEMO_PLATFORM_CLIENT_ID);
    let secret_ok = request
        .client_secret
        .as_ref()
        .is_some_and(|s| s.expose() == crate::DEMO_PLATFORM_CLIENT_SECRET);
    if !(id_ok && secret_ok) {
        return unauthorized("unknown platform client or wrong secret");
    }
    issue(
        &state,
        PLATFORM_AUDIENCE,
        crate::DEMO_PLATFORM_CLIENT_ID,
        request.scope,
    )
}

/// Why a call's token was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    Missing,
    Invalid,
    Expired,
    WrongAudience,
    MissingScope,
}

impl Refusal {
    pub fn reason(&self) -> &'static str {
        match self {
            Refusal::Missing => "MISSING_TOKEN",
            Refusal::Invalid => "INVALID_TOKEN",
            Refusal::Expired => "EXPIRED_TOKEN",
            Refusal::WrongAudience => "WRONG_AUDIENCE",
            Refusal::MissingScope => "MISSING_SCOPE",
        }
    }
}

/// Checks the bearer token of a call to `api`: signature, expiry by the
/// sandbox clock, audience and (for the platform) scope `write`.
pub fn require(state: &AppState, headers: &HeaderMap, api: Api) -> Result<Claims, Refusal> {
    let token = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or(Refusal::Missing)?;
    let mut validation = Validation::new(Algorithm::HS256);
    // Expiry and audience are checked below, against the sandbox clock and
    // with a distinct answer each.
    validation.validate_exp = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let claims = jsonwebtoken::decode::<Claims>(token, &state.keys.decoding, &validation)
        .map_err(|_| Refusal::Invalid)?
        .claims;
    if claims.exp <= state.clock.now().timestamp() {
        return Err(Refusal::Expired);
    }
    let expected = match api {
        Api::Storefront => PLATFORM_AUDIENCE.to_owned(),
        other => state.audience_of(other),
    };
    if claims.aud != expected {
        return Err(Refusal::WrongAudience);
    }
    if api == Api::Storefront
        && !claims
            .scope
            .as_deref()
            .is_some_and(|s| s.split_whitespace().any(|s| s == "write"))
    {
        return Err(Refusal::MissingScope);
    }
    Ok(claims)
}

/// [`require`], answering a refusal with a 401 decline body.
pub fn require_or_decline(
    state: &AppState,
    headers: &HeaderMap,
    api: Api,
) -> Result<Claims, Response> {
    require(state, headers, api).map_err(|refusal| {
        crate::errors::decline(StatusCode::UNAUTHORIZED, &[refusal.reason()], Vec::new())
    })
}
