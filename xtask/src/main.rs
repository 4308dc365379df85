//! Workspace tasks: `cargo xtask generate [--check]`, `cargo xtask lint`.

mod apis;
mod bundle;
mod examples;
mod generate;
mod lint;
mod open_enums;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  generate           regenerate crates/psi-*/src/generated.rs from openapi/
  generate --check   fail with a diff when checked-in code differs from openapi/
  lint               check openapi/ against the rules of openapi/README.md";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["generate"] => generate::run(false),
        ["generate", "--check"] => generate::run(true),
        ["lint"] => lint::run(),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
