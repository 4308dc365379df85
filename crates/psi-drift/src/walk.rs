//! One JSON value against one compiled schema ([`crate::schema`]): every
//! difference as a [`Raw`] finding. A member no schema declares is a
//! finding without the document saying `additionalProperties: false`; a
//! member declared in any branch of an `allOf`, `oneOf` or `anyOf` is none.
//! `null` for an optional member, or where the schema is `nullable`, is no
//! finding (the interface's rule for absence). A clean value allocates
//! nothing but the pointer it walks.

use crate::finding::Kind;
use crate::redact::example;
use crate::schema::{escape, Id, Node, Schemas, Type};
use serde_json::{Map, Value};

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
pub(crate) const MAX_DEPTH: usize = 64;

pub(crate) struct Walk<'a> {
    pub schemas: &'a Schemas,
    pub found: Vec<Raw>,
    pub pointer: String,
}

impl<'a> Walk<'a> {
    pub fn new(schemas: &'a Schemas) -> Self {
        Self {
            schemas,
            found: Vec::new(),
            pointer: String::new(),
        }
    }

    /// Checks `value`, a whole body, against schema `id` (the streaming
    /// check's reference in tests).
    #[cfg(test)]
    pub fn body(&mut self, id: Id, value: &Value) {
        self.value(id, value, false, None, 0);
    }

    fn node(&self, id: Id) -> &'a Node {
        &self.schemas.nodes[id]
    }

    fn push(&mut self, kind: Kind, node: &Node, expected: String, example: Option<String>) {
        self.found.push(Raw {
            kind,
            pointer: self.pointer.clone(),
            schema: node.at.clone(),
            expected,
            example,
        });
    }

    /// `optional`: the value is an optional member (its `null` is absence).
    /// `member`: the member's name, for redacting the example.
    pub(crate) fn value(
        &mut self,
        id: Id,
        value: &Value,
        optional: bool,
        member: Option<&str>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let node = self.node(id);
        if value.is_null() {
            self.null(node, optional);
            return;
        }
        self.composed(id, value, member, depth);
        if let Value::Object(members) = value {
            // An undeclared member names the schema to declare it in: the
            // one a single-branch wrapper (`allOf: [$ref]`, `nullable`) wraps.
            let node = self.node(self.schemas.through(id));
            for (name, member) in members {
                self.declared(node, name, || member.clone());
            }
        }
    }

    /// `null` where the schema takes none (an optional member's `null` is
    /// its absence).
    pub(crate) fn null(&mut self, node: &Node, optional: bool) {
        let unconstrained = node.ty.is_none() && !node.has_branches();
        if !(optional || node.nullable || unconstrained) {
            let expected = node
                .ty
                .map_or("a value".to_owned(), |t| format!("type {}", t.name()));
            self.push(Kind::Type, node, expected, Some("null".to_owned()));
        }
    }

    /// A member `name` of an object of `node`: a finding when no schema of
    /// its composition declares it (`value` gives its value for the example).
    pub(crate) fn declared(
        &mut self,
        node: &Node,
        name: &str,
        value: impl FnOnce() -> Value,
    ) -> bool {
        if !node.object_like || node.open || node.declared.contains(name) {
            return true;
        }
        let kept = self.pointer.len();
        push_token(&mut self.pointer, name);
        let shown = example(&value(), Some(name));
        self.push(
            Kind::UndeclaredMember,
            node,
            "no such member".to_owned(),
            Some(shown),
        );
        self.pointer.truncate(kept);
        false
    }

    /// A required member `name` the object lacks.
    pub(crate) fn missing(&mut self, node: &Node, name: &str) {
        let kept = self.pointer.len();
        push_token(&mut self.pointer, name);
        self.push(
            Kind::MissingRequired,
            node,
            format!("`{name}` is required"),
            None,
        );
        self.pointer.truncate(kept);
    }

    /// The schema's branches and its own keywords: every `allOf` branch
    /// applies; of a `oneOf`/`anyOf`, the branch nearest the value stands.
    /// Undeclared members are left to the composing schema, which knows
    /// every branch's names.
    fn composed(&mut self, id: Id, value: &Value, member: Option<&str>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let node = self.node(id);
        for branch in &node.all_of {
            self.composed(*branch, value, member, depth + 1);
        }
        for branches in [&node.one_of, &node.any_of] {
            if branches.is_empty() {
                continue;
            }
            let mut best: Option<(usize, Vec<Raw>)> = None;
            for branch in branches {
                let mut trial = Walk {
                    schemas: self.schemas,
                    found: Vec::new(),
                    pointer: self.pointer.clone(),
                };
                trial.composed(*branch, value, member, depth + 1);
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
        self.own(node, value, member, depth);
    }

    /// The schema's own keywords (not its branches).
    fn own(&mut self, node: &'a Node, value: &Value, member: Option<&str>, depth: usize) {
        match value {
            Value::Array(items) => {
                if self.typed(node, Type::Array, || example(value, member)) {
                    self.items(node, items, member, depth);
                }
            }
            Value::Object(members) => {
                if self.typed(node, Type::Object, || example(value, member)) {
                    self.members(node, members, depth);
                }
            }
            Value::Null => {}
            Value::Bool(flag) => self.scalar(node, &Scalar::Bool(*flag), member),
            Value::Number(number) => self.scalar(node, &Scalar::Number(number.clone()), member),
            Value::String(text) => self.scalar(node, &Scalar::String(text), member),
        }
    }

    /// Whether a container of type `got` is what `node` takes; a finding
    /// when not.
    pub(crate) fn typed(&mut self, node: &Node, got: Type, shown: impl FnOnce() -> String) -> bool {
        match node.ty {
            Some(expected) if expected != got => {
                self.push(
                    Kind::Type,
                    node,
                    format!("type {}", expected.name()),
                    Some(shown()),
                );
                false
            }
            _ => true,
        }
    }

    /// A value that is no container: its type, enum, format, pattern,
    /// length and bounds.
    pub(crate) fn scalar(&mut self, node: &'a Node, scalar: &Scalar<'_>, member: Option<&str>) {
        if let Some(expected) = node.ty {
            if !scalar.is(expected) {
                let shown = example(&scalar.value(), member);
                self.push(
                    Kind::Type,
                    node,
                    format!("type {}", expected.name()),
                    Some(shown),
                );
                return;
            }
        }
        if let Some(allowed) = &node.enumeration {
            if !allowed.iter().any(|known| scalar.is_value(known)) {
                let listed: Vec<String> = allowed.iter().map(Value::to_string).collect();
                let expected = format!("one of [{}]", listed.join(", "));
                self.push(
                    Kind::EnumValue,
                    node,
                    expected,
                    Some(example(&scalar.value(), member)),
                );
            }
        }
        match scalar {
            Scalar::String(text) => self.string(node, text, scalar, member),
            Scalar::Number(number) => {
                if let Some(number) = number.as_f64() {
                    self.bounds(node, number, scalar, member);
                }
            }
            Scalar::Bool(_) => {}
        }
    }

    fn items(&mut self, node: &'a Node, items: &[Value], member: Option<&str>, depth: usize) {
        self.item_count(node, items.len());
        let Some(schema) = node.items else {
            return;
        };
        let kept = self.pointer.len();
        let before = self.found.len();
        self.pointer.push_str("/*");
        for item in items {
            self.value(schema, item, false, member, depth + 1);
        }
        self.pointer.truncate(kept);
        self.dedup_from(before);
    }

    /// An array's length against `minItems` and `maxItems`.
    pub(crate) fn item_count(&mut self, node: &Node, length: usize) {
        let length = length as u64;
        if let Some(min) = node.min_items.filter(|min| length < *min) {
            self.push(
                Kind::Format,
                node,
                format!("at least {min} items"),
                Some(format!("{length} items")),
            );
        }
        if let Some(max) = node.max_items.filter(|max| length > *max) {
            self.push(
                Kind::Format,
                node,
                format!("at most {max} items"),
                Some(format!("{length} items")),
            );
        }
    }

    /// Items of one array give the same finding many times: from `from`
    /// on, keep one per (kind, pointer, schema, example).
    pub(crate) fn dedup_from(&mut self, from: usize) {
        if self.found.len() > from + 1 {
            dedup(&mut self.found, from);
        }
    }

    fn members(&mut self, node: &'a Node, members: &Map<String, Value>, depth: usize) {
        for name in &node.required {
            if !members.contains_key(name) {
                self.missing(node, name);
            }
        }
        for (name, member) in members {
            let Some(schema) = node.member(name) else {
                continue;
            };
            let optional = !node.requires(name);
            let kept = self.pointer.len();
            push_token(&mut self.pointer, name);
            self.value(schema, member, optional, Some(name), depth + 1);
            self.pointer.truncate(kept);
        }
    }

    fn string(&mut self, node: &'a Node, text: &str, scalar: &Scalar<'_>, member: Option<&str>) {
        if node.min_length.is_some() || node.max_length.is_some() {
            let length = text.chars().count() as u64;
            if let Some(min) = node.min_length.filter(|min| length < *min) {
                self.push(
                    Kind::Format,
                    node,
                    format!("at least {min} characters"),
                    Some(example(&scalar.value(), member)),
                );
            }
            if let Some(max) = node.max_length.filter(|max| length > *max) {
                self.push(
                    Kind::Format,
                    node,
                    format!("at most {max} characters"),
                    Some(example(&scalar.value(), member)),
                );
            }
        }
        if let Some((pattern, Some(regex))) = &node.pattern {
            if !regex.is_match(text) {
                self.push(
                    Kind::Format,
                    node,
                    format!("pattern {pattern}"),
                    Some(example(&scalar.value(), member)),
                );
            }
        }
        if let Some(format) = &node.format {
            if !format_holds(format, text) {
                self.push(
                    Kind::Format,
                    node,
                    format!("format {format}"),
                    Some(example(&scalar.value(), member)),
                );
            }
        }
    }

    fn bounds(&mut self, node: &'a Node, number: f64, scalar: &Scalar<'_>, member: Option<&str>) {
        if let Some((min, exclusive)) = node.minimum {
            if number < min || (exclusive && number == min) {
                let word = if exclusive { "more than" } else { "at least" };
                self.push(
                    Kind::Format,
                    node,
                    format!("{word} {min}"),
                    Some(example(&scalar.value(), member)),
                );
            }
        }
        if let Some((max, exclusive)) = node.maximum {
            if number > max || (exclusive && number == max) {
                let word = if exclusive { "less than" } else { "at most" };
                self.push(
                    Kind::Format,
                    node,
                    format!("{word} {max}"),
                    Some(example(&scalar.value(), member)),
                );
            }
        }
    }
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

/// A value that is no container, as the walk and the streaming check see it.
pub(crate) enum Scalar<'v> {
    Bool(bool),
    Number(serde_json::Number),
    String(&'v str),
}

impl Scalar<'_> {
    fn is(&self, expected: Type) -> bool {
        match (self, expected) {
            (Scalar::String(_), Type::String) | (Scalar::Bool(_), Type::Boolean) => true,
            (Scalar::Number(_), Type::Number) => true,
            (Scalar::Number(number), Type::Integer) => {
                number.is_i64()
                    || number.is_u64()
                    || number.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        }
    }

    /// Equal to `known`, numbers by value (`1` and `1.0`).
    fn is_value(&self, known: &Value) -> bool {
        match (self, known) {
            (Scalar::String(text), Value::String(known)) => text == known,
            (Scalar::Bool(flag), Value::Bool(known)) => flag == known,
            (Scalar::Number(number), Value::Number(known)) => number.as_f64() == known.as_f64(),
            _ => false,
        }
    }

    /// As a JSON value, for an example.
    pub(crate) fn value(&self) -> Value {
        match self {
            Scalar::Bool(flag) => Value::Bool(*flag),
            Scalar::Number(number) => Value::Number(number.clone()),
            Scalar::String(text) => Value::String((*text).to_owned()),
        }
    }
}

fn format_holds(format: &str, text: &str) -> bool {
    match format {
        "date" => text.len() == 10 && chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok(),
        "date-time" => chrono::DateTime::parse_from_rfc3339(text).is_ok(),
        "uuid" => {
            let mut groups = text.split('-');
            [8, 4, 4, 4, 12].iter().all(|length| {
                groups
                    .next()
                    .is_some_and(|g| g.len() == *length && g.bytes().all(|b| b.is_ascii_hexdigit()))
            }) && groups.next().is_none()
        }
        "email" => text
            .split_once('@')
            .is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.')),
        "uri" | "url" => text.split_once(':').is_some_and(|(scheme, _)| {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }),
        // `decimal`, `int32`, `password`, `byte`, ...: annotations here
        _ => true,
    }
}

pub(crate) fn push_token(pointer: &mut String, name: &str) {
    pointer.push('/');
    if name.contains(['~', '/']) {
        pointer.push_str(&escape(name));
    } else {
        pointer.push_str(name);
    }
}

/// Items of one array give the same finding many times: from `from` on,
/// keep one per (kind, pointer, schema, example).
fn dedup(found: &mut Vec<Raw>, from: usize) {
    let mut seen = std::collections::HashSet::new();
    let mut index = 0;
    found.retain(|raw| {
        index += 1;
        index <= from
            || seen.insert((
                raw.kind,
                raw.pointer.clone(),
                raw.schema.clone(),
                raw.example.clone(),
            ))
    });
}
