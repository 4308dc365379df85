//! What an operation accepts, compiled: its path and query parameters and
//! its request body, each with the validator of its schema. [`super::request`]
//! checks a request against them.

use super::media::is_json;
use super::pointer::resolve;
use super::schema::Schemas;
use jsonschema::Validator;
use serde_json::Value;

/// Where a parameter is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum In {
    Path,
    Query,
}

/// A path or query parameter and its compiled schema.
pub struct Parameter {
    pub(super) name: String,
    pub(super) place: In,
    pub(super) required: bool,
    /// The JSON type a value is read as (`integer`, `number`, `boolean`,
    /// else a string).
    pub(super) kind: Kind,
    /// An array sent as `a=1&a=2` (`explode`, the default) or `a=1,2`.
    pub(super) array: Option<Explode>,
    pub(super) validator: Validator,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
    Integer,
    Number,
    Boolean,
    String,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Explode {
    Repeated,
    Commas,
}

impl Parameter {
    /// `None` for a header or cookie parameter: not checked (the token and
    /// Content-Type have their own checks).
    pub fn compile(
        root: &Value,
        schemas: &Schemas,
        parameter: &Value,
    ) -> Result<Option<Self>, String> {
        let name = parameter
            .get("name")
            .and_then(Value::as_str)
            .ok_or("a parameter without a name")?;
        let place = match parameter.get("in").and_then(Value::as_str) {
            Some("path") => In::Path,
            Some("query") => In::Query,
            _ => return Ok(None),
        };
        let missing = serde_json::json!({});
        let schema = parameter.get("schema").unwrap_or(&missing);
        let resolved = resolve(root, schema)?;
        let array = (type_of(resolved) == Some("array")).then(|| {
            match parameter.get("explode").and_then(Value::as_bool) {
                Some(false) => Explode::Commas,
                _ => Explode::Repeated,
            }
        });
        let scalar = match array {
            Some(_) => resolve(root, resolved.get("items").unwrap_or(&missing))?,
            None => resolved,
        };
        let kind = match type_of(scalar) {
            Some("integer") => Kind::Integer,
            Some("number") => Kind::Number,
            Some("boolean") => Kind::Boolean,
            _ => Kind::String,
        };
        let validator = schemas
            .validator(schema)
            .map_err(|reason| format!("parameter {name}: {reason}"))?;
        Ok(Some(Self {
            name: name.to_owned(),
            place,
            required: place == In::Path
                || parameter.get("required").and_then(Value::as_bool) == Some(true),
            kind,
            array,
            validator,
        }))
    }

    pub fn is_path(&self, name: &str) -> bool {
        self.place == In::Path && self.name == name
    }
}

fn type_of(schema: &Value) -> Option<&str> {
    schema.get("type").and_then(Value::as_str)
}

/// A documented request body.
pub struct Body {
    pub(super) required: bool,
    /// The documented media types, each with the validator of its schema
    /// when it is JSON and has one.
    pub(super) media_types: Vec<(String, Option<Validator>)>,
}

impl Body {
    pub fn compile(schemas: &Schemas, body: &Value) -> Result<Self, String> {
        let content = body
            .get("content")
            .and_then(Value::as_object)
            .ok_or("a request body without content")?;
        let media_types = content
            .iter()
            .map(|(media_type, entry)| {
                let validator = match entry.get("schema") {
                    Some(schema) if is_json(media_type) => Some(schemas.validator(schema)?),
                    _ => None,
                };
                Ok((media_type.clone(), validator))
            })
            .collect::<Result<_, String>>()?;
        Ok(Self {
            required: body.get("required").and_then(Value::as_bool) == Some(true),
            media_types,
        })
    }
}
