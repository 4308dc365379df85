//! `cargo xtask lint`: the rules of `docs/document-rules.md`, each failure naming
//! the document, the JSON pointer and the rule. The API documents keep every
//! rule; the sandbox's test-control API keeps those a document of its kind
//! can ([`Kind::SandboxControl`]).

use crate::apis;
use crate::bundle::{bundle, collect_local_refs};
use crate::finding::{escape, Finding};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

pub const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "patch", "head", "options", "trace",
];

/// Keywords a decimal schema may carry besides `type` and `format`; anything
/// else would stop the generator's conversion to `Decimal`.
const DECIMAL_EXTRA_KEYWORDS: &[&str] = &["description", "example", "nullable"];

/// Which rules a document keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An API of the interface (a document with an `x-psi` block): every rule.
    Api,
    /// The sandbox's test-control API, `openapi/sandbox-control.yaml`
    /// ([`apis::CONTROL_NAME`]): the sandbox is its only implementation and
    /// no Rust client is generated from it, so the rules about the
    /// provider's interface and the generator give way to what the sandbox
    /// does:
    ///
    /// - rule 3: its successes are the statuses the sandbox answers (200,
    ///   201, 204), each declared (one schema across them), not `2XX`: no
    ///   specification leaves them open;
    /// - rule 6 and rule 18 hold for every schema an answer reaches; a
    ///   request body is read by the sandbox's own serde types, so its
    ///   schema closes the objects whose unknown fields the sandbox refuses
    ///   (`additionalProperties: false`) and marks `nullable` only the
    ///   fields where it reads `null` as absence;
    /// - rule 14's citation of a `required` or `oneOf`: the source is the
    ///   sandbox itself, not the specification or the provider's
    ///   documentation;
    /// - rule 19 also asks for 403 on every operation (the `Host` check) and
    ///   415 on every write, with a body or not (the `Content-Type` check):
    ///   the door every control call passes first; and 400 only where there
    ///   is a body, as the sandbox refuses a path id no resource can have
    ///   with 404;
    /// - the `x-psi` block and the audience table are the interface's: the
    ///   document carries no `x-psi` block.
    SandboxControl,
    /// The own calls of `psi-sandbox proxy`, `openapi/sandbox-proxy.yaml`
    /// ([`apis::PROXY_NAME`]): the control API's rules, except where the
    /// proxy passes on another server's answer. A relayed notification's
    /// answer is the merchant receiver's, whatever its status and body, so
    /// rule 19 asks only for what the proxy answers itself (414 and 431,
    /// 413 where there is a body) and rule 4's one error schema is not
    /// asked of its answers (hyper's bodiless 414 and 431 beside the
    /// proxy's own JSON errors).
    SandboxProxy,
}

impl Kind {
    /// Whether the document is one of the sandbox's own (no `x-psi`
    /// block, its own rules).
    fn sandbox(self) -> bool {
        matches!(self, Kind::SandboxControl | Kind::SandboxProxy)
    }
}

pub fn run(root: &Path) -> Result<(), String> {
    let mut findings = Vec::new();
    let mut operation_ids: BTreeMap<String, String> = BTreeMap::new();
    // A broken or missing x-psi block stops here, naming the key.
    let apis = apis::all(root)?;
    for api in &apis {
        let label = api.document_label();
        let document = bundle(&api.document(root))?;
        findings.extend(lint_document(&label, &document));
        findings.extend(crate::audience_table::check(api, &document));
        for (pointer, operation) in operation_pointers(&document) {
            if let Some(id) = operation.get("operationId").and_then(Value::as_str) {
                if let Some(first) = operation_ids.insert(id.to_owned(), label.clone()) {
                    findings.push(Finding {
                        document: label.clone(),
                        pointer: format!("{pointer}/operationId"),
                        rule: format!("operationId {id} is already used in {first} (rule 1: unique operationIds)"),
                    });
                }
            }
        }
    }
    let sandbox_documents = [
        (
            Kind::SandboxControl,
            apis::CONTROL_NAME,
            apis::control_document(root),
        ),
        (
            Kind::SandboxProxy,
            apis::PROXY_NAME,
            apis::proxy_document(root),
        ),
    ];
    for (kind, name, path) in &sandbox_documents {
        let label = format!("openapi/{name}.yaml");
        let document = bundle(path)?;
        findings.extend(lint_sandbox_document(*kind, &label, &document));
        for (pointer, operation) in operation_pointers(&document) {
            if let Some(id) = operation.get("operationId").and_then(Value::as_str) {
                if let Some(first) = operation_ids.insert(id.to_owned(), label.clone()) {
                    findings.push(Finding {
                        document: label.clone(),
                        pointer: format!("{pointer}/operationId"),
                        rule: format!(
                            "operationId {id} is already used in {first} (rule 1: unique operationIds)"
                        ),
                    });
                }
            }
        }
    }
    if findings.is_empty() {
        println!(
            "openapi/: {} documents follow the rules",
            apis.len() + sandbox_documents.len()
        );
        Ok(())
    } else {
        findings.sort();
        for finding in &findings {
            eprintln!("{finding}");
        }
        Err(format!("{} rule violations in openapi/", findings.len()))
    }
}

/// All findings for one bundled API document.
pub fn lint_document(label: &str, document: &Value) -> Vec<Finding> {
    lint_as(Kind::Api, label, document)
}

/// All findings for the bundled test-control API of the sandbox.
pub fn lint_control_document(label: &str, document: &Value) -> Vec<Finding> {
    lint_sandbox_document(Kind::SandboxControl, label, document)
}

/// All findings for a bundled document of the sandbox's own (`kind` is
/// [`Kind::SandboxControl`] or [`Kind::SandboxProxy`]).
pub fn lint_sandbox_document(kind: Kind, label: &str, document: &Value) -> Vec<Finding> {
    let mut findings = lint_as(kind, label, document);
    if document.get("x-psi").is_some() {
        findings.push(Finding {
            document: label.to_owned(),
            pointer: "/x-psi".to_owned(),
            rule: "the sandbox's own APIs are no API of the interface: they have no x-psi block"
                .to_owned(),
        });
    }
    findings
}

fn lint_as(kind: Kind, label: &str, document: &Value) -> Vec<Finding> {
    let mut lint = Lint {
        label,
        kind,
        answered: answered_schemas(document),
        findings: Vec::new(),
    };
    lint.version(document);
    lint.servers_and_security(document);
    let secured_by_default = document
        .get("security")
        .and_then(Value::as_array)
        .is_some_and(|s| !s.is_empty());
    for (pointer, operation) in operation_pointers(document) {
        lint.operation(&pointer, operation);
        lint.declared_statuses(&pointer, operation, secured_by_default);
    }
    lint.schemas(document);
    crate::examples::check(label, document, &mut lint.findings);
    lint.findings
}

struct Lint<'a> {
    label: &'a str,
    kind: Kind,
    /// The named schemas an answer reaches (see [`answered_schemas`]).
    answered: BTreeSet<String>,
    findings: Vec<Finding>,
}

/// The named schemas some response of `document` reaches, directly or
/// through other schemas.
fn answered_schemas(document: &Value) -> BTreeSet<String> {
    let mut pending = BTreeSet::new();
    for (_, operation) in operation_pointers(document) {
        if let Some(responses) = operation.get("responses") {
            collect_local_refs(responses, &mut pending);
        }
    }
    let mut reached = BTreeSet::new();
    while let Some(name) = pending.pop_first() {
        if reached.insert(name.clone()) {
            if let Some(schema) =
                document.pointer(&format!("/components/schemas/{}", escape(&name)))
            {
                collect_local_refs(schema, &mut pending);
            }
        }
    }
    reached
}

impl Lint<'_> {
    fn fail(&mut self, pointer: impl Into<String>, rule: impl Into<String>) {
        self.findings.push(Finding {
            document: self.label.to_owned(),
            pointer: pointer.into(),
            rule: rule.into(),
        });
    }

    fn version(&mut self, document: &Value) {
        if document.get("openapi").and_then(Value::as_str) != Some("3.0.3") {
            self.fail("/openapi", "must be 3.0.3 (rule 1)");
        }
    }

    fn servers_and_security(&mut self, document: &Value) {
        let has_variable = document
            .get("servers")
            .and_then(Value::as_array)
            .is_some_and(|servers| {
                servers.iter().any(|server| {
                    server
                        .get("variables")
                        .and_then(Value::as_object)
                        .is_some_and(|vars| !vars.is_empty())
                })
            });
        if !has_variable {
            self.fail("/servers", "must declare a server with the specification's placeholder as a variable (rule 15)");
        }
        let bearer = document.pointer("/components/securitySchemes/bearer");
        let is_bearer = bearer.is_some_and(|scheme| {
            scheme.get("type").and_then(Value::as_str) == Some("http")
                && scheme.get("scheme").and_then(Value::as_str) == Some("bearer")
        });
        if !is_bearer {
            self.fail(
                "/components/securitySchemes/bearer",
                "must be an http bearer scheme (rule 15)",
            );
        }
    }

    fn operation(&mut self, pointer: &str, operation: &Value) {
        if operation
            .get("operationId")
            .and_then(Value::as_str)
            .is_none()
        {
            self.fail(pointer, "has no operationId (rule 1)");
        }
        let tags = operation
            .get("tags")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if tags != 1 {
            self.fail(
                format!("{pointer}/tags"),
                format!("has {tags} tags, needs exactly one (rule 1)"),
            );
        }
        if let Some(content) = operation
            .pointer("/requestBody/content")
            .and_then(Value::as_object)
        {
            for (media, media_object) in content {
                let at = format!("{pointer}/requestBody/content/{}", escape(media));
                self.named_body(&at, media, media_object);
            }
        }
        for name in ["Authorization", "Content-Type", "Accept"] {
            let declared = operation
                .get("parameters")
                .and_then(Value::as_array)
                .is_some_and(|ps| {
                    ps.iter().any(|p| {
                        p.get("name")
                            .and_then(Value::as_str)
                            .is_some_and(|n| n.eq_ignore_ascii_case(name))
                    })
                });
            if declared {
                self.fail(
                    format!("{pointer}/parameters"),
                    format!("declares {name}, which OpenAPI ignores (rule 13)"),
                );
            }
        }
        self.responses(pointer, operation);
    }

    /// Rule 19: the answers every service (and the sandbox) gives outside an
    /// operation's own logic are declared: 400 where there is a body or a
    /// path parameter, 401 where a bearer token is required, 404 where there
    /// is a path parameter, 414 and 431
    /// everywhere, 413 and 415 where there is a body. The sandbox's control
    /// API also declares its door's answers: 403 on every operation behind
    /// the door (all but those with `security: []`, which pass no door),
    /// 415 on every write, and 400 only where there is a body (a path id no
    /// resource can have is a 404 there).
    fn declared_statuses(&mut self, pointer: &str, operation: &Value, secured_by_default: bool) {
        let secured = operation
            .get("security")
            .and_then(Value::as_array)
            .map_or(secured_by_default, |s| !s.is_empty());
        let has_body = operation.get("requestBody").is_some();
        let has_path_parameter = operation
            .get("parameters")
            .and_then(Value::as_array)
            .is_some_and(|ps| {
                ps.iter()
                    .any(|p| p.get("in").and_then(Value::as_str) == Some("path"))
            });
        let control = self.kind == Kind::SandboxControl;
        let writes = ["post", "put", "patch", "delete"]
            .iter()
            .any(|method| pointer.ends_with(&format!("/{method}")));
        let proxy = self.kind == Kind::SandboxProxy;
        let wanted = [
            (
                "400",
                !proxy && (has_body || has_path_parameter && !control),
            ),
            ("401", secured && !proxy),
            ("403", control && secured),
            ("404", has_path_parameter && !proxy),
            ("413", has_body),
            ("414", true),
            ("415", !proxy && (has_body || control && writes)),
            ("431", true),
        ];
        let responses = operation.get("responses").and_then(Value::as_object);
        for (status, needed) in wanted {
            if needed && !responses.is_some_and(|r| r.contains_key(status)) {
                self.fail(
                    format!("{pointer}/responses"),
                    format!("does not declare {status} (rule 19)"),
                );
            }
        }
    }

    fn named_body(&mut self, at: &str, media: &str, media_object: &Value) {
        if !is_json(media) {
            return;
        }
        let named = media_object
            .pointer("/schema/$ref")
            .and_then(Value::as_str)
            .is_some_and(|r| r.starts_with("#/components/schemas/"));
        if !named {
            self.fail(
                format!("{at}/schema"),
                "body schema must be a $ref to a named component (rule 2)",
            );
        }
        if media_object.get("example").is_none() && media_object.get("examples").is_none() {
            self.fail(at, "body has no example (rule 16)");
        }
    }

    fn responses(&mut self, pointer: &str, operation: &Value) {
        let Some(responses) = operation.get("responses").and_then(Value::as_object) else {
            self.fail(pointer, "has no responses");
            return;
        };
        let mut success: BTreeMap<String, Option<String>> = BTreeMap::new();
        let mut errors: BTreeSet<Option<String>> = BTreeSet::new();
        for (status, response) in responses {
            let at = format!("{pointer}/responses/{status}");
            let content = response.get("content").and_then(Value::as_object);
            let json_ref = content.and_then(|c| {
                c.iter().find(|(media, _)| is_json(media)).map(|(_, m)| {
                    m.pointer("/schema/$ref")
                        .and_then(Value::as_str)
                        .unwrap_or("<inline>")
                        .to_owned()
                })
            });
            if let Some(content) = content {
                for (media, media_object) in content {
                    self.named_body(
                        &format!("{at}/content/{}", escape(media)),
                        media,
                        media_object,
                    );
                }
            }
            if status.starts_with('2') {
                let raw = content.is_some_and(|c| c.keys().any(|m| !is_json(m)));
                success.insert(status.clone(), json_ref.or(raw.then(|| "<raw>".to_owned())));
            } else if status.starts_with('4') || status.starts_with('5') || status == "default" {
                if content.is_some_and(|c| c.keys().any(|m| !is_json(m))) {
                    self.fail(
                        &at,
                        "error bodies must be declared as application/json (rule 4)",
                    );
                }
                errors.insert(json_ref);
            }
        }
        if self.kind.sandbox() {
            self.control_successes(pointer, &success);
        } else if success.keys().ne(["2XX"].iter()) {
            self.fail(
                format!("{pointer}/responses"),
                format!(
                    "success responses {:?}: the success is declared once, as `2XX` (rule 3)",
                    success.keys().collect::<Vec<_>>()
                ),
            );
        }
        if errors.len() > 1 && self.kind != Kind::SandboxProxy {
            self.fail(
                format!("{pointer}/responses"),
                "error responses reference different schemas (rule 4)",
            );
        }
    }

    /// Rule 3 for the sandbox's control API: the successes are the numeric
    /// statuses the sandbox answers, at least one, with one schema (or no
    /// body) across them.
    fn control_successes(&mut self, pointer: &str, success: &BTreeMap<String, Option<String>>) {
        let numeric = |status: &String| {
            status.len() == 3
                && status.starts_with('2')
                && status.bytes().all(|b| b.is_ascii_digit())
        };
        if success.is_empty() || !success.keys().all(numeric) {
            self.fail(
                format!("{pointer}/responses"),
                format!(
                    "success responses {:?}: the control API declares the 2xx statuses the sandbox answers (rule 3)",
                    success.keys().collect::<Vec<_>>()
                ),
            );
        }
        let bodies: BTreeSet<&String> = success.values().flatten().collect();
        if bodies.len() > 1 {
            self.fail(
                format!("{pointer}/responses"),
                "success responses reference different schemas (rule 3)",
            );
        }
    }

    /// Rule 18: null is absence, so every optional property is `nullable`
    /// (a reference through `allOf: [{$ref}]`).
    fn optional_properties_are_nullable(&mut self, at: &str, map: &Map<String, Value>) {
        let Some(properties) = map.get("properties").and_then(Value::as_object) else {
            return;
        };
        let required = map.get("required").and_then(Value::as_array);
        for (name, property) in properties {
            let is_required =
                required.is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name.as_str())));
            if !is_required && property.get("nullable") != Some(&Value::Bool(true)) {
                self.fail(
                    format!("{at}/properties/{}", escape(name)),
                    "an optional property must be nullable: null is absence (rule 18)",
                );
            }
        }
    }

    /// Rule 14: a `required` flag or a `oneOf` (a shape the value must
    /// take) is a rule on what psi sends, so the schema's description names
    /// where it comes from: the specification or the provider's public
    /// documentation, in the citation forms of `docs/service-notes.md`.
    fn rules_name_their_source(&mut self, at: &str, schema: &Value) {
        if self.kind.sandbox() {
            // The sandbox's own APIs' rules are the sandbox's own.
            return;
        }
        let constrains = schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|required| !required.is_empty())
            || schema.get("oneOf").is_some();
        let description = schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let cites = ["(specification", "(provider's public"]
            .iter()
            .any(|form| description.contains(form));
        if constrains && !cites {
            self.fail(
                at,
                "a schema with `required` or `oneOf` names its source in its description: \
                 (specification, <Section>) or (provider's public API documentation) (rule 14)",
            );
        }
    }

    fn schemas(&mut self, document: &Value) {
        let schemas = document
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for (name, schema) in &schemas {
            let at = format!("/components/schemas/{}", escape(name));
            if let Some(values) = schema.get("enum").and_then(Value::as_array) {
                let mut lower = BTreeSet::new();
                for value in values.iter().filter_map(Value::as_str) {
                    if !lower.insert(value.to_ascii_lowercase()) {
                        self.fail(
                            format!("{at}/enum"),
                            format!("value {value} differs from another only by case (rule 8)"),
                        );
                    }
                }
            }
            if !name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                || !name.chars().all(|c| c.is_ascii_alphanumeric())
            {
                self.fail(&at, "component names are PascalCase letters and digits, so the Rust type has the same name (rule 12)");
            }
            if schema.get("description").is_none() && schema.get("$ref").is_none() {
                self.fail(&at, "named schema has no description (rule 14)");
            }
            self.rules_name_their_source(&at, schema);
            let answered = self.kind == Kind::Api || self.answered.contains(name);
            self.walk_schema(&at, schema, true, answered);
        }
        // Schemas inside paths (parameters, inline binary bodies) follow the same rules.
        if let Some(paths) = document.get("paths") {
            self.walk_values("/paths", paths);
        }
    }

    /// Finds schema objects anywhere under `value` (parameters, media types).
    fn walk_values(&mut self, at: &str, value: &Value) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let child_at = format!("{at}/{}", escape(key));
                    if key == "schema" {
                        let answered = self.kind == Kind::Api || child_at.contains("/responses/");
                        self.walk_schema(&child_at, child, false, answered);
                    } else if key != "example" && key != "examples" {
                        self.walk_values(&child_at, child);
                    }
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    self.walk_values(&format!("{at}/{index}"), child);
                }
            }
            _ => {}
        }
    }

    /// Rules 6, 7, 8, 11 and 18 on one schema and the schemas inside it;
    /// `answered`: an answer reaches it (every schema of an API document),
    /// where rules 6 and 18 hold.
    fn walk_schema(&mut self, at: &str, schema: &Value, named: bool, answered: bool) {
        let Some(map) = schema.as_object() else {
            return;
        };
        if answered {
            self.optional_properties_are_nullable(at, map);
        }
        if answered && map.get("additionalProperties") == Some(&Value::Bool(false)) {
            self.fail(
                format!("{at}/additionalProperties"),
                "additionalProperties: false is not allowed (rule 6)",
            );
        }
        if map.contains_key("anyOf") || map.contains_key("discriminator") {
            self.fail(at, "anyOf and discriminator are not supported (rule 11)");
        }
        if map.contains_key("enum") && !named {
            self.fail(
                format!("{at}/enum"),
                "enumerations must be named components (rule 8)",
            );
        }
        if map.get("type").and_then(Value::as_str) == Some("number") {
            self.decimal(at, map);
        }
        for (key, child) in map {
            let child_at = format!("{at}/{}", escape(key));
            match key.as_str() {
                "properties" => {
                    if let Some(properties) = child.as_object() {
                        for (property, schema) in properties {
                            self.walk_schema(
                                &format!("{child_at}/{}", escape(property)),
                                schema,
                                false,
                                answered,
                            );
                        }
                    }
                }
                "items" | "additionalProperties" | "not" => {
                    self.walk_schema(&child_at, child, false, answered)
                }
                "oneOf" | "allOf" => {
                    for (index, schema) in child.as_array().into_iter().flatten().enumerate() {
                        self.walk_schema(&format!("{child_at}/{index}"), schema, false, answered);
                    }
                }
                _ => {}
            }
        }
    }

    fn decimal(&mut self, at: &str, map: &Map<String, Value>) {
        if map.get("format").and_then(Value::as_str) != Some("decimal") {
            self.fail(
                at,
                "numbers must be `format: decimal`, never floats (rule 7)",
            );
        }
        for key in map.keys() {
            if !["type", "format"].contains(&key.as_str())
                && !DECIMAL_EXTRA_KEYWORDS.contains(&key.as_str())
            {
                self.fail(
                    format!("{at}/{}", escape(key)),
                    format!(
                        "a decimal may not carry `{key}`: it stops the Decimal conversion (rule 7)"
                    ),
                );
            }
        }
    }
}

fn is_json(media: &str) -> bool {
    media == "application/json" || media.starts_with("application/json;")
}

/// `(pointer, operation)` for every operation of the document.
pub fn operation_pointers(document: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    if let Some(paths) = document.get("paths").and_then(Value::as_object) {
        for (path, item) in paths {
            for (method, operation) in item.as_object().into_iter().flatten() {
                if METHODS.contains(&method.as_str()) {
                    out.push((format!("/paths/{}/{method}", escape(path)), operation));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LABEL: &str = "openapi/sandbox-control.yaml";

    fn control() -> Value {
        let root = apis::workspace_root();
        bundle(&apis::control_document(&root)).expect("the control document bundles")
    }

    #[test]
    fn the_proxy_document_follows_its_rules_which_ask_less_of_relayed_answers() {
        let root = apis::workspace_root();
        let proxy = bundle(&apis::proxy_document(&root)).expect("the proxy document bundles");
        let label = "openapi/sandbox-proxy.yaml";
        assert_eq!(
            lint_sandbox_document(Kind::SandboxProxy, label, &proxy),
            vec![]
        );
        // The same document as a control API: a relayed answer's 400 and
        // 415 and the mixed error bodies are asked for.
        let as_control = lint_sandbox_document(Kind::SandboxControl, label, &proxy);
        assert!(as_control.iter().any(|f| f.rule.contains("415")));
        assert!(as_control.iter().any(|f| f.rule.contains("rule 4")));
        assert!(!apis::all(&root)
            .unwrap()
            .iter()
            .any(|api| api.name == apis::PROXY_NAME));
    }

    fn findings_after(edit: impl FnOnce(&mut Value)) -> Vec<String> {
        let mut document = control();
        edit(&mut document);
        lint_control_document(LABEL, &document)
            .into_iter()
            .map(|finding| finding.to_string())
            .collect()
    }

    fn assert_found(findings: &[String], pointer: &str, rule: &str) {
        assert!(
            findings
                .iter()
                .any(|f| f.starts_with(&format!("{LABEL}#{pointer}")) && f.contains(rule)),
            "no finding at {pointer} for {rule}; got {findings:#?}"
        );
    }

    #[test]
    fn the_control_document_follows_its_rules_and_is_no_api() {
        let root = apis::workspace_root();
        assert!(lint_control_document(LABEL, &control()).is_empty());
        let apis = apis::all(&root).expect("the APIs");
        assert!(apis.iter().all(|api| api.name != apis::CONTROL_NAME));
        let published = apis::published(&root).expect("the published documents");
        assert_eq!(published.len(), apis.len() + 2);
        let last: Vec<&str> = published[apis.len()..]
            .iter()
            .map(|(name, _)| name.as_str())
            .collect();
        assert_eq!(last, [apis::CONTROL_NAME, apis::PROXY_NAME]);
    }

    #[test]
    fn a_range_success_or_two_success_schemas_are_reported() {
        let at = "/paths/~1__sandbox~1clock~1advance/post/responses";
        let findings = findings_after(|d| {
            let responses = &mut d["paths"]["/__sandbox/clock/advance"]["post"]["responses"];
            let success = responses["200"].take();
            responses.as_object_mut().unwrap().remove("200");
            responses["2XX"] = success;
        });
        assert_found(&findings, at, "rule 3");
        let findings = findings_after(|d| {
            let responses = &mut d["paths"]["/__sandbox/clock/advance"]["post"]["responses"];
            responses["201"] = json!({"description": "another", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/ControlError"}, "example": {"error": "x"}}}});
        });
        assert_found(&findings, at, "rule 3");
    }

    #[test]
    fn only_a_request_schema_may_be_closed_or_refuse_null() {
        let findings = findings_after(|d| {
            let schemas = &mut d["components"]["schemas"];
            schemas["ClockTime"]["additionalProperties"] = json!(false);
            schemas["ClockTime"]["properties"]["zone"] =
                json!({"type": "string", "description": "not nullable"});
            schemas["ClockAdvanceRequest"]["properties"]["zone"] =
                json!({"type": "string", "description": "not nullable"});
        });
        assert_found(
            &findings,
            "/components/schemas/ClockTime/additionalProperties",
            "rule 6",
        );
        assert_found(
            &findings,
            "/components/schemas/ClockTime/properties/zone",
            "rule 18",
        );
        assert!(
            !findings.iter().any(|f| f.contains("ClockAdvanceRequest")),
            "{findings:#?}"
        );
        // The same closed request body breaks rule 6 in an API document.
        let api = lint_document("openapi/x.yaml", &control());
        assert!(
            api.iter().any(|f| f
                .pointer
                .ends_with("ClockAdvanceRequest/additionalProperties")),
            "{api:#?}"
        );
    }

    #[test]
    fn the_doors_answers_and_no_x_psi_block_are_required() {
        let findings = findings_after(|d| {
            let operation = &mut d["paths"]["/__sandbox/faults"]["delete"];
            operation["responses"]
                .as_object_mut()
                .unwrap()
                .remove("403");
            operation["responses"]
                .as_object_mut()
                .unwrap()
                .remove("415");
            d["x-psi"] = json!({"crate": "psi-sandbox-control"});
        });
        let at = "/paths/~1__sandbox~1faults/delete/responses";
        assert_found(&findings, at, "does not declare 403 (rule 19)");
        assert_found(&findings, at, "does not declare 415 (rule 19)");
        assert_found(&findings, "/x-psi", "no x-psi block");
    }
}
