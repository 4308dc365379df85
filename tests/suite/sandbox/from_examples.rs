//! A document the sandbox does not emulate by hand is served from its
//! examples: the made-up dispute management document of
//! `tests/fixtures/from-examples/` (marked as an example, never shipped),
//! added through `Settings::with_document` as `cargo xtask generate` would
//! bundle it. Plain HTTP, so that every status and body is seen as sent.

use super::token;
use psi_sandbox::{Document, Sandbox, Settings};
use serde_json::{json, Value};

const FIXTURE: &str = include_str!("../../fixtures/from-examples/dispute-management.json");
const BASE_PATH: &str = "/dispute/management";

fn document(audience: Option<&'static str>) -> Document {
    Document {
        name: "dispute-management",
        base_path: BASE_PATH,
        audience,
        json: FIXTURE,
    }
}

async fn sandbox(audience: Option<&'static str>) -> Sandbox {
    let settings = Settings::default().with_document(document(audience));
    Sandbox::start_with(settings)
        .await
        .expect("the sandbox starts with the fixture document")
}

async fn disputes() -> Sandbox {
    sandbox(Some("{api_url}/dispute/management")).await
}

/// A value of the fixture document, by JSON pointer.
fn documented(pointer: &str) -> Value {
    let fixture: Value = serde_json::from_str(FIXTURE).expect("the fixture is JSON");
    fixture
        .pointer(pointer)
        .unwrap_or_else(|| panic!("the fixture has {pointer}"))
        .clone()
}

async fn dispute_token(sandbox: &Sandbox) -> String {
    token(sandbox, &format!("{}{BASE_PATH}", sandbox.url())).await
}

struct Answer {
    status: u16,
    content_type: Option<String>,
    text: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|_| panic!("a JSON body, got {:?}", self.text))
    }

    /// The `(json_path, message)` of a decline's invalid fields.
    fn invalid_fields(&self, status: u16) -> Vec<(String, String)> {
        assert_eq!(self.status, status, "{}", self.text);
        let body = self.json();
        body["decline"]["invalid_fields"]
            .as_array()
            .unwrap_or_else(|| panic!("a decline naming fields: {body}"))
            .iter()
            .map(|field| {
                (
                    field["json_path"].as_str().unwrap_or_default().to_owned(),
                    field["message"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }
}

async fn call(
    sandbox: &Sandbox,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Answer {
    let mut request =
        reqwest::Client::new().request(method, format!("{}{BASE_PATH}{path}", sandbox.url()));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_owned());
    }
    let response = request.send().await.expect("the sandbox answers");
    Answer {
        status: response.status().as_u16(),
        content_type: response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        text: response.text().await.expect("a body"),
    }
}

async fn get(sandbox: &Sandbox, path: &str, token: Option<&str>) -> Answer {
    call(sandbox, reqwest::Method::GET, path, token, &[], None).await
}

async fn delete(sandbox: &Sandbox, path: &str, token: &str) -> Answer {
    call(
        sandbox,
        reqwest::Method::DELETE,
        path,
        Some(token),
        &[],
        None,
    )
    .await
}

async fn post(sandbox: &Sandbox, path: &str, token: &str, body: &str) -> Answer {
    call(
        sandbox,
        reqwest::Method::POST,
        path,
        Some(token),
        &[],
        Some(body),
    )
    .await
}

#[tokio::test]
async fn the_documented_example_of_the_lowest_success_is_answered() {
    let sandbox = disputes().await;
    let token = dispute_token(&sandbox).await;

    let one = get(&sandbox, "/v1/disputes/D-000001", Some(&token)).await;
    assert_eq!(one.status, 200, "{}", one.text);
    assert_eq!(one.content_type.as_deref(), Some("application/json"));
    let example =
        "/paths/~1v1~1disputes~1{dispute_id}/get/responses/200/content/application~1json/example";
    assert_eq!(one.json(), documented(example));

    // `examples`: its first entry, here a reference to components.examples.
    let list = get(
        &sandbox,
        "/v1/disputes?opened_after=2026-01-01",
        Some(&token),
    )
    .await;
    assert_eq!(list.status, 200, "{}", list.text);
    assert_eq!(
        list.json(),
        documented("/components/examples/TwoDisputes/value")
    );

    // No example: built from the schema's property examples and enum.
    let evidence = post(
        &sandbox,
        "/v1/disputes/D-000001/evidence",
        &token,
        r#"{"kind":"RECEIPT"}"#,
    )
    .await;
    assert_eq!(evidence.status, 201, "{}", evidence.text);
    let properties = documented("/components/schemas/Evidence/properties");
    assert_eq!(
        evidence.json(),
        json!({
            "evidence_id": properties["evidence_id"]["example"],
            "kind": properties["kind"]["enum"][0],
            "received": properties["received"]["example"],
        })
    );

    // A response without content: no body.
    let path = "/v1/disputes/D-000001/evidence/0b6f4c3e-8d2a-4f7e-9a51-3c2d1e0f9a8b";
    let deleted = delete(&sandbox, path, &token).await;
    assert_eq!(deleted.status, 204, "{}", deleted.text);
    assert_eq!(deleted.text, "");
}

#[tokio::test]
async fn prefer_picks_another_documented_status_or_example() {
    let sandbox = disputes().await;
    let token = dispute_token(&sandbox).await;
    let prefer = |value: &'static str| [("prefer", value)];

    let not_found = call(
        &sandbox,
        reqwest::Method::GET,
        "/v1/disputes/D-000009",
        Some(&token),
        &prefer("code=404"),
        None,
    )
    .await;
    assert_eq!(not_found.status, 404, "{}", not_found.text);
    let example = "/paths/~1v1~1disputes~1{dispute_id}/get/responses/404/content/application~1json/examples/unknown/value";
    assert_eq!(not_found.json(), documented(example));

    let path = "/v1/disputes?opened_after=2026-01-01";
    let none = call(
        &sandbox,
        reqwest::Method::GET,
        path,
        Some(&token),
        &prefer("example=none"),
        None,
    )
    .await;
    assert_eq!(none.status, 200, "{}", none.text);
    let example =
        "/paths/~1v1~1disputes/get/responses/200/content/application~1json/examples/none/value";
    assert_eq!(none.json(), documented(example));

    // What the operation does not document is refused, naming the header.
    for asked in ["code=418", "example=nothing", "code=teapot"] {
        let refused = call(
            &sandbox,
            reqwest::Method::GET,
            "/v1/disputes/D-000001",
            Some(&token),
            &prefer(asked),
            None,
        )
        .await;
        let fields = refused.invalid_fields(400);
        assert_eq!(fields[0].0, "Prefer", "{asked}: {fields:?}");
    }
}

#[tokio::test]
async fn bad_path_and_query_parameters_are_refused_naming_them() {
    let sandbox = disputes().await;
    let token = dispute_token(&sandbox).await;

    let fields = get(&sandbox, "/v1/disputes/X-1", Some(&token))
        .await
        .invalid_fields(400);
    assert_eq!(fields[0].0, "dispute_id");
    assert!(fields[0].1.contains("pattern ^D-[0-9]{6}$"), "{fields:?}");

    let path = "/v1/disputes/D-000001/evidence/not-a-uuid";
    let deleted = delete(&sandbox, path, &token).await;
    assert_eq!(
        deleted.invalid_fields(400)[0],
        ("evidence_id".to_owned(), "must be a valid uuid".to_owned())
    );

    for (query, field, rule) in [
        ("", "opened_after", "is required"),
        (
            "opened_after=05.01.2026",
            "opened_after",
            "must be a valid date",
        ),
        (
            "opened_after=2026-01-01&limit=0",
            "limit",
            "must be at least 1",
        ),
        (
            "opened_after=2026-01-01&limit=101",
            "limit",
            "must be at most 100",
        ),
        (
            "opened_after=2026-01-01&limit=ten",
            "limit",
            "must be an integer",
        ),
        (
            "opened_after=2026-01-01&status=PENDING",
            "status",
            "must be one of",
        ),
    ] {
        let answer = get(&sandbox, &format!("/v1/disputes?{query}"), Some(&token)).await;
        let fields = answer.invalid_fields(400);
        assert_eq!(fields.len(), 1, "{query}: {fields:?}");
        assert_eq!(fields[0].0, field, "{query}");
        assert!(fields[0].1.starts_with(rule), "{query}: {fields:?}");
        assert_eq!(
            answer.json()["decline"]["reasons"],
            json!(["INVALID_QUERY_PARAMETER"])
        );
    }
}

#[tokio::test]
async fn bodies_are_checked_against_the_schema_and_null_means_absent() {
    let sandbox = disputes().await;
    let token = dispute_token(&sandbox).await;
    let path = "/v1/disputes/D-000001/evidence";

    for body in [
        r#"{"kind":"TRACKING"}"#,
        r#"{"kind":"TRACKING","note":null,"amount":null,"contact":null}"#,
        r#"{"kind":"TRACKING","amount":{"value":0.10,"currency":"EUR"},"contact":"a@example.com"}"#,
    ] {
        let answer = post(&sandbox, path, &token, body).await;
        assert_eq!(answer.status, 201, "{body}: {}", answer.text);
    }

    for (body, field, rule) in [
        (r#"{}"#, "$.kind", "is required"),
        (r#"{"kind":null}"#, "$.kind", "must be a string"),
        (r#"{"kind":"PHOTO"}"#, "$.kind", "must be one of"),
        (
            r#"{"kind":"RECEIPT","amount":{"value":-1,"currency":"EUR"}}"#,
            "$.amount.value",
            "must be at least 0",
        ),
        (
            r#"{"kind":"RECEIPT","amount":{"value":1}}"#,
            "$.amount.currency",
            "is required",
        ),
        (
            r#"{"kind":"RECEIPT","contact":"nobody"}"#,
            "$.contact",
            "must be a valid email",
        ),
        (r#"[1]"#, "$", "must be an object"),
        ("not json", "$", "the body is not JSON"),
    ] {
        let fields = post(&sandbox, path, &token, body).await.invalid_fields(400);
        assert_eq!(fields[0].0, field, "{body}: {fields:?}");
        assert!(fields[0].1.starts_with(rule), "{body}: {fields:?}");
    }

    // The documented media type, and a body the operation requires.
    let plain = call(
        &sandbox,
        reqwest::Method::POST,
        path,
        Some(&token),
        &[("content-type", "text/plain")],
        None,
    )
    .await;
    let fields = plain.invalid_fields(415);
    assert_eq!(
        fields[0],
        (
            "Content-Type".to_owned(),
            "Content-Type must be application/json".to_owned()
        )
    );
    let empty = call(
        &sandbox,
        reqwest::Method::POST,
        path,
        Some(&token),
        &[],
        None,
    )
    .await;
    assert_eq!(empty.invalid_fields(400)[0].1, "a body is required");
}

#[tokio::test]
async fn the_token_is_checked_as_the_emulated_apis_check_it() {
    let sandbox = disputes().await;
    let path = "/v1/disputes/D-000001";

    let reasons = |answer: &Answer| answer.json()["decline"]["reasons"].clone();
    let missing = get(&sandbox, path, None).await;
    assert_eq!(missing.status, 401);
    assert_eq!(reasons(&missing), json!(["MISSING_TOKEN"]));

    let pay_later = token(&sandbox, &format!("{}/paylater", sandbox.url())).await;
    let foreign = get(&sandbox, path, Some(&pay_later)).await;
    assert_eq!(foreign.status, 401);
    assert_eq!(reasons(&foreign), json!(["WRONG_AUDIENCE"]));

    let forged = get(&sandbox, path, Some("e30.e30.c2ln")).await;
    assert_eq!(reasons(&forged), json!(["INVALID_TOKEN"]));

    // Checked before the request's form: a bad id without a token is a 401.
    assert_eq!(get(&sandbox, "/v1/disputes/X", None).await.status, 401);

    // The dispute token is refused by the emulated APIs in turn.
    let dispute = dispute_token(&sandbox).await;
    assert_eq!(get(&sandbox, path, Some(&dispute)).await.status, 200);
    let booking = reqwest::Client::new()
        .get(format!(
            "{}/order/paylater/v1/12-34567890123456789/status",
            sandbox.url()
        ))
        .bearer_auth(&dispute)
        .send()
        .await
        .expect("the sandbox answers");
    assert_eq!(booking.status(), 401);

    // `security: []`: no token needed.
    assert_eq!(get(&sandbox, "/v1/health", None).await.status, 200);
}

#[tokio::test]
async fn an_audience_left_to_a_setting_is_the_documents_address() {
    let sandbox = sandbox(None).await;
    let about = sandbox.control().get("").await.expect("GET /__sandbox");
    let listed = about["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .find(|d| d["name"] == "dispute-management")
        .cloned()
        .expect("the fixture is listed");
    let address = format!("{}{BASE_PATH}", sandbox.url());
    assert_eq!(listed["url"], json!(address));
    assert_eq!(listed["audience"], json!(address));
    assert_eq!(listed["audience_chosen_by_sandbox"], json!(true));
    let operations = listed["operations"].as_array().expect("operations");
    assert!(operations.iter().any(|o| o["operation_id"] == "getDispute"));

    let token = token(&sandbox, &address).await;
    assert_eq!(
        get(&sandbox, "/v1/disputes/D-000001", Some(&token))
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn faults_of_the_control_api_apply() {
    let sandbox = disputes().await;
    let token = dispute_token(&sandbox).await;
    let path = "/v1/disputes/D-000001";
    sandbox
        .control()
        .fail_next("getDispute", 503, 2)
        .await
        .expect("a fault is armed");
    let statuses = [
        get(&sandbox, path, Some(&token)).await.status,
        get(&sandbox, path, Some(&token)).await.status,
        get(&sandbox, path, Some(&token)).await.status,
    ];
    assert_eq!(statuses, [503, 503, 200]);

    // After processing: the call is checked (and would be answered), then
    // its answer replaced.
    sandbox
        .control()
        .answer_after_processing("getDispute", 202, Some(json!({"queued": true})), 1)
        .await
        .expect("a fault is armed");
    let replaced = get(&sandbox, path, Some(&token)).await;
    assert_eq!(
        (replaced.status, replaced.json()),
        (202, json!({"queued": true}))
    );
}

#[tokio::test]
async fn wrong_methods_and_bad_documents_are_refused() {
    let sandbox = disputes().await;
    let token = dispute_token(&sandbox).await;
    let put = call(
        &sandbox,
        reqwest::Method::PUT,
        "/v1/disputes/D-000001",
        Some(&token),
        &[],
        None,
    )
    .await;
    assert_eq!(put.status, 405, "{}", put.text);

    let broken = Document {
        json: r#"{"openapi": "3.0.3", "paths": {"/x": {"get": {"responses": {}}}}}"#,
        ..document(None)
    };
    let refused = Sandbox::start_with(Settings::default().with_document(broken)).await;
    let error = refused
        .err()
        .expect("a document without operationId is refused");
    let message = error.to_string();
    assert!(
        message.contains("dispute-management") && message.contains("operationId"),
        "{message}"
    );
}

/// The interface's own bundled documents (`schemas/<api>/openapi.json`),
/// served from their examples under a scratch base path: the way documents
/// are written here compiles, every operation is routed, and a call
/// answers its documented example. (The sandbox emulates these APIs by
/// hand; this proves the next document written the same way is served.)
/// The sandbox's own control API, published beside them, is no document
/// of the interface and is left out.
#[tokio::test]
async fn the_interfaces_own_documents_compile_and_answer_their_examples() {
    let schemas = crate::workspace_root().join("schemas");
    let mut settings = Settings::default();
    let mut expected = Vec::new();
    for entry in std::fs::read_dir(&schemas).expect("schemas/") {
        let path = entry.expect("an entry").path().join("openapi.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let api = path.parent().and_then(|p| p.file_name()).expect("a name");
        if api == xtask::apis::CONTROL_NAME {
            continue;
        }
        let name: &'static str = format!("probe-{}", api.to_string_lossy()).leak();
        let base_path: &'static str = format!("/{name}").leak();
        let document: Value = serde_json::from_str(&text).expect("JSON");
        let operations = document["paths"]
            .as_object()
            .expect("paths")
            .values()
            .flat_map(|item| item.as_object().into_iter().flatten())
            .filter(|(_, operation)| operation.get("operationId").is_some())
            .count();
        expected.push((name, operations));
        settings = settings.with_document(Document {
            name,
            base_path,
            audience: None,
            json: text.leak(),
        });
    }
    assert!(expected.len() >= 8, "the bundled documents: {expected:?}");
    let sandbox = Sandbox::start_with(settings)
        .await
        .expect("every bundled document compiles");
    let about = sandbox.control().get("").await.expect("GET /__sandbox");
    for (name, operations) in &expected {
        let listed = about["documents"]
            .as_array()
            .expect("documents")
            .iter()
            .find(|d| d["name"] == *name)
            .unwrap_or_else(|| panic!("{name} is listed"));
        assert_eq!(
            listed["operations"].as_array().map(Vec::len),
            Some(*operations),
            "{name}"
        );
    }

    // A pay later status, as its document's example has it.
    let address = format!("{}/probe-pay-later", sandbox.url());
    let token = token(&sandbox, &address).await;
    let status = reqwest::Client::new()
        .get(format!(
            "{address}/order/paylater/v1/12-34567890123456789/status"
        ))
        .bearer_auth(&token)
        .send()
        .await
        .expect("the sandbox answers");
    assert_eq!(status.status(), 200);
    let body: Value = status.json().await.expect("JSON");
    let document: Value = serde_json::from_str(
        &std::fs::read_to_string(schemas.join("pay-later/openapi.json")).expect("pay later"),
    )
    .expect("JSON");
    let success = &document["paths"]["/order/paylater/v1/{transaction_id}/status"]["get"]
        ["responses"]["2XX"]["content"];
    let media = success
        .as_object()
        .and_then(|m| m.values().next())
        .expect("a media type");
    let documented = media
        .get("example")
        .or_else(|| {
            media["examples"]
                .as_object()
                .and_then(|e| e.values().next())
                .map(|e| &e["value"])
        })
        .expect("a documented example");
    assert_eq!(&body, documented);
}
