//! Client of the storefront platform module's order-management endpoints (both path sets) and the platform's token endpoint.
//!
//! Generated from `openapi/storefront.yaml` by `cargo xtask generate`; the
//! generated code is in `generated.rs` and is never edited by hand.

// Generated code is formatted by prettyplease at generation time, not by rustfmt.
#[rustfmt::skip]
#[allow(clippy::all, clippy::pedantic, missing_docs, unused_imports, unused_comparisons)]
mod generated;
pub use generated::*;

psi_runtime::wire_client!();
