//! Rule 16: every example validates against its schema.
//!
//! OpenAPI 3.0 schemas are turned into JSON Schema draft 2020-12
//! (`nullable` becomes a `null` type) and each example is checked with the
//! `jsonschema` crate, formats included.

use crate::finding::{escape, Finding};
use serde_json::{json, Map, Value};

/// Checks every example of the bundled document.
pub fn check(label: &str, document: &Value, findings: &mut Vec<Finding>) {
    let components = to_json_schema(
        document
            .pointer("/components/schemas")
            .cloned()
            .unwrap_or_else(|| json!({})),
    );
    let mut checker = Checker {
        label,
        components,
        findings,
    };
    if let Some(paths) = document.get("paths") {
        checker.walk("/paths", paths);
    }
    if let Some(schemas) = document
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    {
        for (name, schema) in schemas {
            checker.walk_schema(&format!("/components/schemas/{}", escape(name)), schema);
        }
    }
}

struct Checker<'a> {
    label: &'a str,
    components: Value,
    findings: &'a mut Vec<Finding>,
}

impl Checker<'_> {
    /// Media types and parameters: objects with a `schema` and examples.
    fn walk(&mut self, at: &str, value: &Value) {
        match value {
            Value::Object(map) => {
                if let Some(schema) = map.get("schema") {
                    for (example_at, example) in examples_of(at, map) {
                        self.validate(&example_at, schema, example);
                    }
                    self.walk_schema(&format!("{at}/schema"), schema);
                }
                for (key, child) in map {
                    if !matches!(key.as_str(), "schema" | "example" | "examples") {
                        self.walk(&format!("{at}/{}", escape(key)), child);
                    }
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    self.walk(&format!("{at}/{index}"), child);
                }
            }
            _ => {}
        }
    }

    /// Examples written on schemas and their properties.
    fn walk_schema(&mut self, at: &str, schema: &Value) {
        let Some(map) = schema.as_object() else {
            return;
        };
        if let Some(example) = map.get("example") {
            self.validate(&format!("{at}/example"), schema, example);
        }
        for (key, child) in map {
            let child_at = format!("{at}/{}", escape(key));
            match key.as_str() {
                "properties" => {
                    for (name, property) in child.as_object().into_iter().flatten() {
                        self.walk_schema(&format!("{child_at}/{}", escape(name)), property);
                    }
                }
                "items" | "additionalProperties" => self.walk_schema(&child_at, child),
                "oneOf" | "allOf" | "anyOf" => {
                    for (index, item) in child.as_array().into_iter().flatten().enumerate() {
                        self.walk_schema(&format!("{child_at}/{index}"), item);
                    }
                }
                _ => {}
            }
        }
    }

    fn validate(&mut self, at: &str, schema: &Value, example: &Value) {
        let root = json!({
            "components": {"schemas": self.components.clone()},
            "allOf": [to_json_schema(schema.clone())],
        });
        let validator = match jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&root)
        {
            Ok(validator) => validator,
            Err(error) => {
                self.fail(at, format!("schema does not compile: {error}"));
                return;
            }
        };
        let errors: Vec<String> = validator
            .iter_errors(example)
            .map(|error| format!("at {}: {error}", error.instance_path()))
            .collect();
        if !errors.is_empty() {
            self.fail(
                at,
                format!(
                    "example does not validate against its schema (rule 16): {}",
                    errors.join("; ")
                ),
            );
        }
    }

    fn fail(&mut self, at: &str, rule: String) {
        self.findings.push(Finding {
            document: self.label.to_owned(),
            pointer: at.to_owned(),
            rule,
        });
    }
}

/// `(pointer, schema name, example)` for every example of a named type:
/// request and response bodies (callbacks included) whose schema is a
/// `$ref`, and the named schemas' own examples. The test suite round-trips
/// each through the Rust type of that name.
pub fn named_examples(document: &Value) -> Vec<(String, String, Value)> {
    let mut found = Vec::new();
    collect_named_media_examples("", document, &mut found);
    let schemas = document
        .pointer("/components/schemas")
        .and_then(Value::as_object);
    for (name, schema) in schemas.into_iter().flatten() {
        if let Some(example) = schema.get("example") {
            let at = format!("/components/schemas/{}/example", escape(name));
            found.push((at, name.clone(), example.clone()));
        }
    }
    found
}

fn collect_named_media_examples(at: &str, value: &Value, found: &mut Vec<(String, String, Value)>) {
    match value {
        Value::Object(map) => {
            let named = map
                .get("schema")
                .and_then(|schema| schema.get("$ref"))
                .and_then(Value::as_str)
                .and_then(|reference| reference.strip_prefix("#/components/schemas/"));
            if let Some(name) = named {
                for (example_at, example) in examples_of(at, map) {
                    found.push((example_at, name.to_owned(), example.clone()));
                }
            }
            for (key, child) in map {
                if !matches!(key.as_str(), "components" | "example" | "examples") {
                    collect_named_media_examples(&format!("{at}/{}", escape(key)), child, found);
                }
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                collect_named_media_examples(&format!("{at}/{index}"), child, found);
            }
        }
        _ => {}
    }
}

fn examples_of<'v>(at: &str, map: &'v Map<String, Value>) -> Vec<(String, &'v Value)> {
    let mut out = Vec::new();
    if let Some(example) = map.get("example") {
        out.push((format!("{at}/example"), example));
    }
    for (name, example) in map
        .get("examples")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(value) = example.get("value") {
            out.push((format!("{at}/examples/{}/value", escape(name)), value));
        }
    }
    out
}

/// OpenAPI 3.0 schema dialect to JSON Schema 2020-12: `nullable: true`
/// adds `null` to the type (or, without a type, allows `null` beside the
/// schema); everything else carries over.
pub fn to_json_schema(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let nullable = map.get("nullable") == Some(&Value::Bool(true));
            let mut out: Map<String, Value> = map
                .into_iter()
                .filter(|(key, _)| key != "nullable")
                .map(|(key, child)| {
                    // Examples are data, not schemas.
                    if key == "example" || key == "examples" || key == "enum" || key == "default" {
                        (key, child)
                    } else {
                        (key, to_json_schema(child))
                    }
                })
                .collect();
            if nullable {
                if let Some(Value::String(kind)) = out.get("type").cloned() {
                    out.insert("type".to_owned(), json!([kind, "null"]));
                } else {
                    // `nullable` beside `allOf: [{$ref}]` (no type): the schema or null.
                    return json!({"anyOf": [Value::Object(out), {"type": "null"}]});
                }
                if let Some(Value::Array(values)) = out.get_mut("enum") {
                    values.push(Value::Null);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(to_json_schema).collect()),
        other => other,
    }
}
