//! Client of the hosted payment page API: payment sessions and session records.
//!
//! Generated from `openapi/payment-page.yaml` by `cargo xtask generate`; the
//! generated code is in `generated.rs` and is never edited by hand.

#[allow(clippy::all, clippy::pedantic, missing_docs, unused_imports)]
mod generated;
pub use generated::*;
