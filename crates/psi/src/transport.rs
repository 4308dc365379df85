//! Whether psi's own client sends through psi's transport
//! ([`psi_runtime::Transport`]: hyper-util's pool without reqwest's layers)
//! or through reqwest, and the transport's TLS.
//!
//! psi's transport is used when psi builds the HTTP client itself, with a
//! rustls feature on, and no proxy applies. Otherwise reqwest sends, as it
//! always did:
//! - a client given with `ClientBuilder::http_client` is the caller's;
//! - without rustls (`native-tls`, or no TLS feature) reqwest carries the
//!   TLS backend;
//! - reqwest speaks to proxies (forwarding, CONNECT tunnels, proxy
//!   credentials, and SOCKS with its `socks` feature) and psi's transport
//!   does not. So when the proxy settings
//!   reqwest reads (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY, in
//!   either case, and the system's settings where reqwest's `system-proxy`
//!   feature is on) send any of the environment's addresses through a
//!   proxy, psi hands every call to reqwest.
//!
//! The TLS is reqwest's own choice with `http1_only`: rustls with the
//! process's default crypto provider or else aws-lc-rs (with the `rustls`
//! feature), TLS 1.2 and 1.3, the platform's certificate verifier. One
//! difference: hyper-rustls offers no ALPN when only HTTP/1.1 is enabled,
//! where reqwest offers `http/1.1`; a server then speaks HTTP/1.1 all the
//! same.

use hyper_util::client::proxy::matcher::Matcher;
use psi_runtime::{ConfigError, RetryPolicy, Transport};

/// psi's transport for calls to `addresses`, or `None` where reqwest sends
/// them (see the module's documentation).
pub(crate) fn own_transport<'a>(
    addresses: impl IntoIterator<Item = &'a str>,
    retry: &RetryPolicy,
) -> Result<Option<Transport>, ConfigError> {
    if any_proxied(&Matcher::from_system(), addresses) {
        return Ok(None);
    }
    #[cfg(any(feature = "rustls", feature = "rustls-graviola"))]
    return rustls_transport(retry).map(Some);
    #[cfg(not(any(feature = "rustls", feature = "rustls-graviola")))]
    {
        let _ = retry;
        Ok(None)
    }
}

/// Whether `matcher` sends any of `addresses` through a proxy (an address
/// that cannot be read as a URI counts as proxied: reqwest then decides).
fn any_proxied<'a>(matcher: &Matcher, addresses: impl IntoIterator<Item = &'a str>) -> bool {
    addresses.into_iter().any(|address| {
        address
            .parse::<http::Uri>()
            .map_or(true, |uri| matcher.intercept(&uri).is_some())
    })
}

/// The transport over HTTP and HTTPS with rustls and the platform's
/// certificate verifier.
#[cfg(any(feature = "rustls", feature = "rustls-graviola"))]
fn rustls_transport(retry: &RetryPolicy) -> Result<Transport, ConfigError> {
    use std::sync::Arc;
    // The provider the process installed (psi installs Graviola with
    // `rustls-graviola`, before this runs), else aws-lc-rs with `rustls`.
    let provider = match rustls::crypto::CryptoProvider::get_default() {
        Some(provider) => provider.clone(),
        #[cfg(feature = "rustls")]
        None => Arc::new(rustls::crypto::aws_lc_rs::default_provider()),
        #[cfg(not(feature = "rustls"))]
        None => {
            return Err(tls_problem(
                "no rustls crypto provider is installed for the rustls-graviola feature",
            ))
        }
    };
    let verifier = rustls_platform_verifier::Verifier::new(provider.clone())
        .map_err(|error| tls_problem(format!("the platform's certificate verifier: {error}")))?;
    https_transport(provider, Arc::new(verifier), retry)
}

/// The transport over HTTP and HTTPS with rustls, `provider`'s
/// cryptography and `verifier`'s trust.
#[cfg(any(feature = "rustls", feature = "rustls-graviola"))]
fn https_transport(
    provider: std::sync::Arc<rustls::crypto::CryptoProvider>,
    verifier: std::sync::Arc<dyn rustls::client::danger::ServerCertVerifier>,
    retry: &RetryPolicy,
) -> Result<Transport, ConfigError> {
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| tls_problem(format!("TLS versions: {error}")))?
        // rustls files every verifier but its own built-in one under
        // "dangerous"; the platform's is the safe choice (reqwest's too).
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Transport::https(config, retry.connect_timeout()))
}

#[cfg(any(feature = "rustls", feature = "rustls-graviola"))]
fn tls_problem(problem: impl Into<String>) -> ConfigError {
    ConfigError::HttpClient {
        problem: problem.into(),
    }
}

#[cfg(test)]
mod tests;
