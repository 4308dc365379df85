//! The HTTP client settings every client psi builds starts from.

/// A `reqwest::ClientBuilder` for psi's calls: reqwest's defaults, except
/// that no redirect is followed.
///
/// A redirect would re-send a call, its bearer token or the token
/// request's client secret to the address in `Location`; the service
/// documents none, so psi reports a 3xx as it came
/// ([`Error::UnexpectedStatus`](crate::Error::UnexpectedStatus), its
/// headers kept). The TLS backend, timeouts and anything else are the
/// caller's to add.
pub fn http_client_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none())
}
