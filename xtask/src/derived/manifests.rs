//! The per-API lines of the hand-written manifests, between the markers of
//! [`super::text::BEGIN`] and [`super::text::END`]: the workspace's
//! dependency table, the facade's features and optional dependencies, and the
//! dependencies of the sandbox (every API crate's types and the runtime's,
//! without `client`) and the test suite (every API crate, client included).

use super::text::{replace_in, replace_section, END};
use crate::apis::Api;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub fn files(root: &Path, apis: &[Api]) -> Result<Vec<(PathBuf, String)>, String> {
    let workspace = root.join("Cargo.toml");
    let version = workspace_version(&workspace)?;
    let mut lines = String::new();
    for api in apis {
        let _ = writeln!(
            lines,
            "{name} = {{ path = \"crates/{name}\", version = \"{version}\", default-features = false }}",
            name = api.crate_name()
        );
    }
    // The sandbox parses requests with the generated types and builds no
    // client code: the runtime and every API crate without their `client`.
    let types_only: String = std::iter::once("psi-runtime".to_owned())
        .chain(apis.iter().map(Api::crate_name))
        .map(|krate| format!("{krate} = {{ workspace = true, default-features = false }}\n"))
        .collect();
    // The suite calls every API and snapshots the JSON Schema of every
    // generated type.
    let every_crate_with_schemas: String = apis
        .iter()
        .map(|api| {
            format!(
                "{} = {{ workspace = true, features = [\"client\", \"schemars\"] }}\n",
                api.crate_name()
            )
        })
        .collect();
    let psi = root.join("crates/psi/Cargo.toml");
    let sandbox = root.join("crates/psi-sandbox/Cargo.toml");
    let tests = root.join("tests/Cargo.toml");
    Ok(vec![
        (workspace.clone(), replace_section(&workspace, &lines)?),
        (psi.clone(), facade_manifest(&psi, apis)?),
        (sandbox.clone(), replace_section(&sandbox, &types_only)?),
        (
            tests.clone(),
            replace_section(&tests, &every_crate_with_schemas)?,
        ),
    ])
}

/// psi's manifest has two sections: its features (one per API, plus
/// `all-apis`, which `default` names) and its API dependencies with their
/// `client` feature (optional behind the API's feature, plain when the
/// block's feature is null).
fn facade_manifest(path: &Path, apis: &[Api]) -> Result<String, String> {
    let mut features =
        String::from("# Every API: the default features name this one.\nall-apis = [");
    let names: Vec<String> = apis
        .iter()
        .filter_map(|api| api.feature.as_ref().map(|f| format!("{f:?}")))
        .collect();
    features.push_str(&names.join(", "));
    features.push_str("]\n");
    // `schemars::JsonSchema` on the types of every API the build has.
    let schemas: Vec<String> = ["psi-runtime", "psi-common"]
        .iter()
        .map(|krate| format!("\"{krate}/schemars\""))
        .chain(apis.iter().map(|api| match api.feature {
            Some(_) => format!("\"{}?/schemars\"", api.crate_name()),
            None => format!("\"{}/schemars\"", api.crate_name()),
        }))
        .collect();
    let _ = writeln!(
        features,
        "# JSON Schema of the types (`schemars::JsonSchema`), off by default.\nschemars = [{}]",
        schemas.join(", ")
    );
    let mut dependencies = String::new();
    for api in apis {
        let krate = api.crate_name();
        match &api.feature {
            Some(feature) => {
                let mut enables = vec![format!("\"dep:{krate}\"")];
                enables.extend(
                    api.facade_dependencies
                        .iter()
                        .map(|dependency| format!("\"dep:{dependency}\"")),
                );
                let _ = writeln!(features, "{feature} = [{}]", enables.join(", "));
                let _ = writeln!(
                    dependencies,
                    "{krate} = {{ workspace = true, optional = true, features = [\"client\"] }}"
                );
            }
            None => {
                let _ = writeln!(
                    dependencies,
                    "{krate} = {{ workspace = true, features = [\"client\"] }}"
                );
            }
        }
    }
    // Two sections, features first: the second is the first after the first's end.
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = replace_in(&text, &features, path)?;
    let split = text
        .find(END)
        .ok_or_else(|| format!("{}: no generated section", path.display()))?
        + END.len();
    let rest = replace_in(&text[split..], &dependencies, path)?;
    Ok(format!("{}{rest}", &text[..split]))
}

/// `[workspace.package] version`: the version of every workspace crate.
fn workspace_version(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let package = text
        .split("[workspace.package]")
        .nth(1)
        .ok_or_else(|| format!("{}: no [workspace.package]", path.display()))?;
    package
        .lines()
        .find_map(|line| line.strip_prefix("version = "))
        .map(|version| version.trim().trim_matches('"').to_owned())
        .ok_or_else(|| format!("{}: no [workspace.package] version", path.display()))
}
