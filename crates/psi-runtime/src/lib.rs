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
//! - [`wire_client!`] and [`prepare_request`]: the request adjustments every
//!   generated client makes before sending.

mod comma_separated;
mod field;
mod open_enum;
mod request;
mod secret;

pub use comma_separated::CommaSeparated;
pub use field::{field, parse_json, FieldError};
#[doc(hidden)]
pub use open_enum::open_enum_schema;
pub use request::prepare as prepare_request;
/// Money, quantities and rates: exact decimals, never floats.
pub use rust_decimal::Decimal;
pub use secret::Secret;

/// Re-exports used by [`open_enum!`] so generated crates need no extra imports.
#[doc(hidden)]
pub mod __private {
    pub use progenitor_client;
    pub use reqwest;
    pub use schemars;
    pub use serde;
}
