//! Lenient on what arrives: every constrained field (a `pattern`, a length)
//! of every response example of every document, given a value outside its
//! stated format, still decodes, keeping the value as received; the same
//! answer decoded strictly (as the sandbox reads a request) is refused.

use serde_json::Value;
use xtask::apis::workspace_apis as apis;
use xtask::bundle::bundle;
use xtask::examples::named_examples as examples;

/// A value outside every format the documents state for a string: longer
/// than any `maxLength`, and no `pattern` of theirs allows `~`.
fn outside_every_format() -> String {
    format!("{}~", "~".repeat(300))
}

/// `schema` with its `$ref` (and a single `allOf`) followed.
fn resolved<'a>(document: &'a Value, schema: &'a Value) -> &'a Value {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let pointer = reference.trim_start_matches('#');
        return resolved(document, document.pointer(pointer).unwrap_or(&Value::Null));
    }
    match schema.get("allOf").and_then(Value::as_array) {
        Some(parts) if parts.len() == 1 => resolved(document, &parts[0]),
        _ => schema,
    }
}

/// JSON pointers (within `value`) of the strings whose schema states a
/// pattern or a length.
fn constrained_strings(
    document: &Value,
    schema: &Value,
    value: &Value,
    at: String,
    out: &mut Vec<String>,
) {
    let schema = resolved(document, schema);
    match value {
        Value::String(_)
            if ["pattern", "minLength", "maxLength"]
                .iter()
                .any(|rule| schema.get(rule).is_some()) =>
        {
            out.push(at);
        }
        Value::Object(members) => {
            for (name, member) in members {
                if let Some(property) = schema.pointer(&format!("/properties/{name}")) {
                    let escaped = name.replace('~', "~0").replace('/', "~1");
                    constrained_strings(document, property, member, format!("{at}/{escaped}"), out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                for (index, element) in items.iter().enumerate() {
                    constrained_strings(document, item, element, format!("{at}/{index}"), out);
                }
            }
        }
        _ => {}
    }
}

#[test]
fn a_response_value_outside_its_format_is_kept_as_received() {
    let bad = outside_every_format();
    let mut checked = 0;
    let mut failures = Vec::new();
    for api in apis() {
        let document = bundle(
            &crate::workspace_root()
                .join("openapi")
                .join(format!("{}.yaml", api.name)),
        )
        .unwrap();
        for (pointer, schema, example) in examples(&document) {
            if !pointer.contains("/responses/") {
                continue;
            }
            let Some(component) = document.pointer(&format!("/components/schemas/{schema}")) else {
                continue;
            };
            let mut fields = Vec::new();
            constrained_strings(&document, component, &example, String::new(), &mut fields);
            for field in fields {
                let mut answer = example.clone();
                *answer.pointer_mut(&field).unwrap() = Value::String(bad.clone());
                let text = answer.to_string();
                let place = format!("{}#{pointer} ({schema}) at {field}", api.name);
                checked += 1;
                if crate::generated_registry::round_trip(&api.name, &schema, &text).is_ok() {
                    failures.push(format!(
                        "{place}: the strict read accepts the value; pick another"
                    ));
                    continue;
                }
                match psi_runtime::leniency::lenient(|| {
                    crate::generated_registry::round_trip(&api.name, &schema, &text)
                }) {
                    Ok(back) if back.pointer(&field) == Some(&Value::String(bad.clone())) => {}
                    Ok(back) => failures.push(format!("{place}: came back as {back}")),
                    Err(error) => failures.push(format!("{place}: {error}")),
                }
            }
        }
    }
    assert!(
        checked >= 5,
        "only {checked} constrained response fields found"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
