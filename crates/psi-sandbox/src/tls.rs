//! The HTTP client of the sandbox's own outgoing calls (webhooks, seeding,
//! the control API client), with the TLS backend its features chose.
//!
//! With `rustls-graviola`, reqwest takes rustls's crypto provider from the
//! process default and panics without one, so Graviola is installed first
//! (unless the process installed a provider already: that one is kept).

/// A `reqwest::Client` whose TLS backend is ready.
pub(crate) fn http_client() -> reqwest::Client {
    #[cfg(feature = "rustls-graviola")]
    {
        // Err: a provider is installed already; keep it.
        let _ = rustls_graviola::default_provider().install_default();
    }
    reqwest::Client::new()
}
