//! The bundled documents read once into what checking needs: per operation
//! its method, path template, server, request body and documented answers.

use crate::documents::{Bundled, DOCUMENTS, SHARED_SCHEMAS};
use crate::schema::{Id, Schemas};
use rustc_hash::FxHashMap as HashMap;
use serde_json::Value;
use std::sync::OnceLock;

/// Every bundled document, parsed.
pub struct Documents {
    pub(crate) apis: Vec<Api>,
    /// Operations by operationId: (API index, operation index).
    by_id: HashMap<String, (usize, usize)>,
    /// The invoice notification's payload schema: (API index, schema).
    pub(crate) invoice: Option<(usize, Id)>,
}

/// One API's document.
pub struct Api {
    /// `pay-later`.
    pub name: &'static str,
    /// The server variable its address is (`api_url`, `base_url`,
    /// `auth_url`, `platform_url`, `shop_config_url`).
    pub server: String,
    pub root: Value,
    pub operations: Vec<Operation>,
    pub(crate) schemas: Schemas,
}

/// One operation, or one notification the service sends.
pub struct Operation {
    pub operation_id: String,
    /// Upper case (`GET`); `POST` for a notification.
    pub method: String,
    /// The base path and the document's path, split at `/`.
    segments: Vec<Segment>,
    /// The operation's JSON pointer in its document.
    pub at: String,
    pub notification: bool,
    /// The documented answers by their key (`200`, `2XX`, `default`).
    pub(crate) responses: Vec<(Status, Content)>,
    pub(crate) request: Option<Content>,
}

/// A response key of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Status {
    Exact(u16),
    /// `2XX`: the hundreds digit.
    Range(u16),
    Default,
    /// A key that is none of these, kept to be listed.
    Other(String),
}

impl Status {
    fn parse(key: &str) -> Status {
        if key == "default" {
            return Status::Default;
        }
        if let Ok(code) = key.parse() {
            return Status::Exact(code);
        }
        match key.as_bytes() {
            [digit @ b'1'..=b'5', b'X' | b'x', b'X' | b'x'] => {
                Status::Range(u16::from(digit - b'0'))
            }
            _ => Status::Other(key.to_owned()),
        }
    }

    /// As the document writes it.
    pub fn key(&self) -> String {
        match self {
            Status::Exact(code) => code.to_string(),
            Status::Range(hundreds) => format!("{hundreds}XX"),
            Status::Default => "default".to_owned(),
            Status::Other(key) => key.clone(),
        }
    }
}

/// A request body or an answer as the document describes it.
#[derive(Debug, Default)]
pub(crate) struct Content {
    /// The pointer of the request body or response object.
    pub at: String,
    /// Each documented media type: its key, its essence (`application/json`)
    /// and its compiled schema.
    pub media: Vec<(String, String, Option<Id>)>,
}

enum Segment {
    Literal(String),
    Parameter,
}

/// An operation found for a method and a path.
#[derive(Debug, Clone, Copy)]
pub struct Route<'a> {
    pub api: &'a str,
    pub operation_id: &'a str,
    /// The server variable of its document (`api_url`).
    pub server: &'a str,
}

/// The operationId psi gives the invoice notification: no document declares
/// it as an operation (its payload is `InvoiceNotification` of
/// `openapi/order-status.yaml`).
pub const INVOICE_NOTIFICATION: &str = "receiveInvoiceNotification";
/// The payment page's session notification, a callback of `createSession`.
pub const SESSION_NOTIFICATION: &str = "receiveSessionNotification";

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "patch", "head", "options", "trace",
];

impl Documents {
    /// The documents bundled into this crate, read on first use.
    pub fn bundled() -> &'static Documents {
        static DOCUMENTS_READ: OnceLock<Documents> = OnceLock::new();
        DOCUMENTS_READ.get_or_init(|| Documents::read(DOCUMENTS))
    }

    /// Reads `bundled`; a document that is not JSON is left out (the
    /// bundled ones are checked by this crate's tests).
    pub fn read(bundled: &[Bundled]) -> Documents {
        let mut apis = Vec::new();
        for document in bundled {
            let Ok(root) = serde_json::from_str::<Value>(document.json) else {
                continue;
            };
            let server = root
                .pointer("/servers/0/url")
                .and_then(Value::as_str)
                .and_then(|url| url.strip_prefix('{'))
                .and_then(|rest| rest.split_once('}'))
                .map(|(name, _)| name.to_owned())
                .unwrap_or_default();
            let mut schemas = Schemas::default();
            let mut operations = operations(&root, document.base_path);
            for operation in &mut operations {
                compile_operation(&root, &mut schemas, operation);
            }
            apis.push(Api {
                name: document.name,
                server,
                root,
                operations,
                schemas,
            });
        }
        let mut invoice = None;
        for (a, api) in apis.iter_mut().enumerate() {
            if api.name == "order-status" {
                invoice = api
                    .schemas
                    .compile(&api.root, "/components/schemas/InvoiceNotification")
                    .map(|id| (a, id));
            }
            api.schemas.finish();
        }
        let mut by_id = HashMap::default();
        for (a, api) in apis.iter().enumerate() {
            for (o, operation) in api.operations.iter().enumerate() {
                by_id
                    .entry(operation.operation_id.clone())
                    .or_insert((a, o));
            }
        }
        Documents {
            apis,
            by_id,
            invoice,
        }
    }

    pub fn apis(&self) -> &[Api] {
        &self.apis
    }

    pub(crate) fn operation(&self, operation_id: &str) -> Option<(&Api, &Operation)> {
        let (a, o) = *self.by_id.get(operation_id)?;
        Some((&self.apis[a], &self.apis[a].operations[o]))
    }

    /// The operation a request of `method` to `path` (no query) is, the one
    /// with the most literal segments where several match.
    pub fn route(&self, method: &str, path: &str) -> Option<Route<'_>> {
        let segments: Vec<&str> = path.split('/').collect();
        let mut best: Option<(usize, Route<'_>)> = None;
        for api in &self.apis {
            for operation in &api.operations {
                if operation.notification || !operation.method.eq_ignore_ascii_case(method) {
                    continue;
                }
                let Some(literals) = operation.matches(&segments) else {
                    continue;
                };
                if best.as_ref().is_none_or(|(known, _)| literals > *known) {
                    best = Some((
                        literals,
                        Route {
                            api: api.name,
                            operation_id: &operation.operation_id,
                            server: &api.server,
                        },
                    ));
                }
            }
        }
        best.map(|(_, route)| route)
    }

    /// The server variable a path most likely belongs to, for a path no
    /// operation declares: the document whose templates share the longest
    /// literal start with it; `api_url` when none shares any.
    pub fn server_of(&self, path: &str) -> &str {
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let mut best = (0, "api_url");
        for api in &self.apis {
            for operation in api.operations.iter().filter(|o| !o.notification) {
                let shared = operation
                    .segments
                    .iter()
                    .zip(&segments)
                    .take_while(|(segment, given)| {
                        matches!(segment, Segment::Literal(literal) if literal == *given)
                    })
                    .count();
                if shared > best.0 {
                    best = (shared, api.server.as_str());
                }
            }
        }
        best.1
    }

    /// The file a schema pointer of `api`'s bundle is written in.
    pub(crate) fn file_of(api: &Api, schema: &str) -> String {
        let shared = schema
            .strip_prefix("/components/schemas/")
            .map(|rest| rest.split('/').next().unwrap_or(rest))
            .is_some_and(|name| SHARED_SCHEMAS.contains(&name));
        if shared {
            "openapi/common.yaml".to_owned()
        } else {
            format!("openapi/{}.yaml", api.name)
        }
    }
}

impl Operation {
    /// The number of literal segments when `segments` (a path split at `/`)
    /// is this operation's path.
    fn matches(&self, segments: &[&str]) -> Option<usize> {
        // the template's segments come without the leading empty one
        let given = segments.strip_prefix(&[""]).unwrap_or(segments);
        if given.len() != self.segments.len() {
            return None;
        }
        let mut literals = 0;
        for (segment, given) in self.segments.iter().zip(given) {
            match segment {
                Segment::Literal(literal) if literal == given => literals += 1,
                Segment::Literal(_) => return None,
                Segment::Parameter if given.is_empty() => return None,
                Segment::Parameter => {}
            }
        }
        Some(literals)
    }
}

fn escape(text: &str) -> String {
    text.replace('~', "~0").replace('/', "~1")
}

fn operations(root: &Value, base_path: &str) -> Vec<Operation> {
    let mut found = Vec::new();
    let Some(paths) = root.get("paths").and_then(Value::as_object) else {
        return found;
    };
    for (path, item) in paths {
        let item_at = format!("/paths/{}", escape(path));
        for method in METHODS {
            let Some(operation) = item.get(*method) else {
                continue;
            };
            let at = format!("{item_at}/{method}");
            if let Some(id) = operation.get("operationId").and_then(Value::as_str) {
                found.push(Operation {
                    operation_id: id.to_owned(),
                    method: method.to_uppercase(),
                    segments: template(&format!("{base_path}{path}")),
                    at: at.clone(),
                    notification: false,
                    responses: Vec::new(),
                    request: None,
                });
            }
            // Callbacks: what the service sends to an address the request named.
            let callbacks = operation.get("callbacks").and_then(Value::as_object);
            for (name, callback) in callbacks.into_iter().flatten() {
                let Some(expressions) = callback.as_object() else {
                    continue;
                };
                for (expression, item) in expressions {
                    for method in METHODS {
                        let Some(id) = item
                            .get(*method)
                            .and_then(|o| o.get("operationId"))
                            .and_then(Value::as_str)
                        else {
                            continue;
                        };
                        found.push(Operation {
                            operation_id: id.to_owned(),
                            method: method.to_uppercase(),
                            segments: Vec::new(),
                            at: format!(
                                "{at}/callbacks/{}/{}/{method}",
                                escape(name),
                                escape(expression)
                            ),
                            notification: true,
                            responses: Vec::new(),
                            request: None,
                        });
                    }
                }
            }
        }
    }
    found
}

fn template(path: &str) -> Vec<Segment> {
    path.split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| {
            if segment.starts_with('{') && segment.ends_with('}') {
                Segment::Parameter
            } else {
                Segment::Literal(segment.to_owned())
            }
        })
        .collect()
}

/// Compiles an operation's request body and answers.
fn compile_operation(root: &Value, schemas: &mut Schemas, operation: &mut Operation) {
    operation.request = content(root, schemas, &format!("{}/requestBody", operation.at));
    let responses_at = format!("{}/responses", operation.at);
    let keys: Vec<String> = root
        .pointer(&responses_at)
        .and_then(Value::as_object)
        .map(|responses| responses.keys().cloned().collect())
        .unwrap_or_default();
    for key in keys {
        let at = format!("{responses_at}/{}", escape(&key));
        if let Some(content) = content(root, schemas, &at) {
            operation.responses.push((Status::parse(&key), content));
        }
    }
}

/// The request body or response object at `at` (through a `$ref`).
fn content(root: &Value, schemas: &mut Schemas, at: &str) -> Option<Content> {
    let mut at = at.to_owned();
    let mut object = root.pointer(&at)?;
    for _ in 0..8 {
        let Some(reference) = object.get("$ref").and_then(Value::as_str) else {
            break;
        };
        at = reference.strip_prefix('#')?.to_owned();
        object = root.pointer(&at)?;
    }
    let mut media = Vec::new();
    for (key, item) in object
        .get("content")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let schema = match item.get("schema") {
            Some(_) => schemas.compile(root, &format!("{at}/content/{}/schema", escape(key))),
            None => None,
        };
        media.push((key.clone(), essence(key), schema));
    }
    Some(Content { at, media })
}

/// `application/json` of `Application/JSON; charset=UTF-8`.
pub(crate) fn essence(media_type: &str) -> String {
    essence_of(media_type).to_ascii_lowercase()
}

/// The media type's type and subtype as written (`Application/JSON`).
pub(crate) fn essence_of(media_type: &str) -> &str {
    media_type.split(';').next().unwrap_or("").trim()
}
