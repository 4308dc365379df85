//! The answer of an operation served from its document: a documented
//! example, the way Prism answers.
//!
//! - The status: the lowest documented 2xx (`2XX` and `default` answer
//!   200), or the one a `Prefer: code=NNN` request header asks for (an
//!   exact status first, then its `NXX` range, then `default`).
//! - The media type: the first of the response that the `Accept` header
//!   takes (the first documented one without `Accept`).
//! - The body: the first entry of the media type's `examples`, or the
//!   `example`, or an example built from the schema (its own `example`,
//!   `default` or first `enum` value, else its properties' examples, else a
//!   placeholder of its type); `Prefer: example=NAME` picks the entry NAME
//!   of `examples`. A response without content has no body.
//!
//! A `Prefer` asking for a status or example the operation does not
//! document is refused with 400 naming `Prefer` and what is documented.

use super::compile::{escape, resolve, Operation};
use super::order::Keys;
use super::request::{decline, is_json};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

/// One documented response of an operation.
pub struct Documented {
    key: Key,
    /// Empty: no body.
    media: Vec<Media>,
}

/// A key of `responses`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Status(u16),
    /// `2XX`: the first digit.
    Range(u16),
    Default,
}

struct Media {
    media_type: String,
    /// `(name, value)`: the `examples` entries by name, or one unnamed.
    examples: Vec<(Option<String>, Value)>,
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

/// What the `Prefer` header asks for.
#[derive(Default)]
struct Preference {
    code: Option<u16>,
    example: Option<String>,
}

fn preference(headers: &HeaderMap) -> Result<Preference, String> {
    let mut preference = Preference::default();
    for value in headers.get_all("prefer") {
        let text = value.to_str().map_err(|_| "is not text".to_owned())?;
        for token in text
            .split([',', ';'])
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            let (name, value) = token.split_once('=').unwrap_or((token, ""));
            let value = value.trim().trim_matches('"');
            match name.trim().to_ascii_lowercase().as_str() {
                "code" => {
                    let code = value
                        .parse::<u16>()
                        .ok()
                        .filter(|c| (100..=599).contains(c));
                    preference.code =
                        Some(code.ok_or_else(|| format!("code={value} is not an HTTP status"))?);
                }
                "example" => preference.example = Some(value.to_owned()),
                // Other preferences (`dynamic`, `respond-async`, ...) are
                // not served and not refused.
                _ => {}
            }
        }
    }
    Ok(preference)
}

/// The answer to a request that passed its checks.
pub fn answer(operation: &Operation, headers: &HeaderMap) -> Response {
    let refuse = |rule: String| {
        decline(
            StatusCode::BAD_REQUEST,
            "INVALID_PREFER",
            vec![("Prefer".to_owned(), rule)],
        )
    };
    let preference = match preference(headers) {
        Ok(preference) => preference,
        Err(rule) => return refuse(rule),
    };
    let chosen = match preference.code {
        Some(code) => preferred(operation, code).map(|documented| (code, documented)),
        None => default_success(operation),
    };
    let Some((status, documented)) = chosen else {
        return refuse(format!(
            "{} documents the statuses {} only",
            operation.operation_id,
            statuses(operation)
        ));
    };
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    let Some(media) = media(documented, headers) else {
        return status.into_response();
    };
    let example = match &preference.example {
        Some(name) => media
            .examples
            .iter()
            .find(|(n, _)| n.as_deref() == Some(name.as_str())),
        None => media.examples.first(),
    };
    let Some((_, example)) = example else {
        if let Some(name) = &preference.example {
            let names: Vec<&str> = media
                .examples
                .iter()
                .filter_map(|(n, _)| n.as_deref())
                .collect();
            return refuse(format!(
                "example={name} is not an example of {} {status} (documented: {})",
                operation.operation_id,
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        }
        return status.into_response();
    };
    let body = match example {
        Value::String(text) if !is_json(&media.media_type) => text.clone().into_bytes(),
        value => value.to_string().into_bytes(),
    };
    let content_type = HeaderValue::from_str(&media.media_type)
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// The response documented for `code`: exactly, by range, or `default`.
fn preferred(operation: &Operation, code: u16) -> Option<&Documented> {
    [Key::Status(code), Key::Range(code / 100), Key::Default]
        .into_iter()
        .find_map(|key| operation.responses.iter().find(|r| r.key == key))
}

/// The lowest documented 2xx; else `2XX` or `default` as 200.
fn default_success(operation: &Operation) -> Option<(u16, &Documented)> {
    let exact = operation
        .responses
        .iter()
        .filter_map(|r| match r.key {
            Key::Status(status @ 200..=299) => Some((status, r)),
            _ => None,
        })
        .min_by_key(|(status, _)| *status);
    exact.or_else(|| {
        [Key::Range(2), Key::Default]
            .into_iter()
            .find_map(|key| operation.responses.iter().find(|r| r.key == key))
            .map(|r| (200, r))
    })
}

fn statuses(operation: &Operation) -> String {
    let keys: Vec<String> = operation
        .responses
        .iter()
        .map(|r| match r.key {
            Key::Status(status) => status.to_string(),
            Key::Range(class) => format!("{class}XX"),
            Key::Default => "default".to_owned(),
        })
        .collect();
    keys.join(", ")
}

/// The first documented media type the request's `Accept` takes.
fn media<'a>(documented: &'a Documented, headers: &HeaderMap) -> Option<&'a Media> {
    let accepted: Vec<String> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    let takes = |media_type: &str| {
        let essence = media_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        accepted.iter().any(|a| {
            a == "*/*"
                || *a == essence
                || a.strip_suffix("/*")
                    .is_some_and(|kind| essence.starts_with(&format!("{kind}/")))
        })
    };
    documented
        .media
        .iter()
        .find(|m| takes(&m.media_type))
        .or(documented.media.first())
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

    #[test]
    fn prefer_reads_code_and_example() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "prefer",
            HeaderValue::from_static("code=404, example=\"gone\""),
        );
        let preference = preference(&headers).unwrap();
        assert_eq!(preference.code, Some(404));
        assert_eq!(preference.example.as_deref(), Some("gone"));
        headers.insert("prefer", HeaderValue::from_static("code=abc"));
        assert!(preference_err(&headers).contains("code=abc"));
    }

    fn preference_err(headers: &HeaderMap) -> String {
        match preference(headers) {
            Ok(_) => String::new(),
            Err(rule) => rule,
        }
    }
}
