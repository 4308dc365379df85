//! The workspace's code generator and document linter, as a library so the
//! test suite can drive it (`cargo xtask` is the command-line front end).

pub mod apis;
pub mod audience_table;
pub mod bundle;
pub mod derived;
pub mod examples;
pub mod generate;
pub mod lint;
pub mod open_enums;
pub mod registry;
pub mod schemas;
