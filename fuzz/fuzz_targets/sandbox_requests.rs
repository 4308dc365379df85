//! The sandbox's router in this process (`psi_sandbox::in_process`, driven
//! with `tower::ServiceExt::oneshot`, no sockets), with structure-aware
//! requests for every operation of the bundled documents and of the
//! control API (`schemas/sandbox-control/openapi.json`).
//!
//! Each input is a sequence of up to 12 requests, after a reset (and the
//! sandbox clock moved back to where the run began, so an input answers
//! the same whenever it runs). A request is an operation's method (or
//! another), its path template with each parameter an id the sandbox
//! answered earlier in the sequence, a document example's value or
//! arbitrary bytes (percent-encoded), a choice of the headers that matter
//! (a valid bearer token of the operation's API or of another, or a broken
//! one; Content-Type; Idempotency-Key; Prefer; Accept; Host) and a body
//! that is a mutated example of the operation, an arbitrary JSON tree or
//! arbitrary bytes.
//!
//! Asserts, for every request: no panic (libFuzzer aborts on any, also one
//! the sandbox's panic layer would answer 500) and no 5xx answer, unless a
//! fault was armed earlier in the sequence or the request asked for a
//! documented answer with `Prefer`. After the sequence, through the control
//! API's read endpoints: every listed session resolves through the payment
//! page's session record, every transaction a session names resolves
//! through `/__sandbox/transactions/{id}` and names that session back; a
//! reset leaves no session, webhook, subscription or transaction, and
//! every id seen before it answers 404.
//!
//! Not sent: the control calls that deliver notifications at once
//! (`.../notify`, `.../notify-invoice`, `/__sandbox/webhooks/{n}/resend`):
//! they send over the network.
#![no_main]

#[path = "common/json.rs"]
#[allow(dead_code)]
mod json;

use arbitrary::{Arbitrary, Unstructured};
use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use http_body_util::BodyExt;
use json::{tree, Json, Words, DOCUMENTS};
use libfuzzer_sys::fuzz_target;
use psi_sandbox::audiences::{audience_of, Service};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::convert::Infallible;
use std::sync::{Mutex, OnceLock};
use tower::util::BoxCloneService;
use tower::ServiceExt;

const URL: &str = "http://sandbox.test";
const CONTROL: &str = include_str!("../../schemas/sandbox-control/openapi.json");

/// One operation: method, full path template, the API whose token it takes
/// (`None`: none, or the control API), and its request examples.
struct Operation {
    method: String,
    template: String,
    service: Option<Service>,
    examples: Vec<Json>,
}

struct Fixture {
    operations: Vec<Operation>,
    words: Words,
    app: Mutex<BoxCloneService<Request, Response, Infallible>>,
    /// The sandbox clock when the run began, in seconds.
    began: i64,
}

fn service_of(document: &str) -> Option<Service> {
    Some(match document {
        "bank-accounts" => Service::BankAccounts,
        "order-status" => Service::OrderStatus,
        "pay-later" => Service::PayLater,
        "payment-page" => Service::PaymentPage,
        "shop-config" => Service::ShopConfig,
        "storefront" => Service::Storefront,
        "transaction-status" => Service::TransactionStatus,
        _ => return None,
    })
}

/// The path a document's server address puts before its paths here.
fn prefix(server: &str) -> String {
    let path = server.split_once('}').map_or(server, |(_, path)| path);
    if server.starts_with("{shop_config_url}") {
        format!("/shop-config{path}")
    } else {
        path.to_owned()
    }
}

fn operations() -> Vec<Operation> {
    let mut operations = Vec::new();
    let documents = DOCUMENTS
        .iter()
        .copied()
        .chain([("sandbox-control", CONTROL)]);
    for (name, text) in documents {
        let document: Value = serde_json::from_str(text).unwrap();
        let server = document["servers"][0]["url"].as_str().unwrap_or("");
        let prefix = prefix(server);
        for (path, item) in document["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                if !["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                    continue;
                }
                let template = format!("{prefix}{path}");
                if template.ends_with("/notify")
                    || template.ends_with("/notify-invoice")
                    || template.ends_with("/resend")
                {
                    continue;
                }
                let mut examples = Vec::new();
                for media in operation["requestBody"]["content"]
                    .as_object()
                    .into_iter()
                    .flat_map(|c| c.values())
                {
                    if !media["example"].is_null() {
                        examples.push(Json::from_value(&media["example"]));
                    }
                    for example in media["examples"]
                        .as_object()
                        .into_iter()
                        .flat_map(|e| e.values())
                    {
                        examples.push(Json::from_value(&example["value"]));
                    }
                }
                operations.push(Operation {
                    method: method.to_uppercase(),
                    template,
                    service: service_of(name),
                    examples,
                });
            }
        }
    }
    operations
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    })
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let service = psi_sandbox::in_process(&psi_sandbox::Settings::default(), URL)
            .expect("the sandbox starts");
        let mut fixture = Fixture {
            operations: operations(),
            words: Words::of_documents(),
            app: Mutex::new(BoxCloneService::new(service)),
            began: 0,
        };
        let (_, about) = fixture.call(control("GET", "/__sandbox", None));
        fixture.began = seconds(&about["now"]);
        fixture
    })
}

impl Fixture {
    /// Sends `request` through the router; answers the status and the body
    /// as JSON (`null` when it is not JSON).
    fn call(&self, request: Request) -> (u16, Value) {
        let service = self.app.lock().unwrap().clone();
        runtime().block_on(async move {
            let response = service.oneshot(request).await.unwrap();
            let status = response.status().as_u16();
            let bytes = response
                .into_body()
                .collect()
                .await
                .map(|collected| collected.to_bytes())
                .unwrap_or_default();
            (
                status,
                serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            )
        })
    }
}

/// Whole seconds of an RFC 3339 time's text, by its own fields (the
/// sandbox clock answers `2026-11-29T04:42:22.123+00:00`).
fn seconds(now: &Value) -> i64 {
    let text = now.as_str().expect("the sandbox's time");
    let number = |range: std::ops::Range<usize>| -> i64 { text[range].parse().unwrap() };
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let (hour, minute, second) = (number(11..13), number(14..16), number(17..19));
    // Days since 1970 by the civil calendar (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    days * 86_400 + hour * 3600 + minute * 60 + second
}

/// A control request (loopback Host, JSON content type on writes).
fn control(method: &str, path: &str, body: Option<Value>) -> Request {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "localhost")
        .header("content-type", "application/json");
    let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
    request.body(body).unwrap()
}

fn api(method: &str, path: &str, token: Option<&str>) -> Request {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "localhost");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request.body(Body::empty()).unwrap()
}

/// A token of `service`, as a client gets one.
fn token(fixture: &Fixture, service: Service) -> String {
    let (path, body) = if service == Service::Storefront {
        (
            "/api/oauth/token",
            json!({"client_id": psi_sandbox::DEMO_PLATFORM_CLIENT_ID, "client_secret": psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET, "grant_type": "client_credentials", "scope": "write"}),
        )
    } else {
        (
            "/oauth/token",
            json!({"client_id": psi_sandbox::DEMO_CLIENT_ID, "client_secret": psi_sandbox::DEMO_CLIENT_SECRET, "audience": audience_of(URL, service), "grant_type": "client_credentials"}),
        )
    };
    let (status, answer) = fixture.call(control("POST", path, Some(body)));
    assert_eq!(status, 200, "{answer}");
    answer["access_token"].as_str().unwrap().to_owned()
}

/// Every string value of a member named like an id (`…_id`, `…Id`, `id`,
/// `number`) in `value`.
fn harvest(value: &Value, ids: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (name, value) in map {
                match value {
                    Value::String(id)
                        if (name.ends_with("_id") || name.ends_with("Id") || name == "id")
                            && ids.len() < 32
                            && !ids.contains(id) =>
                    {
                        ids.push(id.clone())
                    }
                    Value::Number(number) if name == "number" && ids.len() < 32 => {
                        ids.push(number.to_string())
                    }
                    value => harvest(value, ids),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| harvest(i, ids)),
        _ => {}
    }
}

/// Bytes a path segment carries, percent-encoded as a URI must be (a `/`
/// among them sometimes left as it is).
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'\\')
    .add(b'^')
    .add(b'|')
    .add(b'[')
    .add(b']');

const METHODS: [&str; 6] = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"];
const CONTENT_TYPES: [&str; 6] = [
    "application/json",
    "application/json;charset=UTF-8",
    "application/json; charset=utf-16",
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json;;",
];

/// One request of the sequence, built from the input.
fn request(
    u: &mut Unstructured,
    fixture: &Fixture,
    tokens: &[(Service, String)],
    ids: &[String],
) -> arbitrary::Result<(Request, bool)> {
    let operation = &fixture.operations[u.choose_index(fixture.operations.len())?];
    let method = if u.ratio(1, 10)? {
        *u.choose(&METHODS)?
    } else {
        operation.method.as_str()
    };
    // The path: each `{parameter}` an id seen, an example's word or bytes.
    let mut path = String::new();
    let mut rest = operation.template.as_str();
    while let Some(open) = rest.find('{') {
        path.push_str(&rest[..open]);
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
        rest = &rest[close..];
        match u.int_in_range(0..=3)? {
            0 | 1 if !ids.is_empty() => path.push_str(
                &percent_encoding::utf8_percent_encode(&ids[u.choose_index(ids.len())?], SEGMENT)
                    .to_string(),
            ),
            2 => path.push_str(
                &percent_encoding::utf8_percent_encode(
                    &json::word(u, &fixture.words.strings)?,
                    SEGMENT,
                )
                .to_string(),
            ),
            _ => {
                let bytes = <Vec<u8>>::arbitrary(u)?;
                path.push_str(&percent_encoding::percent_encode(&bytes, SEGMENT).to_string())
            }
        }
    }
    path.push_str(rest);
    if u.ratio(1, 16)? {
        path.push('?');
        path.push_str(
            &percent_encoding::utf8_percent_encode(&String::arbitrary(u)?, SEGMENT).to_string(),
        );
    }

    let mut builder = Request::builder().method(method).uri(&path);
    let host = if u.ratio(1, 16)? {
        "sandbox.example"
    } else {
        "localhost"
    };
    builder = builder.header("host", host);
    match u.int_in_range(0..=7)? {
        0 => {}
        1 => builder = builder.header("authorization", "Bearer not-a-token"),
        2 => {
            let (_, other) = &tokens[u.choose_index(tokens.len())?];
            builder = builder.header("authorization", format!("Bearer {other}"));
        }
        _ => {
            if let Some((_, own)) = tokens.iter().find(|(s, _)| Some(*s) == operation.service) {
                builder = builder.header("authorization", format!("Bearer {own}"));
            }
        }
    }
    if u.ratio(7, 8)? {
        builder = builder.header("content-type", *u.choose(&CONTENT_TYPES)?);
    }
    if u.ratio(1, 4)? {
        let key = <Vec<u8>>::arbitrary(u)?;
        builder = builder.header(
            "idempotency-key",
            percent_encoding::percent_encode(&key, SEGMENT).to_string(),
        );
    }
    let mut preferred = false;
    if u.ratio(1, 16)? {
        let code = *u.choose(&["200", "201", "400", "404", "409", "422", "500", "x"])?;
        builder = builder.header("prefer", format!("code={code}"));
        preferred = true;
    }
    if u.ratio(1, 16)? {
        builder = builder.header(
            "accept",
            *u.choose(&["text/html", "application/pdf", "*/*"])?,
        );
    }

    let body = match u.int_in_range(0..=5)? {
        0 => Body::empty(),
        1 => Body::from(<Vec<u8>>::arbitrary(u)?),
        2 => Body::from(tree(u, &fixture.words, 0)?.text()),
        _ if !operation.examples.is_empty() => {
            let mut example = operation.examples[u.choose_index(operation.examples.len())?].clone();
            for _ in 0..u.int_in_range(0..=4)? {
                example.mutate(u, &fixture.words)?;
            }
            Body::from(example.text())
        }
        _ => Body::from(json::object(u, &fixture.words, 0)?.text()),
    };
    match builder.body(body) {
        Ok(request) => Ok((request, preferred)),
        // A path the `http` crate refuses never reaches a server.
        Err(_) => Err(arbitrary::Error::IncorrectFormat),
    }
}

/// The bytes that mark a seed of the checked-in corpus: after them, one
/// request as JSON, `{"method", "path", "body"}`, sent with the operation's
/// token (fuzz/seeds.py: every operation with each of its examples).
const SEED: &[u8] = b"\xff\xff\xff\xff";

fuzz_target!(|data: &[u8]| {
    let fixture = fixture();
    let tokens = begin(fixture);
    let mut sequence = Sequence::default();
    if let Some(seed) = data.strip_prefix(SEED) {
        let Ok(seed) = serde_json::from_slice::<Value>(seed) else {
            return;
        };
        let (Some(method), Some(path)) = (seed["method"].as_str(), seed["path"].as_str()) else {
            return;
        };
        let mut builder = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "localhost")
            .header("content-type", "application/json");
        let own = fixture
            .operations
            .iter()
            .find(|o| o.method == method && matches(&o.template, path))
            .and_then(|o| tokens.iter().find(|(s, _)| Some(*s) == o.service));
        if let Some((_, token)) = own {
            builder = builder.header("authorization", format!("Bearer {token}"));
        }
        let body = if seed["body"].is_null() {
            Body::empty()
        } else {
            Body::from(seed["body"].to_string())
        };
        if let Ok(request) = builder.body(body) {
            sequence.send(fixture, request, false);
        }
    } else {
        let mut u = Unstructured::new(data);
        for _ in 0..12 {
            let Ok((request, preferred)) = request(&mut u, fixture, &tokens, &sequence.ids) else {
                break;
            };
            sequence.send(fixture, request, preferred);
        }
    }
    invariants(fixture);
});

/// Whether `path` is one of `template`'s (each `{parameter}` one segment).
fn matches(template: &str, path: &str) -> bool {
    let (template, path): (Vec<&str>, Vec<&str>) =
        (template.split('/').collect(), path.split('/').collect());
    template.len() == path.len()
        && template
            .iter()
            .zip(&path)
            .all(|(t, p)| t.starts_with('{') || t == p)
}

/// A clean sandbox, its clock where the run began; a token of every API.
fn begin(fixture: &Fixture) -> Vec<(Service, String)> {
    let (status, _) = fixture.call(control("POST", "/__sandbox/reset", None));
    assert_eq!(status, 200);
    let (_, about) = fixture.call(control("GET", "/__sandbox", None));
    let back = fixture.began - seconds(&about["now"]);
    let (status, moved) = fixture.call(control(
        "POST",
        "/__sandbox/clock/advance",
        Some(json!({ "seconds": back })),
    ));
    assert_eq!(status, 200, "{moved}");
    [
        Service::PaymentPage,
        Service::PayLater,
        Service::BankAccounts,
        Service::OrderStatus,
        Service::TransactionStatus,
        Service::ShopConfig,
        Service::Storefront,
    ]
    .into_iter()
    .map(|service| (service, token(fixture, service)))
    .collect()
}

/// What a sequence has seen: the ids answered, whether a fault is armed.
#[derive(Default)]
struct Sequence {
    ids: Vec<String>,
    armed: bool,
}

impl Sequence {
    /// Sends `request`: a 5xx is a finding unless a fault is armed or a
    /// documented answer was asked for (`preferred`).
    fn send(&mut self, fixture: &Fixture, request: Request, preferred: bool) {
        let described = format!("{} {}", request.method(), request.uri());
        let arms = request.uri().path() == "/__sandbox/faults" && request.method() == "POST";
        let (status, answer) = fixture.call(request);
        if status >= 500 && !self.armed && !preferred {
            panic!("{described}: {status} {answer}");
        }
        self.armed |= arms && status < 300;
        harvest(&answer, &mut self.ids);
    }
}

/// The state's invariants, read through the control API, then a reset's.
fn invariants(fixture: &Fixture) {
    let (status, _) = fixture.call(control("DELETE", "/__sandbox/faults", None));
    assert!(status < 300, "{status}");
    // A token of now: the sequence may have moved the clock past the first.
    let page = &token(fixture, Service::PaymentPage);
    let (status, sessions) = fixture.call(control("GET", "/__sandbox/sessions", None));
    assert_eq!(status, 200, "{sessions}");
    let sessions = sessions.as_array().expect("a list of sessions").clone();
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    for session in &sessions {
        let id = session["session_id"].as_str().expect("a session id");
        let path = format!("/pps/api/v1/session-record/{}", encode(id));
        let (status, record) = fixture.call(api("GET", &path, Some(page)));
        assert_eq!(status, 200, "{path}: {record}");
        assert_eq!(record["session_id"], session["session_id"]);
        seen.insert(("session".into(), path));
        if let Some(transaction) = session["transaction_id"].as_str() {
            let path = format!("/__sandbox/transactions/{}", encode(transaction));
            let (status, stored) = fixture.call(control("GET", &path, None));
            assert_eq!(status, 200, "{path}: {stored}");
            assert_eq!(stored["session_id"].as_str(), Some(id), "{path}: {stored}");
            seen.insert(("transaction".into(), path));
        }
    }

    let (status, _) = fixture.call(control("POST", "/__sandbox/reset", None));
    assert_eq!(status, 200);
    for list in [
        "/__sandbox/sessions",
        "/__sandbox/webhooks",
        "/__sandbox/webhook-subscriptions",
    ] {
        let (status, listed) = fixture.call(control("GET", list, None));
        assert_eq!(status, 200, "{list}");
        assert_eq!(listed, json!([]), "{list} after a reset");
    }
    for (kind, path) in seen {
        let (status, answer) = if kind == "session" {
            fixture.call(api("GET", &path, Some(page)))
        } else {
            fixture.call(control("GET", &path, None))
        };
        assert_eq!(status, 404, "{path} after a reset: {answer}");
    }
}

fn encode(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, SEGMENT).to_string()
}
