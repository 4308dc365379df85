//! The runtime context every generated client carries (progenitor's inner type).

use crate::error::PreflightError;
use crate::token::{Audience, TokenCache, TokenHandle};
use crate::{ConfigError, RetryPolicy};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// Checks a request body before it is sent: `(operationId, body)`, the body
/// being the generated request type (`psi_payment_page::types::SessionRequest`)
/// exactly as the call is about to serialize it, so a check downcasts it
/// rather than parsing JSON back. The error (the facade's typed violations)
/// comes back to the caller as it is.
pub type Preflight = Arc<dyn Fn(&str, &dyn Any) -> Result<(), PreflightError> + Send + Sync>;

/// Sees the final answer of every call, as received, before it is decoded
/// (the facade's drift report, `psi::ClientBuilder::drift`). What it does
/// never changes what the call returns: it gets the bytes to read, not to
/// change, and returns nothing.
///
/// Called once per call that gets an answer, 2xx or not: for the answer
/// the call ends with, not for an attempt that is retried or sent again
/// with a fresh token (those answers are dropped unread). A 2xx is seen
/// when the generated code reads it: with its body when read as JSON,
/// without it when the operation declares no body or a file (its status
/// and media type still are). A call without an answer (a refusal before
/// sending, a transport failure, a timeout) is not seen. The observer runs
/// on the caller's task, synchronously: keep it short.
pub type Observer = Arc<dyn Fn(&Received<'_>) + Send + Sync>;

/// One final answer as an [`Observer`] sees it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Received<'a> {
    /// The API's name as in traces (`pay-later`).
    pub api: &'static str,
    /// The operation's operationId (`getPayLaterStatus`).
    pub operation_id: &'static str,
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header as received, when it is text.
    pub content_type: Option<&'a str>,
    /// The body as received (content coding undone by reqwest); empty for
    /// a 2xx whose body is not read as JSON (see [`Observer`]).
    pub body: &'a [u8],
}

/// The level of the `psi.call` span unless
/// [`Context::with_call_span_level`] sets another: DEBUG.
///
/// An INFO span is built and its fields formatted by every subscriber that
/// logs INFO, on every call, which is the largest part of what psi adds to
/// a call. Plain log lines lose nothing at DEBUG: a span alone writes no
/// line, and the events that matter at INFO and above (retries, refusals,
/// failures) are WARN events that carry the API and the operationId
/// themselves. What an INFO subscriber does not see at DEBUG is the span
/// itself (span-close lines, exported traces); set INFO to get it.
pub const DEFAULT_CALL_SPAN_LEVEL: tracing::Level = tracing::Level::DEBUG;

/// `psi/<version> (<api>)` as a header value over static text: every call
/// copies it into its request, and a copy of a static value touches no
/// shared reference count (one made from a `String` does, on every call
/// and from every thread). Each API's text is made and kept once per
/// process: a handful of short strings, however many clients are built.
fn user_agent(api: &'static str) -> reqwest::header::HeaderValue {
    use reqwest::header::HeaderValue;
    static MADE: std::sync::Mutex<Vec<(&'static str, HeaderValue)>> =
        std::sync::Mutex::new(Vec::new());
    let mut made = MADE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, value)) = made.iter().find(|(known, _)| *known == api) {
        return value.clone();
    }
    let text = format!("psi/{} ({api})", env!("CARGO_PKG_VERSION"));
    // An API name that is not valid header text (none of psi's) gets the bare product name.
    let value = match HeaderValue::from_str(&text) {
        Ok(_) => HeaderValue::from_static(Box::leak(text.into_boxed_str())),
        Err(_) => HeaderValue::from_static("psi"),
    };
    made.push((api, value.clone()));
    value
}

/// What a generated client needs beyond its base URL: which API it is, how
/// it authenticates, how it retries and what it checks before sending.
/// Cloning it (as every `client.pay_later()` does) is one reference count.
#[derive(Clone)]
pub struct Context(Arc<Settings>);

#[derive(Clone)]
pub(crate) struct Settings {
    pub(crate) api: &'static str,
    /// `psi/<version> (<api>)`, built once per API.
    pub(crate) user_agent: reqwest::header::HeaderValue,
    pub(crate) auth: Option<TokenHandle>,
    pub(crate) retry: RetryPolicy,
    pub(crate) preflight: Option<Preflight>,
    /// Sees every final answer (unset: one `Option` check per call).
    pub(crate) observer: Option<Observer>,
    /// Set when a setting the API needs is missing: every call is refused
    /// with it before anything is sent, the token request included.
    pub(crate) missing_setting: Option<ConfigError>,
    /// The level of the `psi.call` span (DEBUG unless set).
    pub(crate) call_span_level: tracing::Level,
}

impl Context {
    /// An unauthenticated context with the default retry policy, for the
    /// token endpoints (or a caller that sets its own Authorization header).
    pub fn new(api: &'static str) -> Self {
        Self(Arc::new(Settings {
            api,
            user_agent: user_agent(api),
            auth: None,
            retry: RetryPolicy::default(),
            preflight: None,
            observer: None,
            missing_setting: None,
            call_span_level: DEFAULT_CALL_SPAN_LEVEL,
        }))
    }

    /// A context for an API whose settings are incomplete: every call fails
    /// with `error` before anything is sent. Handing out such a client (as
    /// `psi::Client` does for the shop configuration) lets code that uses
    /// the API compile and run the same everywhere.
    pub fn refusing(api: &'static str, error: ConfigError) -> Self {
        Self::new(api).with(|settings| settings.missing_setting = Some(error))
    }

    pub(crate) fn settings(&self) -> &Settings {
        &self.0
    }

    fn with(mut self, change: impl FnOnce(&mut Settings)) -> Self {
        change(Arc::make_mut(&mut self.0));
        self
    }

    /// Sends a bearer token for `audience` from `tokens` on every call.
    pub fn with_auth(self, audience: Audience, tokens: Arc<TokenCache>) -> Self {
        self.with(|settings| settings.auth = Some(tokens.handle(&audience)))
    }

    /// Retries calls as `retry` allows.
    pub fn with_retry(self, retry: RetryPolicy) -> Self {
        self.with(|settings| settings.retry = retry)
    }

    /// Opens each call's `psi.call` span at `level` instead of
    /// [`DEFAULT_CALL_SPAN_LEVEL`] (DEBUG). Retries, refusals and failures
    /// are WARN events carrying the API and the operationId whatever the
    /// span's level; see [`DEFAULT_CALL_SPAN_LEVEL`] for why the span is
    /// DEBUG unless set.
    pub fn with_call_span_level(self, level: tracing::Level) -> Self {
        self.with(|settings| settings.call_span_level = level)
    }

    /// Checks every request body with `preflight` before it is sent.
    pub fn with_preflight(self, preflight: Preflight) -> Self {
        self.with(|settings| settings.preflight = Some(preflight))
    }

    /// Shows every call's final answer to `observer` before it is decoded
    /// (see [`Observer`] for which answers and when).
    pub fn with_observer(self, observer: Observer) -> Self {
        self.with(|settings| settings.observer = Some(observer))
    }

    /// The observer of answers, when one is set.
    pub(crate) fn observer(&self) -> Option<&Observer> {
        self.0.observer.as_ref()
    }

    /// The pre-flight verdict on the typed request `body` of `operation`
    /// (its operationId): `Ok` at once when no pre-flight is set.
    pub(crate) fn check_preflight(
        &self,
        operation: &str,
        body: &dyn Any,
    ) -> Result<(), PreflightError> {
        match &self.0.preflight {
            Some(preflight) => preflight(operation, body),
            None => Ok(()),
        }
    }

    /// The API's name as it appears in traces (`pay-later`).
    pub fn api(&self) -> &'static str {
        self.0.api
    }

    /// The level of each call's `psi.call` span.
    pub fn call_span_level(&self) -> tracing::Level {
        self.0.call_span_level
    }

    /// The retry policy of the calls.
    pub fn retry(&self) -> &RetryPolicy {
        &self.0.retry
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("api", &self.0.api)
            .field("audience", &self.0.auth.as_ref().map(TokenHandle::audience))
            .field("retry", &self.0.retry)
            .field("preflight", &self.0.preflight.is_some())
            .field("observer", &self.0.observer.is_some())
            .field("missing_setting", &self.0.missing_setting)
            .field("call_span_level", &self.0.call_span_level)
            .finish()
    }
}
