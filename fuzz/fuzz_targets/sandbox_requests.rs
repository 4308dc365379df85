//! The sandbox's router in this process (`psi_sandbox::in_process`, driven
//! with `tower::ServiceExt::oneshot`, no sockets), with structure-aware
//! requests for every operation of the bundled documents and of the
//! control API (`schemas/sandbox-control/openapi.json`).
//!
//! Each input is a sequence of up to 12 requests, after a reset of the
//! demo tenant (and its clock moved back to where the run began, so an
//! input answers the same whenever it runs). A request is an operation's
//! method (or another), its path template with each parameter an id the
//! sandbox answered earlier in the sequence, a document example's value or
//! arbitrary bytes (percent-encoded), a choice of the headers that matter
//! (a valid bearer token of the operation's API, of another API or of
//! another tenant, a tenant's control token, or a broken one;
//! Content-Type; Idempotency-Key; Prefer; Accept; Host) and a body that is
//! a mutated example of the operation, an arbitrary JSON tree or arbitrary
//! bytes.
//!
//! Asserts, for every request: no panic (libFuzzer aborts on any, also one
//! the sandbox's panic layer would answer 500) and no 5xx answer, unless a
//! fault was armed earlier in the sequence, the request asked for a
//! documented answer with `Prefer`, or it is the storefront module 7.x's
//! documented 500 with `success: false` for an operation the payment
//! service refused (an unknown line, more than is open).
//!
//! After every request that changed something (a 2xx to anything but GET
//! or HEAD), while no fault is armed, the demo tenant's state holds
//! together, read through the APIs and the control API's read endpoints:
//!
//! - ids resolve: every listed session resolves through the payment page's
//!   session record, every transaction a session names resolves through
//!   `/__sandbox/transactions/{id}` and names that session back;
//! - amounts add up, computed here with `bigdecimal` from the answers'
//!   number texts: every basket of every stored transaction is within the
//!   basket tolerance (its gross amount differs from the sum of its lines'
//!   `(gross unit price + discount) × quantity`, each rounded to cents half
//!   away from zero, by at most 0.02 per unit of quantity); every line of
//!   every storefront order the sequence seeded has
//!   `delivered + canceled ≤ ordered`, `returned ≤ delivered`, no negative
//!   quantity, `maxDelivery = maxCancel = ordered − delivered − canceled`,
//!   `maxReturn = delivered − returned` and
//!   `totalPrice = unitPrice × ordered`.
//!
//! After the sequence: the same, with every fault disarmed; then a reset
//! leaves no session, webhook, subscription or transaction, and every id
//! seen before it answers 404.
//!
//! Tenants keep their data apart. A second tenant, the bystander, holds a
//! stored transaction, a storefront order of it and a session. Unless a
//! request of the sequence carried one of its credentials, named it or one
//! of its ids in its URI, and changed something, its data reads back after
//! the sequence exactly as before, through its own credentials; and the
//! demo tenant's credentials never read it (its transaction, session and
//! order are unknown to them). Otherwise it is made again from nothing
//! before the next input.
//!
//! Not sent: the control calls that deliver notifications at once
//! (`.../notify`, `.../notify-invoice`, `/__sandbox/webhooks/{n}/resend`):
//! they send over the network.
#![no_main]

#[path = "sandbox/amounts.rs"]
mod amounts;
#[path = "common/json.rs"]
#[allow(dead_code)]
mod json;

use amounts::{baskets_add_up, lines_add_up};
use arbitrary::{Arbitrary, Unstructured};
use axum::body::{Body, Bytes};
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
use std::time::{Duration, Instant};
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
    /// The statuses its responses document (`200`, `2XX`, `500`).
    statuses: Vec<String>,
}

struct Fixture {
    operations: Vec<Operation>,
    words: Words,
    app: Mutex<BoxCloneService<Request, Response, Infallible>>,
    /// The sandbox clock when the run began, in seconds.
    began: i64,
    /// The second tenant and what its data read as; `None` when a sequence
    /// acted on it, so that it is made again before the next input.
    bystander: Mutex<Option<Bystander>>,
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
                let statuses = operation["responses"]
                    .as_object()
                    .map_or_else(Vec::new, |r| r.keys().cloned().collect());
                operations.push(Operation {
                    method: method.to_uppercase(),
                    template,
                    service: service_of(name),
                    examples,
                    statuses,
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
            bystander: Mutex::new(None),
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
        let (status, bytes) = self.call_for_bytes(request);
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// Sends `request` through the router; answers the status and the body.
    fn call_for_bytes(&self, request: Request) -> (u16, Bytes) {
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
            (status, bytes)
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

/// `request` with `Authorization: Bearer <token>`.
fn bearer(mut request: Request, token: &str) -> Request {
    let value = format!("Bearer {token}").parse().unwrap();
    request.headers_mut().insert("authorization", value);
    request
}

/// A tenant's API client and platform client credentials.
struct Credentials {
    client: (String, String),
    platform: (String, String),
}

impl Credentials {
    fn demo() -> Self {
        let pair = |id: &str, secret: &str| (id.to_owned(), secret.to_owned());
        Credentials {
            client: pair(psi_sandbox::DEMO_CLIENT_ID, psi_sandbox::DEMO_CLIENT_SECRET),
            platform: pair(
                psi_sandbox::DEMO_PLATFORM_CLIENT_ID,
                psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET,
            ),
        }
    }
}

/// A token of `service` for the demo tenant, as a client gets one.
fn token(fixture: &Fixture, service: Service) -> String {
    token_of(fixture, service, &Credentials::demo())
}

/// A token of `service` with `credentials`, as a client gets one.
fn token_of(fixture: &Fixture, service: Service, credentials: &Credentials) -> String {
    let (path, body) = if service == Service::Storefront {
        let (id, secret) = &credentials.platform;
        (
            "/api/oauth/token",
            json!({"client_id": id, "client_secret": secret, "grant_type": "client_credentials", "scope": "write"}),
        )
    } else {
        let (id, secret) = &credentials.client;
        (
            "/oauth/token",
            json!({"client_id": id, "client_secret": secret, "audience": audience_of(URL, service), "grant_type": "client_credentials"}),
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
    others: &[String],
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
            // Another API's token, or one of the bystander's credentials.
            let index = u.choose_index(tokens.len() + others.len())?;
            let other = match tokens.get(index) {
                Some((_, token)) => token,
                None => &others[index - tokens.len()],
            };
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
    let (tokens, bystander) = begin(fixture);
    let others = bystander.credentials;
    let mut sequence = Sequence {
        bystander: bystander.all,
        ..Sequence::default()
    };
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
            let Ok((request, preferred)) =
                request(&mut u, fixture, &tokens, &others, &sequence.ids)
            else {
                break;
            };
            sequence.send(fixture, request, preferred);
        }
    }
    invariants(fixture, &mut sequence);
    apart(fixture, &mut sequence);
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

/// A clean demo tenant, its clock where the run began, and no tenant but
/// it and the bystander; a token of every API; the bystander's names.
fn begin(fixture: &Fixture) -> (Vec<(Service, String)>, Names) {
    let (status, _) = fixture.call(control("POST", "/__sandbox/reset", None));
    assert_eq!(status, 200);
    let (status, listed) = fixture.call(control("GET", "/__sandbox/tenants", None));
    assert_eq!(status, 200, "{listed}");
    for tenant in listed.as_array().expect("a list of tenants") {
        let name = tenant["tenant"].as_str().expect("a tenant's name");
        if name != "demo" && name != BYSTANDER {
            let path = format!("/__sandbox/tenants/{}", encode(name));
            let (status, answer) = fixture.call(control("DELETE", &path, None));
            assert!(status < 300, "{path}: {status} {answer}");
        }
    }
    let (_, about) = fixture.call(control("GET", "/__sandbox", None));
    let back = fixture.began - seconds(&about["now"]);
    let (status, moved) = fixture.call(control(
        "POST",
        "/__sandbox/clock/advance",
        Some(json!({ "seconds": back })),
    ));
    assert_eq!(status, 200, "{moved}");
    let tokens = [
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
    .collect();

    let mut bystander = fixture.bystander.lock().unwrap();
    let bystander = match bystander.take() {
        // Tokens of its own clock, which nothing here moves: fresh well
        // within their lifetime (1800 s).
        Some(mut kept) if kept.tokens_at.elapsed() > Duration::from_secs(600) => {
            kept.tokens(fixture);
            bystander.insert(kept)
        }
        Some(kept) => bystander.insert(kept),
        None => bystander.insert(Bystander::made(fixture)),
    };
    (tokens, bystander.names())
}

/// What names the bystander.
struct Names {
    /// Its control token and API tokens, for requests to send with.
    credentials: Vec<String>,
    /// Those, its name and its data's ids: what a request carries or
    /// names to act on it.
    all: Vec<String>,
}

/// The tenant no request acts on unless it names it (`Fixture::bystander`).
const BYSTANDER: &str = "bystander";

/// The bystander tenant: its credentials, its tokens, its data's ids and
/// what its data read as when it was made.
struct Bystander {
    credentials: Credentials,
    control_token: String,
    page_token: String,
    platform_token: String,
    tokens_at: Instant,
    transaction: String,
    order: String,
    session: String,
    reads: Vec<(String, u16, Value)>,
}

impl Bystander {
    /// The tenant, made again from nothing: a stored transaction (the
    /// control API's example), a storefront order of it and a session (the
    /// payment page API's example), each through its own credentials.
    fn made(fixture: &Fixture) -> Bystander {
        let path = format!("/__sandbox/tenants/{BYSTANDER}");
        let (status, answer) = fixture.call(control("DELETE", &path, None));
        assert!(status < 300 || status == 404, "{path}: {status} {answer}");
        let (status, tenant) = fixture.call(control(
            "POST",
            "/__sandbox/tenants",
            Some(json!({ "name": BYSTANDER })),
        ));
        assert_eq!(status, 201, "{tenant}");
        let text = |name: &str| tenant[name].as_str().expect(name).to_owned();
        let mut bystander = Bystander {
            credentials: Credentials {
                client: (text("client_id"), text("client_secret")),
                platform: (text("platform_client_id"), text("platform_client_secret")),
            },
            control_token: text("control_token"),
            page_token: String::new(),
            platform_token: String::new(),
            tokens_at: Instant::now(),
            transaction: String::new(),
            order: String::new(),
            session: String::new(),
            reads: Vec::new(),
        };
        bystander.tokens(fixture);

        let example = |method: &str, template: &str| -> Value {
            let operation = fixture
                .operations
                .iter()
                .find(|o| o.method == method && o.template == template)
                .unwrap_or_else(|| panic!("{method} {template} in the documents"));
            serde_json::from_str(&operation.examples[0].text()).unwrap()
        };
        let own = |request: Request| bearer(request, &bystander.control_token);
        let body = example("POST", "/__sandbox/transactions");
        let (status, stored) =
            fixture.call(own(control("POST", "/__sandbox/transactions", Some(body))));
        assert_eq!(status, 201, "{stored}");
        let transaction = stored["transaction_id"].as_str().unwrap().to_owned();
        let (status, order) = fixture.call(own(control(
            "POST",
            "/__sandbox/storefront/orders",
            Some(json!({ "transaction_id": transaction })),
        )));
        assert_eq!(status, 201, "{order}");
        let body = example("POST", "/pps/api/v1/session");
        let request = control("POST", "/pps/api/v1/session", Some(body));
        let (status, session) = fixture.call(bearer(request, &bystander.page_token));
        assert!(status < 300, "{status} {session}");
        bystander.transaction = transaction;
        bystander.order = order["order_id"].as_str().unwrap().to_owned();
        bystander.session = session["session_id"].as_str().unwrap().to_owned();
        bystander.reads = bystander.read(fixture);
        for (path, status, answer) in &bystander.reads {
            assert_eq!(*status, 200, "the bystander's {path}: {answer}");
        }
        bystander
    }

    /// New tokens of its own.
    fn tokens(&mut self, fixture: &Fixture) {
        self.page_token = token_of(fixture, Service::PaymentPage, &self.credentials);
        self.platform_token = token_of(fixture, Service::Storefront, &self.credentials);
        self.tokens_at = Instant::now();
    }

    fn names(&self) -> Names {
        let credentials = vec![
            self.control_token.clone(),
            self.page_token.clone(),
            self.platform_token.clone(),
        ];
        let mut all = credentials.clone();
        all.extend([
            BYSTANDER.to_owned(),
            self.transaction.clone(),
            self.order.clone(),
            self.session.clone(),
        ]);
        Names { credentials, all }
    }

    /// Its data through its own credentials: the stored transaction, the
    /// storefront order's lines and the sessions' ids (a session's status
    /// moves with time, so it is left out).
    fn read(&self, fixture: &Fixture) -> Vec<(String, u16, Value)> {
        let own = |request: Request| bearer(request, &self.control_token);
        let transaction = format!("/__sandbox/transactions/{}", encode(&self.transaction));
        let order = format!("/api/gateway/order-management/load/{}", encode(&self.order));
        let (status, sessions) = fixture.call(own(control("GET", "/__sandbox/sessions", None)));
        let sessions: Vec<Value> = sessions
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| json!([s["session_id"], s["transaction_id"]]))
            .collect();
        let mut reads = vec![(
            "/__sandbox/sessions".to_owned(),
            status,
            Value::from(sessions),
        )];
        let (status, answer) = fixture.call(own(control("GET", &transaction, None)));
        reads.push((transaction, status, answer));
        let (status, answer) = fixture.call(api("GET", &order, Some(&self.platform_token)));
        reads.push((order, status, answer));
        reads
    }
}

/// What a sequence has seen and done.
#[derive(Default)]
struct Sequence {
    /// The ids answered.
    ids: Vec<String>,
    /// The transactions stored and the storefront orders seeded, through
    /// the control API.
    transactions: Vec<String>,
    orders: Vec<String>,
    /// Whether a fault is armed.
    armed: bool,
    /// What names the bystander (`Bystander::names`), and whether a
    /// request naming it may have changed its data.
    bystander: Vec<String>,
    touched: bool,
    /// The demo tenant's payment page and platform tokens for the checks;
    /// `None` once the sandbox clock moved.
    tokens: Option<(String, String)>,
}

impl Sequence {
    /// Sends `request`: a 5xx is a finding unless a fault is armed or a
    /// documented answer was asked for (`preferred`). Then, when it
    /// changed something, the demo tenant's state must hold together.
    fn send(&mut self, fixture: &Fixture, request: Request, preferred: bool) {
        let described = format!("{} {}", request.method(), request.uri());
        let path = request.uri().path().to_owned();
        let post = request.method() == "POST";
        let read = request.method() == "GET" || request.method() == "HEAD";
        let authorization = request
            .headers()
            .get("authorization")
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
            .unwrap_or_default();
        let names_bystander = self
            .bystander
            .iter()
            .any(|name| described.contains(name.as_str()) || authorization.contains(name.as_str()));
        let method = request.method().as_str().to_owned();
        let (status, answer) = fixture.call(request);
        if status >= 500
            && !self.armed
            && !preferred
            && !refused(fixture, &method, &path, status, &answer)
        {
            panic!("{described}: {status} {answer}");
        }
        self.touched |= names_bystander && (status < 300 || self.armed);
        self.armed |= post && path == "/__sandbox/faults" && status < 300;
        if post && path.starts_with("/__sandbox/clock") && status < 300 {
            self.tokens = None;
        }
        if post && status < 300 && !names_bystander {
            let (list, id) = match path.as_str() {
                "/__sandbox/transactions" => (&mut self.transactions, "transaction_id"),
                "/__sandbox/storefront/orders" => (&mut self.orders, "order_id"),
                _ => (&mut Vec::new(), ""),
            };
            if let Some(id) = answer[id].as_str() {
                list.push(id.to_owned());
            }
        }
        harvest(&answer, &mut self.ids);
        if status < 300 && !read && !self.armed {
            consistent(fixture, self);
        }
    }

    /// The demo tenant's payment page and platform tokens, valid now.
    fn tokens(&mut self, fixture: &Fixture) -> (String, String) {
        self.tokens
            .get_or_insert_with(|| {
                (
                    token(fixture, Service::PaymentPage),
                    token(fixture, Service::Storefront),
                )
            })
            .clone()
    }
}

/// Whether a 5xx answer is the storefront module 7.x refusing an
/// operation the payment service refused: a 500 the operation documents,
/// with `success: false` (the module's own answer, not the sandbox
/// failing).
fn refused(fixture: &Fixture, method: &str, path: &str, status: u16, answer: &Value) -> bool {
    let documented = fixture.operations.iter().any(|operation| {
        operation.method == method
            && matches(&operation.template, path)
            && operation.statuses.contains(&status.to_string())
    });
    documented && path.starts_with("/api/_action/order/") && answer["success"] == false
}

/// The demo tenant's state holds together: ids resolve and amounts add up
/// (the target's documentation). Answers the paths that resolved.
fn consistent(fixture: &Fixture, sequence: &mut Sequence) -> BTreeSet<(String, String)> {
    let (page, platform) = sequence.tokens(fixture);
    let (status, sessions) = fixture.call(control("GET", "/__sandbox/sessions", None));
    assert_eq!(status, 200, "{sessions}");
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    for session in sessions.as_array().expect("a list of sessions") {
        let id = session["session_id"].as_str().expect("a session id");
        let path = format!("/pps/api/v1/session-record/{}", encode(id));
        let (status, record) = fixture.call(api("GET", &path, Some(&page)));
        assert_eq!(status, 200, "{path}: {record}");
        assert_eq!(record["session_id"], session["session_id"]);
        seen.insert(("session".into(), path));
        if let Some(transaction) = session["transaction_id"].as_str() {
            let path = format!("/__sandbox/transactions/{}", encode(transaction));
            let (status, stored) = fixture.call_for_bytes(control("GET", &path, None));
            let text = String::from_utf8_lossy(&stored);
            assert_eq!(status, 200, "{path}: {text}");
            let value: Value = serde_json::from_slice(&stored).expect("a JSON transaction");
            assert_eq!(value["session_id"].as_str(), Some(id), "{path}: {text}");
            if let Err(broken) = baskets_add_up(&stored) {
                panic!("{path}: {broken}: {text}");
            }
            seen.insert(("transaction".into(), path));
        }
    }
    for transaction in &sequence.transactions {
        let path = format!("/__sandbox/transactions/{}", encode(transaction));
        let (status, stored) = fixture.call_for_bytes(control("GET", &path, None));
        if status < 300 {
            if let Err(broken) = baskets_add_up(&stored) {
                panic!("{path}: {broken}: {}", String::from_utf8_lossy(&stored));
            }
            seen.insert(("transaction".into(), path));
        }
    }
    for order in &sequence.orders {
        let path = format!("/api/gateway/order-management/load/{}", encode(order));
        let (status, loaded) = fixture.call_for_bytes(api("GET", &path, Some(&platform)));
        if status < 300 {
            if let Err(broken) = lines_add_up(&loaded) {
                panic!("{path}: {broken}: {}", String::from_utf8_lossy(&loaded));
            }
        }
    }
    seen
}

/// The state's invariants with every fault disarmed, then a reset's.
fn invariants(fixture: &Fixture, sequence: &mut Sequence) {
    let (status, _) = fixture.call(control("DELETE", "/__sandbox/faults", None));
    assert!(status < 300, "{status}");
    // Tokens of now: the sequence may have moved the clock past the first.
    sequence.tokens = None;
    let seen = consistent(fixture, sequence);
    let (page, _) = sequence.tokens(fixture);

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
            fixture.call(api("GET", &path, Some(&page)))
        } else {
            fixture.call(control("GET", &path, None))
        };
        assert_eq!(status, 404, "{path} after a reset: {answer}");
    }
}

/// The bystander's data reads as it did, and the demo tenant's
/// credentials do not reach it; unless the sequence acted on it, which has
/// it made again before the next input.
fn apart(fixture: &Fixture, sequence: &mut Sequence) {
    let mut kept = fixture.bystander.lock().unwrap();
    if sequence.touched {
        *kept = None;
        return;
    }
    let bystander = kept.as_ref().expect("the bystander");
    let now = bystander.read(fixture);
    for (before, after) in bystander.reads.iter().zip(&now) {
        assert_eq!(before, after, "the bystander's {} changed", before.0);
    }
    let (page, platform) = sequence.tokens(fixture);
    let reads = [
        control(
            "GET",
            &format!("/__sandbox/transactions/{}", encode(&bystander.transaction)),
            None,
        ),
        api(
            "GET",
            &format!("/pps/api/v1/session-record/{}", encode(&bystander.session)),
            Some(&page),
        ),
        api(
            "GET",
            &format!(
                "/api/gateway/order-management/load/{}",
                encode(&bystander.order)
            ),
            Some(&platform),
        ),
    ];
    for request in reads {
        let described = format!("{} {}", request.method(), request.uri());
        let (status, answer) = fixture.call(request);
        assert!(
            (400..500).contains(&status),
            "the demo tenant reads the bystander's data: {described}: {status} {answer}"
        );
    }
}

fn encode(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, SEGMENT).to_string()
}
