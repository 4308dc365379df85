//! Fetching tokens with the generated token clients.

use psi_runtime::{Audience, Credentials, FetchToken, FetchedToken, TokenError};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// Lifetime assumed when a token response has no `expires_in`: short, so an
/// unknown lifetime never keeps a dead token around.
const UNKNOWN_LIFETIME: Duration = Duration::from_secs(60);

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
            audience: url.to_owned(),
            client_id: self.credentials.client_id.clone(),
            client_secret: self.credentials.client_secret.clone(),
            grant_type: psi_token::types::GrantType::ClientCredentials,
        };
        let response = self
            .token_server
            .get_token()
            .body(request)
            .send()
            .await
            .map_err(|error| token_error(audience, error.status(), describe(&error)))?
            .into_inner();
        fetched(audience, response.access_token, response.expires_in)
    }

    #[cfg(feature = "storefront")]
    async fn platform_token(&self, audience: &Audience) -> Result<FetchedToken, TokenError> {
        let Some((platform, credentials)) = &self.platform else {
            return Err(token_error(
                audience,
                None,
                "no platform credentials are configured".into(),
            ));
        };
        let request = psi_storefront::types::PlatformTokenRequest {
            client_id: Some(credentials.client_id.clone()),
            client_secret: Some(credentials.client_secret.clone()),
            grant_type: Some("client_credentials".to_owned()),
            scope: Some("write".to_owned()),
        };
        let response = platform
            .get_platform_token()
            .body(request)
            .send()
            .await
            .map_err(|error| token_error(audience, error.status(), describe(&error)))?
            .into_inner();
        fetched(audience, response.access_token, response.expires_in)
    }

    #[cfg(not(feature = "storefront"))]
    async fn platform_token(&self, audience: &Audience) -> Result<FetchedToken, TokenError> {
        Err(token_error(
            audience,
            None,
            "the storefront feature is off".into(),
        ))
    }
}

fn fetched(
    audience: &Audience,
    token: Option<psi_runtime::Secret>,
    expires_in: Option<i64>,
) -> Result<FetchedToken, TokenError> {
    let access_token = token.ok_or_else(|| {
        token_error(
            audience,
            Some(reqwest::StatusCode::OK),
            "the answer has no access_token".into(),
        )
    })?;
    let expires_in = expires_in
        .and_then(|seconds| u64::try_from(seconds).ok())
        .map_or(UNKNOWN_LIFETIME, Duration::from_secs);
    Ok(FetchedToken {
        access_token,
        expires_in,
    })
}

fn token_error(
    audience: &Audience,
    status: Option<reqwest::StatusCode>,
    problem: String,
) -> TokenError {
    TokenError {
        audience: audience.clone(),
        status: status.map(|s| s.as_u16()),
        problem,
    }
}

/// What went wrong, without echoing a response body (it could repeat
/// what was sent).
fn describe<E>(error: &progenitor_client::Error<E>) -> String {
    use progenitor_client::Error;
    match error {
        Error::ErrorResponse(response) => {
            format!("the token endpoint answered {}", response.status())
        }
        Error::UnexpectedResponse(response) => {
            format!("the token endpoint answered {}", response.status())
        }
        Error::CommunicationError(error) => {
            format!("the token endpoint could not be reached ({error})")
        }
        Error::InvalidResponsePayload(_, error) => {
            format!("the token endpoint's answer is not a token ({error})")
        }
        other => format!("the token request failed ({})", kind(other)),
    }
}

fn kind<E>(error: &progenitor_client::Error<E>) -> &'static str {
    use progenitor_client::Error;
    match error {
        Error::InvalidRequest(_) => "invalid request",
        Error::ResponseBodyError(_) => "unreadable answer",
        Error::InvalidUpgrade(_) => "invalid upgrade",
        Error::Custom(_) => "hook",
        _ => "other",
    }
}
