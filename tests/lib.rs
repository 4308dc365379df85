//! Test-only crate; the tests are in `suite/`.
