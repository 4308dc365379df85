//! [`Error`]: every way a call through [`Client`](crate::Client) can fail,
//! one type for every API.
//!
//! Each generated `send()` returns `psi_runtime::Error<E>`, `E` being the
//! error body its API declares; it prints and matches on its own. `?` in a
//! function returning `psi::Error` converts it (or call [`Error::from`])
//! into one type for every API: the same kinds, with the pre-flight
//! violations typed and the error body as an [`Answer`].

use crate::preflight::Violations;
use psi_runtime::{CallId, ConfigError, TokenError};
use std::fmt;

/// Every way a call can fail. `#[non_exhaustive]`: a `match` needs a
/// catch-all arm, so later kinds of failure do not break it.
///
/// ```no_run
/// # async fn run(client: psi::Client, id: &str) -> Result<(), psi::Error> {
/// match client.transaction_status().get_transaction_status().transaction_id(id).send().await {
///     Ok(status) => println!("{:?}", status.into_inner()),
///     Err(error) => match psi::Error::from(error) {
///         psi::Error::Declined(declined) if declined.status() == 422 => {
///             let category = declined.decline().and_then(|d| d.category.clone());
///             eprintln!("{} declined: {category:?}", declined.operation_id());
///         }
///         psi::Error::Preflight(refused) => eprintln!("fix the request: {}", refused.violations()),
///         other => return Err(other),
///     },
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A setting is missing or malformed; nothing was sent.
    Config(ConfigError),
    /// The request breaks a rule the specification states; nothing was sent.
    Preflight(Box<PreflightRefusal>),
    /// No token could be had; the call was not sent.
    Token(TokenError),
    /// The service answered a declared error status with its error body
    /// (for the payment APIs a [`Decline`](crate::common::Decline)).
    Declined(Box<Declined>),
    /// The service answered a status its document does not declare.
    UnexpectedStatus(Box<UnexpectedStatus>),
    /// The service could not be reached, or the connection broke, after
    /// every attempt the retry policy allows.
    Transport(reqwest::Error),
    /// An attempt took longer than the retry policy's request timeout, and
    /// no attempt was left.
    Timeout(reqwest::Error),
    /// An answer's body does not fit its declared type.
    Decode(Box<DecodeError>),
    /// The call could not be built (a required parameter was not given to
    /// the generated builder).
    InvalidCall(String),
}

// Display, Error and the two From impls are written out rather than derived:
// a derive macro would be one more crate in every user's clean build. The boxed and wrapped variants are
// transparent: their message and source are the inner error's.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Config(inner) => fmt::Display::fmt(inner, f),
            Self::Preflight(inner) => fmt::Display::fmt(inner, f),
            Self::Token(inner) => fmt::Display::fmt(inner, f),
            Self::Declined(inner) => fmt::Display::fmt(inner, f),
            Self::UnexpectedStatus(inner) => fmt::Display::fmt(inner, f),
            Self::Transport(error) => write!(f, "transport: {}", with_causes(error)),
            Self::Timeout(error) => write!(f, "timeout: {}", with_causes(error)),
            Self::Decode(inner) => fmt::Display::fmt(inner, f),
            Self::InvalidCall(message) => write!(f, "invalid call: {message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Config(inner) => inner.source(),
            Self::Preflight(inner) => inner.source(),
            Self::Token(inner) => inner.source(),
            Self::Declined(inner) => inner.source(),
            Self::UnexpectedStatus(inner) => inner.source(),
            Self::Transport(error) | Self::Timeout(error) => Some(error),
            Self::Decode(inner) => inner.source(),
            Self::InvalidCall(_) => None,
        }
    }
}

impl From<ConfigError> for Error {
    fn from(error: ConfigError) -> Self {
        Self::Config(error)
    }
}

impl From<TokenError> for Error {
    fn from(error: TokenError) -> Self {
        Self::Token(error)
    }
}

/// A call refused by the pre-flight checks: every violation, each with its
/// JSON path and rule.
#[derive(Debug)]
pub struct PreflightRefusal {
    api: &'static str,
    operation_id: &'static str,
    violations: Violations,
}

impl PreflightRefusal {
    /// The API (`payment-page`).
    pub fn api(&self) -> &'static str {
        self.api
    }
    /// The operationId (`createSession`).
    pub fn operation_id(&self) -> &'static str {
        self.operation_id
    }
    /// Every violation; never empty.
    pub fn violations(&self) -> &Violations {
        &self.violations
    }
}

impl fmt::Display for PreflightRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} refused before sending:\n{}",
            self.api, self.operation_id, self.violations
        )
    }
}

impl std::error::Error for PreflightRefusal {}

/// A declared error answer.
#[derive(Debug)]
pub struct Declined {
    origin: Origin,
    status: u16,
    answer: Answer,
}

/// Which call an answer belongs to, and how many times it was sent.
#[derive(Debug)]
struct Origin {
    call: CallId,
    attempts: u32,
}

impl Origin {
    fn of(call: CallId, attempts: u32) -> Self {
        Self { call, attempts }
    }
}

/// The body of a declared error answer, typed as its document declares it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// The payment APIs' decline (an absent `decline` member reads as empty).
    Decline(crate::common::Decline),
    /// The shop configuration API's validation error.
    #[cfg(feature = "shop-config")]
    ShopConfiguration(psi_shop_config::types::ShopConfigurationError),
    /// The storefront module's result.
    #[cfg(feature = "storefront")]
    Storefront(psi_storefront::types::ModuleResult),
    /// A token endpoint's error object.
    Token(serde_json::Map<String, serde_json::Value>),
}

impl Declined {
    /// The API that answered, as psi names it (`pay-later`).
    pub fn api(&self) -> &str {
        self.origin.call.api
    }
    /// The operationId of the call.
    pub fn operation_id(&self) -> &str {
        self.origin.call.operation_id
    }
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }
    /// How many times the call was sent (retries and the resend with a fresh
    /// token included), when known.
    pub fn attempts(&self) -> Option<u32> {
        Some(self.origin.attempts)
    }
    /// The typed body.
    pub fn answer(&self) -> &Answer {
        &self.answer
    }
    /// The decline, for the payment APIs.
    pub fn decline(&self) -> Option<&crate::common::Decline> {
        match &self.answer {
            Answer::Decline(decline) => Some(decline),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

impl fmt::Display for Declined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} declined with {}",
            self.api(),
            self.operation_id(),
            self.status
        )?;
        #[cfg(feature = "storefront")]
        if let Answer::Storefront(result) = &self.answer {
            if let Some(message) = &result.message {
                write!(f, ": {message}")?;
            }
        }
        if let Some(decline) = self.decline() {
            if let Some(category) = &decline.category {
                write!(f, ": {category}")?;
            }
            if !decline.reasons.is_empty() {
                write!(f, " ({})", decline.reasons.join(", "))?;
            }
            for field in &decline.invalid_fields {
                write!(
                    f,
                    "; {}: {}",
                    field.json_path.as_deref().unwrap_or("?"),
                    field.message.as_deref().unwrap_or("invalid")
                )?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Declined {}

/// An answer whose status the document does not declare.
#[derive(Debug)]
pub struct UnexpectedStatus {
    origin: Origin,
    status: u16,
    excerpt: String,
}

impl UnexpectedStatus {
    /// The API that answered, when known.
    pub fn api(&self) -> Option<&str> {
        Some(self.origin.call.api)
    }
    /// The operationId of the call, when known.
    pub fn operation_id(&self) -> Option<&str> {
        Some(self.origin.call.operation_id)
    }
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }
    /// How many times the call was sent, when known.
    pub fn attempts(&self) -> Option<u32> {
        Some(self.origin.attempts)
    }
    /// The beginning of the body (at most 512 bytes).
    pub fn body_excerpt(&self) -> &str {
        &self.excerpt
    }
}

impl fmt::Display for UnexpectedStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} answered the undeclared status {}",
            self.api().unwrap_or("the service"),
            self.operation_id().unwrap_or(""),
            self.status
        )?;
        if !self.excerpt.is_empty() {
            write!(f, ": {}", self.excerpt)?;
        }
        Ok(())
    }
}

impl std::error::Error for UnexpectedStatus {}

/// An answer's body that does not fit its declared type.
#[derive(Debug)]
pub struct DecodeError {
    path: String,
    message: String,
}

impl DecodeError {
    /// JSON path of the value that does not fit (`$.order_data.items[2]`),
    /// `$` for the document itself.
    pub fn path(&self) -> &str {
        &self.path
    }
    /// What does not fit, as the JSON parser reports it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the answer does not fit its type at {}: {}",
            self.path, self.message
        )
    }
}

impl std::error::Error for DecodeError {}

/// An error body a generated client can return: converted into [`Answer`].
#[doc(hidden)]
pub trait IntoAnswer {
    fn into_answer(self) -> Answer;
}

impl<E: IntoAnswer> From<psi_runtime::Error<E>> for Error {
    fn from(error: psi_runtime::Error<E>) -> Self {
        use psi_runtime::Error as Call;
        match error {
            Call::InvalidRequest(problem) => Error::InvalidCall(problem),
            Call::Config(refused) => Error::Config(refused.reason),
            Call::Token(refused) => Error::Token(refused.reason),
            Call::Preflight(refused) => {
                let violations = match refused.reason.downcast_ref::<Violations>() {
                    Some(violations) => violations.clone(),
                    // Another pre-flight than psi's own: keep its words.
                    None => Violations(vec![crate::preflight::Violation::new(
                        crate::preflight::Rule::Schema,
                        "$",
                        refused.reason.to_string(),
                    )]),
                };
                Error::Preflight(Box::new(PreflightRefusal {
                    api: refused.call.api,
                    operation_id: refused.call.operation_id,
                    violations,
                }))
            }
            Call::Declined(declined) => {
                let declined = *declined;
                Error::Declined(Box::new(Declined {
                    origin: Origin::of(declined.call, declined.attempts),
                    status: declined.status,
                    answer: declined.body.into_answer(),
                }))
            }
            Call::UnexpectedStatus(unexpected) => {
                Error::UnexpectedStatus(Box::new(UnexpectedStatus {
                    origin: Origin::of(unexpected.call, unexpected.attempts),
                    status: unexpected.status,
                    excerpt: unexpected.excerpt,
                }))
            }
            Call::Transport(failed) => Error::Transport(failed.source),
            Call::Timeout(failed) => Error::Timeout(failed.source),
            Call::Decode(decode) => Error::Decode(Box::new(DecodeError {
                path: decode.path,
                message: decode.message,
            })),
            // A kind added to the runtime later: its own words.
            other => Error::InvalidCall(other.to_string()),
        }
    }
}

/// reqwest's text of `error` with its causes (connection refused, a TLS
/// failure), which its own text leaves out.
fn with_causes(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

/// The `decline` member of a payment API's error body; a `code` (the
/// hosted payment page's `{"code": "INVALID_TOKEN"}`) is kept as one more
/// reason, so nothing the answer says is lost.
impl IntoAnswer for crate::common::DeclineResponse {
    fn into_answer(self) -> Answer {
        let mut decline = self.decline.unwrap_or_default();
        if let Some(code) = self.code {
            if !decline.reasons.contains(&code) {
                decline.reasons.push(code);
            }
        }
        Answer::Decline(decline)
    }
}

#[cfg(feature = "shop-config")]
impl IntoAnswer for psi_shop_config::types::ShopConfigurationError {
    fn into_answer(self) -> Answer {
        Answer::ShopConfiguration(self)
    }
}

#[cfg(feature = "storefront")]
impl IntoAnswer for psi_storefront::types::ModuleResult {
    fn into_answer(self) -> Answer {
        Answer::Storefront(self)
    }
}

#[cfg(feature = "storefront")]
impl IntoAnswer for psi_storefront::types::PlatformTokenError {
    fn into_answer(self) -> Answer {
        Answer::Token(self.0)
    }
}

impl IntoAnswer for psi_token::types::TokenError {
    fn into_answer(self) -> Answer {
        Answer::Token(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn wrapped_errors_read_as_themselves_and_keep_their_source() {
        let config = ConfigError::NotSet {
            setting: "PSI_API_URL".into(),
        };
        let error = Error::from(config.clone());
        assert!(matches!(error, Error::Config(_)));
        assert_eq!(error.to_string(), config.to_string());
        assert!(error.source().is_none());

        // a builder error: no request leaves the process
        let cause = reqwest::Client::new().get("not a url").build().unwrap_err();
        let cause_text = cause.to_string();
        let error = Error::Transport(cause);
        // reqwest's text, then its cause, which reqwest's own text leaves out
        assert_eq!(
            error.to_string(),
            format!("transport: {cause_text}: relative URL without a base")
        );
        assert_eq!(error.source().map(ToString::to_string), Some(cause_text));

        let error = Error::InvalidCall("transaction_id was not initialized".into());
        assert_eq!(
            error.to_string(),
            "invalid call: transaction_id was not initialized"
        );
        assert!(error.source().is_none());
    }
}
