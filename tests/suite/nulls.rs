//! Null is absence (docs/document-rules.md rule 18): for every example of every
//! document, the same value with `null` in every optional field is accepted
//! by the published JSON Schema and parsed by the Rust type. The inputs are
//! generated from the documents (their examples and schemas), not hand-picked,
//! and a coverage check proves every optional property of every schema
//! reachable from an example received a `null`.

use serde_json::{Map, Value};
use std::collections::BTreeSet;
use xtask::apis::workspace_apis as apis;
use xtask::bundle::bundle;
use xtask::examples::named_examples;

fn document(api: &str) -> Value {
    bundle(&crate::workspace_root().join(format!("openapi/{api}.yaml"))).unwrap()
}

/// The schemas of a document, resolving `$ref` and one-element `allOf`.
struct Schemas<'d>(&'d Map<String, Value>);

impl<'d> Schemas<'d> {
    fn resolve(&self, mut schema: &'d Value) -> &'d Value {
        loop {
            if let Some(name) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                schema = &self.0[name];
            } else if let Some([only]) = schema
                .get("allOf")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
            {
                schema = only;
            } else {
                return schema;
            }
        }
    }

    /// The `oneOf` variant `value` is (of its JSON type, with its required
    /// properties present and non-null), or the schema itself.
    fn variant(&self, schema: &'d Value, value: &Value) -> &'d Value {
        let schema = self.resolve(schema);
        let Some(variants) = schema.get("oneOf").and_then(Value::as_array) else {
            return schema;
        };
        variants
            .iter()
            .map(|v| self.resolve(v))
            .filter(|v| {
                let kind = v.get("type").and_then(Value::as_str);
                kind.is_none() || kind == Some(if value.is_array() { "array" } else { "object" })
            })
            .find(|v| {
                v.get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .all(|name| value.get(name).is_some_and(|field| !field.is_null()))
            })
            .unwrap_or(schema)
    }

    fn name_of(&self, schema: &Value) -> Option<String> {
        self.0
            .iter()
            .find(|(_, s)| std::ptr::eq(*s, schema))
            .map(|(name, _)| name.clone())
    }
}

/// Which nulls go in: every optional property missing from the example
/// becomes `null` at every depth; at object depth `all_at` the present
/// optional properties become `null` too (above it they keep their value and
/// are filled in turn). One input per depth reaches every present field.
#[derive(Clone, Copy)]
struct Fill {
    all_at: Option<usize>,
}

/// `value` (an instance of `schema`) with nulls in its optional fields;
/// records `(schema name, property)` for each null put in.
fn with_nulls(
    schemas: &Schemas,
    schema: &Value,
    value: &Value,
    fill: Fill,
    depth: usize,
    nulled: &mut BTreeSet<(String, String)>,
) -> Value {
    let schema = schemas.variant(schema, value);
    match value {
        Value::Object(fields) => {
            let mut out = fields.clone();
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let owner = schemas.name_of(schema).unwrap_or_else(|| "<inline>".into());
            for (name, property) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let optional = !required.contains(&name.as_str());
                let present = fields.get(name).filter(|v| !v.is_null());
                let all_here = fill.all_at == Some(depth);
                match (optional, present) {
                    (true, None) => {
                        out.insert(name.clone(), Value::Null);
                        nulled.insert((owner.clone(), name.clone()));
                    }
                    (true, Some(_)) if all_here => {
                        out.insert(name.clone(), Value::Null);
                        nulled.insert((owner.clone(), name.clone()));
                    }
                    (_, Some(inner)) => {
                        let filled = with_nulls(schemas, property, inner, fill, depth + 1, nulled);
                        out.insert(name.clone(), filled);
                    }
                    (false, None) => {}
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            Value::Array(
                items
                    .iter()
                    .map(|item| with_nulls(schemas, item_schema, item, fill, depth, nulled))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// `(schema name, property)` of every optional property of every schema
/// that can be reached from `name`.
fn optional_properties(
    schemas: &Schemas,
    name: &str,
    seen: &mut BTreeSet<String>,
    out: &mut BTreeSet<(String, String)>,
) {
    if !seen.insert(name.to_owned()) {
        return;
    }
    let schema = &schemas.0[name];
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (property, _) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if !required.contains(&property.as_str()) {
            out.insert((name.to_owned(), property.clone()));
        }
    }
    let mut references = Vec::new();
    collect_references(schema, &mut references);
    for reference in references {
        optional_properties(schemas, &reference, seen, out);
    }
}

fn collect_references(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                out.push(name.to_owned());
            }
            for (key, child) in map {
                if key != "example" {
                    collect_references(child, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_references(item, out)),
        _ => {}
    }
}

/// How many objects deep `value` nests.
fn depth_of(value: &Value) -> usize {
    match value {
        Value::Object(map) => 1 + map.values().map(depth_of).max().unwrap_or(0),
        Value::Array(items) => items.iter().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

#[test]
fn null_in_every_optional_field_is_absence_for_schema_and_rust_type() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for api in apis() {
        let document = document(&api.name);
        let components = document
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .unwrap();
        let schemas = Schemas(components);
        let mut nulled = BTreeSet::new();
        let mut reachable = BTreeSet::new();
        let mut seen = BTreeSet::new();
        for (pointer, name, example) in named_examples(&document) {
            if !example.is_object()
                || xtask::conventions::COMMA_SEPARATED_SCHEMAS.contains(&name.as_str())
            {
                continue;
            }
            optional_properties(&schemas, &name, &mut seen, &mut reachable);
            let schema = &components[&name];
            let depths = (0..depth_of(&example)).map(Some);
            for all_at in std::iter::once(None).chain(depths) {
                let fill = Fill { all_at };
                let input = with_nulls(&schemas, schema, &example, fill, 0, &mut nulled);
                checked += 1;
                let published = crate::schemas::published_errors(&api.name, &name, &input);
                if !published.is_empty() {
                    failures.push(format!(
                        "{}{pointer} as {name}: JSON Schema: {published:?}\n{input}",
                        api.name
                    ));
                }
                if let Err(error) =
                    crate::generated_registry::round_trip(&api.name, &name, &input.to_string())
                {
                    failures.push(format!(
                        "{}{pointer} as {name}: Rust: {error}\n{input}",
                        api.name
                    ));
                }
            }
        }
        // Every optional property reachable from an example got its null
        // (a property of a schema no example reaches is not counted).
        let missed: Vec<_> = reachable.difference(&nulled).collect();
        if !missed.is_empty() {
            failures.push(format!(
                "{}: no example reaches these optional properties with a null: {missed:?}",
                api.name
            ));
        }
    }
    assert!(checked > 100, "only {checked} inputs");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The session request example written the way the provider's own example
/// requests send unused objects: as `null`.
pub fn provider_style_session_request() -> Value {
    document("payment-page")
        .pointer("/paths/~1pps~1api~1v1~1session/post/requestBody/content/application~1json/examples/providerStyleNulls/value")
        .expect("the document carries the provider-style example")
        .clone()
}

#[test]
fn a_session_request_with_the_providers_null_delivery_shapes_parses() {
    let example = &provider_style_session_request();
    assert!(crate::schemas::published_errors("payment-page", "SessionRequest", example).is_empty());
    let request: psi::payment_page::types::SessionRequest =
        psi_runtime::parse_json(&example.to_string()).expect("null is absence");
    let order = request.order_data.unwrap();
    // The null shapes select nothing: it is the delivery to a named address.
    assert!(matches!(
        order.delivery,
        Some(psi::payment_page::types::Delivery::NamedAddressDelivery(_))
    ));
    assert!(order.payment_method.is_none());
    // The Rust client sends absent fields as absent, never as null.
    let sent = serde_json::to_string(&order.delivery).unwrap();
    assert!(!sent.contains("null"), "{sent}");
}
