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
//! - [`Context`], [`hooks`] and [`wire_client!`]: what every generated client
//!   does around a call: bearer tokens from a [`TokenCache`], retries by a
//!   [`RetryPolicy`], pre-flight checks, one tracing span per call;
//! - [`Environment`] and [`Credentials`]: where the APIs are and who calls.
#![warn(missing_docs)]

mod comma_separated;
mod context;
mod decimal;
mod environment;
#[doc(hidden)]
pub mod failure;
mod field;
#[doc(hidden)]
pub mod hooks;
mod http_client;
pub mod nulls;
mod open_enum;
mod path;
mod pattern;
mod request;
mod response;
mod retry;
mod secret;
mod token;
mod transport;

/// A boxed, sendable future: a token fetch behind [`FetchToken`], and the
/// rare paths of a call, kept on the heap and out of every call's future.
pub(crate) type BoxFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

pub use comma_separated::CommaSeparated;
pub use context::{Context, Preflight, DEFAULT_CALL_SPAN_LEVEL};
pub use decimal::{Decimal, ParseDecimalError};
pub use environment::{ConfigError, Credentials, Environment};
pub use failure::PreflightError;
pub use field::{field, parse_json, parse_json_ignoring_nulls, FieldError};
pub use http_client::http_client_builder;
#[doc(hidden)]
#[cfg(feature = "schemars")]
pub use open_enum::open_enum_schema;
#[doc(hidden)]
pub use path::ToPathSegment;
#[doc(hidden)]
pub use pattern::Pattern;
#[doc(hidden)]
pub use request::prepare as prepare_request;
#[doc(hidden)]
pub use request::unset_as;
#[doc(hidden)]
pub use response::decode as decode_response;
#[doc(hidden)]
pub use response::decode_error;
pub use retry::{is_retryable_status, parse_retry_after, RetryPolicy};
/// How [`Decimal::round_dp_with_strategy`] rounds.
pub use rust_decimal::RoundingStrategy;
pub use secret::Secret;
pub use token::{
    Audience, FetchToken, FetchedToken, TokenCache, TokenError, TokenErrorKind, TokenHandle,
};
pub use transport::{SendError, Transport};

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
