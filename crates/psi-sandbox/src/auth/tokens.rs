//! Access tokens: HS256 JWTs with `aud`, `exp`, `iat`, `sub` (the tenant's
//! id) and, for the platform, `scope`, issued and checked against the
//! tenant's clock.

use crate::audiences::Service;
use crate::state::Clock;
use axum::http::HeaderMap;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    verified: VerifiedCache,
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
/// expiry (by the tenant's clock, which the control API moves), audience and
/// scope are checked on every call, against the remembered claims.
#[derive(Default)]
struct VerifiedCache(Mutex<HashMap<Box<str>, Arc<Claims>, BySignature>>);

/// Hashes a token by its last bytes, its signature (random to whoever does
/// not hold the key): SipHash over the whole token, a few hundred bytes,
/// would be a large part of a lookup's own work. Only verified tokens are
/// remembered, so no one can crowd one bucket; equality still compares
/// whole tokens.
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

impl VerifiedCache {
    fn get(&self, token: &str) -> Option<Arc<Claims>> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(token)
            .cloned()
    }

    /// Remembers `claims` of `token`; `now` (real time, seconds) lets a
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
            verified: VerifiedCache::default(),
        }
    }
}

/// What issues and checks tokens: the signing key, each service's
/// audience and a token's lifetime (each tenant's clock times its tokens).
/// Cheap to clone;
/// handlers reach it as a substate of the application state.
#[derive(Clone)]
pub struct Tokens(Arc<Inner>);

struct Inner {
    /// The sandbox's address, which the audiences are built from.
    url: String,
    keys: Keys,
    /// Each service's audience, by [`Service`] (built once from the URL).
    audiences: Vec<String>,
    lifetime: Duration,
}

/// A token just issued.
pub struct Issued {
    pub token: String,
    /// Seconds.
    pub expires_in: i64,
}

impl Tokens {
    /// Tokens of the sandbox at `url`, signed with `keys`.
    pub fn new(url: &str, keys: Keys, lifetime: Duration) -> Self {
        let audiences = Service::ALL
            .iter()
            .map(|&service| crate::audiences::audience_of(url, service))
            .collect();
        Tokens(Arc::new(Inner {
            url: url.to_owned(),
            keys,
            audiences,
            lifetime,
        }))
    }

    /// The address of the sandbox whose tokens these are.
    pub fn url(&self) -> &str {
        &self.0.url
    }

    /// The audience a token for `service` must carry.
    pub fn audience(&self, service: Service) -> &str {
        &self.0.audiences[service as usize]
    }

    /// A token for `audience`, issued to the tenant `subject` at the time of
    /// its `clock`.
    pub fn issue(
        &self,
        audience: &str,
        subject: &str,
        scope: Option<String>,
        clock: &Clock,
    ) -> Result<Issued, jsonwebtoken::errors::Error> {
        let now = clock.now().timestamp();
        let lifetime = self.0.lifetime.as_secs() as i64;
        let claims = Claims {
            aud: audience.to_owned(),
            exp: now + lifetime,
            iat: now,
            sub: subject.to_owned(),
            scope,
        };
        let token = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &self.0.keys.encoding,
        )?;
        Ok(Issued {
            token,
            expires_in: lifetime,
        })
    }

    /// Checks the claims of a call to `api`: expiry by `clock` (its
    /// tenant's), audience and (for the platform) scope `write`.
    pub fn check(&self, claims: &Claims, api: Service, clock: &Clock) -> Result<(), Refusal> {
        self.check_audience(claims, self.audience(api), clock)?;
        if api == Service::Storefront
            && !claims
                .scope
                .as_deref()
                .is_some_and(|s| s.split_whitespace().any(|s| s == "write"))
        {
            return Err(Refusal::MissingScope);
        }
        Ok(())
    }

    /// Checks the claims of a call: expiry by `clock` and an audience of
    /// exactly `expected` (also for the documents served from their
    /// examples).
    pub fn check_audience(
        &self,
        claims: &Claims,
        expected: &str,
        clock: &Clock,
    ) -> Result<(), Refusal> {
        if claims.exp <= clock.now().timestamp() {
            return Err(Refusal::Expired);
        }
        if claims.aud != expected {
            return Err(Refusal::WrongAudience);
        }
        Ok(())
    }

    /// The claims of the call's bearer token, when this sandbox signed it;
    /// nothing else is checked (the tenant it names decides the clock its
    /// expiry is read by, [`Tokens::check`]).
    pub fn verify(&self, headers: &HeaderMap) -> Result<Arc<Claims>, Refusal> {
        let token = headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or(Refusal::Missing)?;
        let keys = &self.0.keys;
        match keys.verified.get(token) {
            Some(claims) => Ok(claims),
            None => {
                let claims = Arc::new(verify(keys, token)?);
                // Real time decides what a full cache drops: a token dropped
                // too early is verified again, never wrongly admitted.
                let now = chrono::Utc::now().timestamp();
                keys.verified.remember(token, claims.clone(), now);
                Ok(claims)
            }
        }
    }
}

/// A call's bearer token as checked once before routing
/// ([`Tokens::verify`]): its claims, or why it is refused. A request
/// extension.
#[derive(Debug, Clone)]
pub struct Verified(pub Result<Arc<Claims>, Refusal>);

/// Why a call's token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// The token's claims if `keys` signed it (HS256); nothing else is checked.
fn verify(keys: &Keys, token: &str) -> Result<Claims, Refusal> {
    let mut validation = Validation::new(Algorithm::HS256);
    // Expiry and audience are checked by `Tokens::check`, against the sandbox
    // clock and with a distinct answer each.
    validation.validate_exp = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    jsonwebtoken::decode::<Claims>(token, &keys.decoding, &validation)
        .map(|data| data.claims)
        .map_err(|_| Refusal::Invalid)
}

/// 32 bytes from the operating system's random source: the signing secret
/// of a sandbox without a state file.
fn random_secret() -> [u8; 32] {
    let mut secret = [0; 32];
    getrandom::fill(&mut secret).expect("the operating system's random source answers");
    secret
}
