//! One JSON value against one schema of a bundled OpenAPI 3.0 document:
//! every difference as a [`Raw`] finding. A member no schema declares is a
//! finding without the document saying `additionalProperties: false`; a
//! member declared in any branch of an `allOf`, `oneOf` or `anyOf` is none.
//! `null` for an optional member, or where the schema is `nullable`, is no
//! finding (the interface's rule for absence).

use crate::finding::Kind;
use crate::redact::example;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// One difference, before aggregation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Raw {
    pub kind: Kind,
    /// The value's pointer, array indices as `*`.
    pub pointer: String,
    /// The schema's pointer in the bundle.
    pub schema: String,
    pub expected: String,
    pub example: Option<String>,
}

/// Deeper than this, a value is not followed (a schema that refers to
/// itself, a hostile body).
const MAX_DEPTH: usize = 64;

pub(crate) struct Walk<'a> {
    root: &'a Value,
    patterns: &'a HashMap<String, regex_lite::Regex>,
    pub found: Vec<Raw>,
    pointer: String,
}

impl<'a> Walk<'a> {
    pub fn new(root: &'a Value, patterns: &'a HashMap<String, regex_lite::Regex>) -> Self {
        Self {
            root,
            patterns,
            found: Vec::new(),
            pointer: String::new(),
        }
    }

    /// Checks `value` against the schema at `schema_at` (a pointer into the
    /// document), as a whole body.
    pub fn body(&mut self, schema: &'a Value, schema_at: &str, value: &Value) {
        self.value(schema, schema_at, value, false, None, 0);
    }

    fn push(&mut self, kind: Kind, schema_at: &str, expected: String, example: Option<String>) {
        self.found.push(Raw {
            kind,
            pointer: self.pointer.clone(),
            schema: schema_at.to_owned(),
            expected,
            example,
        });
    }

    /// `optional`: the value is an optional member (its `null` is absence).
    /// `member`: the member's name, for redacting the example.
    fn value(
        &mut self,
        schema: &'a Value,
        schema_at: &str,
        value: &Value,
        optional: bool,
        member: Option<&str>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let (schema, schema_at) = self.resolve(schema, schema_at.to_owned());
        let Some(object) = schema.as_object() else {
            return;
        };
        if value.is_null() {
            let nullable = object.get("nullable").and_then(Value::as_bool) == Some(true);
            if !(optional || nullable || type_of(object).is_none() && !has_branches(object)) {
                let expected =
                    type_of(object).map_or("a value".to_owned(), |t| format!("type {t}"));
                self.push(Kind::Type, &schema_at, expected, Some("null".to_owned()));
            }
            return;
        }
        self.composed(object, &schema_at, value, member, depth);
        if let Value::Object(members) = value {
            self.undeclared(schema, &schema_at, members);
        }
    }

    /// A branch of a composition: everything but the undeclared members,
    /// which the composing schema finds over every branch together.
    fn shape(
        &mut self,
        schema: &'a Value,
        schema_at: &str,
        value: &Value,
        member: Option<&str>,
        depth: usize,
    ) {
        let (schema, schema_at) = self.resolve(schema, schema_at.to_owned());
        if let Some(object) = schema.as_object() {
            self.composed(object, &schema_at, value, member, depth);
        }
    }

    /// The schema's branches and its own keywords: every `allOf` branch
    /// applies; of a `oneOf`/`anyOf`, the branch nearest the value stands.
    fn composed(
        &mut self,
        object: &'a Map<String, Value>,
        schema_at: &str,
        value: &Value,
        member: Option<&str>,
        depth: usize,
    ) {
        if let Some(Value::Array(branches)) = object.get("allOf") {
            for (index, branch) in branches.iter().enumerate() {
                let at = format!("{schema_at}/allOf/{index}");
                self.shape(branch, &at, value, member, depth);
            }
        }
        for keyword in ["oneOf", "anyOf"] {
            let Some(Value::Array(branches)) = object.get(keyword) else {
                continue;
            };
            let mut best: Option<(usize, Vec<Raw>)> = None;
            for (index, branch) in branches.iter().enumerate() {
                let mut trial = Walk {
                    root: self.root,
                    patterns: self.patterns,
                    found: Vec::new(),
                    pointer: self.pointer.clone(),
                };
                let at = format!("{schema_at}/{keyword}/{index}");
                trial.shape(branch, &at, value, member, depth);
                let score = score(&trial.found, &self.pointer);
                if best.as_ref().is_none_or(|(known, _)| score < *known) {
                    best = Some((score, trial.found));
                }
                if score == 0 {
                    break;
                }
            }
            self.found
                .extend(best.map(|(_, found)| found).unwrap_or_default());
        }
        self.own(object, schema_at, value, member, depth);
    }

    /// The schema's own keywords (not its branches).
    fn own(
        &mut self,
        object: &'a Map<String, Value>,
        schema_at: &str,
        value: &Value,
        member: Option<&str>,
        depth: usize,
    ) {
        if let Some(expected) = type_of(object) {
            if !is_type(value, expected) {
                self.push(
                    Kind::Type,
                    schema_at,
                    format!("type {expected}"),
                    Some(example(value, member)),
                );
                return;
            }
        }
        if let Some(Value::Array(allowed)) = object.get("enum") {
            if !allowed.iter().any(|known| same(known, value)) {
                let listed: Vec<String> = allowed.iter().map(|v| v.to_string()).collect();
                self.push(
                    Kind::EnumValue,
                    schema_at,
                    format!("one of [{}]", listed.join(", ")),
                    Some(example(value, member)),
                );
            }
        }
        match value {
            Value::String(text) => self.string(object, schema_at, text, member),
            Value::Number(number) => {
                if let Some(number) = number.as_f64() {
                    self.bounds(object, schema_at, number, value, member);
                }
            }
            Value::Array(items) => {
                let length = items.len() as u64;
                if let Some(min) = object.get("minItems").and_then(Value::as_u64) {
                    if length < min {
                        self.push(
                            Kind::Format,
                            schema_at,
                            format!("at least {min} items"),
                            Some(format!("{length} items")),
                        );
                    }
                }
                if let Some(max) = object.get("maxItems").and_then(Value::as_u64) {
                    if length > max {
                        self.push(
                            Kind::Format,
                            schema_at,
                            format!("at most {max} items"),
                            Some(format!("{length} items")),
                        );
                    }
                }
                if let Some(items_schema) = object.get("items") {
                    let at = format!("{schema_at}/items");
                    let kept = self.pointer.len();
                    self.pointer.push_str("/*");
                    for item in items {
                        self.value(items_schema, &at, item, false, member, depth + 1);
                    }
                    self.pointer.truncate(kept);
                    dedup(&mut self.found);
                }
            }
            Value::Object(members) => self.members(object, schema_at, members, depth),
            _ => {}
        }
    }

    fn members(
        &mut self,
        object: &'a Map<String, Value>,
        schema_at: &str,
        members: &Map<String, Value>,
        depth: usize,
    ) {
        let properties = object.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for name in &required {
            if !members.contains_key(*name) {
                let kept = self.pointer.len();
                push_token(&mut self.pointer, name);
                self.push(
                    Kind::MissingRequired,
                    &format!("{schema_at}/required"),
                    format!("`{name}` is required"),
                    None,
                );
                self.pointer.truncate(kept);
            }
        }
        for (name, member) in members {
            let declared = properties.and_then(|p| p.get(name).or_else(|| aliased(p, name)));
            let kept = self.pointer.len();
            push_token(&mut self.pointer, name);
            match (declared, object.get("additionalProperties")) {
                (Some(schema), _) => {
                    let at = format!("{schema_at}/properties/{}", escape(name));
                    self.value(
                        schema,
                        &at,
                        member,
                        !required.contains(&name.as_str()),
                        Some(name),
                        depth + 1,
                    );
                }
                (None, Some(extra @ Value::Object(_))) => {
                    let at = format!("{schema_at}/additionalProperties");
                    self.value(extra, &at, member, true, Some(name), depth + 1);
                }
                _ => {}
            }
            self.pointer.truncate(kept);
        }
    }

    /// Members no schema of the composition declares.
    fn undeclared(&mut self, schema: &'a Value, schema_at: &str, members: &Map<String, Value>) {
        let mut declared = Vec::new();
        if !self.object_like(schema, 0) || !self.declared(schema, &mut declared, 0) {
            return;
        }
        for (name, member) in members {
            if !declared.iter().any(|known| known == name) {
                let kept = self.pointer.len();
                push_token(&mut self.pointer, name);
                self.push(
                    Kind::UndeclaredMember,
                    schema_at,
                    "no such member".to_owned(),
                    Some(example(member, Some(name))),
                );
                self.pointer.truncate(kept);
            }
        }
    }

    /// Whether the schema (or a branch of it) describes an object: a schema
    /// of another type, or one that says nothing, has no members to declare.
    fn object_like(&self, schema: &'a Value, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let (schema, _) = self.resolve(schema, String::new());
        let Some(object) = schema.as_object() else {
            return false;
        };
        if type_of(object) == Some("object") || object.contains_key("properties") {
            return true;
        }
        ["allOf", "oneOf", "anyOf"].iter().any(|keyword| {
            object
                .get(*keyword)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(|b| self.object_like(b, depth + 1)))
        })
    }

    /// Collects the member names the schema and its branches declare;
    /// `false` when any part allows other members (`additionalProperties`
    /// other than `false`), so none is undeclared.
    fn declared(&self, schema: &'a Value, names: &mut Vec<&'a str>, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let (schema, _) = self.resolve(schema, String::new());
        let Some(object) = schema.as_object() else {
            return false;
        };
        match object.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => return false,
        }
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            names.extend(properties.keys().map(String::as_str));
            // `x-psi-aliases`: the other spelling of a member the provider publishes
            for property in properties.values() {
                if let Some(Value::Array(aliases)) = property.get(ALIASES) {
                    names.extend(aliases.iter().filter_map(Value::as_str));
                }
            }
        }
        for keyword in ["allOf", "oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = object.get(keyword) {
                for branch in branches {
                    if !self.declared(branch, names, depth + 1) {
                        return false;
                    }
                }
            }
        }
        true
    }

    fn string(
        &mut self,
        object: &'a Map<String, Value>,
        schema_at: &str,
        text: &str,
        member: Option<&str>,
    ) {
        let length = text.chars().count() as u64;
        if let Some(min) = object.get("minLength").and_then(Value::as_u64) {
            if length < min {
                self.push(
                    Kind::Format,
                    schema_at,
                    format!("at least {min} characters"),
                    Some(example(&Value::String(text.to_owned()), member)),
                );
            }
        }
        if let Some(max) = object.get("maxLength").and_then(Value::as_u64) {
            if length > max {
                self.push(
                    Kind::Format,
                    schema_at,
                    format!("at most {max} characters"),
                    Some(example(&Value::String(text.to_owned()), member)),
                );
            }
        }
        if let Some(Value::String(pattern)) = object.get("pattern") {
            if let Some(regex) = self.patterns.get(pattern) {
                if !regex.is_match(text) {
                    self.push(
                        Kind::Format,
                        schema_at,
                        format!("pattern {pattern}"),
                        Some(example(&Value::String(text.to_owned()), member)),
                    );
                }
            }
        }
        if let Some(Value::String(format)) = object.get("format") {
            if !format_holds(format, text) {
                self.push(
                    Kind::Format,
                    schema_at,
                    format!("format {format}"),
                    Some(example(&Value::String(text.to_owned()), member)),
                );
            }
        }
    }

    fn bounds(
        &mut self,
        object: &'a Map<String, Value>,
        schema_at: &str,
        number: f64,
        value: &Value,
        member: Option<&str>,
    ) {
        let exclusive = |key: &str| object.get(key).and_then(Value::as_bool) == Some(true);
        if let Some(min) = object.get("minimum").and_then(Value::as_f64) {
            if number < min || (exclusive("exclusiveMinimum") && number == min) {
                let word = if exclusive("exclusiveMinimum") {
                    "more than"
                } else {
                    "at least"
                };
                self.push(
                    Kind::Format,
                    schema_at,
                    format!("{word} {min}"),
                    Some(example(value, member)),
                );
            }
        }
        if let Some(max) = object.get("maximum").and_then(Value::as_f64) {
            if number > max || (exclusive("exclusiveMaximum") && number == max) {
                let word = if exclusive("exclusiveMaximum") {
                    "less than"
                } else {
                    "at most"
                };
                self.push(
                    Kind::Format,
                    schema_at,
                    format!("{word} {max}"),
                    Some(example(value, member)),
                );
            }
        }
    }

    /// Follows `$ref`s within the document (a chain of at most 16).
    fn resolve(&self, mut schema: &'a Value, mut at: String) -> (&'a Value, String) {
        for _ in 0..16 {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(pointer) = reference.strip_prefix('#') else {
                break;
            };
            match self.root.pointer(pointer) {
                Some(target) => {
                    schema = target;
                    at = pointer.to_owned();
                }
                None => break,
            }
        }
        (schema, at)
    }
}

/// The extension naming a member's other published spellings.
const ALIASES: &str = "x-psi-aliases";

/// The property `name` is an alias of.
fn aliased<'a>(properties: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    properties.values().find(|property| {
        property
            .get(ALIASES)
            .and_then(Value::as_array)
            .is_some_and(|aliases| aliases.iter().any(|alias| alias.as_str() == Some(name)))
    })
}

/// How far a branch of a `oneOf`/`anyOf` is from the value: a value of
/// another type than the branch's counts more than any number of findings
/// inside a branch of the right type.
fn score(found: &[Raw], pointer: &str) -> usize {
    found
        .iter()
        .map(|raw| {
            if raw.kind == Kind::Type && raw.pointer == pointer {
                1000
            } else {
                1
            }
        })
        .sum()
}

fn has_branches(object: &Map<String, Value>) -> bool {
    ["allOf", "oneOf", "anyOf"]
        .iter()
        .any(|k| object.contains_key(*k))
}

fn type_of(object: &Map<String, Value>) -> Option<&str> {
    object.get("type").and_then(Value::as_str)
}

fn is_type(value: &Value, expected: &str) -> bool {
    match expected {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "number" => value.is_number(),
        "integer" => match value {
            Value::Number(number) => {
                number.is_i64()
                    || number.is_u64()
                    || number.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        _ => true,
    }
}

/// Equal as JSON values, numbers by value (`1` and `1.0`).
fn same(known: &Value, value: &Value) -> bool {
    match (known, value) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => known == value,
    }
}

fn format_holds(format: &str, text: &str) -> bool {
    match format {
        "date" => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok() && text.len() == 10,
        "date-time" => chrono::DateTime::parse_from_rfc3339(text).is_ok(),
        "uuid" => {
            let groups: Vec<&str> = text.split('-').collect();
            groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
                && groups
                    .iter()
                    .all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
        }
        "email" => text
            .split_once('@')
            .is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.')),
        "uri" | "url" => text.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }),
        // `decimal`, `int32`, `password`, `byte`, ...: annotations here
        _ => true,
    }
}

fn push_token(pointer: &mut String, name: &str) {
    pointer.push('/');
    if name.contains(['~', '/']) {
        pointer.push_str(&escape(name));
    } else {
        pointer.push_str(name);
    }
}

fn escape(text: &str) -> String {
    text.replace('~', "~0").replace('/', "~1")
}

/// Items of one array give the same finding many times: keep one per
/// (kind, pointer, schema, example).
fn dedup(found: &mut Vec<Raw>) {
    let mut seen = std::collections::HashSet::new();
    found.retain(|raw| {
        seen.insert((
            raw.kind,
            raw.pointer.clone(),
            raw.schema.clone(),
            raw.example.clone(),
        ))
    });
}
