//! Every example of every document deserializes into the Rust type its
//! schema names and re-serializes to the same JSON; insta snapshots guard the
//! public type surface (the JSON Schema of every generated type) and every
//! example after that round trip.

use serde_json::Value;
use std::collections::BTreeMap;
use xtask::apis::workspace_apis as apis;
use xtask::bundle::bundle;
use xtask::examples::named_examples as examples;

/// The Rust types hold an optional field that is `null`, `[]` or `{}` as
/// `None` or an empty collection and omit it on the way back, which is the
/// same value; the comparison drops such fields on both sides. Everything
/// else, numbers to the last digit included, must come back unchanged.
fn without_empty_fields(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| {
                    !(v.is_null()
                        || v.as_array().is_some_and(Vec::is_empty)
                        || v.as_object().is_some_and(|o| o.is_empty()))
                })
                .map(|(k, v)| (k.clone(), without_empty_fields(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_empty_fields).collect()),
        other => other.clone(),
    }
}

/// Examples of query parameters replaced by `CommaSeparated` are arrays in
/// the document and joined strings in Rust; `include.rs` covers them.
fn is_body_type(schema: &str) -> bool {
    !xtask::conventions::COMMA_SEPARATED_SCHEMAS.contains(&schema)
}

fn document(api: &str) -> Value {
    bundle(
        &crate::workspace_root()
            .join("openapi")
            .join(format!("{api}.yaml")),
    )
    .unwrap()
}

#[test]
fn every_example_round_trips_through_its_type() {
    let mut failures = Vec::new();
    let mut count = 0;
    for api in apis() {
        for (pointer, schema, example) in examples(&document(&api.name)) {
            if !is_body_type(&schema) {
                continue;
            }
            count += 1;
            match crate::generated_registry::round_trip(&api.name, &schema, &example.to_string()) {
                Ok(back) if without_empty_fields(&back) == without_empty_fields(&example) => {}
                Ok(back) => failures.push(format!(
                    "{}#{pointer} ({schema}): came back as {back}",
                    api.name
                )),
                Err(error) => failures.push(format!("{}#{pointer} ({schema}): {error}", api.name)),
            }
        }
    }
    assert!(count > 100, "only {count} examples found");
    assert!(
        failures.is_empty(),
        "{} of {count} examples fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_body_has_an_example() {
    for api in apis() {
        let found = examples(&document(&api.name));
        let bodies = found
            .iter()
            .filter(|(pointer, _, _)| pointer.starts_with("/paths"))
            .count();
        assert!(bodies > 0, "{} has no body examples", api.name);
    }
}

#[test]
fn snapshots_of_types_and_examples() {
    for api in apis() {
        insta::assert_json_snapshot!(
            format!("{}__types", api.name),
            crate::generated_registry::type_schemas(&api.name)
        );
        let round_tripped: BTreeMap<String, Value> = examples(&document(&api.name))
            .into_iter()
            .filter(|(_, schema, _)| is_body_type(schema))
            .map(|(pointer, schema, example)| {
                let back =
                    crate::generated_registry::round_trip(&api.name, &schema, &example.to_string())
                        .unwrap_or_else(|error| Value::String(format!("ERROR: {error}")));
                (format!("{pointer} as {schema}"), back)
            })
            .collect();
        // Rendered by serde_json itself, so a number shows as the JSON text
        // the types wrote (insta's own serializer would get a decimal as a
        // string).
        let rendered =
            serde_json::to_string_pretty(&round_tripped).expect("a JSON value serialises");
        insta::assert_snapshot!(format!("{}__examples", api.name), rendered);
    }
}

/// The storefront module reads `updateStock` at the top level of an item
/// body, never per item (docs/service-notes.md, Storefront module): every
/// example of an item body shows it there and nowhere else.
#[test]
fn storefront_examples_show_update_stock_at_the_top_level() {
    let mut item_bodies = 0;
    for (pointer, schema, example) in examples(&document("storefront")) {
        if !schema.starts_with("OrderItemsRequest") {
            continue;
        }
        item_bodies += 1;
        assert!(
            example.get("updateStock").is_some_and(Value::is_boolean),
            "{pointer}: updateStock at the top level"
        );
        for item in example["items"].as_array().expect("items") {
            assert!(
                item.get("updateStock").is_none(),
                "{pointer}: no updateStock per item"
            );
        }
    }
    assert_eq!(
        item_bodies, 6,
        "deliver, cancel and return of both path sets"
    );
}
