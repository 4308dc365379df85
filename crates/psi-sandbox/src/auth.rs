//! The token server and the platform's token endpoint: signed JWTs with
//! `aud` and `exp`, checked by every API.
//!
//! A token is issued for one audience of the sandbox's own table
//! ([`crate::audiences`]) and every API accepts only a token whose `aud` is
//! exactly its own audience: a token for one API is refused (401) by every
//! other. A missing, unsigned (`alg: none`), wrongly signed or expired
//! token is refused with 401 too.

use crate::audiences::{self, Service, PLATFORM_AUDIENCE};
use crate::errors::parse_body;
use crate::http::operation::declare;
use crate::media_type::{self, Expected};
use crate::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub aud: String,
    pub exp: i64,
    pub iat: i64,
    pub sub: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// The key tokens are signed with: random per sandbox in memory, so a
/// token of one sandbox run is worthless in the next; kept in the state
/// file with `--state`, so tokens survive a restart on the same file.
pub struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    /// Tokens whose signature this key verified, with their claims.
    verified: Verified,
}

/// How many verified tokens are remembered. A client holds one token per
/// audience and renews it when it expires, so a test suite needs a few
/// dozen; a full cache first drops its expired tokens, then all of them.
const REMEMBERED_TOKENS: usize = 1024;

/// The claims of tokens whose signature checked out, by the token's text.
///
/// Checking a signature (and decoding the claims) is a pure function of the
/// key and the token's bytes, and the key never changes while the sandbox
/// runs, so its verdict is remembered and every call after the first skips
/// the HMAC and the JSON. Only the signature's verdict is remembered:
/// expiry (by the sandbox clock, which the control API moves), audience and
/// scope are checked on every call, against the remembered claims.
#[derive(Default)]
struct Verified(Mutex<HashMap<Box<str>, Arc<Claims>, BySignature>>);

/// Hashes a token by its last bytes, its signature (random to whoever does
/// not hold the key): SipHash over the whole token, a few hundred bytes, was
/// a tenth of a lookup's own work. Only verified tokens are remembered, so
/// no one can crowd one bucket; equality still compares whole tokens.
#[derive(Default, Clone)]
struct BySignature(std::hash::RandomState);

/// How many of a token's last bytes are hashed.
const HASHED_BYTES: usize = 16;

impl std::hash::BuildHasher for BySignature {
    type Hasher = SignatureHasher;

    fn build_hasher(&self) -> SignatureHasher {
        SignatureHasher(self.0.build_hasher())
    }
}

struct SignatureHasher(std::hash::DefaultHasher);

impl std::hash::Hasher for SignatureHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0
            .write(&bytes[bytes.len().saturating_sub(HASHED_BYTES)..]);
    }

    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

impl Verified {
    fn get(&self, token: &str) -> Option<Arc<Claims>> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(token)
            .cloned()
    }

    /// Remembers `claims` of `token`; `now` (sandbox clock, seconds) lets a
    /// full cache drop the tokens that can no longer be used.
    fn remember(&self, token: &str, claims: Arc<Claims>, now: i64) {
        let mut tokens = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if tokens.len() >= REMEMBERED_TOKENS {
            tokens.retain(|_, claims| claims.exp > now);
            if tokens.len() >= REMEMBERED_TOKENS {
                tokens.clear();
            }
        }
        tokens.insert(token.into(), claims);
    }
}

impl Keys {
    pub fn random() -> Self {
        Self::from_secret(&random_secret())
    }

    pub fn from_secret(secret: &[u8; 32]) -> Self {
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            verified: Verified::default(),
        }
    }
}

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/oauth/token", declare("getToken", post(service_token)))
        .route(
            "/api/oauth/token",
            declare("getPlatformToken", post(platform_token)),
        )
}

/// An error of the token server, in the token API's error body shape
/// (`{"error", "error_description"}`).
fn token_error(status: StatusCode, error: &str, description: &str) -> Response {
    (
        status,
        Json(serde_json::json!({"error": error, "error_description": description})),
    )
        .into_response()
}

fn unauthorized(reason: &str) -> Response {
    token_error(StatusCode::UNAUTHORIZED, "invalid_client", reason)
}

/// An error of the platform's token endpoint, in its declared shape
/// (`{"errors": [{status, title, detail}]}`).
fn platform_error(status: StatusCode, detail: &str) -> Response {
    let title = status.canonical_reason().unwrap_or("Error");
    let body = serde_json::json!({"errors": [{"status": status.as_str(), "title": title, "detail": detail}]});
    (status, Json(body)).into_response()
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
    State(state): State<AppState>,
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
    if request.client_id != crate::DEMO_CLIENT_ID
        || request.client_secret != crate::DEMO_CLIENT_SECRET
    {
        return unauthorized("unknown client or wrong secret");
    }
    if !audiences::token_server_audiences(&state.url).contains(&request.audience)
        && !state.examples.has_audience(&request.audience)
    {
        let description = format!(
            "audience {} is not an API of this sandbox",
            request.audience
        );
        return token_error(StatusCode::BAD_REQUEST, "invalid_target", &description);
    }
    issue(&state, &request.audience, &request.client_id, None)
}

async fn platform_token(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if let Err(expected) = media_type::check(&headers, &body, Expected::Json) {
        return platform_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, &expected.message());
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
pub fn require(
    state: &AppState,
    headers: &HeaderMap,
    api: Service,
) -> Result<Arc<Claims>, Refusal> {
    let claims = require_audience(state, headers, state.audience(api))?;
    if api == Service::Storefront
        && !claims
            .scope
            .as_deref()
            .is_some_and(|s| s.split_whitespace().any(|s| s == "write"))
    {
        return Err(Refusal::MissingScope);
    }
    Ok(claims)
}

/// Checks the bearer token of a call: signature, expiry by the sandbox
/// clock, and an audience of exactly `expected` (also for the documents
/// served from their examples).
pub fn require_audience(
    state: &AppState,
    headers: &HeaderMap,
    expected: &str,
) -> Result<Arc<Claims>, Refusal> {
    let token = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or(Refusal::Missing)?;
    let now = state.clock.now().timestamp();
    let claims = match state.keys.verified.get(token) {
        Some(claims) => claims,
        None => {
            let claims = Arc::new(verify(&state.keys, token)?);
            state.keys.verified.remember(token, claims.clone(), now);
            claims
        }
    };
    if claims.exp <= now {
        return Err(Refusal::Expired);
    }
    if claims.aud != expected {
        return Err(Refusal::WrongAudience);
    }
    Ok(claims)
}

/// The token's claims if `keys` signed it (HS256); nothing else is checked.
fn verify(keys: &Keys, token: &str) -> Result<Claims, Refusal> {
    let mut validation = Validation::new(Algorithm::HS256);
    // Expiry and audience are checked by `require`, against the sandbox
    // clock and with a distinct answer each.
    validation.validate_exp = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    jsonwebtoken::decode::<Claims>(token, &keys.decoding, &validation)
        .map(|data| data.claims)
        .map_err(|_| Refusal::Invalid)
}

/// [`require`], answering a refusal with a 401 decline body.
pub fn require_or_decline(
    state: &AppState,
    headers: &HeaderMap,
    api: Service,
) -> Result<Arc<Claims>, Response> {
    require(state, headers, api).map_err(|refusal| {
        crate::errors::decline(StatusCode::UNAUTHORIZED, &[refusal.reason()], Vec::new())
    })
}

/// 32 bytes from the operating system's random source: the signing secret
/// of a sandbox without a state file.
fn random_secret() -> [u8; 32] {
    let mut secret = [0; 32];
    getrandom::fill(&mut secret).expect("the operating system's random source answers");
    secret
}
