//! The HTTP client settings every client psi builds starts from.

/// A `reqwest::ClientBuilder` for psi's calls: HTTP/1.1 only, and without
/// reqwest's own retry layer.
///
/// psi retries by its [`RetryPolicy`](crate::RetryPolicy), each attempt
/// counted and traced. reqwest's layer (on by default) only ever resends
/// after an HTTP/2 or HTTP/3 refusal, which an HTTP/1.1 connection never
/// answers, yet it copies every request's method, URL and headers before
/// sending, in case: about 600 instructions of a call's 100,000 against a
/// local server (BENCHMARKS.md, "reqwest's retry layer off"). Pinning
/// HTTP/1.1 keeps that true when another crate of the application turns
/// reqwest's `http2` feature on: psi then still speaks the protocol its
/// sandbox and tests speak, and nothing a caller relies on was retried by
/// that layer.
///
/// The TLS backend, timeouts and anything else are the caller's to add.
pub fn http_client_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .http1_only()
        .retry(reqwest::retry::never().max_retries_per_request(0))
}
