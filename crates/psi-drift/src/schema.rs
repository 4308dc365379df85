//! A document's schemas compiled once into an arena of [`Node`]s: every
//! keyword the checker reads is a field, every `$ref` an index, every
//! pattern compiled, and what the undeclared-member rule needs (the names a
//! composition declares, whether it is open) worked out ahead. Checking an
//! answer then reads fields and looks member names up in hash maps, instead
//! of searching the document's JSON objects key by key.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde_json::{Map, Value};

pub(crate) type Id = usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Type {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
}

impl Type {
    fn parse(text: &str) -> Option<Type> {
        Some(match text {
            "object" => Type::Object,
            "array" => Type::Array,
            "string" => Type::String,
            "integer" => Type::Integer,
            "number" => Type::Number,
            "boolean" => Type::Boolean,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Type::Object => "object",
            Type::Array => "array",
            Type::String => "string",
            Type::Integer => "integer",
            Type::Number => "number",
            Type::Boolean => "boolean",
        }
    }
}

/// What an object takes beside its properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Additional {
    /// Nothing said, or `false`: another member is undeclared.
    Closed,
    /// `true`: any member.
    Open,
    /// A schema every other member's value keeps.
    Schema(Id),
}

/// One schema object of the document.
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// Its JSON pointer in the bundle.
    pub at: String,
    pub ty: Option<Type>,
    pub nullable: bool,
    pub enumeration: Option<Vec<Value>>,
    /// Declared member name → schema; aliases (`x-psi-aliases`) map to the
    /// schema of the member they spell.
    pub properties: HashMap<String, Id>,
    pub required: Vec<String>,
    pub additional: Option<Additional>,
    pub items: Option<Id>,
    pub all_of: Vec<Id>,
    pub one_of: Vec<Id>,
    pub any_of: Vec<Id>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<(String, Option<regex_lite::Regex>)>,
    pub format: Option<String>,
    pub minimum: Option<(f64, bool)>,
    pub maximum: Option<(f64, bool)>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    /// Over the whole composition (the node and its branches, through
    /// references): whether it describes an object, whether any part takes
    /// other members, and every member name it declares.
    pub object_like: bool,
    pub open: bool,
    pub declared: HashSet<String>,
    /// How the streaming check reads a value of this schema.
    pub stream: Stream,
}

/// How [`crate::stream`] checks a value of a schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Stream {
    /// No branches: as the bytes are read.
    #[default]
    Direct,
    /// Only one `allOf` branch and nothing of its own but `nullable` (the
    /// documents' way of making a referenced schema nullable): as that branch.
    Through(Id),
    /// `oneOf`/`anyOf` (a branch is chosen by trying each) or several
    /// `allOf` parts: read into a value, then walked.
    Tree,
}

impl Node {
    /// The schema a member `name`'s value keeps: its property's (or an
    /// alias's), else the `additionalProperties` schema; `None` when
    /// neither says.
    pub fn member(&self, name: &str) -> Option<Id> {
        match (self.properties.get(name), self.additional) {
            (Some(schema), _) => Some(*schema),
            (None, Some(Additional::Schema(schema))) => Some(schema),
            _ => None,
        }
    }

    /// Whether `name` is among the required members.
    pub fn requires(&self, name: &str) -> bool {
        self.required.iter().any(|required| required == name)
    }

    pub fn has_branches(&self) -> bool {
        !(self.all_of.is_empty() && self.one_of.is_empty() && self.any_of.is_empty())
    }

    pub fn branches(&self) -> impl Iterator<Item = Id> + '_ {
        self.all_of
            .iter()
            .chain(&self.one_of)
            .chain(&self.any_of)
            .copied()
    }
}

/// The compiled schemas of one document.
#[derive(Debug, Default)]
pub(crate) struct Schemas {
    pub nodes: Vec<Node>,
    /// Reference targets already compiled, by pointer.
    by_pointer: HashMap<String, Id>,
}

/// How many `$ref`s a chain may follow before it counts as a loop.
const MAX_REFS: usize = 16;

impl Schemas {
    /// Compiles the schema at `at` in `root` (following its references) and
    /// everything it reaches; the same pointer compiles once.
    pub fn compile(&mut self, root: &Value, at: &str) -> Option<Id> {
        let (at, schema) = follow(root, at)?;
        if let Some(id) = self.by_pointer.get(&at) {
            return Some(*id);
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_pointer.insert(at.clone(), id);
        let Some(object) = schema.as_object() else {
            return Some(id);
        };
        let mut node = Node {
            at: at.clone(),
            ty: object
                .get("type")
                .and_then(Value::as_str)
                .and_then(Type::parse),
            nullable: object.get("nullable").and_then(Value::as_bool) == Some(true),
            enumeration: object.get("enum").and_then(Value::as_array).cloned(),
            required: strings(object.get("required")),
            min_length: object.get("minLength").and_then(Value::as_u64),
            max_length: object.get("maxLength").and_then(Value::as_u64),
            pattern: object
                .get("pattern")
                .and_then(Value::as_str)
                .map(|p| (p.to_owned(), regex_lite::Regex::new(p).ok())),
            format: object
                .get("format")
                .and_then(Value::as_str)
                .map(str::to_owned),
            minimum: bound(object, "minimum", "exclusiveMinimum"),
            maximum: bound(object, "maximum", "exclusiveMaximum"),
            min_items: object.get("minItems").and_then(Value::as_u64),
            max_items: object.get("maxItems").and_then(Value::as_u64),
            ..Node::default()
        };
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                let Some(child) = self.compile(root, &format!("{at}/properties/{}", escape(name)))
                else {
                    continue;
                };
                node.properties.insert(name.clone(), child);
                for alias in strings(property.get("x-psi-aliases")) {
                    node.properties.entry(alias).or_insert(child);
                }
            }
        }
        node.additional = match object.get("additionalProperties") {
            None | Some(Value::Bool(false)) => Some(Additional::Closed),
            Some(Value::Object(_)) => self
                .compile(root, &format!("{at}/additionalProperties"))
                .map(Additional::Schema),
            Some(_) => Some(Additional::Open),
        };
        if object.contains_key("items") {
            node.items = self.compile(root, &format!("{at}/items"));
        }
        for (keyword, list) in [("allOf", 0), ("oneOf", 1), ("anyOf", 2)] {
            let count = object
                .get(keyword)
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            let ids: Vec<Id> = (0..count)
                .filter_map(|index| self.compile(root, &format!("{at}/{keyword}/{index}")))
                .collect();
            match list {
                0 => node.all_of = ids,
                1 => node.one_of = ids,
                _ => node.any_of = ids,
            }
        }
        self.nodes[id] = node;
        Some(id)
    }

    /// Works out each node's composition facts; call once all are compiled.
    pub fn finish(&mut self) {
        for id in 0..self.nodes.len() {
            let mut seen = HashSet::default();
            let mut facts = (false, false, HashSet::default());
            self.gather(id, &mut seen, &mut facts);
            let node = &mut self.nodes[id];
            (node.object_like, node.open, node.declared) = facts;
            node.stream = if !node.has_branches() {
                Stream::Direct
            } else if let ([only], true, true) = (
                node.all_of.as_slice(),
                node.one_of.is_empty(),
                node.any_of.is_empty(),
            ) {
                let own = node.ty.is_some()
                    || node.enumeration.is_some()
                    || !node.properties.is_empty()
                    || !node.required.is_empty()
                    || node.items.is_some()
                    || matches!(
                        node.additional,
                        Some(Additional::Open | Additional::Schema(_))
                    )
                    || node.min_length.is_some()
                    || node.max_length.is_some()
                    || node.pattern.is_some()
                    || node.format.is_some()
                    || node.minimum.is_some()
                    || node.maximum.is_some()
                    || node.min_items.is_some()
                    || node.max_items.is_some();
                if own {
                    Stream::Tree
                } else {
                    Stream::Through(*only)
                }
            } else {
                Stream::Tree
            };
        }
    }

    fn gather(&self, id: Id, seen: &mut HashSet<Id>, facts: &mut (bool, bool, HashSet<String>)) {
        if !seen.insert(id) {
            return;
        }
        let node = &self.nodes[id];
        facts.0 |= node.ty == Some(Type::Object) || !node.properties.is_empty();
        facts.1 |= !matches!(node.additional, None | Some(Additional::Closed));
        facts.2.extend(node.properties.keys().cloned());
        for branch in node.branches() {
            self.gather(branch, seen, facts);
        }
    }
}

impl Schemas {
    /// The schema that checks a value of `id`: through single-branch
    /// wrappers ([`Stream::Through`]).
    pub fn through(&self, mut id: Id) -> Id {
        for _ in 0..MAX_REFS {
            match self.nodes[id].stream {
                Stream::Through(branch) => id = branch,
                _ => break,
            }
        }
        id
    }
}

/// The schema at `at`, through its `$ref`s: its pointer and its value.
fn follow<'a>(root: &'a Value, at: &str) -> Option<(String, &'a Value)> {
    let mut at = at.to_owned();
    let mut schema = root.pointer(&at)?;
    for _ in 0..MAX_REFS {
        let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
            return Some((at, schema));
        };
        let pointer = reference.strip_prefix('#')?;
        schema = root.pointer(pointer)?;
        at = pointer.to_owned();
    }
    None
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn bound(object: &Map<String, Value>, key: &str, exclusive: &str) -> Option<(f64, bool)> {
    let limit = object.get(key).and_then(Value::as_f64)?;
    Some((
        limit,
        object.get(exclusive).and_then(Value::as_bool) == Some(true),
    ))
}

pub(crate) fn escape(text: &str) -> String {
    text.replace('~', "~0").replace('/', "~1")
}
