//! `cargo xtask schemas [--check | --compat <git-ref>]`: the documents
//! published for other languages under `schemas/`.
//!
//! For each API, and for the sandbox's test-control API
//! ([`apis::CONTROL_NAME`]) and its proxy's calls ([`apis::PROXY_NAME`]): the bundled, self-contained OpenAPI document as
//! `schemas/<api>/openapi.json` and `openapi.yaml`, and a JSON Schema
//! (draft 2020-12) for each named type as `schemas/<api>/json-schema/<Type>.json`.
//! `schemas/README.md` indexes them. Output is deterministic: sorted keys,
//! two-space indentation, a trailing newline.

pub mod compat;
pub mod json_schema;

use crate::apis;
use crate::bundle::bundle;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The validator crate, for the test suite's consistency checks.
pub use jsonschema;

/// The directory of the published files, relative to the workspace root.
pub const DIR: &str = "schemas";
/// Base of every JSON Schema `$id`: `<ID_BASE><api>/json-schema/<Type>.json`.
pub const ID_BASE: &str = "https://example.invalid/psi/schemas/";

/// `schemas/<api>/openapi.json`, relative to the workspace root.
pub fn bundle_path(api: &str, extension: &str) -> PathBuf {
    Path::new(DIR)
        .join(api)
        .join(format!("openapi.{extension}"))
}

/// `schemas/<api>/json-schema/<name>.json`, relative to the workspace root.
pub fn type_schema_path(api: &str, name: &str) -> PathBuf {
    Path::new(DIR)
        .join(api)
        .join("json-schema")
        .join(format!("{name}.json"))
}

/// Writes `schemas/`, or with `check` reports (with a diff) every file that
/// differs, is missing or should not be there.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let expected = outputs(root)?;
    let existing = files_under(&root.join(DIR))?;
    let mut drifted = Vec::new();
    for (relative, content) in &expected {
        let target = root.join(relative);
        let current = std::fs::read_to_string(&target).ok();
        if current.as_deref() == Some(content.as_str()) {
            continue;
        }
        if check {
            print_diff(relative, current.as_deref().unwrap_or(""), content);
            drifted.push(relative.display().to_string());
        } else {
            std::fs::create_dir_all(target.parent().expect("a published file has a parent"))
                .map_err(|e| e.to_string())?;
            std::fs::write(&target, content).map_err(|e| format!("{}: {e}", target.display()))?;
            println!("wrote {}", relative.display());
        }
    }
    for stale in existing.iter().filter(|path| !expected.contains_key(*path)) {
        if check {
            println!("--- {} (checked in, not generated)", stale.display());
            drifted.push(format!("{} (should not exist)", stale.display()));
        } else {
            std::fs::remove_file(root.join(stale)).map_err(|e| e.to_string())?;
            println!("removed {}", stale.display());
        }
    }
    if drifted.is_empty() {
        if check {
            println!(
                "{DIR}/ is up to date with openapi/ ({} files)",
                expected.len()
            );
        } else {
            println!("{DIR}/: {} files", expected.len());
        }
        Ok(())
    } else if check {
        Err(format!(
            "published schemas differ from the OpenAPI documents:\n  {}\nrun `cargo xtask schemas` and commit the result",
            drifted.join("\n  ")
        ))
    } else {
        Ok(())
    }
}

fn print_diff(relative: &Path, old: &str, new: &str) {
    let diff = similar::TextDiff::from_lines(old, new);
    let label = relative.display().to_string();
    print!(
        "{}",
        diff.unified_diff().context_radius(3).header(
            &format!("{label} (checked in)"),
            &format!("{label} (generated)")
        )
    );
}

/// Files under `dir`, relative to its parent (the workspace root).
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    let base = dir.parent().expect("schemas/ has a parent");
    while let Some(next) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path.strip_prefix(base).expect("below base").to_path_buf());
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Every published file (path relative to the workspace root) with its
/// content.
pub fn outputs(root: &Path) -> Result<BTreeMap<PathBuf, String>, String> {
    let mut files = BTreeMap::new();
    let mut index = Vec::new();
    for (api, source) in apis::published(root)? {
        let document = sorted(bundle(&source)?);
        files.insert(bundle_path(&api, "json"), to_json(&document)?);
        files.insert(bundle_path(&api, "yaml"), to_yaml(&document)?);
        let types = type_schemas(&api, &document)?;
        for (name, schema) in &types {
            files.insert(type_schema_path(&api, name), to_json(schema)?);
        }
        index.push((api, document, types.into_keys().collect::<Vec<_>>()));
    }
    files.insert(Path::new(DIR).join("README.md"), readme(&index));
    Ok(files)
}

/// The JSON Schema of every named type of the bundled document published
/// as `schemas/<api>/`.
pub fn type_schemas(api: &str, document: &Value) -> Result<BTreeMap<String, Value>, String> {
    let base = format!("{ID_BASE}{api}/json-schema/");
    json_schema::type_schemas(document, &base)
        .map(|types| types.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        .map_err(|e| format!("openapi/{api}.yaml: {e}"))
}

/// A draft 2020-12 validator for a published JSON Schema, with formats
/// (`date`, `date-time`, `email`, `uri`, `uuid`) checked; formats it does not
/// know (`decimal`, `int32`, `password`, ...) are annotations.
pub fn validator(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// A JSON value with the keys of every object in sorted order.
pub fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

pub fn to_json(value: &Value) -> Result<String, String> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

/// YAML of a JSON value. Numbers are converted by hand: with serde_json's
/// `arbitrary_precision` (psi's opt-in feature) a `Number` serializes as a
/// private map elsewhere.
fn to_yaml(value: &Value) -> Result<String, String> {
    serde_yaml::to_string(&yaml_value(value)?).map_err(|e| e.to_string())
}

fn yaml_value(value: &Value) -> Result<serde_yaml::Value, String> {
    Ok(match value {
        Value::Null => serde_yaml::Value::Null,
        Value::Bool(b) => serde_yaml::Value::Bool(*b),
        Value::String(s) => serde_yaml::Value::String(s.clone()),
        Value::Number(n) => {
            let number = if let Some(i) = n.as_i64() {
                serde_yaml::Number::from(i)
            } else if let Some(u) = n.as_u64() {
                serde_yaml::Number::from(u)
            } else {
                let f = n.as_f64().ok_or_else(|| format!("number {n}"))?;
                let number = serde_yaml::Number::from(f);
                // The YAML must say the same number as the JSON.
                if number.to_string().parse::<f64>() != n.to_string().parse::<f64>() {
                    return Err(format!("number {n} has no exact YAML form"));
                }
                number
            };
            serde_yaml::Value::Number(number)
        }
        Value::Array(items) => {
            serde_yaml::Value::Sequence(items.iter().map(yaml_value).collect::<Result<_, _>>()?)
        }
        Value::Object(map) => serde_yaml::Value::Mapping(
            map.iter()
                .map(|(k, v)| Ok((serde_yaml::Value::String(k.clone()), yaml_value(v)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

fn operation_count(document: &Value) -> usize {
    crate::lint::operation_pointers(document).len()
}

fn readme(index: &[(String, Value, Vec<String>)]) -> String {
    let mut out = String::new();
    out.push_str(
        "# Published schemas\n\n\
Written by `cargo xtask schemas` from the OpenAPI documents in `../openapi/`; do\n\
not edit by hand. `cargo xtask schemas --check` (run by CI) fails when a file\n\
here differs from what the documents produce.\n\n\
For each API, for the sandbox's test-control API (`sandbox-control`: the\n\
`/__sandbox` calls of psi-sandbox, from `openapi/sandbox-control.yaml`) and for\n\
its drift-watch proxy's own calls (`sandbox-proxy`: the `/__proxy` calls of\n\
`psi-sandbox proxy`, from `openapi/sandbox-proxy.yaml`), neither an API of the\n\
interface:\n\n\
- `<api>/openapi.json` and `<api>/openapi.yaml`: the OpenAPI 3.0.3 document,\n  \
bundled (the shared schemas of `openapi/common.yaml` copied into\n  \
`components.schemas`), self-contained. Feed it to any OpenAPI client generator.\n\
- `<api>/json-schema/<Type>.json`: one JSON Schema (draft 2020-12) per named\n  \
type, self-contained: the type at the root and every type it uses under\n  \
`$defs`. `$id` is `",
    );
    out.push_str(ID_BASE);
    out.push_str(
        "<api>/json-schema/<Type>.json`.\n\n\
From the OpenAPI 3.0 dialect: `nullable: true` adds `\"null\"` to `type`,\n\
`example` becomes `examples`, references point into `$defs`. Money, quantities\n\
and rates are `type: number` with `format: decimal`: parse them as decimals,\n\
never as binary floats. Enumerations the service sends may gain values: a\n\
client should tolerate unknown values in responses (the Rust clients do).\n\n\
| API | document | version | files | operations | types |\n\
|---|---|---|---|---|---|\n",
    );
    for (api, document, types) in index {
        let title = document
            .pointer("/info/title")
            .and_then(Value::as_str)
            .unwrap_or(api);
        let version = document
            .pointer("/info/version")
            .and_then(Value::as_str)
            .unwrap_or("?");
        let _ = writeln!(
            out,
            "| {title} | `{name}` | {version} | [openapi.json]({name}/openapi.json), [openapi.yaml]({name}/openapi.yaml), [json-schema/]({name}/json-schema/) | {ops} | {count} |",
            name = api,
            ops = operation_count(document),
            count = types.len(),
        );
    }
    for (api, document, types) in index {
        let title = document
            .pointer("/info/title")
            .and_then(Value::as_str)
            .unwrap_or(api);
        let _ = write!(
            out,
            "\n## {title} (`{api}`)\n\nSource `openapi/{api}.yaml`. JSON Schemas:\n"
        );
        for name in types {
            let _ = write!(out, "\n- [{name}]({api}/json-schema/{name}.json)");
        }
        out.push('\n');
    }
    out
}

/// `cargo xtask schemas --compat <git-ref>`: prints the breaking changes
/// between the documents at `git_ref` and those in the working tree; fails
/// when there is any.
pub fn compat(root: &Path, git_ref: &str) -> Result<(), String> {
    let changes = compat_changes(root, git_ref)?;
    if changes.is_empty() {
        println!("no breaking changes in openapi/ since {git_ref}");
        return Ok(());
    }
    for (api, change) in &changes {
        println!("{api}: {change}");
    }
    Err(format!(
        "{} breaking changes in openapi/ since {git_ref}",
        changes.len()
    ))
}

/// `(api, change)` for every breaking change since `git_ref`.
pub fn compat_changes(root: &Path, git_ref: &str) -> Result<Vec<(String, compat::Change)>, String> {
    let commit = git(
        root,
        &["rev-parse", "--verify", &format!("{git_ref}^{{commit}}")],
    )?;
    let commit = commit.trim();
    let listing = git(root, &["ls-tree", "--name-only", commit, "openapi/"])?;
    let scratch = std::env::temp_dir().join(format!("psi-compat-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let result = (|| {
        let mut old_apis = Vec::new();
        for path in listing.lines().filter(|p| p.ends_with(".yaml")) {
            let text = git(root, &["show", &format!("{commit}:{path}")])?;
            let file = Path::new(path).file_name().expect("a file name");
            std::fs::write(scratch.join(file), text).map_err(|e| e.to_string())?;
            let stem = file.to_string_lossy().trim_end_matches(".yaml").to_owned();
            if stem != "common" {
                old_apis.push(stem);
            }
        }
        let mut changes = Vec::new();
        let published = apis::published(root)?;
        for name in old_apis {
            let old = bundle(&scratch.join(format!("{name}.yaml")))
                .map_err(|e| format!("{git_ref}: {e}"))?;
            match published.iter().find(|(api, _)| *api == name) {
                None => changes.push((
                    name.clone(),
                    compat::Change {
                        kind: compat::REMOVED_OPERATION,
                        at: format!("openapi/{name}.yaml"),
                        detail: "the whole API was removed".to_owned(),
                    },
                )),
                Some((_, source)) => {
                    let new = bundle(source)?;
                    for change in compat::breaking_changes(&old, &new) {
                        changes.push((name.clone(), change));
                    }
                }
            }
        }
        Ok(changes)
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| e.to_string())
}
