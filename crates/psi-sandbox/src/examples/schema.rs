//! A document's OpenAPI 3.0 schemas as JSON Schema 2020-12 validators, and
//! their refusals as `(JSON path, rule)` in words that never quote the
//! value (it may be a secret or an IBAN).
//!
//! The conversion: `nullable: true` adds `null` to `type` (and `enum`), or
//! offers `null` beside a schema without a type; a property an object does
//! not require accepts `null` as its absence (the interface's rule for
//! optional fields); a boolean `exclusiveMinimum`/`exclusiveMaximum`
//! becomes the number; OpenAPI-only keywords are dropped. Formats the
//! validator knows (`date`, `date-time`, `uuid`, `email`, ...) are checked,
//! OpenAPI's own (`decimal`, `int32`, `password`) are annotations.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::{JsonType, ValidationError, Validator};
use serde_json::{json, Map, Value};

/// Keywords whose value is one schema.
const ONE_SCHEMA: &[&str] = &["items", "additionalProperties", "not", "propertyNames"];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: &[&str] = &["oneOf", "anyOf", "allOf"];
/// OpenAPI keywords with no JSON Schema meaning.
const OPENAPI_ONLY: &[&str] = &[
    "nullable",
    "example",
    "discriminator",
    "xml",
    "externalDocs",
    "exclusiveMinimum",
    "exclusiveMaximum",
];

/// The converted `components.schemas` of one document, which every
/// validator of it references.
pub struct Schemas {
    components: Value,
}

impl Schemas {
    pub fn of(root: &Value) -> Result<Self, String> {
        let mut components = Map::new();
        let named = root
            .pointer("/components/schemas")
            .and_then(Value::as_object);
        for (name, schema) in named.into_iter().flatten() {
            let converted = convert(schema).map_err(|reason| format!("schema {name}: {reason}"))?;
            components.insert(name.clone(), converted);
        }
        Ok(Self {
            components: Value::Object(components),
        })
    }

    /// A validator of `schema` (an OpenAPI schema object of the document).
    pub fn validator(&self, schema: &Value) -> Result<Validator, String> {
        let root = json!({
            "components": {"schemas": self.components},
            "allOf": [convert(schema)?],
        });
        jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&root)
            .map_err(|error| format!("a schema does not compile: {error}"))
    }
}

/// Every refusal of `instance`, as `(JSON path from "$", rule)`.
pub fn refusals(validator: &Validator, instance: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for error in validator.iter_errors(instance) {
        explain(&error, &mut found);
    }
    found.dedup();
    found
}

fn explain(error: &ValidationError<'_>, found: &mut Vec<(String, String)>) {
    let path = json_path(error);
    let rule = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            found.push((format!("{path}.{name}"), "is required".to_owned()));
            return;
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            for name in unexpected {
                found.push((
                    format!("{path}.{name}"),
                    "is not a documented field".to_owned(),
                ));
            }
            return;
        }
        // `null` offered beside a schema: the schema's own refusals say more
        // than "matches none of the forms".
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            let real: Vec<_> = context
                .iter()
                .filter(|errors| !only_not_null(errors))
                .collect();
            if let [errors] = real.as_slice() {
                for error in errors.iter() {
                    explain(error, found);
                }
                return;
            }
            "matches none of the documented forms".to_owned()
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "matches more than one of the documented forms".to_owned()
        }
        ValidationErrorKind::Type { kind } => format!("must be {}", types(kind)),
        ValidationErrorKind::Enum { options } => format!("must be one of {options}"),
        ValidationErrorKind::Constant { expected_value } => format!("must be {expected_value}"),
        ValidationErrorKind::Pattern { pattern } => format!("must match the pattern {pattern}"),
        ValidationErrorKind::Format { format } => format!("must be a valid {format}"),
        ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("must be more than {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("must be less than {limit}"),
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("must be a multiple of {multiple_of}")
        }
        ValidationErrorKind::MinLength { limit } => {
            format!("must be at least {limit} characters long")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("must be at most {limit} characters long")
        }
        ValidationErrorKind::MinItems { limit } => format!("must have at least {limit} items"),
        ValidationErrorKind::MaxItems { limit } => format!("must have at most {limit} items"),
        ValidationErrorKind::UniqueItems => "must not repeat an item".to_owned(),
        ValidationErrorKind::MinProperties { limit } => {
            format!("must have at least {limit} fields")
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("must have at most {limit} fields")
        }
        other => format!("does not satisfy {}", other.keyword()),
    };
    found.push((path, rule));
}

/// The errors of a `{"type": "null"}` branch.
fn only_not_null(errors: &[ValidationError<'_>]) -> bool {
    matches!(errors, [error] if matches!(
        error.kind(),
        ValidationErrorKind::Type { kind: TypeKind::Single(JsonType::Null) }
    ))
}

fn types(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(single) => article(*single),
        TypeKind::Multiple(set) => {
            let named: Vec<String> = set.iter().map(article).collect();
            named.join(" or ")
        }
    }
}

fn article(kind: JsonType) -> String {
    match kind {
        JsonType::Null => "null".to_owned(),
        JsonType::Integer => "an integer".to_owned(),
        JsonType::Array => "an array".to_owned(),
        JsonType::Object => "an object".to_owned(),
        other => format!("a {other}"),
    }
}

/// `/a/0/b` as `$.a[0].b`.
fn json_path(error: &ValidationError<'_>) -> String {
    let mut path = "$".to_owned();
    for segment in error.instance_path().segments() {
        match segment {
            LocationSegment::Property(name) => {
                path.push('.');
                path.push_str(&name);
            }
            LocationSegment::Index(index) => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

/// One OpenAPI 3.0 schema object in the 2020-12 dialect (see the module
/// docs).
pub fn convert(schema: &Value) -> Result<Value, String> {
    let Value::Object(map) = schema else {
        // `additionalProperties: true` and friends.
        return Ok(schema.clone());
    };
    let mut out = Map::new();
    for (key, value) in map {
        let converted = match key.as_str() {
            k if OPENAPI_ONLY.contains(&k) => continue,
            "$ref" => {
                let reference = value.as_str().ok_or("$ref is not a string")?;
                if !reference.starts_with("#/components/schemas/") {
                    return Err(format!(
                        "{reference}: a schema must reference a named schema"
                    ));
                }
                value.clone()
            }
            "properties" => {
                let required = required(map);
                let mut properties = Map::new();
                for (name, property) in value.as_object().ok_or("properties is not an object")? {
                    let converted = if required.contains(&name.as_str()) {
                        convert(property)?
                    } else {
                        convert(&with_null(property))?
                    };
                    properties.insert(name.clone(), converted);
                }
                Value::Object(properties)
            }
            k if ONE_SCHEMA.contains(&k) => convert(value)?,
            k if SCHEMA_LISTS.contains(&k) => Value::Array(
                value
                    .as_array()
                    .ok_or_else(|| format!("{k} is not a list"))?
                    .iter()
                    .map(convert)
                    .collect::<Result<_, _>>()?,
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), converted);
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
        return Ok(nullable(out));
    }
    Ok(Value::Object(out))
}

fn required(map: &Map<String, Value>) -> Vec<&str> {
    map.get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// `schema` marked `nullable`.
fn with_null(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut map = map.clone();
            map.insert("nullable".to_owned(), Value::Bool(true));
            Value::Object(map)
        }
        other => other.clone(),
    }
}

/// A converted schema that also takes `null`.
fn nullable(mut out: Map<String, Value>) -> Value {
    match out.get("type").cloned() {
        Some(Value::String(kind)) => {
            out.insert("type".to_owned(), json!([kind, "null"]));
            if let Some(Value::Array(values)) = out.get_mut("enum") {
                if !values.contains(&Value::Null) {
                    values.push(Value::Null);
                }
            }
            Value::Object(out)
        }
        _ => json!({"anyOf": [{"type": "null"}, Value::Object(out)]}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(schema: Value, instance: Value) -> Vec<(String, String)> {
        let schemas = Schemas::of(&json!({})).unwrap();
        refusals(&schemas.validator(&schema).unwrap(), &instance)
    }

    #[test]
    fn an_optional_field_takes_null_a_required_one_does_not() {
        let schema = json!({
            "type": "object",
            "required": ["amount"],
            "properties": {
                "amount": {"type": "integer"},
                "note": {"type": "string", "maxLength": 3},
                "kind": {"type": "string", "enum": ["A", "B"]},
            },
        });
        assert!(check(
            schema.clone(),
            json!({"amount": 1, "note": null, "kind": null})
        )
        .is_empty());
        assert_eq!(
            check(schema.clone(), json!({"amount": null})),
            [("$.amount".to_owned(), "must be an integer".to_owned())]
        );
        assert_eq!(
            check(schema.clone(), json!({})),
            [("$.amount".to_owned(), "is required".to_owned())]
        );
        assert_eq!(
            check(schema, json!({"amount": 1, "note": "long"})),
            [(
                "$.note".to_owned(),
                "must be at most 3 characters long".to_owned()
            )]
        );
    }

    #[test]
    fn nullable_references_explain_the_referenced_schema() {
        let root = json!({"components": {"schemas": {
            "Money": {"type": "object", "required": ["value"], "properties": {"value": {"type": "number", "minimum": 0}}},
        }}});
        let schemas = Schemas::of(&root).unwrap();
        let schema = json!({"type": "object", "properties": {"fee": {"$ref": "#/components/schemas/Money"}}});
        let validator = schemas.validator(&schema).unwrap();
        assert!(refusals(&validator, &json!({"fee": null})).is_empty());
        assert_eq!(
            refusals(&validator, &json!({"fee": {"value": -1}})),
            [("$.fee.value".to_owned(), "must be at least 0".to_owned())]
        );
    }

    #[test]
    fn boolean_exclusive_bounds_become_numbers() {
        let schema = json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true});
        assert_eq!(
            check(schema, json!(0)),
            [("$".to_owned(), "must be more than 0".to_owned())]
        );
    }
}
