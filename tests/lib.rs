//! Support for the cross-crate test suite in `suite/`; the crate docs are the
//! workspace README, so its examples run as doctests.
#![doc = include_str!("../README.md")]
//!
//! `generated_registry.rs` is written by `cargo xtask generate`: it maps every
//! named schema of every document to its Rust type.

#[rustfmt::skip]
mod generated_registry;
pub use generated_registry::{round_trip, type_schemas, APIS, OPERATION_TABLES};
