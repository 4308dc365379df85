//! Fetching tokens with the generated token clients.

use psi_runtime::{Audience, Credentials, FetchToken, FetchedToken, TokenError, TokenErrorKind};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// Lifetime assumed when a token response has no usable `expires_in`:
/// short, so an unknown lifetime never keeps a dead token around.
const UNKNOWN_LIFETIME: Duration = Duration::from_secs(60);

/// The shortest `expires_in` taken as said, in seconds. Below it (`0` or a
/// negative number) every call would fetch a token of its own; such a
/// lifetime is treated as unknown.
const LIFETIME_FLOOR_SECONDS: u64 = 1;

/// Client-credentials grants at `{auth_url}/oauth/token` and, for the
/// storefront, at `{platform_url}/api/oauth/token` with scope `write`.
pub(crate) struct Fetcher {
    pub(crate) token_server: psi_token::Client,
    pub(crate) credentials: Credentials,
    #[cfg(feature = "storefront")]
    pub(crate) platform: Option<(psi_storefront::Client, Credentials)>,
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl FetchToken for Fetcher {
    fn fetch<'a>(
        &'a self,
        audience: &'a Audience,
    ) -> BoxFuture<'a, Result<FetchedToken, TokenError>> {
        Box::pin(async move {
            match audience {
                Audience::Service(url) => self.service_token(audience, url).await,
                Audience::Platform(_) => self.platform_token(audience).await,
            }
        })
    }
}

impl Fetcher {
    async fn service_token(
        &self,
        audience: &Audience,
        url: &str,
    ) -> Result<FetchedToken, TokenError> {
        let request = psi_token::types::TokenRequest {
            audience: Some(url.to_owned()),
            client_id: self.credentials.client_id.clone(),
            client_secret: self.credentials.client_secret.clone(),
            grant_type: Some(psi_token::types::GrantType::ClientCredentials),
            extra_members: Default::default(),
        };
        let response = self
            .token_server
            .get_token()
            .body(request)
            .send()
            .await
            .map_err(|error| failed(audience, &error))?
            .into_inner();
        fetched(audience, response.access_token, response.expires_in)
    }

    #[cfg(feature = "storefront")]
    async fn platform_token(&self, audience: &Audience) -> Result<FetchedToken, TokenError> {
        let Some((platform, credentials)) = &self.platform else {
            return Err(TokenError::new(
                TokenErrorKind::MissingSetting,
                audience.clone(),
                None,
                "no platform credentials are configured (platform_credentials, \
                 PSI_PLATFORM_CLIENT_ID and PSI_PLATFORM_CLIENT_SECRET)",
            ));
        };
        let request = psi_storefront::types::PlatformTokenRequest {
            client_id: Some(credentials.client_id.clone()),
            client_secret: Some(credentials.client_secret.clone()),
            grant_type: Some("client_credentials".to_owned()),
            scope: Some("write".to_owned()),
            extra_members: Default::default(),
        };
        let response = platform
            .get_platform_token()
            .body(request)
            .send()
            .await
            .map_err(|error| failed(audience, &error))?
            .into_inner();
        fetched(audience, response.access_token, response.expires_in)
    }

    #[cfg(not(feature = "storefront"))]
    async fn platform_token(&self, audience: &Audience) -> Result<FetchedToken, TokenError> {
        Err(TokenError::new(
            TokenErrorKind::MissingSetting,
            audience.clone(),
            None,
            "the storefront feature is off",
        ))
    }
}

fn fetched(
    audience: &Audience,
    token: Option<psi_runtime::Secret>,
    expires_in: Option<i64>,
) -> Result<FetchedToken, TokenError> {
    let access_token = token.ok_or_else(|| {
        TokenError::new(
            TokenErrorKind::Decode,
            audience.clone(),
            Some(200),
            "the answer has no access_token",
        )
    })?;
    let expires_in = expires_in
        .and_then(|seconds| u64::try_from(seconds).ok())
        .filter(|seconds| *seconds >= LIFETIME_FLOOR_SECONDS)
        .map_or(UNKNOWN_LIFETIME, Duration::from_secs);
    Ok(FetchedToken::new(access_token, expires_in))
}

/// The token request failed: which kind, the status where there was an
/// answer, and words that never echo a response body (it could repeat what
/// was sent).
fn failed<E: ErrorCode>(audience: &Audience, error: &psi_runtime::Error<E>) -> TokenError {
    use psi_runtime::Error;
    let status = error.status();
    let rejected_status = matches!(status, Some(401 | 403));
    let (kind, message) = match error {
        Error::Declined(declined) => {
            let rejected = rejected_status
                || declined
                    .body
                    .error_code()
                    .is_some_and(|code| matches!(code, "invalid_client" | "unauthorized_client"));
            let kind = if rejected {
                TokenErrorKind::RejectedCredentials
            } else {
                TokenErrorKind::ServerStatus
            };
            (
                kind,
                format!("the token endpoint answered {}", declined.status),
            )
        }
        Error::UnexpectedStatus(unexpected) => {
            let kind = if rejected_status {
                TokenErrorKind::RejectedCredentials
            } else {
                TokenErrorKind::ServerStatus
            };
            // A redirect is reported, never followed: the request carries the secret.
            let message = match unexpected.status {
                300..=399 => format!(
                    "the token endpoint answered the redirect {} (not followed)",
                    unexpected.status
                ),
                other => format!("the token endpoint answered {other}"),
            };
            (kind, message)
        }
        Error::Transport(failed) => (
            TokenErrorKind::Transport,
            format!(
                "the token endpoint could not be reached ({})",
                failed.source
            ),
        ),
        Error::Timeout(failed) => (
            TokenErrorKind::Transport,
            format!(
                "the token endpoint did not answer in time ({})",
                failed.source
            ),
        ),
        Error::Decode(decode) => (
            TokenErrorKind::Decode,
            format!(
                "the token endpoint's answer is not a token (at {}: {})",
                decode.path, decode.message
            ),
        ),
        Error::Config(refused) => (TokenErrorKind::MissingSetting, refused.reason.to_string()),
        other => (
            TokenErrorKind::Transport,
            format!("the token request could not be sent ({other})"),
        ),
    };
    TokenError::new(kind, audience.clone(), status, message)
}

/// The OAuth `error` member of a token endpoint's error body
/// (`invalid_client`), which says whether the credentials were refused.
trait ErrorCode {
    fn error_code(&self) -> Option<&str>;
}

impl ErrorCode for psi_token::types::TokenError {
    fn error_code(&self) -> Option<&str> {
        self.0.get("error").and_then(|code| code.as_str())
    }
}

#[cfg(feature = "storefront")]
impl ErrorCode for psi_storefront::types::PlatformTokenError {
    fn error_code(&self) -> Option<&str> {
        self.0.get("error").and_then(|code| code.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lifetime_below_the_floor_or_missing_reads_as_unknown() {
        let audience = Audience::Service("https://api.example.com/paylater".into());
        let lifetime = |expires_in: Option<i64>| {
            fetched(&audience, Some("token".into()), expires_in)
                .unwrap()
                .expires_in
        };
        for short in [None, Some(0), Some(-5)] {
            assert_eq!(lifetime(short), UNKNOWN_LIFETIME, "{short:?}");
        }
        assert_eq!(lifetime(Some(1)), Duration::from_secs(1));
        assert_eq!(lifetime(Some(1800)), Duration::from_secs(1800));
    }
}
