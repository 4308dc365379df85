//! What an operation answers, compiled: its documented responses, each
//! with its key (a status, a range such as `2XX`, or `default`) and per
//! media type its examples in the order of precedence [`super::answer`]
//! picks from: the entries of `examples` as written, else `example`, else
//! one built from the schema.

use super::order::Keys;
use super::pointer::{escape, resolve};
use serde_json::{json, Map, Value};

/// One documented response of an operation.
pub struct Documented {
    pub(super) key: Key,
    /// Empty: no body.
    pub(super) media: Vec<Media>,
}

/// A key of `responses`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Key {
    Status(u16),
    /// `2XX`: the first digit.
    Range(u16),
    Default,
}

pub(super) struct Media {
    pub(super) media_type: String,
    /// `(name, value)`: the `examples` entries by name, or one unnamed.
    pub(super) examples: Vec<(Option<String>, Value)>,
}

impl Documented {
    /// `at`: the response's JSON pointer, for the order of `examples`.
    pub fn compile(
        root: &Value,
        keys: &Keys,
        at: &str,
        key: &str,
        response: &Value,
    ) -> Result<Self, String> {
        let key = match key {
            "default" => Key::Default,
            range if range.len() == 3 && range.ends_with("XX") => Key::Range(
                range[..1]
                    .parse()
                    .map_err(|_| format!("response {range}"))?,
            ),
            status => Key::Status(status.parse().map_err(|_| format!("response {status}"))?),
        };
        let content = response.get("content").and_then(Value::as_object);
        let media = content
            .into_iter()
            .flatten()
            .map(|(media_type, entry)| {
                let examples_at = format!("{at}/content/{}/examples", escape(media_type));
                let order = keys.at(&examples_at).unwrap_or_default();
                Ok(Media {
                    media_type: media_type.clone(),
                    examples: examples(root, &order, entry)?,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Self { key, media })
    }
}

/// The examples of a media type entry, in the order of precedence.
/// `order`: the names of its `examples` as written.
fn examples(
    root: &Value,
    order: &[&str],
    entry: &Value,
) -> Result<Vec<(Option<String>, Value)>, String> {
    if let Some(named) = entry.get("examples").and_then(Value::as_object) {
        let mut found = Vec::new();
        let mut names: Vec<&String> = named.keys().collect();
        names.sort_by_key(|name| order.iter().position(|o| o == name));
        for name in names {
            if let Some(value) = resolve(root, &named[name])?.get("value") {
                found.push((Some(name.clone()), value.clone()));
            }
        }
        if !found.is_empty() {
            return Ok(found);
        }
    }
    if let Some(example) = entry.get("example") {
        return Ok(vec![(None, example.clone())]);
    }
    Ok(entry
        .get("schema")
        .and_then(|schema| built(root, schema, 0))
        .map(|example| vec![(None, example)])
        .unwrap_or_default())
}

/// An example of `schema` built from the examples of its parts.
fn built(root: &Value, schema: &Value, depth: usize) -> Option<Value> {
    if depth > 12 {
        return None;
    }
    let schema = resolve(root, schema).ok()?;
    for own in ["example", "default"] {
        if let Some(value) = schema.get(own) {
            return Some(value.clone());
        }
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return Some(first.clone());
    }
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        let mut merged = Map::new();
        for part in parts {
            match built(root, part, depth + 1)? {
                Value::Object(fields) => merged.extend(fields),
                other => return Some(other),
            }
        }
        return Some(Value::Object(merged));
    }
    for choice in ["oneOf", "anyOf"] {
        if let Some(first) = schema
            .get(choice)
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        {
            return built(root, first, depth + 1);
        }
    }
    let kind = schema.get("type").and_then(Value::as_str);
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        let fields = properties
            .iter()
            .filter_map(|(name, property)| Some((name.clone(), built(root, property, depth + 1)?)))
            .collect();
        return Some(Value::Object(fields));
    }
    Some(match kind? {
        "object" => json!({}),
        "array" => match schema
            .get("items")
            .and_then(|items| built(root, items, depth + 1))
        {
            Some(item) => json!([item]),
            None => json!([]),
        },
        "string" => json!(match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => "2024-01-01T00:00:00Z",
            Some("date") => "2024-01-01",
            Some("uuid") => "00000000-0000-4000-8000-000000000000",
            Some("email") => "user@example.com",
            Some("uri") => "https://example.com",
            _ => "string",
        }),
        "integer" | "number" => schema.get("minimum").cloned().unwrap_or(json!(0)),
        "boolean" => json!(true),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_example_is_built_from_its_properties() {
        let root = json!({"components": {"schemas": {
            "Money": {"type": "object", "properties": {"value": {"type": "number", "example": 12.5}, "currency": {"type": "string", "enum": ["EUR"]}}},
        }}});
        let schema = json!({"type": "object", "properties": {
            "fee": {"$ref": "#/components/schemas/Money"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opened": {"type": "string", "format": "date"},
        }});
        assert_eq!(
            built(&root, &schema, 0),
            Some(
                json!({"fee": {"value": 12.5, "currency": "EUR"}, "tags": ["string"], "opened": "2024-01-01"})
            )
        );
    }
}
