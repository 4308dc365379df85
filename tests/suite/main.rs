//! The cross-crate test suite: one test binary, one module per concern.

mod adding_an_api;
mod audiences;
mod browser;
mod constrained;
mod e2e;
mod examples;
mod generation;
mod include;
mod known_answers;
mod lenient;
mod lint;
mod money;
mod nulls;
mod open_enums;
mod patterns;
mod runtime;
mod sandbox;
mod schemas;
mod secrets;
mod shapes;
mod time;

/// Written by `cargo xtask generate`: every named schema of every document
/// mapped to its Rust type. Part of the test binary (not the crate's
/// library), so only `cargo test` builds it.
#[rustfmt::skip]
#[path = "../generated_registry.rs"]
mod generated_registry;

use std::path::PathBuf;

/// The workspace root (the parent of `tests/`).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lives in the workspace root")
        .to_path_buf()
}

/// A shop configuration with every required member, as the tests send it.
pub fn example_shop_configuration() -> psi::shop_config::types::ShopConfiguration {
    serde_json::from_value(serde_json::json!({
        "name": "Example Shop",
        "address": {"street": "Hauptstraße", "city": "Berlin", "postal_code": "10115", "country_code": "DE"},
        "legal": {"name": "Example GmbH", "legal_form": "GmbH", "commercial_register_number": "HRB 1",
                  "registration_office": "Amtsgericht Berlin", "vat_id_number": "DE123456789"}
    }))
    .expect("a shop configuration")
}
