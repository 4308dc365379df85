//! Breaking changes between two bundled documents of one API.
//!
//! The rules, applied to both
//! directions alike because the generated types serve both (a removed
//! response field or enum value removes a Rust field or variant that
//! callers may name; a field that becomes required turns `Option<T>` into
//! `T`):
//!
//! - removed operations (by path and method, or a changed `operationId`),
//!   removed parameters, request bodies, responses, media types, fields
//!   (properties) and named types;
//! - new required fields and parameters (new, or optional before);
//! - narrowed types: an added or tightened bound (`maxLength`, `minLength`,
//!   `maximum`, `minimum`, `maxItems`, `minItems`, exclusive bounds), an
//!   added or changed `pattern`, `multipleOf` or `not`, `nullable` dropped,
//!   `uniqueItems` added, `additionalProperties` closed, a `oneOf`/`anyOf`
//!   variant removed;
//! - narrowed enums: a value removed, or an enum added to an open type;
//! - changed types: `type`, `format` or a reference target changed.
//!
//! Additions are not breaking: new operations, optional fields, enum values
//! (response enums are open in the Rust clients), named types.

use crate::lint::METHODS;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// One breaking change, at a place of the old document.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Change {
    /// `removed operation`, `removed field`, `new required field`,
    /// `narrowed type`, `narrowed enum`, `changed type` or `removed type`.
    pub kind: &'static str,
    /// Where: an operation, parameter or schema, with a property path.
    pub at: String,
    pub detail: String,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.kind, self.at, self.detail)
    }
}

pub const REMOVED_OPERATION: &str = "removed operation";
pub const REMOVED_FIELD: &str = "removed field";
pub const NEW_REQUIRED: &str = "new required field";
pub const NARROWED_TYPE: &str = "narrowed type";
pub const NARROWED_ENUM: &str = "narrowed enum";
pub const CHANGED_TYPE: &str = "changed type";
pub const REMOVED_TYPE: &str = "removed type";

/// Every breaking change from `old` to `new` (both bundled documents).
pub fn breaking_changes(old: &Value, new: &Value) -> Vec<Change> {
    let mut diff = Diff::default();
    diff.path_items(
        "",
        old.get("paths").unwrap_or(&Value::Null),
        new.get("paths").unwrap_or(&Value::Null),
    );
    let empty = Map::new();
    let old_schemas = object(old.pointer("/components/schemas")).unwrap_or(&empty);
    let new_schemas = object(new.pointer("/components/schemas")).unwrap_or(&empty);
    for (name, old_schema) in old_schemas {
        match new_schemas.get(name) {
            Some(new_schema) => diff.schema(name, old_schema, new_schema),
            None => diff.push(REMOVED_TYPE, name, "the named schema no longer exists"),
        }
    }
    diff.changes.sort();
    diff.changes.dedup();
    diff.changes
}

fn object(value: Option<&Value>) -> Option<&Map<String, Value>> {
    value.and_then(Value::as_object)
}

#[derive(Default)]
struct Diff {
    changes: Vec<Change>,
}

impl Diff {
    fn push(&mut self, kind: &'static str, at: &str, detail: impl Into<String>) {
        self.changes.push(Change {
            kind,
            at: at.to_owned(),
            detail: detail.into(),
        });
    }

    /// `paths` (or one callback's path items), prefixed with `within`.
    fn path_items(&mut self, within: &str, old: &Value, new: &Value) {
        let empty = Map::new();
        let new_paths = new.as_object().unwrap_or(&empty);
        for (path, old_item) in old.as_object().unwrap_or(&empty) {
            for method in METHODS {
                let Some(old_op) = old_item.get(*method) else {
                    continue;
                };
                let label = format!("{within}{} {path}", method.to_uppercase());
                let new_item = new_paths.get(path).unwrap_or(&Value::Null);
                match new_item.get(*method) {
                    Some(new_op) => self.operation(&label, [old_item, old_op], [new_item, new_op]),
                    None => self.push(
                        REMOVED_OPERATION,
                        &label,
                        format!("operation {} was removed", operation_id(old_op)),
                    ),
                }
            }
        }
    }

    /// One operation; `[path item, operation]` on each side.
    fn operation(
        &mut self,
        label: &str,
        [old_item, old]: [&Value; 2],
        [new_item, new]: [&Value; 2],
    ) {
        let (old_id, new_id) = (operation_id(old), operation_id(new));
        if old_id != new_id {
            self.push(
                REMOVED_OPERATION,
                label,
                format!("operationId {old_id} became {new_id}"),
            );
        }
        let old_params = parameters(old_item, old);
        let new_params = parameters(new_item, new);
        for ((name, place), old_param) in &old_params {
            let at = format!("{label} {place} parameter {name}");
            let found = new_params
                .iter()
                .find(|((n, p), _)| n == name && p == place)
                .map(|(_, param)| param);
            match found {
                None => self.push(REMOVED_FIELD, &at, "the parameter was removed"),
                Some(new_param) => {
                    if is_true(new_param.get("required")) && !is_true(old_param.get("required")) {
                        self.push(NEW_REQUIRED, &at, "the parameter became required");
                    }
                    if let (Some(o), Some(n)) = (old_param.get("schema"), new_param.get("schema")) {
                        self.schema(&at, o, n);
                    }
                }
            }
        }
        for ((name, place), new_param) in &new_params {
            let existed = old_params.iter().any(|((n, p), _)| n == name && p == place);
            if !existed && is_true(new_param.get("required")) {
                self.push(
                    NEW_REQUIRED,
                    &format!("{label} {place} parameter {name}"),
                    "a new required parameter",
                );
            }
        }

        match (old.get("requestBody"), new.get("requestBody")) {
            (Some(_), None) => self.push(REMOVED_FIELD, label, "the request body was removed"),
            (None, Some(body)) if is_true(body.get("required")) => {
                self.push(NEW_REQUIRED, label, "a new required request body")
            }
            (Some(o), Some(n)) => {
                if is_true(n.get("required")) && !is_true(o.get("required")) {
                    self.push(NEW_REQUIRED, label, "the request body became required");
                }
                self.content(&format!("{label} request"), o, n);
            }
            _ => {}
        }

        let empty = Map::new();
        let old_responses = object(old.get("responses")).unwrap_or(&empty);
        let new_responses = object(new.get("responses")).unwrap_or(&empty);
        for (status, old_response) in old_responses {
            let at = format!("{label} response {status}");
            // `200` -> `2XX` widens: the range still answers with this response.
            let range = status.get(..1).map(|class| format!("{class}XX"));
            let new_response = new_responses
                .get(status)
                .or_else(|| range.and_then(|range| new_responses.get(&range)));
            match new_response {
                None => self.push(CHANGED_TYPE, &at, "the response was removed"),
                Some(new_response) => self.content(&at, old_response, new_response),
            }
        }

        let old_callbacks = object(old.get("callbacks")).unwrap_or(&empty);
        let new_callbacks = object(new.get("callbacks")).unwrap_or(&empty);
        for (name, old_callback) in old_callbacks {
            let within = format!("{label} callback {name}: ");
            match new_callbacks.get(name) {
                None => self.push(
                    REMOVED_OPERATION,
                    label,
                    format!("callback {name} was removed"),
                ),
                Some(new_callback) => self.path_items(&within, old_callback, new_callback),
            }
        }
    }

    /// The media types of a request body or response.
    fn content(&mut self, at: &str, old: &Value, new: &Value) {
        let empty = Map::new();
        let old_content = object(old.get("content")).unwrap_or(&empty);
        let new_content = object(new.get("content")).unwrap_or(&empty);
        for (media, old_media) in old_content {
            let media_at = format!("{at} {media}");
            match new_content.get(media) {
                None => self.push(CHANGED_TYPE, &media_at, "the media type was removed"),
                Some(new_media) => {
                    if let (Some(o), Some(n)) = (old_media.get("schema"), new_media.get("schema")) {
                        self.schema(&media_at, o, n);
                    }
                }
            }
        }
        if old_content.is_empty() && !new_content.is_empty() {
            self.push(CHANGED_TYPE, at, "a body was added where there was none");
        }
    }

    /// One schema; a named schema referenced on both sides is compared once,
    /// under its own name.
    fn schema(&mut self, at: &str, old: &Value, new: &Value) {
        let (old_ref, new_ref) = (reference(old), reference(new));
        if old_ref.is_some() || new_ref.is_some() {
            if old_ref != new_ref {
                self.push(
                    CHANGED_TYPE,
                    at,
                    format!("{} became {}", describe(old), describe(new)),
                );
            } else if is_true(old.get("nullable")) && !is_true(new.get("nullable")) {
                self.push(NARROWED_TYPE, at, "no longer nullable");
            }
            return;
        }
        let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
            if old != new {
                self.push(CHANGED_TYPE, at, format!("{old} became {new}"));
            }
            return;
        };

        for keyword in ["type", "format"] {
            if old.get(keyword) != new.get(keyword) {
                self.push(
                    CHANGED_TYPE,
                    at,
                    format!(
                        "{keyword} {} became {}",
                        text(old.get(keyword)),
                        text(new.get(keyword))
                    ),
                );
            }
        }
        if is_true(old.get("nullable")) && !is_true(new.get("nullable")) {
            self.push(NARROWED_TYPE, at, "no longer nullable");
        }
        if is_true(new.get("uniqueItems")) && !is_true(old.get("uniqueItems")) {
            self.push(NARROWED_TYPE, at, "items must now be unique");
        }
        self.bounds(at, old, new);
        for keyword in ["pattern", "multipleOf", "not"] {
            if let Some(value) = new.get(keyword) {
                if old.get(keyword) != Some(value) {
                    self.push(
                        NARROWED_TYPE,
                        at,
                        format!("{keyword} {} became {value}", text(old.get(keyword))),
                    );
                }
            }
        }
        self.enumeration(at, old, new);

        // Properties and required fields.
        let empty = Map::new();
        let old_props = object(old.get("properties")).unwrap_or(&empty);
        let new_props = object(new.get("properties")).unwrap_or(&empty);
        for (name, old_prop) in old_props {
            let prop_at = format!("{at}.{name}");
            match new_props.get(name) {
                None => self.push(REMOVED_FIELD, &prop_at, "the field was removed"),
                Some(new_prop) => self.schema(&prop_at, old_prop, new_prop),
            }
        }
        let old_required = names(old.get("required"));
        for name in names(new.get("required")).difference(&old_required) {
            let detail = if old_props.contains_key(name) {
                "the field became required"
            } else {
                "a new required field"
            };
            self.push(NEW_REQUIRED, &format!("{at}.{name}"), detail);
        }

        // Nested schemas.
        if let (Some(o), Some(n)) = (old.get("items"), new.get("items")) {
            self.schema(&format!("{at}[]"), o, n);
        }
        match (
            old.get("additionalProperties"),
            new.get("additionalProperties"),
        ) {
            (_, Some(Value::Bool(false)))
                if old.get("additionalProperties") != Some(&Value::Bool(false)) =>
            {
                self.push(NARROWED_TYPE, at, "additionalProperties became false")
            }
            (Some(o), Some(n)) if o.is_object() && n.is_object() => {
                self.schema(&format!("{at}{{*}}"), o, n)
            }
            (Some(Value::Bool(true)) | None, Some(n)) if n.is_object() => {
                self.push(NARROWED_TYPE, at, "additional properties now have a schema")
            }
            _ => {}
        }
        for keyword in ["oneOf", "anyOf", "allOf"] {
            self.variants(at, keyword, old.get(keyword), new.get(keyword));
        }
    }

    fn bounds(&mut self, at: &str, old: &Map<String, Value>, new: &Map<String, Value>) {
        // (keyword, true when a larger value narrows)
        for (keyword, larger_narrows) in [
            ("maxLength", false),
            ("maximum", false),
            ("maxItems", false),
            ("maxProperties", false),
            ("minLength", true),
            ("minimum", true),
            ("minItems", true),
            ("minProperties", true),
        ] {
            let Some(new_value) = new.get(keyword).and_then(number) else {
                continue;
            };
            let narrowed = match old.get(keyword).and_then(number) {
                None => true,
                Some(old_value) if larger_narrows => new_value > old_value,
                Some(old_value) => new_value < old_value,
            };
            if narrowed {
                self.push(
                    NARROWED_TYPE,
                    at,
                    format!("{keyword} {} became {new_value}", text(old.get(keyword))),
                );
            }
        }
        for keyword in ["exclusiveMinimum", "exclusiveMaximum"] {
            if is_true(new.get(keyword)) && !is_true(old.get(keyword)) {
                self.push(NARROWED_TYPE, at, format!("{keyword} was set"));
            }
        }
    }

    fn enumeration(&mut self, at: &str, old: &Map<String, Value>, new: &Map<String, Value>) {
        match (old.get("enum"), new.get("enum")) {
            (Some(Value::Array(old_values)), Some(Value::Array(new_values))) => {
                let removed: Vec<String> = old_values
                    .iter()
                    .filter(|value| !new_values.contains(value))
                    .map(Value::to_string)
                    .collect();
                if !removed.is_empty() {
                    self.push(
                        NARROWED_ENUM,
                        at,
                        format!("values removed: {}", removed.join(", ")),
                    );
                }
            }
            (None, Some(_)) => self.push(NARROWED_ENUM, at, "an enum now restricts the values"),
            _ => {}
        }
    }

    fn variants(&mut self, at: &str, keyword: &str, old: Option<&Value>, new: Option<&Value>) {
        let none = Vec::new();
        let old = old.and_then(Value::as_array).unwrap_or(&none);
        let new = new.and_then(Value::as_array).unwrap_or(&none);
        if old.is_empty() && new.is_empty() {
            return;
        }
        if old.is_empty() || new.is_empty() {
            self.push(CHANGED_TYPE, at, format!("{keyword} was added or removed"));
            return;
        }
        let old_refs: BTreeSet<&str> = old.iter().filter_map(reference).collect();
        let new_refs: BTreeSet<&str> = new.iter().filter_map(reference).collect();
        for name in old_refs.difference(&new_refs) {
            let kind = if keyword == "allOf" {
                CHANGED_TYPE
            } else {
                NARROWED_TYPE
            };
            self.push(kind, at, format!("{keyword} variant {name} was removed"));
        }
        if keyword == "allOf" {
            for name in new_refs.difference(&old_refs) {
                self.push(NARROWED_TYPE, at, format!("allOf part {name} was added"));
            }
        }
        let old_inline: Vec<&Value> = old.iter().filter(|v| reference(v).is_none()).collect();
        let new_inline: Vec<&Value> = new.iter().filter(|v| reference(v).is_none()).collect();
        if old_inline.len() > new_inline.len() && keyword != "allOf" {
            self.push(
                NARROWED_TYPE,
                at,
                format!("an inline {keyword} variant was removed"),
            );
        }
        for (index, (o, n)) in old_inline.iter().zip(&new_inline).enumerate() {
            self.schema(&format!("{at}<{keyword} {index}>"), o, n);
        }
    }
}

/// Parameters of an operation (path-item level ones included), by name and
/// place.
fn parameters<'v>(item: &'v Value, operation: &'v Value) -> Vec<((String, String), &'v Value)> {
    let mut out: Vec<((String, String), &Value)> = Vec::new();
    for source in [item.get("parameters"), operation.get("parameters")] {
        for param in source.and_then(Value::as_array).into_iter().flatten() {
            let name = text(param.get("name"));
            let place = text(param.get("in"));
            out.retain(|((n, p), _)| !(n == &name && p == &place));
            out.push(((name, place), param));
        }
    }
    out
}

fn operation_id(operation: &Value) -> String {
    text(operation.get("operationId"))
}

/// The named schema `schema` refers to, directly or through the one-element
/// `allOf` that OpenAPI 3.0 needs to make a reference nullable.
fn reference(schema: &Value) -> Option<&str> {
    let schema = match schema.get("allOf").and_then(Value::as_array) {
        Some(only) if only.len() == 1 => &only[0],
        _ => schema,
    };
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .map(|r| r.strip_prefix("#/components/schemas/").unwrap_or(r))
}

fn describe(schema: &Value) -> String {
    match reference(schema) {
        Some(name) => format!("a reference to {name}"),
        None => format!(
            "an inline {} schema",
            schema
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("untyped")
        ),
    }
}

fn names(value: Option<&Value>) -> BTreeSet<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

fn is_true(value: Option<&Value>) -> bool {
    value == Some(&Value::Bool(true))
}

fn number(value: &Value) -> Option<f64> {
    value.as_f64()
}

fn text(value: Option<&Value>) -> String {
    match value {
        None => "(none)".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}
