//! OpenAPI 3.0 schema objects to JSON Schema draft 2020-12, one
//! self-contained document per named type.
//!
//! Each published file holds the type at its root and every named type it
//! reaches under `$defs`, with references rewritten from
//! `#/components/schemas/X` to `#/$defs/X` (or `#` for the type itself).
//! Self-contained files rather than cross-file references (`X.json`),
//! because every validator and code generator resolves local `#/$defs`
//! pointers without a base URI, a resource registry or a file loader:
//! ajv, Python's `jsonschema`, the Rust `jsonschema` crate, quicktype,
//! json-schema-to-typescript and datamodel-code-generator all take such a
//! file as it is, from disk, a string or a URL.

use crate::bundle::collect_local_refs;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";
const OPENAPI_REF: &str = "#/components/schemas/";

/// Keywords whose value is one schema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "propertyNames",
    "contains",
];
/// Keywords whose value is a list of schemas.
const SCHEMA_LIST_KEYWORDS: &[&str] = &["oneOf", "anyOf", "allOf"];
/// OpenAPI-only keywords with no JSON Schema meaning.
const OPENAPI_ONLY: &[&str] = &["discriminator", "xml", "externalDocs"];

/// The JSON Schema of every named schema of a bundled document, by name.
pub fn type_schemas(document: &Value, id_base: &str) -> Result<BTreeMap<String, Value>, String> {
    let components = document
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .ok_or("the document has no components.schemas")?;
    components
        .keys()
        .map(|name| Ok((name.clone(), type_schema(components, name, id_base)?)))
        .collect()
}

/// The self-contained JSON Schema of the named schema `name`.
pub fn type_schema(
    components: &Map<String, Value>,
    name: &str,
    id_base: &str,
) -> Result<Value, String> {
    let schema = components
        .get(name)
        .ok_or_else(|| format!("no schema {name}"))?;
    let mut reached = BTreeSet::new();
    let mut queue = vec![name.to_owned()];
    while let Some(next) = queue.pop() {
        let target = components
            .get(&next)
            .ok_or_else(|| format!("{name}: reference to a missing schema {next}"))?;
        let mut refs = BTreeSet::new();
        collect_local_refs(target, &mut refs);
        for found in refs {
            if found != name && reached.insert(found.clone()) {
                queue.push(found);
            }
        }
    }

    let mut root = match convert(schema, name)? {
        Value::Object(map) => map,
        _ => return Err(format!("{name}: a named schema must be an object")),
    };
    root.insert("$schema".to_owned(), json!(DIALECT));
    root.insert("$id".to_owned(), json!(format!("{id_base}{name}.json")));
    root.entry("title").or_insert_with(|| json!(name));
    if !reached.is_empty() {
        let mut defs = Map::new();
        for def in &reached {
            defs.insert(def.clone(), convert(&components[def], name)?);
        }
        root.insert("$defs".to_owned(), Value::Object(defs));
    }
    Ok(Value::Object(root))
}

/// One OpenAPI 3.0 schema object in the 2020-12 dialect: `nullable` adds
/// `null` to `type` (and to `enum`), `example` becomes `examples`, boolean
/// `exclusiveMinimum`/`exclusiveMaximum` become numbers, references point
/// into `$defs` (`#` for `root`, the type being published). `format`
/// (`decimal`, `int32`, `password`, ...) is kept: validators ignore formats
/// they do not know and generators use it; decimals stay `type: number`.
pub fn convert(schema: &Value, root: &str) -> Result<Value, String> {
    let Value::Object(map) = schema else {
        // `additionalProperties: true` and friends.
        return Ok(schema.clone());
    };
    let mut out = Map::new();
    for (key, value) in map {
        let converted = match key.as_str() {
            "$ref" => {
                let reference = value.as_str().ok_or("$ref is not a string")?;
                let target = reference
                    .strip_prefix(OPENAPI_REF)
                    .ok_or_else(|| format!("unsupported reference {reference}"))?;
                if target == root {
                    json!("#")
                } else {
                    json!(format!("#/$defs/{target}"))
                }
            }
            "nullable" | "example" | "exclusiveMinimum" | "exclusiveMaximum" => continue,
            k if OPENAPI_ONLY.contains(&k) => continue,
            "properties" => {
                let properties = value.as_object().ok_or("properties is not an object")?;
                let mut converted = Map::new();
                for (name, property) in properties {
                    converted.insert(name.clone(), convert(property, root)?);
                }
                Value::Object(converted)
            }
            k if SCHEMA_KEYWORDS.contains(&k) => convert(value, root)?,
            k if SCHEMA_LIST_KEYWORDS.contains(&k) => Value::Array(
                value
                    .as_array()
                    .ok_or_else(|| format!("{k} is not a list"))?
                    .iter()
                    .map(|item| convert(item, root))
                    .collect::<Result<_, _>>()?,
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), converted);
    }
    if let Some(example) = map.get("example") {
        out.insert("examples".to_owned(), json!([example]));
    }
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        match map.get(flag) {
            Some(Value::Bool(true)) => {
                if let Some(limit) = out.remove(bound) {
                    out.insert(flag.to_owned(), limit);
                }
            }
            Some(Value::Number(limit)) => {
                out.insert(flag.to_owned(), Value::Number(limit.clone()));
            }
            _ => {}
        }
    }
    if map.get("nullable") == Some(&Value::Bool(true)) {
        match out.get("type").cloned() {
            Some(Value::String(kind)) => {
                out.insert("type".to_owned(), json!([kind, "null"]));
                if let Some(Value::Array(values)) = out.get_mut("enum") {
                    if !values.contains(&Value::Null) {
                        values.push(Value::Null);
                    }
                }
            }
            Some(_) => return Err("nullable with a non-string type".to_owned()),
            // `nullable` next to `$ref`/`oneOf` without a type: any of the
            // schema or null.
            None => {
                let annotations: Map<String, Value> = ["description", "title", "examples"]
                    .iter()
                    .filter_map(|k| out.remove(*k).map(|v| ((*k).to_owned(), v)))
                    .collect();
                let inner = Value::Object(std::mem::take(&mut out));
                out = annotations;
                out.insert("anyOf".to_owned(), json!([inner, {"type": "null"}]));
            }
        }
    }
    Ok(Value::Object(out))
}
