//! Which enumerations are open, and the code that declares them.
//!
//! An enumeration the service sends (reachable from a response, a callback
//! or a component no request uses) must survive values added later: it
//! becomes an `open_enum!` with an `Unknown(String)` variant. An enumeration
//! only ever sent by the merchant stays a closed typify enum, so a typo is
//! rejected before the request leaves the process.

use crate::bundle::collect_local_refs;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

pub struct OpenEnum {
    pub name: String,
    pub description: Option<String>,
    pub values: Vec<String>,
}

/// Named enum schemas of the bundled document that must be open.
pub fn open_enums(document: &Value) -> Vec<OpenEnum> {
    let schemas = document
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();

    let mut request_roots = BTreeSet::new();
    let mut response_roots = BTreeSet::new();
    for operation in operations(document) {
        if let Some(body) = operation.get("requestBody") {
            collect_local_refs(body, &mut request_roots);
        }
        if let Some(parameters) = operation.get("parameters") {
            collect_local_refs(parameters, &mut request_roots);
        }
        if let Some(responses) = operation.get("responses") {
            collect_local_refs(responses, &mut response_roots);
        }
        if let Some(callbacks) = operation.get("callbacks") {
            collect_local_refs(callbacks, &mut response_roots);
        }
    }
    let request_side = closure(&schemas, request_roots);
    let mut unreferenced: BTreeSet<String> = schemas.keys().cloned().collect();
    let referenced = closure(
        &schemas,
        response_roots.union(&request_side).cloned().collect(),
    );
    unreferenced.retain(|name| !referenced.contains(name));
    let response_side = closure(
        &schemas,
        response_roots.union(&unreferenced).cloned().collect(),
    );

    schemas
        .iter()
        .filter(|(name, _)| response_side.contains(*name))
        .filter_map(|(name, schema)| {
            let values = schema.get("enum")?.as_array()?;
            Some(OpenEnum {
                name: name.clone(),
                description: schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                values: values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            })
        })
        .collect()
}

/// Every operation object of the document.
pub fn operations(document: &Value) -> impl Iterator<Item = &Value> {
    document
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|paths| paths.values())
        .filter_map(Value::as_object)
        .flat_map(|item| {
            item.iter()
                .filter(|(method, _)| crate::lint::METHODS.contains(&method.as_str()))
                .map(|(_, operation)| operation)
        })
}

/// All schema names reachable from `roots`.
fn closure(schemas: &serde_json::Map<String, Value>, roots: BTreeSet<String>) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut queue: Vec<String> = roots.into_iter().collect();
    while let Some(name) = queue.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(schema) = schemas.get(&name) {
            let mut next = BTreeSet::new();
            collect_local_refs(schema, &mut next);
            queue.extend(next);
        }
    }
    seen
}

/// The `open_enums` module appended to a generated file.
pub fn render(enums: &[OpenEnum]) -> String {
    let mut out = String::new();
    out.push_str(
        "\n/// Enumerations the service sends. Each keeps values this version does not\n\
         /// know in its `Unknown` variant instead of failing the response.\n\
         pub mod open_enums {\n",
    );
    for (index, open) in enums.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        out.push_str("    psi_runtime::open_enum! {\n");
        for line in doc_lines(open.description.as_deref()) {
            let _ = writeln!(out, "        ///{line}");
        }
        let _ = writeln!(out, "        pub enum {} {{", open.name);
        let mut variants: BTreeMap<String, &str> = BTreeMap::new();
        for value in &open.values {
            let _ = writeln!(out, "            #[doc = {value:?}]");
            let variant = variant_name(value);
            variants.insert(variant.clone(), value);
            let _ = writeln!(out, "            {variant} = {value:?},");
        }
        out.push_str("        }\n    }\n");
    }
    out.push_str("}\n");
    out
}

fn doc_lines(description: Option<&str>) -> Vec<String> {
    match description {
        Some(text) => text
            .trim()
            .lines()
            .map(|line| {
                if line.trim().is_empty() {
                    String::new()
                } else {
                    format!(" {}", line.trim_end())
                }
            })
            .collect(),
        None => Vec::new(),
    }
}

/// `NOT_AVAILABLE` -> `NotAvailable`, `dunning_1` -> `Dunning1`.
pub fn variant_name(value: &str) -> String {
    let mut name = String::new();
    for word in value.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            name.push(first.to_ascii_uppercase());
            name.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'V');
    }
    name
}
