//! Shared machinery of the psi clients.
//!
//! Every generated `psi-<api>` crate depends on this crate for the pieces the
//! generator cannot express by itself:
//!
//! - [`open_enum!`]: enumerations that keep values the service adds later
//!   instead of failing the whole response;
//! - [`CommaSeparated`]: a list sent as one comma-joined query value;
//! - [`field`] and [`FieldError`]: constructing a constrained value from user
//!   input with an error that names the field and the rule;
//! - [`Decimal`]: the one money type;
//! - [`Secret`]: client secrets and tokens, redacted in Debug and Display;
//! - [`call::send`], [`Context`] and [`Error`]: what every generated
//!   `send()` ends in: bearer tokens from a [`TokenCache`], retries by a
//!   [`RetryPolicy`], pre-flight checks, one tracing span per call, and
//!   the typed error;
//! - [`Environment`] and [`Credentials`]: where the APIs are and who calls.
#![warn(missing_docs)]

pub mod call;
mod comma_separated;
mod context;
mod decimal;
mod environment;
mod error;
mod field;
mod http_client;
mod json_position;
pub mod leniency;
pub mod nulls;
mod open_enum;
mod path;
mod pattern;
mod request;
mod retry;
mod secret;
mod token;

/// A boxed, sendable future: a token fetch behind [`FetchToken`].
pub(crate) type BoxFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

pub use comma_separated::CommaSeparated;
pub use context::{Context, Preflight, DEFAULT_CALL_SPAN_LEVEL};
pub use decimal::{Decimal, ParseDecimalError};
pub use environment::{ConfigError, Credentials, Environment};
pub use error::{
    CallId, Declined, DecodeError, Error, Failed, InvalidPathSegment, PreflightError, Refused,
    UnexpectedStatus, EXCERPT_LIMIT,
};
pub use field::{field, parse_json, parse_json_ignoring_nulls, FieldError};
pub use http_client::http_client_builder;
#[doc(hidden)]
#[cfg(feature = "schemars")]
pub use open_enum::open_enum_schema;
#[doc(hidden)]
pub use path::ToPathSegment;
#[doc(hidden)]
pub use pattern::Pattern;
pub use retry::{is_retryable_status, parse_retry_after, RetryPolicy};
/// How [`Decimal::round_dp_with_strategy`] rounds.
pub use rust_decimal::RoundingStrategy;
pub use secret::Secret;
pub use token::{
    Audience, FetchToken, FetchedToken, TokenCache, TokenError, TokenErrorKind, TokenHandle,
};

/// Re-exports used by [`open_enum!`] so generated crates need no extra imports.
#[doc(hidden)]
pub mod __private {
    pub use progenitor_client;
    pub use reqwest;
    pub use rust_decimal;
    #[cfg(feature = "schemars")]
    pub use schemars;
    pub use serde;
}
