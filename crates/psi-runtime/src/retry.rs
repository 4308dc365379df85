//! When and how long to wait before sending a call again.
//!
//! Retried: connect errors, timeouts, 408, 429 and 5xx. Only calls that are
//! safe to repeat are sent again: GET, PUT and DELETE, and POSTs that carry
//! an Idempotency-Key (session creation always does). Any other POST is sent
//! again only after a connect error, when it cannot have reached the server.

use reqwest::{Method, StatusCode};
use std::time::Duration;

/// Attempts, backoff and timeouts. The defaults suit interactive checkouts:
/// 3 attempts, backoff from 200 ms doubling up to 5 s with full jitter,
/// `Retry-After` honoured up to 30 s, 5 s to connect, 30 s per attempt.
///
/// ```
/// use std::time::Duration;
/// let patient = psi_runtime::RetryPolicy::default()
///     .with_max_attempts(5)
///     .with_request_timeout(Duration::from_secs(60));
/// assert_eq!(patient.max_attempts(), 5);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    max_attempts: u32,
    initial_backoff: Duration,
    max_backoff: Duration,
    max_retry_after: Duration,
    connect_timeout: Duration,
    request_timeout: Duration,
}

macro_rules! setting {
    ($(#[$doc:meta])* $field:ident, $with:ident, $type:ty) => {
        $(#[$doc])*
        pub fn $field(&self) -> $type {
            self.$field
        }

        $(#[$doc])*
        #[must_use]
        pub fn $with(mut self, value: $type) -> Self {
            self.$field = value;
            self
        }
    };
}

impl RetryPolicy {
    setting!(
        /// Attempts in all, the first included (1 = never retry; 0 counts as 1).
        max_attempts, with_max_attempts, u32
    );
    setting!(
        /// Backoff before the second attempt; doubles each time, with full jitter.
        initial_backoff, with_initial_backoff, Duration
    );
    setting!(
        /// Cap of the exponential backoff.
        max_backoff, with_max_backoff, Duration
    );
    setting!(
        /// Longest `Retry-After` honoured; a longer one ends the retries.
        max_retry_after, with_max_retry_after, Duration
    );
    setting!(
        /// Time to establish a connection (of the HTTP client psi builds).
        connect_timeout, with_connect_timeout, Duration
    );
    setting!(
        /// Timeout of one attempt, connection included: its answer and the
        /// body read from it (a streamed answer, such as an invoice file,
        /// too) must arrive within it, or the attempt ends with an error
        /// whose `is_timeout()` is true.
        request_timeout, with_request_timeout, Duration
    );
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(5),
            max_retry_after: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
        }
    }
}

/// What went wrong with one attempt, as far as retrying is concerned.
pub enum Outcome<'a> {
    /// The connection could not be made: nothing reached the server.
    ConnectFailed,
    /// The attempt timed out or broke after the request may have been sent.
    Interrupted,
    /// The server answered.
    Answered {
        status: StatusCode,
        retry_after: Option<&'a str>,
    },
}

impl RetryPolicy {
    /// Never retries: for tests and callers with their own retry loop.
    pub fn none() -> Self {
        Self::default().with_max_attempts(1)
    }

    /// How long to wait before attempt `attempt + 1`, or `None` to stop.
    /// `attempt` counts from 1; `repeatable` says the call may be sent again
    /// once it may have reached the server.
    pub fn next_delay(
        &self,
        attempt: u32,
        repeatable: bool,
        outcome: &Outcome<'_>,
    ) -> Option<Duration> {
        if attempt >= self.max_attempts {
            return None;
        }
        let retry_after = match outcome {
            Outcome::ConnectFailed => None,
            Outcome::Interrupted if repeatable => None,
            Outcome::Answered {
                status,
                retry_after,
            } if repeatable && is_retryable_status(*status) => {
                retry_after.and_then(parse_retry_after)
            }
            _ => return None,
        };
        match retry_after {
            Some(wait) if wait > self.max_retry_after => None,
            Some(wait) => Some(wait),
            None => Some(self.backoff(attempt)),
        }
    }

    /// Exponential backoff with full jitter: uniform in [0, min(cap, base x 2^(attempt-1))].
    fn backoff(&self, attempt: u32) -> Duration {
        let exponent = attempt.saturating_sub(1).min(16);
        let ceiling = self
            .initial_backoff
            .saturating_mul(1 << exponent)
            .min(self.max_backoff);
        ceiling.mul_f64(fastrand::f64())
    }
}

/// 408, 429 and every 5xx.
pub fn is_retryable_status(status: StatusCode) -> bool {
    status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
        || status.is_server_error()
}

/// GET, PUT and DELETE are idempotent; a POST only with an Idempotency-Key.
pub fn is_repeatable(method: &Method, has_idempotency_key: bool) -> bool {
    matches!(
        *method,
        Method::GET | Method::PUT | Method::DELETE | Method::HEAD
    ) || has_idempotency_key
}

/// `Retry-After` as seconds or as an HTTP date.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = date.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(status: u16, retry_after: Option<&str>) -> Outcome<'_> {
        Outcome::Answered {
            status: StatusCode::from_u16(status).unwrap(),
            retry_after,
        }
    }

    #[test]
    fn retries_transient_answers_of_repeatable_calls_only() {
        let policy = RetryPolicy::default();
        for status in [408, 429, 500, 502, 503, 504] {
            assert!(
                policy
                    .next_delay(1, true, &answered(status, None))
                    .is_some(),
                "{status}"
            );
            assert!(
                policy
                    .next_delay(1, false, &answered(status, None))
                    .is_none(),
                "POST {status}"
            );
        }
        for status in [400, 401, 404, 409, 422] {
            assert!(
                policy
                    .next_delay(1, true, &answered(status, None))
                    .is_none(),
                "{status}"
            );
        }
        assert!(
            policy
                .next_delay(1, false, &Outcome::ConnectFailed)
                .is_some(),
            "nothing was sent"
        );
        assert!(
            policy.next_delay(1, false, &Outcome::Interrupted).is_none(),
            "a POST may have arrived"
        );
        assert!(
            policy.next_delay(3, true, &answered(503, None)).is_none(),
            "attempts are bounded"
        );
    }

    #[test]
    fn backoff_grows_with_jitter_and_retry_after_wins() {
        let policy = RetryPolicy::default();
        for attempt in 1..=2 {
            let ceiling = policy.initial_backoff * (1 << (attempt - 1));
            let delay = policy
                .next_delay(attempt, true, &answered(503, None))
                .unwrap();
            assert!(delay <= ceiling, "{delay:?} > {ceiling:?}");
        }
        assert_eq!(
            policy.next_delay(1, true, &answered(429, Some("2"))),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            policy.next_delay(1, true, &answered(429, Some("3600"))),
            None,
            "too long to wait"
        );
        let soon = (chrono::Utc::now() + chrono::Duration::seconds(3)).to_rfc2822();
        let wait = parse_retry_after(&soon).unwrap();
        assert!(
            wait <= Duration::from_secs(3) && wait >= Duration::from_secs(1),
            "{wait:?}"
        );
    }

    #[test]
    fn only_idempotent_methods_or_keyed_posts_repeat() {
        assert!(is_repeatable(&Method::GET, false));
        assert!(is_repeatable(&Method::PUT, false));
        assert!(is_repeatable(&Method::DELETE, false));
        assert!(!is_repeatable(&Method::POST, false));
        assert!(is_repeatable(&Method::POST, true));
    }
}
