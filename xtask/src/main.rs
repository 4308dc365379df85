//! `cargo xtask generate [--check]`, `cargo xtask lint`.

use std::process::ExitCode;
use xtask::apis::workspace_root;
use xtask::{generate, lint, schemas};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  generate           regenerate crates/psi-*/src/generated.rs from openapi/
  generate --check   fail with a diff when checked-in code differs from openapi/
  lint               check openapi/ against the rules of docs/document-rules.md
  schemas            write schemas/: bundled documents and JSON Schemas for other languages
  schemas --check    fail with a diff when schemas/ differs from openapi/
  schemas --compat <git-ref>
                     list the breaking changes in openapi/ since <git-ref>; fail if any";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let root = workspace_root();
    let result = match args.as_slice() {
        ["generate"] => generate::run(&root, false),
        ["generate", "--check"] => generate::run(&root, true),
        ["lint"] => lint::run(&root),
        ["schemas"] => schemas::run(&root, false),
        ["schemas", "--check"] => schemas::run(&root, true),
        ["schemas", "--compat", git_ref] => schemas::compat(&root, git_ref),
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
