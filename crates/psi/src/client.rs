//! `psi::Client`: built once, hands out ready generated clients.

use crate::api::{Api, ApiTable};
use crate::tokens::Fetcher;
use psi_runtime::{
    Audience, ConfigError, Context, Credentials, Environment, RetryPolicy, Secret, TokenCache,
    TokenError, TokenErrorKind,
};
use std::sync::Arc;

/// The entry point: one environment, one set of credentials, one token
/// cache and one connection pool, shared by every API client it hands out.
/// Cheap to clone.
#[derive(Clone, Debug)]
pub struct Client {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    environment: Environment,
    http: reqwest::Client,
    tokens: Arc<TokenCache>,
    audiences: ApiTable<Audience>,
    /// Base URL and runtime context of every API the settings allow, built
    /// once: handing out a client is then two clones.
    apis: ApiTable<(String, Context)>,
    /// The context of the invoice download from a notification's address
    /// (its own token audience: [`ClientBuilder::invoice_audience`]).
    #[cfg_attr(not(feature = "order-status"), allow(dead_code))]
    invoice_context: Context,
    /// For the refusing context of an API without its settings (only the
    /// shop configuration has settings of its own).
    #[cfg_attr(not(feature = "shop-config"), allow(dead_code))]
    call_span_level: tracing::Level,
    /// The drift report every context's observer records into
    /// ([`ClientBuilder::drift`]).
    #[cfg(feature = "drift")]
    drift: Option<Arc<psi_drift::Drift>>,
}

/// Settings of a [`Client`]; every setting has a default but the
/// environment and the credentials.
#[derive(Debug, Default)]
pub struct ClientBuilder {
    environment: Option<Environment>,
    credentials: Option<Credentials>,
    platform_credentials: Option<Credentials>,
    retry: Option<RetryPolicy>,
    audiences: ApiTable<Audience>,
    skip_preflight: bool,
    http_client: Option<reqwest::Client>,
    call_span_level: Option<tracing::Level>,
    allow_insecure_http: bool,
    invoice_audience: Option<String>,
    #[cfg(feature = "drift")]
    drift: Option<crate::drift::Limits>,
}

impl ClientBuilder {
    /// Where the APIs are (required).
    pub fn environment(mut self, environment: Environment) -> Self {
        self.environment = Some(environment);
        self
    }

    /// The merchant's OAuth client credentials (required).
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Credentials of the storefront platform's own OAuth endpoint.
    pub fn platform_credentials(mut self, credentials: Credentials) -> Self {
        self.platform_credentials = Some(credentials);
        self
    }

    /// Attempts, backoff and timeouts (see [`RetryPolicy`]).
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = Some(retry);
        self
    }

    /// Overrides the token audience of one API (the shop configuration's is
    /// better set with [`Environment::with_shop_config`], beside its address).
    pub fn audience(mut self, api: Api, audience: impl Into<String>) -> Self {
        self.audiences
            .insert(api, Audience::Service(audience.into()));
        self
    }

    /// Sends every call through `http_client` instead of the one psi builds:
    /// for a proxy of your choosing, your own root certificates, connection
    /// limits or another TLS backend. psi still sets each call's timeout
    /// (from the [`RetryPolicy`]), its `User-Agent` and its headers; the
    /// connect timeout is then the given client's own. Build it from
    /// [`http_client_builder`](crate::http_client_builder) so that it
    /// follows no redirect, as psi's own does: a client that follows one
    /// re-sends a call, its token or the token request's secret to the
    /// address the answer names.
    pub fn http_client(mut self, http_client: reqwest::Client) -> Self {
        self.http_client = Some(http_client);
        self
    }

    /// The level of each call's `psi.call` span (the API, the operationId,
    /// the attempt, the status and the duration): DEBUG unless set.
    ///
    /// DEBUG because every subscriber that logs INFO builds and formats an
    /// INFO span on every call, which is the largest part of the time psi
    /// adds to a call. Log lines lose nothing: a span writes no
    /// line by itself, and retries, refusals and failures are WARN events
    /// naming the API and the operationId at any span level. Set
    /// `tracing::Level::INFO` to have INFO subscribers see the span itself
    /// (span-close lines, exported traces).
    pub fn call_span_level(mut self, level: tracing::Level) -> Self {
        self.call_span_level = Some(level);
        self
    }

    /// The token audience of the invoice download from a notification's
    /// address ([`Client::download_invoice`]). By default the order status
    /// audience (`{api_url}/order/status/v2/transactions`): the
    /// specification names no audience for the download, which belongs to
    /// the order status API of payment API 1.8. `Client::from_env` reads
    /// `PSI_INVOICE_AUDIENCE`.
    pub fn invoice_audience(mut self, audience: impl Into<String>) -> Self {
        self.invoice_audience = Some(audience.into());
        self
    }

    /// Accepts plain `http` addresses for hosts other than loopback ones.
    /// Without it, [`build`](Self::build) refuses them, naming the setting:
    /// tokens and the client secret travel to these addresses.
    /// `Client::from_env` reads `PSI_ALLOW_INSECURE_HTTP=1`.
    pub fn allow_insecure_http(mut self) -> Self {
        self.allow_insecure_http = true;
        self
    }

    /// Sends requests without the pre-flight checks (the service still
    /// checks them): for testing how the service answers bad input.
    pub fn skip_preflight(mut self) -> Self {
        self.skip_preflight = true;
        self
    }

    /// Turns on the drift report (the `drift` feature; off unless called):
    /// every final answer of every call this client makes, the token
    /// requests included, is checked against the bundled documents before
    /// it is decoded, and what it carries that they do not say (an
    /// undeclared member, a value read leniently, an unknown enum value, an
    /// undeclared status or media type, a body that is not JSON) is
    /// aggregated into [`Client::drift`]. What `send()` returns does not
    /// change. `limits` bounds the report
    /// (`psi::drift::Limits::default()`: 1000 distinct findings, 3 examples
    /// each). See [`crate::drift`] for what is checked and what it costs.
    ///
    /// The bundled documents are parsed once per process, by the first
    /// `build` with the report on.
    #[cfg(feature = "drift")]
    pub fn drift(mut self, limits: crate::drift::Limits) -> Self {
        self.drift = Some(limits);
        self
    }

    /// The client, or an error naming the missing or malformed setting.
    pub fn build(self) -> Result<Client, ConfigError> {
        let missing = |setting: &str| ConfigError::NotSet {
            setting: setting.to_owned(),
        };
        let environment = self.environment.ok_or_else(|| missing("environment"))?;
        if !self.allow_insecure_http {
            environment.check_https()?;
        }
        let credentials = self.credentials.ok_or_else(|| missing("credentials"))?;
        let retry = self.retry.unwrap_or_default();
        // psi's own client never follows a redirect (psi_runtime::http_client_builder).
        let http = match self.http_client {
            Some(http) => http,
            None => crate::tls::client_builder()?
                .connect_timeout(retry.connect_timeout())
                .build()
                .map_err(|error| ConfigError::HttpClient {
                    problem: error.to_string(),
                })?,
        };
        let base_urls: Vec<(Api, String)> = Api::ALL
            .iter()
            .filter_map(|api| Some((*api, api.base_url(&environment)?)))
            .collect();
        let call_span_level = self
            .call_span_level
            .unwrap_or(psi_runtime::DEFAULT_CALL_SPAN_LEVEL);
        #[cfg(feature = "drift")]
        let drift = self
            .drift
            .map(|limits| Arc::new(psi_drift::Drift::with_limits(limits)));
        // One observer for every context: the operationId it is given names
        // the API's document.
        #[cfg(feature = "drift")]
        let observer = drift.clone().map(crate::drift::observer);
        let with_client_settings = |context: Context| {
            let context = context.with_call_span_level(call_span_level);
            #[cfg(feature = "drift")]
            if let Some(observer) = &observer {
                return context.with_observer(observer.clone());
            }
            context
        };

        // Token endpoints run without a token. A token request is a POST, so
        // the runtime sends it again only after a connect error (one more
        // attempt), never once it may have reached the server.
        let token_context = with_client_settings(
            Context::new("token").with_retry(retry.clone().with_max_attempts(2)),
        );
        let fetcher = Fetcher {
            token_server: psi_token::Client::new_with_client(
                &crate::api::trimmed(&environment.auth_url),
                http.clone(),
                token_context.clone(),
            ),
            credentials,
            #[cfg(feature = "storefront")]
            platform: match (
                Api::Storefront.base_url(&environment),
                self.platform_credentials,
            ) {
                (Some(base_url), Some(credentials)) => Some((
                    psi_storefront::Client::new_with_client(
                        &base_url,
                        http.clone(),
                        token_context.clone(),
                    ),
                    credentials,
                )),
                _ => None,
            },
        };
        let mut audiences: ApiTable<Audience> = Api::ALL
            .iter()
            .filter_map(|api| Some((*api, api.audience(&environment)?)))
            .collect();
        audiences.extend(self.audiences);
        let tokens = Arc::new(TokenCache::new(fetcher));
        let preflight: Option<psi_runtime::Preflight> = (!self.skip_preflight).then(|| {
            Arc::new(|operation_id: &str, body: &dyn std::any::Any| {
                crate::preflight::check_request(operation_id, body)
                    .map_err(|violations| Arc::new(violations) as psi_runtime::PreflightError)
            }) as psi_runtime::Preflight
        });
        let mut invoice_context =
            with_client_settings(Context::new("order-status").with_retry(retry.clone()));
        let invoice_audience = match self.invoice_audience {
            Some(audience) => Some(Audience::Service(audience)),
            None => audiences.get(Api::OrderStatus).cloned(),
        };
        if let Some(audience) = invoice_audience {
            invoice_context = invoice_context.with_auth(audience, tokens.clone());
        }
        let apis = base_urls
            .into_iter()
            .filter_map(|(api, base_url)| {
                let mut context = with_client_settings(
                    Context::new(api.name())
                        .with_auth(audiences.get(api)?.clone(), tokens.clone())
                        .with_retry(retry.clone()),
                );
                if let Some(preflight) = &preflight {
                    context = context.with_preflight(preflight.clone());
                }
                Some((api, (base_url, context)))
            })
            .collect();
        Ok(Client {
            shared: Arc::new(Shared {
                environment,
                http,
                tokens,
                audiences,
                apis,
                invoice_context,
                call_span_level,
                #[cfg(feature = "drift")]
                drift,
            }),
        })
    }
}

impl Client {
    /// Settings of a new client; [`Client::from_env`] reads them from the environment.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Reads the environment (`PSI_BASE_URL`, `PSI_API_URL`, `PSI_AUTH_URL`,
    /// optionally `PSI_PLATFORM_URL`, and `PSI_SHOP_CONFIG_URL` with
    /// `PSI_SHOP_CONFIG_AUDIENCE`) and the credentials (`PSI_CLIENT_ID`,
    /// `PSI_CLIENT_SECRET`, optionally `PSI_PLATFORM_CLIENT_ID` and
    /// `PSI_PLATFORM_CLIENT_SECRET`); an error names the variable.
    // `#[inline]` so that only applications that call it compile it.
    #[inline]
    pub fn from_env() -> Result<Client, ConfigError> {
        Self::builder_from_lookup(|name| std::env::var(name).ok())?.build()
    }

    /// The builder [`Client::from_env`] makes, over any lookup (tests pass a map).
    #[inline]
    fn builder_from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<ClientBuilder, ConfigError> {
        let mut builder = Client::builder()
            .environment(Environment::from_lookup(&lookup)?)
            .credentials(Credentials::from_lookup("PSI_", &lookup)?);
        if matches!(
            lookup("PSI_ALLOW_INSECURE_HTTP").as_deref().map(str::trim),
            Some("1" | "true")
        ) {
            builder = builder.allow_insecure_http();
        }
        if let Some(audience) = lookup("PSI_INVOICE_AUDIENCE") {
            builder = builder.invoice_audience(audience.trim());
        }
        if lookup("PSI_PLATFORM_CLIENT_ID").is_some()
            || lookup("PSI_PLATFORM_CLIENT_SECRET").is_some()
        {
            builder =
                builder.platform_credentials(Credentials::from_lookup("PSI_PLATFORM_", &lookup)?);
        }
        Ok(builder)
    }

    /// The addresses the client calls.
    pub fn environment(&self) -> &Environment {
        &self.shared.environment
    }

    /// A valid token for `api` (from the cache, or fetched once). Calls get
    /// their tokens by themselves; this is for callers who want to know early
    /// that the credentials work, with a typed error.
    pub async fn token(&self, api: Api) -> Result<Secret, TokenError> {
        let audience = self.shared.audiences.get(api).ok_or_else(|| {
            TokenError::new(
                TokenErrorKind::MissingSetting,
                Audience::Service(String::new()),
                None,
                api.missing_settings().to_string(),
            )
        })?;
        self.shared.tokens.token(audience).await
    }

    /// What the drift report found so far, aggregated over every call of
    /// this client and its clones (and the notifications of verifiers given
    /// it); `None` when the report is off ([`ClientBuilder::drift`]), so an
    /// empty report always means "checked, nothing found".
    #[cfg(feature = "drift")]
    pub fn drift(&self) -> Option<crate::drift::Report> {
        self.shared.drift.as_ref().map(|drift| drift.report())
    }

    /// Forgets every finding of the drift report (nothing when it is off).
    #[cfg(feature = "drift")]
    pub fn clear_drift(&self) {
        if let Some(drift) = &self.shared.drift {
            drift.clear();
        }
    }

    /// The drift report's checker, when the report is on.
    #[cfg(all(feature = "drift", feature = "payment-page"))]
    pub(crate) fn drift_checker(&self) -> Option<&Arc<psi_drift::Drift>> {
        self.shared.drift.as_ref()
    }

    /// `api`'s base URL, connection pool and runtime context.
    fn parts(&self, api: Api) -> Result<(String, reqwest::Client, Context), ConfigError> {
        let (base_url, context) = self
            .shared
            .apis
            .get(api)
            .ok_or_else(|| api.missing_settings())?;
        Ok((base_url.clone(), self.shared.http.clone(), context.clone()))
    }
}

// One method per API (`Client::pay_later` ...), generated from the x-psi
// blocks of openapi/*.yaml.
#[rustfmt::skip]
mod accessors;
#[cfg(feature = "order-status")]
mod invoice;

#[cfg(test)]
mod tests {
    use super::Client;

    fn lookup(extra: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            [
                ("PSI_BASE_URL", "http://pay.example.com"),
                ("PSI_API_URL", "https://api.example.com"),
                ("PSI_AUTH_URL", "https://auth.example.com"),
                ("PSI_CLIENT_ID", "merchant-1"),
                ("PSI_CLIENT_SECRET", "secret"),
            ]
            .iter()
            .chain(extra)
            .find(|(key, _)| *key == name)
            .map(|(_, value)| (*value).to_owned())
        }
    }

    #[test]
    fn the_environment_opts_into_plain_http_and_sets_the_invoice_audience() {
        let refused = Client::builder_from_lookup(lookup(&[]))
            .unwrap()
            .build()
            .unwrap_err();
        assert_eq!(refused.setting(), "base_url");
        Client::builder_from_lookup(lookup(&[("PSI_ALLOW_INSECURE_HTTP", "1")]))
            .unwrap()
            .build()
            .unwrap();
        let builder = Client::builder_from_lookup(lookup(&[(
            "PSI_INVOICE_AUDIENCE",
            " https://api.example.com/invoices ",
        )]))
        .unwrap();
        assert_eq!(
            builder.invoice_audience.as_deref(),
            Some("https://api.example.com/invoices")
        );
    }
}
