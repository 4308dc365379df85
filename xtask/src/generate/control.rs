//! `crates/psi-sandbox/src/control/types.rs`: the Rust types of the sandbox's
//! test-control API, from `openapi/sandbox-control.yaml`.
//!
//! The control API is no API of the interface, so no crate is generated
//! from it: only its schemas become types (typify through progenitor, as
//! for `psi-common`), which the sandbox's `Control` client reads and sends
//! and its server writes. A schema the document takes from an API's
//! document (`payment-page.yaml#/components/schemas/SessionRecord`) is
//! that API crate's type (`::psi_payment_page::types::SessionRecord`), not
//! a copy: the sandbox already builds those types, and a session record
//! read through the control API is the same type the API answers.

use super::settings::settings_without_json_schema;
use crate::apis::control_document;
use crate::bundle::read_yaml;
use crate::conventions::HEADER;
use progenitor_impl::Generator;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where the generated control types live.
pub fn types_file(root: &Path) -> PathBuf {
    root.join("crates/psi-sandbox/src/control/types.rs")
}

const SCHEMA_PREFIX: &str = "#/components/schemas/";

/// The complete text of the control types' file.
pub fn generate(root: &Path) -> Result<String, String> {
    let label = format!("openapi/{}.yaml", crate::apis::CONTROL_NAME);
    let mut document = read_yaml(&control_document(root))?;
    let mut external = BTreeSet::new();
    rewrite_external_refs(&mut document, &mut external).map_err(|e| format!("{label}: {e}"))?;
    // Only the schemas become types: the operations are the `Control`
    // client's, written by hand.
    let object = document
        .as_object_mut()
        .ok_or_else(|| format!("{label}: not a mapping"))?;
    object.insert("paths".to_owned(), Value::Object(Map::new()));
    let schemas = object
        .get_mut("components")
        .and_then(|c| c.get_mut("schemas"))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| format!("{label}: no components.schemas"))?;
    let mut settings = settings_without_json_schema();
    for (file, name) in &external {
        if schemas.contains_key(name) {
            return Err(format!(
                "{label}: schema {name} is declared here and taken from {file}; rename one"
            ));
        }
        // A stand-in the replacement below stands for: typify never reads it.
        schemas.insert(
            name.clone(),
            serde_json::json!({"description": format!("{file}#/components/schemas/{name}")}),
        );
        // Claiming no traits is safe: typify then derives none that needs them.
        settings.with_replacement(
            name,
            format!("{}::{name}", rust_module(file)),
            std::iter::empty(),
        );
    }
    super::nulls::strip_optional_nullable(&mut document);
    let spec: openapiv3::OpenAPI = serde_json::from_value(document)
        .map_err(|e| format!("{label}: not an OpenAPI 3.0 document: {e}"))?;
    let mut generator = Generator::new(&settings);
    let tokens = generator
        .generate_tokens(&spec)
        .map_err(|e| format!("{label}: generation failed: {e}"))?;
    let mut file: syn::File =
        syn::parse2(tokens).map_err(|e| format!("{label}: generated code does not parse: {e}"))?;
    super::nulls::read_null_as_default(&mut file).map_err(|e| format!("{label}: {e}"))?;
    super::received::lenient_on_arrival(&mut file).map_err(|e| format!("{label}: {e}"))?;
    super::patterns::compiled_at_generation(&mut file).map_err(|e| format!("{label}: {e}"))?;
    super::builders::inline_type_builders(&mut file).map_err(|e| format!("{label}: {e}"))?;
    let items = super::items::module_items(&mut file.items, "types")
        .map(std::mem::take)
        .ok_or_else(|| format!("{label}: generated code has no `types` module with a body"))?;
    let types_only = syn::File {
        shebang: None,
        attrs: Vec::new(),
        items,
    };
    let mut code = HEADER.replace("{doc}", &label);
    code.push_str(&prettyplease::unparse(&types_only));
    Ok(code)
}

/// The Rust module of the types of a sibling document: `common.yaml` is
/// `::psi_common`, `payment-page.yaml` `::psi_payment_page::types`.
fn rust_module(file: &str) -> String {
    let stem = file.strip_suffix(".yaml").unwrap_or(file).replace('-', "_");
    if stem == crate::apis::COMMON_NAME {
        "::psi_common".to_owned()
    } else {
        format!("::psi_{stem}::types")
    }
}

/// Rewrites every `file.yaml#/components/schemas/X` to the local
/// `#/components/schemas/X`, recording `(file.yaml, X)`.
fn rewrite_external_refs(
    value: &mut Value,
    found: &mut BTreeSet<(String, String)>,
) -> Result<(), String> {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref") {
                if let Some((file, pointer)) = reference.split_once('#') {
                    if !file.is_empty() {
                        let name = pointer
                            .strip_prefix("/components/schemas/")
                            .ok_or_else(|| format!("unsupported external reference {reference}"))?
                            .to_owned();
                        if found
                            .iter()
                            .any(|(other, known)| known == &name && other != file)
                        {
                            return Err(format!(
                                "two documents give a schema {name}: {file} and another"
                            ));
                        }
                        found.insert((file.to_owned(), name.clone()));
                        *reference = format!("{SCHEMA_PREFIX}{name}");
                    }
                }
            }
            for child in map.values_mut() {
                rewrite_external_refs(child, found)?;
            }
        }
        Value::Array(items) => {
            for child in items {
                rewrite_external_refs(child, found)?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sibling_documents_name_their_crates_types() {
        assert_eq!(
            rust_module("payment-page.yaml"),
            "::psi_payment_page::types"
        );
        assert_eq!(rust_module("common.yaml"), "::psi_common");
    }

    #[test]
    fn external_references_become_local_and_are_recorded() {
        let mut document = serde_json::json!({
            "a": {"$ref": "payment-page.yaml#/components/schemas/OrderData"},
            "b": [{"$ref": "#/components/schemas/Local"}],
        });
        let mut found = BTreeSet::new();
        rewrite_external_refs(&mut document, &mut found).unwrap();
        assert_eq!(document["a"]["$ref"], "#/components/schemas/OrderData");
        assert_eq!(document["b"][0]["$ref"], "#/components/schemas/Local");
        assert_eq!(
            found.into_iter().collect::<Vec<_>>(),
            [("payment-page.yaml".to_owned(), "OrderData".to_owned())]
        );
    }

    #[test]
    fn the_control_types_are_generated_from_the_document() {
        let code = generate(&crate::apis::workspace_root()).unwrap();
        for wanted in [
            "pub struct StoredTransaction",
            "pub struct JournalEntry",
            "pub struct Tenant ",
            "::psi_payment_page::types::SessionRecord",
        ] {
            assert!(code.contains(wanted), "{wanted}");
        }
        // Taken from the payment page crate, not copied.
        assert!(!code.contains("pub struct SessionRecord "));
        assert!(!code.contains("pub struct SessionRecord {"));
    }
}
