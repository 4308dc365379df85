//! The crate docs are the workspace README, so its examples run as doctests
//! (`cargo test -p psi-tests --doc`). The cross-crate test suite is in `suite/`.
#![doc = include_str!("../README.md")]
