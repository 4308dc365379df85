//! The runtime context every generated client carries (progenitor's inner type).

use crate::token::{Audience, TokenCache};
use crate::RetryPolicy;
use std::fmt;
use std::sync::Arc;

/// Checks a request body before it is sent: `(operationId, body)`, an error
/// lists every violation.
pub type Preflight = Arc<dyn Fn(&str, &[u8]) -> Result<(), String> + Send + Sync>;

/// What a generated client needs beyond its base URL: which API it is, how
/// it authenticates, how it retries and what it checks before sending.
#[derive(Clone)]
pub struct Context {
    pub(crate) api: &'static str,
    pub(crate) auth: Option<(Audience, Arc<TokenCache>)>,
    pub(crate) retry: RetryPolicy,
    pub(crate) preflight: Option<Preflight>,
}

impl Context {
    /// An unauthenticated context with the default retry policy, for the
    /// token endpoints (or a caller that sets its own Authorization header).
    pub fn new(api: &'static str) -> Self {
        Self {
            api,
            auth: None,
            retry: RetryPolicy::default(),
            preflight: None,
        }
    }

    /// Sends a bearer token for `audience` from `tokens` on every call.
    pub fn with_auth(mut self, audience: Audience, tokens: Arc<TokenCache>) -> Self {
        self.auth = Some((audience, tokens));
        self
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    pub fn with_preflight(mut self, preflight: Preflight) -> Self {
        self.preflight = Some(preflight);
        self
    }

    /// The API's name as it appears in traces (`pay-later`).
    pub fn api(&self) -> &'static str {
        self.api
    }

    pub fn retry(&self) -> &RetryPolicy {
        &self.retry
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("api", &self.api)
            .field(
                "audience",
                &self.auth.as_ref().map(|(audience, _)| audience),
            )
            .field("retry", &self.retry)
            .field("preflight", &self.preflight.is_some())
            .finish()
    }
}
