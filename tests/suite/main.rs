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
mod lint;
mod money;
mod nulls;
mod open_enums;
mod runtime;
mod sandbox;
mod schemas;
mod secrets;
mod shapes;
mod time;

use std::path::PathBuf;

/// The workspace root (the parent of `tests/`).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lives in the workspace root")
        .to_path_buf()
}
