//! Bundling: a document plus the shared schemas it refers to in `common.yaml`,
//! as one self-contained JSON value.
//!
//! A reference `common.yaml#/components/schemas/Name` becomes
//! `#/components/schemas/Name` and the shared schema (with everything it
//! refers to) is copied into the document's `components.schemas`.

use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

const SCHEMA_PREFIX: &str = "#/components/schemas/";

/// Reads a YAML document into JSON.
pub fn read_yaml(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The document at `path` with every external schema reference resolved.
pub fn bundle(path: &Path) -> Result<Value, String> {
    let mut document = read_yaml(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut wanted = BTreeSet::new();
    rewrite_external_refs(&mut document, &mut wanted)?;

    let mut shared: std::collections::BTreeMap<String, Value> = Default::default();
    let mut queue: Vec<(String, String)> = wanted.into_iter().collect();
    while let Some((file, name)) = queue.pop() {
        let key = format!("{file}#{name}");
        if shared.contains_key(&key) {
            continue;
        }
        let source = read_yaml(&dir.join(&file))?;
        let mut schema = source
            .pointer(&format!("/components/schemas/{name}"))
            .cloned()
            .ok_or_else(|| format!("{file} has no schema {name}"))?;
        // Local references inside the shared file point into that same file.
        let mut inner = BTreeSet::new();
        collect_local_refs(&schema, &mut inner);
        queue.extend(inner.into_iter().map(|n| (file.clone(), n)));
        let mut nested = BTreeSet::new();
        rewrite_external_refs(&mut schema, &mut nested)?;
        queue.extend(nested);
        shared.insert(key, schema);
    }

    let schemas = document
        .as_object_mut()
        .ok_or("document is not an object")?
        .entry("components")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or("components is not an object")?
        .entry("schemas")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or("components.schemas is not an object")?;
    for (key, schema) in shared {
        let name = key
            .split_once('#')
            .map(|(_, n)| n)
            .unwrap_or(&key)
            .to_owned();
        if let Some(existing) = schemas.get(&name) {
            if existing != &schema {
                return Err(format!(
                    "{}: schema {name} is defined locally and differs from the shared one",
                    path.display()
                ));
            }
        }
        schemas.insert(name, schema);
    }
    sort_schemas(schemas);
    Ok(document)
}

fn sort_schemas(schemas: &mut Map<String, Value>) {
    let mut entries: Vec<(String, Value)> = std::mem::take(schemas).into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    schemas.extend(entries);
}

/// Rewrites `file.yaml#/components/schemas/X` to a local reference and
/// records `(file.yaml, X)`.
fn rewrite_external_refs(
    value: &mut Value,
    wanted: &mut BTreeSet<(String, String)>,
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
                        wanted.insert((file.to_owned(), name.clone()));
                        *reference = format!("{SCHEMA_PREFIX}{name}");
                    }
                }
            }
            for child in map.values_mut() {
                rewrite_external_refs(child, wanted)?;
            }
        }
        Value::Array(items) => {
            for child in items {
                rewrite_external_refs(child, wanted)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Names of the local schemas a value refers to.
pub fn collect_local_refs(value: &Value, names: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                if let Some(name) = reference.strip_prefix(SCHEMA_PREFIX) {
                    names.insert(name.to_owned());
                }
            }
            map.values()
                .for_each(|child| collect_local_refs(child, names));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|child| collect_local_refs(child, names)),
        _ => {}
    }
}
