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
//!
//! # Features
//!
//! - `client` (default): the call path and what only it needs, [`call::send`]
//!   to [`Environment`] in the list above, with progenitor-client and reqwest
//!   (and tokio, tracing). Without it the crate is what the generated types
//!   need and nothing that sends: [`open_enum!`], [`CommaSeparated`],
//!   [`field`], [`Decimal`], [`Secret`], patterns, [`leniency`] and
//!   [`nulls`]. A generated crate without its own `client` feature uses it
//!   so, and so does the sandbox, which parses requests with those types.
//! - `schemars`: `schemars::JsonSchema` for the types above.
//! - `arbitrary-precision`: serde_json's `arbitrary_precision` for the whole
//!   build (see [`Decimal`]).
#![warn(missing_docs)]

#[cfg(feature = "client")]
pub mod call;
mod comma_separated;
#[cfg(feature = "client")]
mod context;
mod decimal;
#[cfg(feature = "client")]
mod environment;
#[cfg(feature = "client")]
mod error;
mod extra_members;
mod field;
#[cfg(feature = "client")]
mod http_client;
#[cfg(feature = "client")]
mod json_position;
pub mod leniency;
pub mod nulls;
mod open_enum;
#[cfg(feature = "client")]
mod path;
mod pattern;
#[cfg(feature = "client")]
mod request;
#[cfg(feature = "client")]
mod retry;
mod secret;
#[cfg(feature = "client")]
mod token;

/// A boxed, sendable future: a token fetch behind [`FetchToken`].
#[cfg(feature = "client")]
pub(crate) type BoxFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

pub use comma_separated::CommaSeparated;
#[cfg(feature = "client")]
pub use context::{Context, Observer, Preflight, Received, DEFAULT_CALL_SPAN_LEVEL};
pub use decimal::{Decimal, ParseDecimalError};
#[cfg(feature = "client")]
pub use environment::{ConfigError, Credentials, Environment};
#[cfg(feature = "client")]
pub use error::{
    CallId, Declined, DecodeError, Error, Failed, InvalidPathSegment, PreflightError, Refused,
    UnexpectedStatus, EXCERPT_LIMIT,
};
pub use extra_members::ExtraMembers;
pub use field::{field, parse_json, parse_json_ignoring_nulls, FieldError};
#[cfg(feature = "client")]
pub use http_client::http_client_builder;
#[doc(hidden)]
#[cfg(feature = "schemars")]
pub use open_enum::open_enum_schema;
#[cfg(feature = "client")]
#[doc(hidden)]
pub use path::ToPathSegment;
#[doc(hidden)]
pub use pattern::Pattern;
/// The query rewrite every call's request gets (literal commas in the
/// comma-separated values), reachable for the fuzz targets (`fuzz/`).
#[cfg(feature = "client")]
#[doc(hidden)]
pub use request::prepare as literal_commas;
#[cfg(feature = "client")]
pub use retry::{is_retryable_status, parse_retry_after, RetryPolicy};
/// How [`Decimal::round_dp_with_strategy`] rounds.
pub use rust_decimal::RoundingStrategy;
pub use secret::Secret;
#[cfg(feature = "client")]
pub use token::{
    Audience, FetchToken, FetchedToken, TokenCache, TokenError, TokenErrorKind, TokenHandle,
};

/// Re-exports used by [`open_enum!`] so generated crates need no extra imports.
#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "client")]
    pub use progenitor_client;
    #[cfg(feature = "client")]
    pub use reqwest;
    pub use rust_decimal;
    #[cfg(feature = "schemars")]
    pub use schemars;
    pub use serde;
}
