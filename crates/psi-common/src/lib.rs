//! Types shared by the psi API clients: the decline body every payment API
//! answers with ([`DeclineResponse`], [`Decline`], [`DeclineCategory`],
//! [`InvalidField`]) and the [`CurrencyCode`] and [`CountryCode`] of requests.
//!
//! Generated from `openapi/common.yaml` by `cargo xtask generate`; the
//! generated code is in `generated.rs` and is never edited by hand. Every
//! `psi-<api>` crate uses these types (and re-exports them from its `types`
//! module), so one decline handler serves all APIs.

// Generated code is formatted by prettyplease at generation time, not by rustfmt.
#[rustfmt::skip]
#[allow(clippy::all, clippy::pedantic, missing_docs, unused_imports, unused_comparisons)]
mod generated;
pub use generated::*;
