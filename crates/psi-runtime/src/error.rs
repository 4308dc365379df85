//! [`Error`]: every way a generated operation's `send()` can fail.
//!
//! One enum per call, generic over the error body the operation's document
//! declares (`E`: a payment API's `DeclineResponse`, the storefront
//! module's `ModuleResult`, ...). Each variant says what happened and
//! carries which call it was (the API and the operationId), so its
//! `Display` reads on one line wherever the error ends up: a `Box<dyn
//! Error>`, a log line, `anyhow`. The facade's `psi::Error` is the same
//! information with the body typed for every API at once.

use crate::environment::ConfigError;
use crate::token::TokenError;
use reqwest::header::HeaderMap;
use std::fmt;
use std::sync::Arc;

/// The longest body excerpt kept for an answer psi could not type, in bytes.
pub const EXCERPT_LIMIT: usize = 512;

/// What a pre-flight check refuses a call with (the facade's typed
/// violations; the runtime only carries them).
pub type PreflightError = Arc<dyn std::error::Error + Send + Sync>;

/// Every way a call can fail. `#[non_exhaustive]`: a `match` needs a
/// catch-all arm, so later kinds of failure do not break it.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error<E> {
    /// The call could not be built: a required parameter was not set, a
    /// value could not be converted, or a path parameter is empty, `.` or
    /// `..`. Nothing was sent.
    InvalidRequest(String),
    /// A setting the API needs is missing or malformed; nothing was sent.
    Config(Box<Refused<ConfigError>>),
    /// The request breaks a rule the specification states; nothing was sent.
    Preflight(Box<Refused<PreflightError>>),
    /// No token could be had; the call was not sent.
    Token(Box<Refused<TokenError>>),
    /// The service answered an error status with the error body its
    /// document declares.
    Declined(Box<Declined<E>>),
    /// The service answered a status its document does not declare (a
    /// redirect included: psi never follows one), or a declared error
    /// status whose body psi could not read as the declared shape.
    UnexpectedStatus(Box<UnexpectedStatus>),
    /// The service could not be reached, or the connection broke, after
    /// every attempt the retry policy allows.
    Transport(Box<Failed>),
    /// The last attempt took longer than the retry policy's request timeout.
    Timeout(Box<Failed>),
    /// A success answer's body does not fit its declared type.
    Decode(Box<DecodeError>),
}

/// Which call a failure belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallId {
    /// The API, as psi names it (`pay-later`).
    pub api: &'static str,
    /// The operationId of the document (`bookPayLaterOffer`).
    pub operation_id: &'static str,
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.api, self.operation_id)
    }
}

/// A call refused before anything was sent, and why.
#[derive(Debug)]
pub struct Refused<R> {
    /// The call.
    pub call: CallId,
    /// Why it was refused.
    pub reason: R,
}

impl<R: fmt::Display> fmt::Display for Refused<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} refused before sending: {}", self.call, self.reason)
    }
}

/// A declared error answer with its typed body.
#[derive(Debug)]
pub struct Declined<E> {
    /// The call.
    pub call: CallId,
    /// The HTTP status.
    pub status: u16,
    /// How many times the call was sent (retries and the resend with a
    /// fresh token included).
    pub attempts: u32,
    /// The answer's headers.
    pub headers: HeaderMap,
    /// The body, typed as the document declares it.
    pub body: E,
    /// The beginning of the body as it came (at most [`EXCERPT_LIMIT`] bytes).
    pub excerpt: String,
}

impl<E> fmt::Display for Declined<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} declined with {}", self.call, self.status)?;
        if !self.excerpt.is_empty() {
            write!(f, ": {}", self.excerpt)?;
        }
        Ok(())
    }
}

/// An answer psi could not type: a status the document does not declare,
/// or an error body that is not the declared shape.
#[derive(Debug)]
pub struct UnexpectedStatus {
    /// The call.
    pub call: CallId,
    /// The HTTP status.
    pub status: u16,
    /// How many times the call was sent.
    pub attempts: u32,
    /// The answer's headers (a redirect's `Location` among them).
    pub headers: HeaderMap,
    /// The beginning of the body (at most [`EXCERPT_LIMIT`] bytes).
    pub excerpt: String,
}

impl fmt::Display for UnexpectedStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} answered the undeclared status {}",
            self.call, self.status
        )?;
        if !self.excerpt.is_empty() {
            write!(f, ": {}", self.excerpt)?;
        }
        Ok(())
    }
}

/// A call that got no (complete) answer.
#[derive(Debug)]
pub struct Failed {
    /// The call.
    pub call: CallId,
    /// How many times the call was sent.
    pub attempts: u32,
    /// What reqwest reported for the last attempt.
    pub source: reqwest::Error,
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let attempts = match self.attempts {
            1 => "1 attempt".to_owned(),
            n => format!("{n} attempts"),
        };
        write!(f, "{} got no answer after {attempts}: ", self.call)?;
        // reqwest's own text is short ("error sending request for url
        // (...)"); the cause (connection refused, a TLS failure) is in its
        // sources.
        write!(f, "{}", self.source)?;
        let mut cause = std::error::Error::source(&self.source);
        while let Some(inner) = cause {
            write!(f, ": {inner}")?;
            cause = inner.source();
        }
        Ok(())
    }
}

/// A success answer whose body does not fit its declared type.
#[derive(Debug)]
pub struct DecodeError {
    /// The call.
    pub call: CallId,
    /// The HTTP status.
    pub status: u16,
    /// JSON path of the value that does not fit (`$.order_data.items[2]`),
    /// `$` for the document itself.
    pub path: String,
    /// What does not fit, as the JSON parser reports it.
    pub message: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} answered {}, and the body does not fit its type at {}: {}",
            self.call, self.status, self.path, self.message
        )
    }
}

impl<E> Error<E> {
    /// The call the error belongs to; `None` for [`Error::InvalidRequest`],
    /// which is found before the runtime sees the call.
    pub fn call(&self) -> Option<CallId> {
        match self {
            Self::InvalidRequest(_) => None,
            Self::Config(inner) => Some(inner.call),
            Self::Preflight(inner) => Some(inner.call),
            Self::Token(inner) => Some(inner.call),
            Self::Declined(inner) => Some(inner.call),
            Self::UnexpectedStatus(inner) => Some(inner.call),
            Self::Transport(inner) | Self::Timeout(inner) => Some(inner.call),
            Self::Decode(inner) => Some(inner.call),
        }
    }

    /// The HTTP status of the answer, when there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Declined(inner) => Some(inner.status),
            Self::UnexpectedStatus(inner) => Some(inner.status),
            Self::Decode(inner) => Some(inner.status),
            _ => None,
        }
    }

    /// Whether nothing left the process (the call was refused or could
    /// not be built).
    pub fn is_refused(&self) -> bool {
        matches!(
            self,
            Self::InvalidRequest(_) | Self::Config(_) | Self::Preflight(_) | Self::Token(_)
        )
    }
}

impl<E> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidRequest(message) => write!(f, "invalid call: {message}"),
            Self::Config(inner) => fmt::Display::fmt(inner, f),
            Self::Preflight(inner) => fmt::Display::fmt(inner, f),
            Self::Token(inner) => fmt::Display::fmt(inner, f),
            Self::Declined(inner) => fmt::Display::fmt(inner, f),
            Self::UnexpectedStatus(inner) => fmt::Display::fmt(inner, f),
            Self::Transport(inner) => fmt::Display::fmt(inner, f),
            Self::Timeout(inner) => {
                write!(f, "timeout: ")?;
                fmt::Display::fmt(inner, f)
            }
            Self::Decode(inner) => fmt::Display::fmt(inner, f),
        }
    }
}

impl<E: fmt::Debug> std::error::Error for Error<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Config(inner) => Some(&inner.reason),
            Self::Preflight(inner) => Some(&*inner.reason),
            Self::Token(inner) => Some(&inner.reason),
            Self::Transport(inner) | Self::Timeout(inner) => Some(&inner.source),
            _ => None,
        }
    }
}

/// A path parameter that cannot be sent: empty, `.` or `..` (a URL parser
/// removes dot segments, so the call would reach another resource).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidPathSegment {
    /// The parameter's name (`transaction_id`).
    pub parameter: &'static str,
    /// The rule it breaks.
    pub rule: &'static str,
}

impl fmt::Display for InvalidPathSegment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "path parameter `{}` {}", self.parameter, self.rule)
    }
}

impl<E> From<InvalidPathSegment> for Error<E> {
    fn from(invalid: InvalidPathSegment) -> Self {
        Self::InvalidRequest(invalid.to_string())
    }
}

/// The beginning of `body`: lossy UTF-8, at most [`EXCERPT_LIMIT`] bytes,
/// cut at a character boundary.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(EXCERPT_LIMIT + 4)]);
    let mut end = text.len().min(EXCERPT_LIMIT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    const CALL: CallId = CallId {
        api: "pay-later",
        operation_id: "getPayLaterStatus",
    };

    #[test]
    fn excerpts_are_bounded_at_a_character_boundary() {
        let body = "ä".repeat(EXCERPT_LIMIT);
        let cut = excerpt(body.as_bytes());
        assert!(cut.len() <= EXCERPT_LIMIT && cut.len() > EXCERPT_LIMIT - 2);
        assert!(cut.chars().all(|c| c == 'ä'));
        assert_eq!(excerpt(b"{}"), "{}");
    }

    #[test]
    fn every_failure_names_its_call_on_one_line() {
        let config: Error<()> = Error::Config(Box::new(Refused {
            call: CALL,
            reason: ConfigError::NotSet {
                setting: "PSI_API_URL".into(),
            },
        }));
        let text = config.to_string();
        assert!(
            text.starts_with("pay-later getPayLaterStatus refused before sending: "),
            "{text}"
        );
        assert!(text.contains("PSI_API_URL"), "{text}");
        assert!(config.source().is_some());
        assert!(config.is_refused());

        let unexpected: Error<()> = Error::UnexpectedStatus(Box::new(UnexpectedStatus {
            call: CALL,
            status: 307,
            attempts: 1,
            headers: HeaderMap::new(),
            excerpt: String::new(),
        }));
        assert_eq!(
            unexpected.to_string(),
            "pay-later getPayLaterStatus answered the undeclared status 307"
        );
        assert_eq!(unexpected.status(), Some(307));
        assert!(!unexpected.to_string().contains("999"));
    }

    #[test]
    fn an_invalid_path_segment_names_the_parameter() {
        let error: Error<()> = InvalidPathSegment {
            parameter: "transaction_id",
            rule: "must not be `..`",
        }
        .into();
        assert_eq!(
            error.to_string(),
            "invalid call: path parameter `transaction_id` must not be `..`"
        );
        assert!(error.is_refused());
    }
}
