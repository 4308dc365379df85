//! A document read once at startup into what serving it needs: its
//! audience, and per operation the method, path template, parameters,
//! request body and documented answers, with every schema compiled.

use super::accepts::{Body, Parameter};
use super::documented::Documented;
use super::order::Keys;
use super::pointer::{escape, resolve, resolve_at};
use super::schema::Schemas;
use super::template::Template;
use crate::document::Document;
use axum::http::Method;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::Mutex;

/// A served document.
pub struct Compiled {
    pub name: &'static str,
    /// `<sandbox URL><base_path>`.
    pub url: String,
    /// The audience its tokens must carry.
    pub audience: String,
    /// The document leaves the audience to a setting; the sandbox chose
    /// [`Compiled::url`].
    pub audience_chosen: bool,
    pub operations: Vec<Operation>,
}

/// One operation of a served document.
pub struct Operation {
    /// Interned: [`crate::http::operation::serve`] takes a `&'static str`.
    pub operation_id: &'static str,
    pub method: Method,
    /// The base path and the document's path.
    pub template: Template,
    /// `false` only for `security: []`.
    pub needs_token: bool,
    /// Path and query parameters, path-level ones merged in.
    pub parameters: Vec<Parameter>,
    pub body: Option<Body>,
    /// In the document's order.
    pub responses: Vec<Documented>,
}

const METHODS: &[(&str, Method)] = &[
    ("get", Method::GET),
    ("put", Method::PUT),
    ("post", Method::POST),
    ("delete", Method::DELETE),
    ("patch", Method::PATCH),
    ("head", Method::HEAD),
    ("options", Method::OPTIONS),
    ("trace", Method::TRACE),
];

impl Compiled {
    /// Reads and compiles `document` for the sandbox at `url`; the error
    /// says where the document is not usable.
    pub fn new(url: &str, document: &Document) -> Result<Self, String> {
        let root: Value =
            serde_json::from_str(document.json).map_err(|error| format!("not JSON: {error}"))?;
        let schemas = Schemas::of(&root)?;
        let keys = Keys::of(document.json)?;
        let served_at = format!("{url}{}", document.base_path);
        let (audience, audience_chosen) = match document.audience {
            Some(audience) => (with_url(audience, url), false),
            None => (served_at.clone(), true),
        };
        let mut operations = Vec::new();
        let paths = root.get("paths").and_then(Value::as_object);
        for (path, item) in paths.into_iter().flatten() {
            let (item_at, item) = resolve_at(&root, format!("/paths/{}", escape(path)), item)?;
            let template = || Template::parse(&format!("{}{path}", document.base_path));
            for (key, method) in METHODS {
                let Some(operation) = item.get(*key) else {
                    continue;
                };
                let read = Read {
                    root: &root,
                    keys: &keys,
                    schemas: &schemas,
                    at: format!("{item_at}/{key}"),
                };
                let operation = Operation::new(&read, item, operation, method, template()?)
                    .map_err(|reason| format!("{key} {path}: {reason}"))?;
                operations.push(operation);
            }
        }
        Ok(Self {
            name: document.name,
            url: served_at,
            audience,
            audience_chosen,
            operations,
        })
    }

    /// This document's entry of `GET /__sandbox`'s `documents`.
    pub fn about(&self) -> Value {
        let operations: Vec<Value> = self
            .operations
            .iter()
            .map(|operation| {
                json!({
                    "operation_id": operation.operation_id,
                    "method": operation.method.as_str(),
                    "path": operation.template.axum_path(),
                })
            })
            .collect();
        json!({
            "name": self.name,
            "url": self.url,
            "audience": self.audience,
            "audience_chosen_by_sandbox": self.audience_chosen,
            "operations": operations,
        })
    }
}

/// What reading an operation needs: the document, its key order and
/// schemas, and where the operation is (a JSON pointer).
struct Read<'a> {
    root: &'a Value,
    keys: &'a Keys,
    schemas: &'a Schemas,
    at: String,
}

impl Operation {
    fn new(
        read: &Read<'_>,
        item: &Value,
        operation: &Value,
        method: &Method,
        template: Template,
    ) -> Result<Self, String> {
        let (root, schemas) = (read.root, read.schemas);
        let operation_id = operation
            .get("operationId")
            .and_then(Value::as_str)
            .ok_or("no operationId")?;
        let security = operation.get("security").or_else(|| root.get("security"));
        let needs_token = !security.and_then(Value::as_array).is_some_and(|schemes| {
            schemes.is_empty()
                || schemes
                    .iter()
                    .any(|s| s.as_object().is_some_and(|s| s.is_empty()))
        });
        let parameters = parameters(root, schemas, item, operation)?;
        for name in template.parameters() {
            if !parameters.iter().any(|p| p.is_path(name)) {
                return Err(format!("path parameter {name} is not declared"));
            }
        }
        let body = match operation.get("requestBody") {
            Some(body) => Some(Body::compile(schemas, resolve(root, body)?)?),
            None => None,
        };
        let responses = operation
            .get("responses")
            .and_then(Value::as_object)
            .ok_or("no responses")?
            .iter()
            .map(|(status, response)| {
                let at = format!("{}/responses/{}", read.at, escape(status));
                let (at, response) = resolve_at(root, at, response)?;
                Documented::compile(root, read.keys, &at, status, response)
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            operation_id: intern(operation_id),
            method: method.clone(),
            template,
            needs_token,
            parameters,
            body,
            responses,
        })
    }
}

/// The path and query parameters of an operation: the path item's, each
/// replaced by the operation's of the same name and place.
fn parameters(
    root: &Value,
    schemas: &Schemas,
    item: &Value,
    operation: &Value,
) -> Result<Vec<Parameter>, String> {
    let mut declared: Vec<&Value> = Vec::new();
    let lists = [item.get("parameters"), operation.get("parameters")];
    for parameter in lists
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
    {
        let parameter = resolve(root, parameter)?;
        let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
        declared.retain(|earlier| key(earlier) != key(parameter));
        declared.push(parameter);
    }
    declared
        .into_iter()
        .filter_map(|parameter| Parameter::compile(root, schemas, parameter).transpose())
        .collect()
}

/// `audience` with every `{placeholder}` replaced by the sandbox URL.
fn with_url(audience: &str, url: &str) -> String {
    let mut out = String::new();
    let mut rest = audience;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(url);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// The `&'static` form of an operationId, leaked once per distinct id for
/// the whole process (sandboxes started again reuse it).
fn intern(operation_id: &str) -> &'static str {
    static INTERNED: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut interned = INTERNED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(known) = interned.get(operation_id) {
        return known;
    }
    let leaked: &'static str = Box::leak(operation_id.to_owned().into_boxed_str());
    interned.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_become_the_sandbox_url() {
        let url = "http://127.0.0.1:9";
        assert_eq!(
            with_url("{api_url}/dispute/management", url),
            "http://127.0.0.1:9/dispute/management"
        );
        assert_eq!(with_url("{base_url}", url), url);
        assert_eq!(with_url("platform", url), "platform");
    }

    #[test]
    fn operation_ids_are_leaked_once() {
        let first = intern("getDispute");
        let again = intern(&String::from("getDispute"));
        assert!(std::ptr::eq(first, again));
    }
}
