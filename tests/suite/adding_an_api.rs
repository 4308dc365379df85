//! Adding an API is writing its document: in a scratch copy of the
//! repository, put a new document (an example, `tests/fixtures/adding-an-api/`)
//! in `openapi/`, run `cargo xtask generate`, and call the new operation
//! through `psi::Client` against the embedded sandbox. Nothing hand-written
//! is touched. Slow (it builds the copy): runs when `CI` is set or
//! `PSI_SLOW_TESTS=1`, into `<target>/adding-an-api` so reruns are incremental.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURE: &str = "tests/fixtures/adding-an-api/dispute-management.yaml";

/// The program the test writes into the copy: the README's first steps,
/// then the new accessor.
const PROGRAM: &str = r#"//! Written by tests/suite/adding_an_api.rs: calls the example API.
use psi::{Client, Credentials, Environment};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sandbox = psi_sandbox::Sandbox::start().await?;
    let addresses = sandbox.addresses();
    let client = Client::builder()
        .environment(Environment::new(
            &addresses.base_url,
            &addresses.api_url,
            &addresses.auth_url,
        )?)
        .credentials(Credentials::new(
            psi_sandbox::DEMO_CLIENT_ID,
            psi_sandbox::DEMO_CLIENT_SECRET,
        ))
        .build()?;
    let dispute = client
        .dispute_management()
        .get_dispute()
        .dispute_id("DSP-1001")
        .send()
        .await
        .map_err(|error| format!("{error:?}"))?;
    println!("{}", serde_json::to_string(&dispute.into_inner())?);
    Ok(())
}
"#;

fn slow_tests_enabled() -> bool {
    std::env::var_os("CI").is_some() || std::env::var("PSI_SLOW_TESTS").as_deref() == Ok("1")
}

/// The outer build's target directory: the test binary is `<target>/<profile>/deps/suite-*`.
fn outer_target() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    exe.ancestors()
        .nth(3)
        .expect("the test binary lives in <target>/<profile>/deps")
        .to_path_buf()
}

/// The repository's tracked files (as in the working tree) copied to `to`.
fn copy_repository(root: &Path, to: &Path) {
    let listing = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .expect("git runs");
    assert!(listing.status.success(), "git ls-files failed");
    for file in listing
        .stdout
        .split(|byte| *byte == 0)
        .filter(|f| !f.is_empty())
    {
        let relative = Path::new(std::str::from_utf8(file).expect("UTF-8 paths"));
        let source = root.join(relative);
        if !source.is_file() {
            continue; // deleted in the working tree
        }
        let target = to.join(relative);
        std::fs::create_dir_all(target.parent().expect("a file has a parent")).unwrap();
        std::fs::copy(&source, &target).unwrap();
    }
}

/// Runs `cargo <args>` in the copy; the output on failure names the step.
fn cargo(copy: &Path, target: &Path, args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(args)
        .current_dir(copy)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "`cargo {}` failed in {}:\n{}\n{}",
        args.join(" "),
        copy.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

#[test]
fn a_new_document_becomes_a_client_accessor_served_by_the_sandbox() {
    if !slow_tests_enabled() {
        println!("SKIPPED: set CI or PSI_SLOW_TESTS=1 to build a copy with a new API");
        return;
    }
    let root = crate::workspace_root();
    let copy = std::env::temp_dir().join(format!("psi-adding-an-api-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&copy);
    copy_repository(&root, &copy);
    std::fs::copy(
        root.join(FIXTURE),
        copy.join("openapi/dispute-management.yaml"),
    )
    .unwrap();
    let target = outer_target().join("adding-an-api");

    // The document is all that is written by hand; the rest is derived.
    cargo(&copy, &target, &["xtask", "lint"]);
    cargo(&copy, &target, &["xtask", "generate"]);
    cargo(&copy, &target, &["xtask", "generate", "--check"]);
    for derived in [
        "crates/psi-dispute-management/Cargo.toml",
        "crates/psi-dispute-management/src/generated.rs",
        "crates/psi-drift/documents/dispute-management.json",
    ] {
        assert!(copy.join(derived).is_file(), "{derived} was not generated");
    }
    let manifest = std::fs::read_to_string(copy.join("crates/psi/Cargo.toml")).unwrap();
    assert!(
        manifest.contains("dispute-management = [\"dep:psi-dispute-management\"]"),
        "psi has no feature for the new API"
    );

    let example = copy.join("crates/psi/examples/adding_an_api.rs");
    std::fs::write(&example, PROGRAM).unwrap();
    let printed = cargo(
        &copy,
        &target,
        &["run", "--quiet", "-p", "psi", "--example", "adding_an_api"],
    );

    let document: Value =
        serde_yaml::from_str(&std::fs::read_to_string(root.join(FIXTURE)).unwrap()).unwrap();
    let documented = document
        .pointer("/paths/~1dispute~1management~1v1~1disputes~1{dispute_id}/get/responses/2XX/content/application~1json/example")
        .expect("the fixture documents its example");
    let answered: Value = serde_json::from_str(printed.trim()).expect("the program prints JSON");
    assert_eq!(
        &answered, documented,
        "the sandbox did not answer the documented example"
    );
    let _ = std::fs::remove_dir_all(&copy);
}
