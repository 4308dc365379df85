//! The test-control API (`/__sandbox`) against its document, as published
//! in `schemas/sandbox-control/` from `openapi/sandbox-control.yaml`:
//!
//! - every call the Rust [`Control`] client makes is an operation of the
//!   document, with the headers the door asks for and a body its schema
//!   accepts, and the client reads the document's examples into its types;
//! - the Rust types of the answers ([`StoredTransaction`], the session
//!   records) and the document's schemas agree on the document's examples
//!   and on what the sandbox answers;
//! - every answer of the sandbox to the calls below is declared, with a
//!   body its schema accepts;
//! - every route the sandbox serves under `/__sandbox` is an operation of
//!   the document, and every operation is served (found by probing the
//!   running sandbox, not from its source).

use futures_util::StreamExt as _;
use psi_sandbox::{Control, Sandbox, Settings, StoredTransaction};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Nothing listens here: notifications fail and are retried.
const UNREACHABLE: &str = "http://127.0.0.1:9";

// ------------------------------------------------------------- the document

fn published() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas/sandbox-control")
}

/// One operation of the document.
#[derive(Debug, Clone)]
struct Operation {
    id: String,
    method: Method,
    /// `/__sandbox/sessions/{session_id}/complete`.
    template: String,
    definition: Value,
}

impl Operation {
    fn matches(&self, method: &Method, path: &str) -> bool {
        let template: Vec<&str> = self.template.split('/').collect();
        let segments: Vec<&str> = path.split('/').collect();
        *method == self.method
            && template.len() == segments.len()
            && template
                .iter()
                .zip(&segments)
                .all(|(t, s)| t == s || (t.starts_with('{') && t.ends_with('}') && !s.is_empty()))
    }

    /// The named schema of the JSON request body, if there is one.
    fn request_schema(&self) -> Option<String> {
        schema_name(
            self.definition
                .pointer("/requestBody/content/application~1json/schema")?,
        )
    }

    /// The declared response for `status`.
    fn response(&self, status: u16) -> Option<&Value> {
        self.definition.pointer(&format!("/responses/{status}"))
    }

    /// The first declared success: its status, schema name and example.
    fn success(&self) -> (u16, Option<String>, Option<Value>) {
        let responses = self.definition["responses"].as_object().expect("responses");
        let (status, response) = responses
            .iter()
            .find(|(status, _)| status.starts_with('2'))
            .expect("a success");
        let media = response.pointer("/content/application~1json");
        (
            status.parse().expect("a numeric status"),
            media.and_then(|m| schema_name(&m["schema"])),
            media.map(first_example),
        )
    }
}

fn schema_name(schema: &Value) -> Option<String> {
    schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
        .map(str::to_owned)
}

fn first_example(media: &Value) -> Value {
    media
        .get("example")
        .cloned()
        .or_else(|| {
            media["examples"]
                .as_object()
                .and_then(|e| e.values().next())
                .map(|e| e["value"].clone())
        })
        .expect("a documented example")
}

struct Document {
    json: Value,
    operations: Vec<Operation>,
    validators: Mutex<BTreeMap<String, Arc<jsonschema::Validator>>>,
}

impl Document {
    fn load() -> Arc<Document> {
        let path = published().join("openapi.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask schemas`)", path.display()));
        let json: Value = serde_json::from_str(&text).expect("JSON");
        let mut operations = Vec::new();
        for (template, item) in json["paths"].as_object().expect("paths") {
            for (method, definition) in item.as_object().expect("a path item") {
                operations.push(Operation {
                    id: definition["operationId"]
                        .as_str()
                        .expect("an id")
                        .to_owned(),
                    method: method.to_uppercase().parse().expect("a method"),
                    template: template.clone(),
                    definition: definition.clone(),
                });
            }
        }
        Arc::new(Document {
            json,
            operations,
            validators: Mutex::default(),
        })
    }

    fn operation(&self, method: &Method, path: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| o.matches(method, path))
    }

    fn by_id(&self, id: &str) -> &Operation {
        self.operations
            .iter()
            .find(|o| o.id == id)
            .unwrap_or_else(|| panic!("no operation {id}"))
    }

    /// The validator of the published JSON Schema of `name`, with formats.
    fn validator(&self, name: &str) -> Arc<jsonschema::Validator> {
        let mut validators = self.validators.lock().expect("not poisoned");
        validators
            .entry(name.to_owned())
            .or_insert_with(|| {
                let path = published().join("json-schema").join(format!("{name}.json"));
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let schema: Value = serde_json::from_str(&text).expect("JSON");
                Arc::new(
                    jsonschema::draft202012::options()
                        .should_validate_formats(true)
                        .build(&schema)
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
                )
            })
            .clone()
    }

    /// What the published schema of `name` finds wrong with `value`.
    fn errors(&self, name: &str, value: &Value) -> Vec<String> {
        self.validator(name)
            .iter_errors(value)
            .map(|error| format!("at {}: {error}", error.instance_path()))
            .collect()
    }

    fn assert_valid(&self, name: &str, value: &Value, what: &str) {
        let errors = self.errors(name, value);
        assert!(
            errors.is_empty(),
            "{what}: {value} is no {name}: {errors:#?}"
        );
    }

    /// Every example of the document whose schema is `name`: request and
    /// response bodies naming it, and the schema's own example.
    fn examples_of(&self, name: &str) -> Vec<Value> {
        fn walk(value: &Value, name: &str, found: &mut Vec<Value>) {
            match value {
                Value::Object(map) => {
                    if map.get("schema").and_then(schema_name).as_deref() == Some(name) {
                        if let Some(example) = map.get("example") {
                            found.push(example.clone());
                        }
                        for example in map
                            .get("examples")
                            .and_then(Value::as_object)
                            .into_iter()
                            .flatten()
                        {
                            found.push(example.1["value"].clone());
                        }
                    }
                    map.values().for_each(|child| walk(child, name, found));
                }
                Value::Array(items) => items.iter().for_each(|child| walk(child, name, found)),
                _ => {}
            }
        }
        let mut found = Vec::new();
        walk(&self.json["paths"], name, &mut found);
        if let Some(example) = self
            .json
            .pointer(&format!("/components/schemas/{name}/example"))
        {
            found.push(example.clone());
        }
        found
    }

    /// Checks one answer of the sandbox: its status is declared for the
    /// operation, and its body is what the status declares (a body its
    /// schema accepts, or none).
    fn check_answer(&self, method: &Method, path: &str, status: u16, body: &str) -> Value {
        let operation = self
            .operation(method, path)
            .unwrap_or_else(|| panic!("{method} {path} is no operation of the document"));
        let response = operation.response(status).unwrap_or_else(|| {
            panic!(
                "{} ({method} {path}) does not declare {status}: {body}",
                operation.id
            )
        });
        let what = format!("{} {status} ({method} {path})", operation.id);
        match response.pointer("/content/application~1json/schema") {
            None => {
                assert!(body.is_empty(), "{what} declares no body: {body}");
                Value::Null
            }
            Some(schema) => {
                let value: Value = serde_json::from_str(body)
                    .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {body}"));
                let name = schema_name(schema).expect("a named schema");
                self.assert_valid(&name, &value, &what);
                value
            }
        }
    }
}

// ------------------------------------------ the client against a recorder

/// A request as the recorder received it.
#[derive(Debug, Clone)]
struct Recorded {
    method: Method,
    path: String,
    query: Option<String>,
    content_type: Option<String>,
    authorization: Option<String>,
    body: String,
}

/// A stand-in for the sandbox that records each request and answers it
/// with the first success its operation documents (the example, with the
/// status), or 404 for a request that is no operation.
struct Recorder {
    url: String,
    calls: Arc<Mutex<Vec<Recorded>>>,
}

impl Recorder {
    async fn start(document: Arc<Document>) -> Recorder {
        let calls: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let recorded = calls.clone();
        let answer = move |request: axum::extract::Request| {
            let document = document.clone();
            let recorded = recorded.clone();
            async move {
                let (parts, body) = request.into_parts();
                let body = axum::body::to_bytes(body, 1 << 20).await.expect("a body");
                let header = |name| {
                    parts
                        .headers
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned)
                };
                recorded.lock().expect("not poisoned").push(Recorded {
                    method: parts.method.clone(),
                    path: parts.uri.path().to_owned(),
                    query: parts.uri.query().map(str::to_owned),
                    content_type: header(reqwest::header::CONTENT_TYPE),
                    authorization: header(reqwest::header::AUTHORIZATION),
                    body: String::from_utf8(body.to_vec()).expect("UTF-8"),
                });
                let status_and_body = match document.operation(&parts.method, parts.uri.path()) {
                    None => (404, Some(json!({"error": "no such operation"}))),
                    Some(operation) => {
                        let (status, _, example) = operation.success();
                        (status, example)
                    }
                };
                let (status, body) = status_and_body;
                let status = axum::http::StatusCode::from_u16(status).expect("a status");
                match body {
                    Some(body) => {
                        axum::response::IntoResponse::into_response((status, axum::Json(body)))
                    }
                    None => axum::response::IntoResponse::into_response(status),
                }
            }
        };
        let router = axum::Router::new().fallback(answer);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        tokio::spawn(async move { axum::serve(listener, router).await });
        Recorder { url, calls }
    }

    fn calls(&self) -> Vec<Recorded> {
        self.calls.lock().expect("not poisoned").clone()
    }
}

/// Every method of [`Control`] calls an operation of the document, with the
/// control token, `application/json` on every write (the door's rule) and a
/// body the operation's schema accepts; the typed methods read the
/// document's examples into their types.
#[tokio::test]
async fn every_call_of_the_control_client_is_an_operation_of_the_document() {
    let document = Document::load();
    let recorder = Recorder::start(document.clone()).await;
    let control = Control::new(&recorder.url).with_token("control-token");

    let about = document
        .by_id("describeSandbox")
        .success()
        .2
        .expect("an example");
    let now = control.now().await.expect("now");
    assert_eq!(
        Value::String(now.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, false)),
        about["now"]
    );

    let sessions = control.sessions().await.expect("sessions");
    let listed = document
        .by_id("listSessions")
        .success()
        .2
        .expect("an example");
    assert_eq!(serde_json::to_value(&sessions).expect("JSON"), listed);

    let stored = control
        .transaction("12-34567890123456789")
        .await
        .expect("a transaction");
    let example = document
        .by_id("getStoredTransaction")
        .success()
        .2
        .expect("an example");
    assert_eq!(
        stored,
        serde_json::from_value::<StoredTransaction>(example).expect("a StoredTransaction")
    );

    let completed = document
        .by_id("completeSession")
        .success()
        .2
        .expect("an example");
    let session = "5f0c7a52-1d2e-4b8a-9c3f-2a6d8e4b1c70";
    assert_eq!(
        control
            .complete_session(session, "OPEN_INVOICE")
            .await
            .expect("completed"),
        completed["transaction_id"]
            .as_str()
            .expect("a transaction id")
    );
    control.cancel_session(session).await.expect("canceled");
    control.fail_session(session).await.expect("failed");
    control.advance_clock(3600).await.expect("advanced");
    control
        .fail_next("getPayLaterStatus", 503, 2)
        .await
        .expect("armed");
    control
        .delay_next("bookPayLaterOffer", 50, 1)
        .await
        .expect("armed");
    control
        .answer_after_processing("bookPayLaterOffer", 500, None, 1)
        .await
        .expect("armed");
    control
        .answer_after_processing("bookPayLaterOffer", 200, Some(json!({"ok": true})), 1)
        .await
        .expect("armed");
    control
        .withdraw_pay_later("12-34567890123456789")
        .await
        .expect("withdrawn");
    for seed in document
        .by_id("seedStorefrontOrder")
        .definition
        .pointer("/requestBody/content/application~1json/examples")
        .and_then(Value::as_object)
        .expect("examples")
        .values()
    {
        control
            .seed_storefront_order(
                &serde_json::from_value(seed["value"].clone()).expect("a StorefrontOrderSeed"),
            )
            .await
            .expect("seeded");
    }
    let webhooks = control.webhooks().await.expect("webhooks");
    document.assert_valid("WebhookDeliveryList", &json(&webhooks), "webhooks()");
    let resent = control.resend_webhook(0).await.expect("resent");
    document.assert_valid("WebhookDelivery", &json(&resent), "resend_webhook()");
    let notified = control.notify_session(session).await.expect("notified");
    document.assert_valid("WebhookDelivery", &json(&notified), "notify_session()");
    let invoiced = control
        .notify_invoice("12-34567890123456789")
        .await
        .expect("notified");
    document.assert_valid("WebhookDeliveryList", &json(&invoiced), "notify_invoice()");
    let subscribed = control
        .subscribe_invoice_webhooks("http://127.0.0.1:9000/invoice")
        .await
        .expect("subscribed");
    document.assert_valid(
        "WebhookSubscription",
        &json(&subscribed),
        "subscribe_invoice_webhooks()",
    );
    control
        .webhook_subscriptions()
        .await
        .expect("subscriptions");
    control
        .clear_webhook_subscriptions()
        .await
        .expect("cleared");
    let about = control.about().await.expect("about");
    document.assert_valid("SandboxDescription", &json(&about), "about()");
    let reset = control.reset().await.expect("reset");
    document.assert_valid("ResetOutcome", &json(&reset), "reset()");
    control.requests().await.expect("requests");
    control.clear_requests().await.expect("cleared");

    // The operator's calls that manage tenants, and a tenant's own client.
    let created = control
        .create_tenant(Some("acme-shop"))
        .await
        .expect("created");
    document.assert_valid("Tenant", &json(&created), "create_tenant()");
    control.create_tenant(None).await.expect("created");
    let tenants = control.tenants().await.expect("tenants");
    document.assert_valid("TenantSummaryList", &json(&tenants), "tenants()");
    control.delete_tenant("acme-shop").await.expect("deleted");
    let calls_before_the_tenants_client = recorder.calls().len();
    let own = control.for_tenant(&created);
    own.sessions().await.expect("sessions");
    let scoped = control.scoped("acme-shop");
    scoped.sessions().await.expect("sessions");
    scoped.reset().await.expect("reset");

    let calls = recorder.calls();
    let (operator_calls, tenant_calls) = calls.split_at(calls_before_the_tenants_client);
    assert_eq!(
        tenant_calls[0].authorization.as_deref(),
        Some(format!("Bearer {}", created.control_token.expose()).as_str()),
        "a tenant's client sends its control token"
    );
    assert_eq!(tenant_calls[0].query, None, "and no tenant parameter");
    for call in &tenant_calls[1..] {
        assert_eq!(call.authorization.as_deref(), Some("Bearer control-token"));
        assert_eq!(
            call.query.as_deref(),
            Some("tenant=acme-shop"),
            "{}",
            call.path
        );
    }
    for call in operator_calls {
        assert_eq!(call.query, None, "{} {}", call.method, call.path);
    }
    let calls = operator_calls;
    let mut reached = BTreeSet::new();
    for call in calls {
        let what = format!("{} {}", call.method, call.path);
        let operation = document
            .operation(&call.method, &call.path)
            .unwrap_or_else(|| {
                panic!("the client calls {what}, which is no operation of the document")
            });
        reached.insert(operation.id.clone());
        assert_eq!(
            call.authorization.as_deref(),
            Some("Bearer control-token"),
            "{what}"
        );
        if call.method != Method::GET {
            let essence = call
                .content_type
                .as_deref()
                .and_then(|c| c.split(';').next());
            assert_eq!(
                essence,
                Some("application/json"),
                "{what}: every write says JSON"
            );
        }
        if let Some(schema) = operation.request_schema() {
            let body: Value = if call.body.trim().is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&call.body).unwrap_or_else(|e| panic!("{what}: {e}"))
            };
            if !(call.body.trim().is_empty() && schema == "UnreadBody") {
                document.assert_valid(&schema, &body, &what);
            }
        } else {
            assert!(
                call.body.is_empty(),
                "{what} sends a body the operation does not declare"
            );
        }
    }
    let expected: BTreeSet<String> = [
        "describeSandbox",
        "listSessions",
        "getStoredTransaction",
        "completeSession",
        "cancelSession",
        "failSession",
        "advanceClock",
        "armFault",
        "withdrawPayLater",
        "seedStorefrontOrder",
        "listWebhookDeliveries",
        "resendWebhookDelivery",
        "notifySession",
        "notifyInvoice",
        "subscribeInvoiceWebhook",
        "listInvoiceWebhookSubscriptions",
        "clearInvoiceWebhookSubscriptions",
        "resetSandbox",
        "listRequests",
        "clearRequests",
        "createTenant",
        "listTenants",
        "deleteTenant",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(
        reached, expected,
        "the operations the client's methods call"
    );
}

/// A typed answer as JSON, to check it against its schema.
fn json(typed: &impl serde::Serialize) -> Value {
    serde_json::to_value(typed).expect("a typed answer serialises")
}

// ------------------------------------------------- Rust types and schemas

/// The document's examples of a stored transaction read into
/// [`StoredTransaction`], which writes them back as they were and as the
/// schema accepts them; the same for the session records.
#[test]
fn the_rust_types_read_and_write_the_documents_examples() {
    let document = Document::load();
    let transactions = document.examples_of("StoredTransaction");
    assert!(transactions.len() >= 2, "{transactions:?}");
    for example in transactions {
        let typed: StoredTransaction =
            serde_json::from_value(example.clone()).expect("a StoredTransaction");
        let written = serde_json::to_value(&typed).expect("JSON");
        document.assert_valid(
            "StoredTransaction",
            &written,
            "a StoredTransaction written back",
        );
        assert_eq!(written, example);
    }
    let records = document.examples_of("SessionRecords");
    assert!(!records.is_empty());
    for example in records {
        let typed: Vec<psi_payment_page::types::SessionRecord> =
            serde_json::from_value(example.clone()).expect("session records");
        let written = serde_json::to_value(&typed).expect("JSON");
        document.assert_valid("SessionRecords", &written, "session records written back");
        assert_eq!(written, example);
    }
    for example in document.examples_of("SessionRecord") {
        let typed: psi_payment_page::types::SessionRecord =
            serde_json::from_value(example.clone()).expect("a session record");
        assert_eq!(serde_json::to_value(&typed).expect("JSON"), example);
    }
}

// ------------------------------------------------ the sandbox's answers

/// Calls of the sandbox, each answer checked against the document.
struct Checked {
    document: Arc<Document>,
    http: reqwest::Client,
    url: String,
    token: Option<String>,
}

impl Checked {
    /// A control call, with `Content-Type: application/json` on writes;
    /// answers its status and checked body.
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.url));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if method != Method::GET {
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.map(|b| b.to_string()).unwrap_or_default());
        }
        let response = request.send().await.expect("the sandbox answers");
        let status = response.status().as_u16();
        let text = response.text().await.expect("a body");
        let value = self.document.check_answer(&method, path, status, &text);
        (status, value)
    }

    async fn expect(&self, method: Method, path: &str, body: Option<Value>, status: u16) -> Value {
        let (answered, value) = self.call(method.clone(), path, body).await;
        assert_eq!(answered, status, "{method} {path}: {value}");
        value
    }
}

async fn token(http: &reqwest::Client, url: &str, audience: &str) -> String {
    let answer: Value = http
        .post(format!("{url}/oauth/token"))
        .json(&json!({
            "grant_type": "client_credentials",
            "client_id": psi_sandbox::DEMO_CLIENT_ID,
            "client_secret": psi_sandbox::DEMO_CLIENT_SECRET,
            "audience": audience,
        }))
        .send()
        .await
        .expect("a token answer")
        .json()
        .await
        .expect("JSON");
    answer["access_token"].as_str().expect("a token").to_owned()
}

/// A new session of the demo order; answers its id.
async fn new_session(http: &reqwest::Client, url: &str, bearer: &str) -> String {
    let answer: Value = http
        .post(format!("{url}/pps/api/v1/session"))
        .bearer_auth(bearer)
        .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
        .json(&psi_sandbox::demo::session_request(&format!(
            "{UNREACHABLE}/session"
        )))
        .send()
        .await
        .expect("a session answer")
        .json()
        .await
        .expect("JSON");
    answer["session_id"]
        .as_str()
        .expect("a session id")
        .to_owned()
}

/// Each operation of the document against a running sandbox, on its
/// success path and its refusals: every answer is declared, with a body its
/// schema accepts. The typed methods of [`Control`] read the same answers.
#[tokio::test]
async fn the_sandbox_answers_as_the_document_declares() {
    let document = Document::load();
    let sandbox = Sandbox::start().await.expect("a sandbox");
    let url = sandbox.url().to_owned();
    let http = reqwest::Client::new();
    let checked = Checked {
        document: document.clone(),
        http: http.clone(),
        url: url.clone(),
        token: None,
    };
    let control = sandbox.control();
    use Method as M;

    let about = checked.expect(M::GET, "/__sandbox", None, 200).await;
    assert_eq!(about["url"], json!(url));

    checked
        .expect(
            M::POST,
            "/__sandbox/clock/advance",
            Some(json!({"seconds": 60})),
            200,
        )
        .await;
    let refused = checked
        .expect(
            M::POST,
            "/__sandbox/clock/advance",
            Some(json!({"seconds": 400_000_000_000i64})),
            400,
        )
        .await;
    assert!(refused["limit"].is_string(), "{refused}");
    checked
        .expect(
            M::POST,
            "/__sandbox/clock/advance",
            Some(json!({"seconds": "1h"})),
            400,
        )
        .await;
    checked
        .expect(
            M::POST,
            "/__sandbox/clock/advance",
            Some(json!({"seconds": 1, "by": 2})),
            400,
        )
        .await;

    for fault in document.examples_of("FaultRequest") {
        document.assert_valid("FaultRequest", &fault, "an armed fault");
        checked
            .expect(M::POST, "/__sandbox/faults", Some(fault), 204)
            .await;
    }
    checked
        .expect(
            M::POST,
            "/__sandbox/faults",
            Some(json!({"operation": "x", "body": {}})),
            400,
        )
        .await;
    checked
        .expect(M::DELETE, "/__sandbox/faults", None, 204)
        .await;

    let page = token(&http, &url, &url).await;
    let mut sessions = Vec::new();
    for _ in 0..5 {
        sessions.push(new_session(&http, &url, &page).await);
    }
    let listed = checked
        .expect(M::GET, "/__sandbox/sessions", None, 200)
        .await;
    assert_eq!(listed.as_array().map(Vec::len), Some(5));
    assert_eq!(control.sessions().await.expect("typed records").len(), 5);

    let complete = format!("/__sandbox/sessions/{}/complete", sessions[0]);
    let completed = checked
        .expect(
            M::POST,
            &complete,
            Some(json!({"payment_option": "OPEN_INVOICE"})),
            200,
        )
        .await;
    checked
        .expect(M::POST, &complete, Some(json!({})), 409)
        .await;
    let fail = format!("/__sandbox/sessions/{}/fail", sessions[1]);
    checked
        .expect(M::POST, &fail, Some(json!({"category": "SYNTAX"})), 400)
        .await;
    checked
        .expect(M::POST, &fail, Some(json!({"category": "CONTRACT"})), 200)
        .await;
    for (ending, session) in ["cancel", "expire", "fraud-cancel"]
        .iter()
        .zip(&sessions[2..])
    {
        let path = format!("/__sandbox/sessions/{session}/{ending}");
        checked.expect(M::POST, &path, None, 200).await;
        checked
            .expect(M::POST, &path, Some(json!([1, 2])), 409)
            .await;
    }
    checked
        .expect(M::POST, "/__sandbox/sessions/unknown/cancel", None, 404)
        .await;
    checked
        .expect(M::POST, "/__sandbox/sessions/%2E%2E/cancel", None, 404)
        .await;

    let transaction_id = completed["transaction_id"].as_str().expect("an id");
    let path = format!("/__sandbox/transactions/{transaction_id}");
    let stored = checked.expect(M::GET, &path, None, 200).await;
    let typed = control.transaction(transaction_id).await.expect("typed");
    assert_eq!(serde_json::to_value(&typed).expect("JSON"), stored);
    checked
        .expect(
            M::GET,
            "/__sandbox/transactions/12-00000000000000000",
            None,
            404,
        )
        .await;

    let new = document.by_id("storeTransaction").definition["requestBody"]["content"]
        ["application/json"]["example"]
        .clone();
    checked
        .expect(M::POST, "/__sandbox/transactions", Some(new.clone()), 201)
        .await;
    checked
        .expect(M::POST, "/__sandbox/transactions", Some(new.clone()), 409)
        .await;
    let mut broken = new.clone();
    broken["transaction_id"] = json!("12-1");
    checked
        .expect(M::POST, "/__sandbox/transactions", Some(broken), 400)
        .await;
    let mut empty = new;
    empty["transaction_id"] = json!("12-00000000000000002");
    empty["order_data"] = json!({});
    checked
        .expect(M::POST, "/__sandbox/transactions", Some(empty), 422)
        .await;

    let withdraw = format!("/__sandbox/pay-later/{transaction_id}/withdraw");
    checked.expect(M::POST, &withdraw, None, 409).await;
    let pay_later = token(&http, &url, &format!("{url}/paylater")).await;
    let booked = http
        .post(format!("{url}/order/paylater/v1/{transaction_id}"))
        .bearer_auth(&pay_later)
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/json;charset=UTF-8",
        )
        .body(r#"{"offer_id": "payl-1"}"#)
        .send()
        .await
        .expect("a booking");
    assert!(booked.status().is_success(), "{}", booked.status());
    checked
        .expect(M::POST, &withdraw, Some(json!({})), 200)
        .await;
    checked
        .expect(M::POST, &withdraw, Some(json!({})), 409)
        .await;
    checked
        .expect(
            M::POST,
            "/__sandbox/pay-later/12-00000000000000009/withdraw",
            None,
            404,
        )
        .await;

    let seeds = document
        .by_id("seedStorefrontOrder")
        .definition
        .pointer("/requestBody/content/application~1json/examples")
        .cloned()
        .expect("examples");
    for seed in seeds.as_object().expect("examples").values() {
        checked
            .expect(
                M::POST,
                "/__sandbox/storefront/orders",
                Some(seed["value"].clone()),
                201,
            )
            .await;
    }
    let lines = &seeds["lines"]["value"];
    checked
        .expect(
            M::POST,
            "/__sandbox/storefront/orders",
            Some(lines.clone()),
            409,
        )
        .await;
    checked
        .expect(
            M::POST,
            "/__sandbox/storefront/orders",
            Some(json!({})),
            400,
        )
        .await;
    checked
        .expect(
            M::POST,
            "/__sandbox/storefront/orders",
            Some(json!({"transaction_id": "12-00000000000000009"})),
            404,
        )
        .await;

    let subscription = json!({"url": "http://127.0.0.1:9/invoice"});
    checked
        .expect(
            M::POST,
            "/__sandbox/webhook-subscriptions",
            Some(subscription.clone()),
            201,
        )
        .await;
    checked
        .expect(
            M::POST,
            "/__sandbox/webhook-subscriptions",
            Some(subscription),
            200,
        )
        .await;
    checked
        .expect(
            M::POST,
            "/__sandbox/webhook-subscriptions",
            Some(json!({"url": "ftp://x"})),
            400,
        )
        .await;
    checked
        .expect(M::GET, "/__sandbox/webhook-subscriptions", None, 200)
        .await;
    // With the subscription in place, a completion also announces an invoice.
    let invoiced = new_session(&http, &url, &page).await;
    control
        .complete_session(&invoiced, "OPEN_INVOICE")
        .await
        .expect("completed");
    checked
        .expect(M::DELETE, "/__sandbox/webhook-subscriptions", None, 204)
        .await;
    let deliveries = checked
        .expect(M::GET, "/__sandbox/webhooks", None, 200)
        .await;
    let kinds: BTreeSet<&str> = deliveries
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|d| d["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        BTreeSet::from(["invoice", "session"]),
        "{deliveries}"
    );
    // Notifications on demand and again, each a new delivery (202).
    checked
        .expect(M::POST, "/__sandbox/webhooks/0/resend", None, 202)
        .await;
    checked
        .expect(M::POST, "/__sandbox/webhooks/999999/resend", None, 404)
        .await;
    checked
        .expect(M::POST, "/__sandbox/webhooks/first/resend", None, 404)
        .await;
    checked
        .expect(
            M::POST,
            &format!("/__sandbox/sessions/{invoiced}/notify"),
            Some(json!({})),
            202,
        )
        .await;
    checked
        .expect(M::POST, "/__sandbox/sessions/unknown/notify", None, 404)
        .await;
    let transaction = deliveries
        .as_array()
        .expect("a list")
        .iter()
        .find(|d| d["kind"] == "invoice")
        .and_then(|d| serde_json::from_str::<Value>(d["body"].as_str()?).ok())
        .expect("an invoice notification");
    let invoiced_transaction = transaction["gateway_transaction_id"]
        .as_str()
        .expect("an id");
    let none = checked
        .expect(
            M::POST,
            &format!("/__sandbox/transactions/{invoiced_transaction}/notify-invoice"),
            None,
            202,
        )
        .await;
    assert_eq!(none, json!([]), "no subscription is left");
    checked
        .expect(
            M::POST,
            "/__sandbox/transactions/12-00000000000000000/notify-invoice",
            None,
            404,
        )
        .await;

    let config = "/__sandbox/shop-config/pp0123456789/shop-1";
    let unknown = checked.expect(M::GET, config, None, 404).await;
    assert!(unknown["message"].is_string(), "{unknown}");
    let refused = checked
        .expect(M::GET, "/__sandbox/shop-config/%2E/shop-1", None, 404)
        .await;
    assert!(refused["error"].is_string(), "{refused}");
    let shop_config = token(&http, &url, &format!("{url}/shop-config")).await;
    let stored = http
        .put(format!(
            "{url}/shop-config/v2/partners/pp0123456789/shops/shop-1"
        ))
        .bearer_auth(&shop_config)
        .json(&psi_sandbox::demo::shop_configuration())
        .send()
        .await
        .expect("a configuration stored");
    assert!(stored.status().is_success(), "{}", stored.status());
    checked.expect(M::GET, config, None, 200).await;
}

/// The door's refusals, as the document declares them: another `Host`
/// (403), a write that does not say JSON (415), a missing control token
/// (401).
#[tokio::test]
async fn the_doors_refusals_are_declared() {
    let document = Document::load();
    let sandbox = Sandbox::start_with(Settings::default().control_token("door-token"))
        .await
        .expect("a sandbox");
    let http = reqwest::Client::new();
    let url = sandbox.url();
    for operation in &document.operations {
        // The health check passes no door (`security: []`): a probe carries
        // no token and comes by any name (tests/cli.rs checks it).
        if operation.template == "/__sandbox/health" {
            continue;
        }
        let path = operation
            .template
            .replace("{session_id}", "s")
            .replace("{transaction_id}", "12-00000000000000000")
            .replace("{partner_profile_id}", "p")
            .replace("{shop_id}", "s");
        let request = || http.request(operation.method.clone(), format!("{url}{path}"));
        let check = |status: StatusCode, text: String| {
            document.check_answer(&operation.method, &path, status.as_u16(), &text);
            status
        };
        let answer = request().send().await.expect("an answer");
        let status = answer.status();
        assert_eq!(
            check(status, answer.text().await.expect("a body")),
            StatusCode::UNAUTHORIZED,
            "{path}"
        );
        let answer = request()
            .bearer_auth("door-token")
            .header(reqwest::header::HOST, "evil.example")
            .send()
            .await
            .expect("an answer");
        let status = answer.status();
        assert_eq!(
            check(status, answer.text().await.expect("a body")),
            StatusCode::FORBIDDEN,
            "{path}"
        );
        if operation.method != Method::GET {
            let answer = request()
                .bearer_auth("door-token")
                .header(reqwest::header::CONTENT_TYPE, "text/plain")
                .body("{}")
                .send()
                .await
                .expect("an answer");
            let status = answer.status();
            assert_eq!(
                check(status, answer.text().await.expect("a body")),
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "{path}"
            );
        }
    }
}

// --------------------------------------------------------------- routes

/// The words of the control API's paths in the operator's guide's table
/// (this crate's README: its path segments, and the endings it names in
/// backticks), independent of the document.
fn readme_path_words() -> BTreeSet<String> {
    let readme = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let text = std::fs::read_to_string(&readme).expect("README.md");
    let word = |w: &str| {
        !w.is_empty()
            && w.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
            && w.as_bytes()[0].is_ascii_lowercase()
    };
    let mut words = BTreeSet::new();
    for line in text.lines().filter(|line| line.contains("/__sandbox")) {
        for span in line.split('`').skip(1).step_by(2) {
            let path = span
                .split_whitespace()
                .find(|part| part.starts_with("/__sandbox"));
            match path {
                Some(path) => words.extend(path.split('/').filter(|w| word(w)).map(str::to_owned)),
                None if word(span) => {
                    words.insert(span.to_owned());
                }
                None => {}
            }
        }
    }
    words.remove("__sandbox");
    words
}

/// Every route the sandbox serves under `/__sandbox` is an operation of the
/// document, and every operation is served. The routes are found by
/// probing a running sandbox with the words of the paths of the document
/// and of the README's table, and an id: every path below `/__sandbox` of
/// one or two segments, and of three whose middle or last segment is the
/// id, is asked for with GET, which the router answers as an unknown path,
/// as a path served with other methods (405) or with the served GET; each
/// path served is then asked for with every method. (A route with a word
/// neither names, or with more segments, is beyond this probe.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_served_under_the_prefix_is_documented() {
    use Method as M;
    const ID: &str = "id-1";
    let document = Document::load();
    let sandbox = Sandbox::start().await.expect("a sandbox");
    let http = reqwest::Client::new();
    let url = sandbox.url().to_owned();
    let mut words = readme_path_words();
    assert!(
        words.contains("fraud-cancel"),
        "the README's words: {words:?}"
    );
    words.extend(
        document
            .operations
            .iter()
            .flat_map(|o| o.template.split('/').map(str::to_owned).collect::<Vec<_>>())
            .filter(|word| !word.is_empty() && word != "__sandbox" && !word.starts_with('{')),
    );
    let ids: Vec<String> = words.iter().cloned().chain([ID.to_owned()]).collect();

    let mut candidates = vec!["/__sandbox".to_owned()];
    for first in &ids {
        candidates.push(format!("/__sandbox/{first}"));
        for second in &ids {
            candidates.push(format!("/__sandbox/{first}/{second}"));
        }
    }
    for first in &words {
        for last in &ids {
            candidates.push(format!("/__sandbox/{first}/{ID}/{last}"));
        }
        for second in &words {
            candidates.push(format!("/__sandbox/{first}/{second}/{ID}"));
        }
    }
    // How the router answers a path it does not serve.
    let unknown = http
        .get(format!("{url}/__sandbox/no-such-word"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let unknown = unknown.text().await.expect("a body");
    assert!(
        unknown.contains("no operation is served at this path"),
        "{unknown}"
    );
    let probes = candidates.into_iter().map(|path| {
        let http = http.clone();
        let url = url.clone();
        async move {
            let answer = http
                .get(format!("{url}{path}"))
                .send()
                .await
                .expect("an answer");
            let status = answer.status();
            let body = answer.text().await.expect("a body");
            let unknown = status == StatusCode::NOT_FOUND
                && body.contains("no operation is served at this path");
            (!unknown).then_some(path)
        }
    });
    let served: Vec<String> = futures_util::stream::iter(probes)
        .buffer_unordered(8)
        .filter_map(|path| async move { path })
        .collect()
        .await;

    let mut found = BTreeSet::new();
    for path in &served {
        for method in [M::GET, M::POST, M::PUT, M::PATCH, M::DELETE] {
            let answer = http
                .request(method.clone(), format!("{url}{path}"))
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(if method == M::GET { "" } else { "{}" })
                .send()
                .await
                .expect("an answer");
            if answer.status() == StatusCode::METHOD_NOT_ALLOWED {
                continue;
            }
            let operation = document.operation(&method, path).unwrap_or_else(|| {
                panic!(
                    "{method} {path} is served ({}) but is no operation of the document",
                    answer.status()
                )
            });
            found.insert(operation.id.clone());
        }
    }
    let documented: BTreeSet<String> = document.operations.iter().map(|o| o.id.clone()).collect();
    assert_eq!(found, documented, "the operations served");
}
