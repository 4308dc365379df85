//! The HTTP client of the sandbox's own outgoing calls (webhooks, seeding,
//! the control API client, the proxy), with the TLS backend its features
//! chose. It follows no redirect: a receiver's 3xx is its answer (a
//! followed one would carry a signed notification, and its retries, to an
//! address `--webhook-allow` never allowed), and the proxy passes a 3xx on.
//!
//! With `rustls-graviola`, reqwest takes rustls's crypto provider from the
//! process default and panics without one, so Graviola is installed first
//! (unless the process installed a provider already: that one is kept).
//!
//! Server certificates are checked against the platform's store first. A
//! system without one (a slim container image without CA certificates) has
//! its client built with the bundled webpki roots instead, and says so in
//! the log: the sandbox starts either way.

/// A `reqwest::Client` whose TLS backend is ready; the error says why
/// neither the platform's store nor the bundled roots could be used.
pub(crate) fn http_client() -> Result<reqwest::Client, String> {
    #[cfg(feature = "rustls-graviola")]
    {
        // Err: a provider is installed already; keep it.
        let _ = rustls_graviola::default_provider().install_default();
    }
    match builder().build() {
        Ok(client) => Ok(client),
        Err(platform) => bundled_roots(&platform),
    }
}

/// Every client's start: no redirect followed.
fn builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none())
}

#[cfg(any(
    feature = "rustls",
    feature = "rustls-graviola",
    feature = "native-tls"
))]
fn bundled_roots(platform: &reqwest::Error) -> Result<reqwest::Client, String> {
    use std::error::Error as _;
    let cause = platform
        .source()
        .map_or_else(|| platform.to_string(), ToString::to_string);
    tracing::warn!(
        error = %cause,
        "the platform's CA certificates cannot be used; https webhook receivers are \
         verified against the bundled webpki roots instead"
    );
    let roots = webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok());
    builder().tls_certs_only(roots).build().map_err(|bundled| {
        format!("no TLS client: the platform's store: {cause}; the bundled roots: {bundled}")
    })
}

#[cfg(not(any(
    feature = "rustls",
    feature = "rustls-graviola",
    feature = "native-tls"
)))]
fn bundled_roots(platform: &reqwest::Error) -> Result<reqwest::Client, String> {
    Err(format!("no HTTP client: {platform}"))
}
