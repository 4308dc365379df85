//! How a typed failure crosses progenitor's error type.
//!
//! Generated clients return `progenitor_client::Error<E>`. A call the
//! runtime refuses before sending (pre-flight, token, settings) has no
//! typed channel there, and a declared error answer keeps only its status,
//! headers and body. So:
//!
//! - a refused call comes back as an answer with the status [`REFUSED`]
//!   (999, which no document declares, so progenitor hands it over as
//!   `UnexpectedResponse`), carrying the typed [`Refusal`] as a response
//!   extension and its message as a plain-text body;
//! - every answer that is not a 2xx carries [`API_HEADER`],
//!   [`OPERATION_HEADER`] and [`ATTEMPTS_HEADER`], and its body as an
//!   [`AnswerBody`] extension (progenitor keeps extensions only for a status
//!   the document does not declare, where the body is otherwise unread).
//!
//! `psi::Error` reads them back; nothing else should.

use crate::environment::ConfigError;
use crate::token::TokenError;
use std::fmt;
use std::sync::Arc;

/// The status of the stand-in answer of a call refused before sending.
pub const REFUSED: u16 = 999;

/// The API that answered (`pay-later`), on every answer that is not a 2xx.
pub const API_HEADER: &str = "x-psi-api";
/// The operationId of the call (`bookOffer`), on every answer that is not a 2xx.
pub const OPERATION_HEADER: &str = "x-psi-operation-id";
/// How many times the call was sent, on every answer that is not a 2xx.
pub const ATTEMPTS_HEADER: &str = "x-psi-attempts";

/// The longest body excerpt kept for an answer that is not a 2xx, in bytes.
pub const EXCERPT_LIMIT: usize = 512;

/// What a pre-flight check refuses a call with (the facade's typed
/// violations; the runtime only carries them).
pub type PreflightError = Arc<dyn std::error::Error + Send + Sync>;

/// A call refused before anything was sent.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// The API of the call.
    pub api: &'static str,
    /// The operationId of the call.
    pub operation_id: &'static str,
    /// Why.
    pub reason: RefusalReason,
}

/// Why a call was refused before sending.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum RefusalReason {
    /// The request breaks a rule the specification states.
    Preflight(PreflightError),
    /// No token could be had.
    Token(TokenError),
    /// A setting the API needs is missing.
    Config(ConfigError),
}

impl RefusalReason {
    /// A word for traces: `preflight`, `token` or `config`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Preflight(_) => "preflight",
            Self::Token(_) => "token",
            Self::Config(_) => "config",
        }
    }
}

impl fmt::Display for RefusalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Preflight(violations) => write!(f, "{violations}"),
            Self::Token(error) => write!(f, "{error}"),
            Self::Config(error) => write!(f, "{error}"),
        }
    }
}

impl Refusal {
    /// The stand-in answer progenitor hands back as `UnexpectedResponse`.
    pub(crate) fn into_response(self) -> reqwest::Response {
        let message = format!(
            "{} {} refused before sending: {}",
            self.api, self.operation_id, self.reason
        );
        let mut response = http::Response::new(reqwest::Body::from(message));
        *response.status_mut() =
            http::StatusCode::from_u16(REFUSED).expect("999 is a valid status code");
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        response.extensions_mut().insert(self);
        reqwest::Response::from(response)
    }
}

/// The body of an answer that is not a 2xx (a reference-counted copy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerBody(pub bytes::Bytes);

impl AnswerBody {
    /// The beginning of the body: lossy UTF-8, at most [`EXCERPT_LIMIT`]
    /// bytes, cut at a character boundary.
    pub fn excerpt(&self) -> String {
        let body = &self.0;
        let text = String::from_utf8_lossy(&body[..body.len().min(EXCERPT_LIMIT + 4)]);
        let mut end = text.len().min(EXCERPT_LIMIT);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text[..end].to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_bounded_at_a_character_boundary() {
        let body = "ä".repeat(EXCERPT_LIMIT);
        let excerpt = AnswerBody(body.into()).excerpt();
        assert!(excerpt.len() <= EXCERPT_LIMIT && excerpt.len() > EXCERPT_LIMIT - 2);
        assert!(excerpt.chars().all(|c| c == 'ä'));
        assert_eq!(AnswerBody(bytes::Bytes::from_static(b"{}")).excerpt(), "{}");
    }

    #[test]
    fn a_refusal_travels_as_a_999_answer() {
        let refusal = Refusal {
            api: "shop-config",
            operation_id: "updateShopConfiguration",
            reason: RefusalReason::Config(ConfigError::NotSet {
                setting: "shop_config_url".into(),
            }),
        };
        let response = refusal.into_response();
        assert_eq!(response.status().as_u16(), REFUSED);
        let carried = response.extensions().get::<Refusal>().unwrap();
        assert_eq!(carried.operation_id, "updateShopConfiguration");
        assert!(matches!(carried.reason, RefusalReason::Config(_)));
    }
}
