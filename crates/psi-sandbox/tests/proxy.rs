//! `psi-sandbox proxy` (drift watch): transparent forwarding, the token
//! audience rewritten, each kind of finding, notifications, the redacted
//! recording, `drift FILE`, `seed-from`, and the binary's exit codes.
//!
//! The upstream is the sandbox itself or a small axum server of this file
//! that answers what each test needs to drift on purpose.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use psi_drift::{Kind, Report};
use psi_sandbox::proxy::{Family, Proxy, ProxySettings, Upstreams};
use psi_sandbox::{Sandbox, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const BINARY: &str = env!("CARGO_BIN_EXE_psi-sandbox");
const TRANSACTION: &str = "/transaction/status/v2/transactions";
/// The first transaction `Sandbox::seed_transactions` stores.
const SEEDED: &str = "12-00000000000000000";

fn temporary_directory(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!(
        "psi-proxy-it-{name}-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4()
    ));
    std::fs::create_dir_all(&directory).expect("a temporary directory");
    directory
}

fn loopback() -> std::net::SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

async fn proxy_to(upstreams: Upstreams) -> Proxy {
    Proxy::start(ProxySettings::new(loopback(), upstreams))
        .await
        .expect("the proxy starts")
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A token for the transaction status API, asked at `url` with the
/// audience naming `url` too.
async fn token(url: &str) -> (StatusCode, String) {
    let answer = http()
        .post(format!("{url}/oauth/token"))
        .header("content-type", "application/json")
        .body(
            json!({
                "client_id": DEMO_CLIENT_ID,
                "client_secret": DEMO_CLIENT_SECRET,
                "audience": format!("{url}{TRANSACTION}"),
                "grant_type": "client_credentials",
            })
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    let status = answer.status();
    let body: Value = answer.json().await.unwrap_or(Value::Null);
    (
        status,
        body["access_token"].as_str().unwrap_or_default().to_owned(),
    )
}

async fn lookup(url: &str, token: &str, id: &str) -> reqwest::Response {
    http()
        .get(format!("{url}{TRANSACTION}/{id}"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

fn kinds(report: &Report) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = report.findings.iter().map(|f| f.kind).collect();
    kinds.dedup();
    kinds
}

#[tokio::test]
async fn a_token_through_the_proxy_works_and_answers_are_byte_identical() {
    let sandbox = Sandbox::start().await.unwrap();
    sandbox.seed_transactions(1);
    let proxy = proxy_to(Upstreams::all(sandbox.url())).await;

    // The audience names the proxy; rewritten, the sandbox accepts it.
    let (status, through) = token(proxy.url()).await;
    assert_eq!(status, StatusCode::OK);
    let claims = through.split('.').nth(1).unwrap();
    use base64::Engine as _;
    let claims: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(claims)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(claims["aud"], format!("{}{TRANSACTION}", sandbox.url()));

    let via = lookup(proxy.url(), &through, SEEDED).await;
    let (_, direct_token) = token(sandbox.url()).await;
    let direct = lookup(sandbox.url(), &direct_token, SEEDED).await;
    assert_eq!(via.status(), StatusCode::OK);
    assert_eq!(via.status(), direct.status());
    for name in [header::CONTENT_TYPE, header::CONTENT_LENGTH] {
        assert_eq!(
            via.headers().get(&name),
            direct.headers().get(&name),
            "{name}"
        );
    }
    assert_eq!(via.bytes().await.unwrap(), direct.bytes().await.unwrap());
    // An error answer too.
    let via = lookup(proxy.url(), &through, "12-99999999999999999").await;
    let direct = lookup(sandbox.url(), &direct_token, "12-99999999999999999").await;
    assert_eq!(via.status(), StatusCode::NOT_FOUND);
    assert_eq!(via.bytes().await.unwrap(), direct.bytes().await.unwrap());
    assert_eq!(
        proxy.report().findings,
        vec![],
        "the sandbox keeps its documents"
    );
}

/// What the drifting upstream answers for a transaction id.
async fn drifting(Path(id): Path<String>, State(hits): State<Arc<AtomicUsize>>) -> Response {
    let json = |status: StatusCode, body: &str| {
        (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_owned(),
        )
            .into_response()
    };
    match id.as_str() {
        "member" => json(StatusCode::OK, r#"{"currency":"EUR","surprise":1}"#),
        "type" => json(StatusCode::OK, r#"{"currency":5}"#),
        "format" => json(StatusCode::OK, r#"{"created":"yesterday"}"#),
        "enum" => json(
            StatusCode::NOT_FOUND,
            r#"{"decline":{"category":"SOMETHING_NEW","reasons":[],"invalid_fields":[]}}"#,
        ),
        "status" => json(StatusCode::IM_A_TEAPOT, "{}"),
        "media" => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/plain")],
            "hello",
        )
            .into_response(),
        "notjson" => json(StatusCode::OK, "{not json"),
        "large" => json(
            StatusCode::OK,
            &format!(r#"{{"partner_transaction_id":"{}"}}"#, "x".repeat(4096)),
        ),
        "gzip" => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "application/json"),
                (header::CONTENT_ENCODING, "gzip"),
            ],
            psi_sandbox::proxy::coding::gzip(br#"{"currency":"EUR","zipped":true}"#),
        )
            .into_response(),
        "br" => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "application/json"),
                (header::CONTENT_ENCODING, "br"),
            ],
            psi_sandbox::proxy::coding::brotli(br#"{"currency":"EUR","brotli":true}"#),
        )
            .into_response(),
        // A coding the proxy does not undo (the bytes are not zstd either).
        "zstd" => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "application/json"),
                (header::CONTENT_ENCODING, "zstd"),
            ],
            "not zstd, not json",
        )
            .into_response(),
        "redirect" => (StatusCode::FOUND, [(header::LOCATION, "/elsewhere")], "").into_response(),
        _ => {
            hits.fetch_add(1, Ordering::SeqCst);
            json(StatusCode::OK, "{}")
        }
    }
}

/// A small upstream: the transaction status route answers by id, the
/// token route takes anything, `/elsewhere` counts its calls.
async fn drifting_upstream() -> (String, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route(&format!("{TRANSACTION}/{{id}}"), get(drifting))
        .route(
            "/oauth/token",
            post(|| async { axum::Json(json!({"access_token": "t", "expires_in": 1})) }),
        )
        .route(
            "/base/v2/partners/{partner}/shops/{shop}",
            axum::routing::put(|| async { "shop configuration at /base" }),
        )
        .route(
            "/shop-config/v2/partners/{partner}/shops/{shop}",
            axum::routing::put(|| async { "shop configuration at /shop-config" }),
        )
        .route(
            "/elsewhere",
            get(|State(hits): State<Arc<AtomicUsize>>| async move {
                hits.fetch_add(1, Ordering::SeqCst);
                "followed"
            }),
        )
        .fallback(|| async { (StatusCode::NOT_FOUND, "{}") })
        .with_state(hits.clone());
    let listener = tokio::net::TcpListener::bind(loopback()).await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, hits)
}

async fn finding_of(id: &str) -> Report {
    let (upstream, _) = drifting_upstream().await;
    let mut settings = ProxySettings::new(loopback(), Upstreams::all(&upstream));
    settings.max_body = 1024;
    let proxy = Proxy::start(settings).await.unwrap();
    let answer = http()
        .get(format!("{}{TRANSACTION}/{id}", proxy.url()))
        .send()
        .await
        .unwrap();
    answer.bytes().await.unwrap();
    proxy.report()
}

#[tokio::test]
async fn each_kind_of_drift_in_an_answer_is_found() {
    for (id, kind, pointer) in [
        ("member", Kind::UndeclaredMember, "/surprise"),
        ("type", Kind::Type, "/currency"),
        ("format", Kind::Format, "/created"),
        ("enum", Kind::EnumValue, "/decline/category"),
        ("status", Kind::UndeclaredStatus, ""),
        ("media", Kind::MediaType, ""),
        ("notjson", Kind::NotJson, ""),
        ("large", Kind::TooLarge, ""),
        ("gzip", Kind::UndeclaredMember, "/zipped"),
        ("br", Kind::UndeclaredMember, "/brotli"),
    ] {
        let report = finding_of(id).await;
        assert!(
            report.findings.iter().any(|f| f.kind == kind
                && f.pointer == pointer
                && f.operation_id.as_deref() == Some("getTransactionStatus")),
            "{id}: {report:#?}"
        );
    }
    // A well-formed answer: nothing.
    assert_eq!(finding_of("fine").await.findings, vec![]);
    // A coding the proxy does not undo: no finding about the body, a note
    // naming the coding instead.
    let report = finding_of("zstd").await;
    let [note] = &report.findings[..] else {
        panic!("one note: {report:#?}");
    };
    assert_eq!(note.kind, Kind::UncheckedCoding);
    assert_eq!(note.status, Some(200));
    assert_eq!(
        note.examples,
        vec!["Content-Encoding zstd: a coding the proxy does not undo".to_owned()]
    );
}

#[tokio::test]
async fn the_shop_configuration_prefix_becomes_the_upstream_path() {
    let (upstream, _) = drifting_upstream().await;
    let put = |proxy: &Proxy| {
        http()
            .put(format!(
                "{}/shop-config/v2/partners/p/shops/s?x=1",
                proxy.url()
            ))
            .header("content-type", "application/json")
            .body("{}")
            .send()
    };
    // `--upstream-shop-config URL/base`: `/shop-config/...` is `URL/base/...`.
    let proxy =
        proxy_to(Upstreams::all(&upstream).with(Family::ShopConfig, &format!("{upstream}/base/")))
            .await;
    let answer = put(&proxy).await.unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(answer.text().await.unwrap(), "shop configuration at /base");
    let report = proxy.report();
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.kind != Kind::UndeclaredPath
                && f.operation_id.as_deref() == Some("updateShopConfiguration")),
        "{report:#?}"
    );
    // `--upstream URL` alone: the shop configuration where the sandbox has it.
    let proxy = proxy_to(Upstreams::all(&upstream)).await;
    let answer = put(&proxy).await.unwrap();
    assert_eq!(
        answer.text().await.unwrap(),
        "shop configuration at /shop-config"
    );
}

#[tokio::test]
async fn requests_are_checked_and_an_undeclared_path_is_forwarded_and_named() {
    let (upstream, _) = drifting_upstream().await;
    let proxy = proxy_to(Upstreams::all(&upstream)).await;
    // The token request without its client_secret.
    http()
        .post(format!("{}/oauth/token", proxy.url()))
        .header("content-type", "application/json")
        .body(r#"{"client_id":"a"}"#)
        .send()
        .await
        .unwrap();
    let answer = http()
        .get(format!("{}/no/such/path?secret=1", proxy.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::NOT_FOUND, "forwarded");
    let report = proxy.report();
    assert!(report
        .findings
        .iter()
        .any(|f| f.kind == Kind::MissingRequired
            && f.pointer == "/client_secret"
            && f.operation_id.as_deref() == Some("getToken")));
    let undeclared = report
        .findings
        .iter()
        .find(|f| f.kind == Kind::UndeclaredPath)
        .expect("an undeclared_path finding");
    assert_eq!(undeclared.operation_id, None);
    assert_eq!(undeclared.examples, vec!["GET /no/such/path".to_owned()]);
    // The report as JSON at /__proxy/drift.
    let served: Report = http()
        .get(format!("{}/__proxy/drift", proxy.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(served, proxy.report());
    // The container's health check is the proxy's own, not forwarded.
    let health = http()
        .get(format!("{}/__sandbox/health", proxy.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    assert_eq!(
        health.json::<Value>().await.unwrap(),
        json!({"status": "ok"})
    );
}

#[tokio::test]
async fn compressed_answers_pass_as_they_came_and_redirects_are_not_followed() {
    let (upstream, hits) = drifting_upstream().await;
    let proxy = proxy_to(Upstreams::all(&upstream)).await;
    let via = http()
        .get(format!("{}{TRANSACTION}/gzip", proxy.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(via.headers()[header::CONTENT_ENCODING], "gzip");
    assert_eq!(
        via.bytes().await.unwrap(),
        psi_sandbox::proxy::coding::gzip(br#"{"currency":"EUR","zipped":true}"#)
    );
    let via = http()
        .get(format!("{}{TRANSACTION}/redirect", proxy.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(via.status(), StatusCode::FOUND);
    assert_eq!(via.headers()[header::LOCATION], "/elsewhere");
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the proxy followed the redirect"
    );
}

#[tokio::test]
async fn a_missing_or_unreachable_upstream_is_a_502_naming_it() {
    // Nothing listens on port 9 of loopback.
    let proxy = proxy_to(Upstreams::default().with(Family::Api, "http://127.0.0.1:9")).await;
    let answer = http()
        .get(format!("{}{TRANSACTION}/{SEEDED}", proxy.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::BAD_GATEWAY);
    assert_eq!(
        answer.json::<Value>().await.unwrap(),
        json!({"error": "upstream unreachable", "upstream": "http://127.0.0.1:9"})
    );
    let answer = http()
        .post(format!("{}/oauth/token", proxy.url()))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::BAD_GATEWAY);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["flag"], "--upstream-auth");
    // An https upstream (reached through reqwest's TLS) that speaks plain
    // HTTP: the handshake fails.
    let (upstream, _) = drifting_upstream().await;
    let tls = upstream.replace("http://", "https://");
    let proxy = proxy_to(Upstreams::all(&tls)).await;
    let answer = http()
        .get(format!("{}{TRANSACTION}/fine", proxy.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::BAD_GATEWAY);
    assert_eq!(
        answer.json::<Value>().await.unwrap(),
        json!({"error": "upstream unreachable", "upstream": tls})
    );
}

type Received = Arc<Mutex<Vec<(String, HeaderMap, Bytes)>>>;

/// The merchant's webhook receiver: keeps what arrives, answers 202.
async fn receiver() -> (String, Received) {
    let received: Received = Arc::default();
    let app = Router::new()
        .route(
            "/hooks/{kind}",
            post(
                |Path(kind): Path<String>,
                 State(received): State<Received>,
                 headers: HeaderMap,
                 body: Bytes| async move {
                    received.lock().unwrap().push((kind, headers, body));
                    (StatusCode::ACCEPTED, "thanks")
                },
            ),
        )
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind(loopback()).await.unwrap();
    let url = format!("http://{}/hooks", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

const SESSION_SECRET: &str = "whsec-session-7f3a91";
const INVOICE_SECRET: &str = "whsec-invoice-52c0d8";
const IBAN: &str = "DE02120300000000202051";

#[tokio::test]
async fn notifications_are_verified_checked_and_forwarded_unchanged() {
    let (url, received) = receiver().await;
    let mut settings = ProxySettings::new(loopback(), Upstreams::default());
    settings.forward_webhooks_to = Some(url);
    settings.session_webhook_secret = Some(SESSION_SECRET.to_owned());
    settings.invoice_webhook_secret = Some(INVOICE_SECRET.to_owned());
    let proxy = Proxy::start(settings).await.unwrap();
    let body = br#"{"transaction_id":"12-00000000000000001"}"#;
    let post = |path: &'static str, signature: String| {
        http()
            .post(format!("{}/__proxy/notifications/{path}", proxy.url()))
            .header("content-type", "application/json")
            .header("x-signature", signature)
            .body(body.to_vec())
            .send()
    };
    let signed = psi_sandbox::signature::sign(SESSION_SECRET.as_bytes(), 1_700_000_000, body);
    let answer = post("sessions", signed.clone()).await.unwrap();
    assert_eq!(
        answer.status(),
        StatusCode::ACCEPTED,
        "the receiver's status"
    );
    assert_eq!(answer.text().await.unwrap(), "thanks");
    let invoice = psi_sandbox::signature::sign_invoice(INVOICE_SECRET.as_bytes(), body);
    assert_eq!(
        post("invoices", invoice).await.unwrap().status(),
        StatusCode::ACCEPTED
    );
    assert!(
        !proxy
            .report()
            .findings
            .iter()
            .any(|f| f.kind == Kind::Signature),
        "{:#?}",
        proxy.report()
    );
    {
        let received = received.lock().unwrap();
        assert_eq!(received.len(), 2);
        assert_eq!(received[0].0, "sessions");
        assert_eq!(received[0].1["x-signature"], signed.as_str());
        assert_eq!(received[0].2.as_ref(), body);
        assert_eq!(received[1].0, "invoices");
    }
    // Signed with another secret: forwarded all the same, and found.
    let wrong = psi_sandbox::signature::sign_invoice(b"another", body);
    assert_eq!(
        post("invoices", wrong).await.unwrap().status(),
        StatusCode::ACCEPTED
    );
    let report = proxy.report();
    let finding = report
        .findings
        .iter()
        .find(|f| f.kind == Kind::Signature)
        .expect("a signature finding");
    assert_eq!(
        finding.operation_id.as_deref(),
        Some(psi_drift::INVOICE_NOTIFICATION)
    );
    assert_eq!(received.lock().unwrap().len(), 3);
}

/// Writes a recording through the proxy with known secrets in it.
async fn record(sandbox: &Sandbox, path: &std::path::Path) -> String {
    let (url, _) = receiver().await;
    let mut settings = ProxySettings::new(loopback(), Upstreams::all(sandbox.url()));
    settings.record = Some(path.to_owned());
    settings.forward_webhooks_to = Some(url);
    settings.invoice_webhook_secret = Some(INVOICE_SECRET.to_owned());
    let proxy = Proxy::start(settings).await.unwrap();
    let (status, access_token) = token(proxy.url()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        lookup(proxy.url(), &access_token, SEEDED).await.status(),
        StatusCode::OK
    );
    // The webhook secret in a body (a control call: an undeclared path).
    http()
        .post(format!("{}/__sandbox/webhook-subscriptions", proxy.url()))
        .header("content-type", "application/json")
        .body(json!({"url": "http://127.0.0.1:9/hooks", "secret": INVOICE_SECRET}).to_string())
        .send()
        .await
        .unwrap();
    // An IBAN by name and inside a text.
    http()
        .post(format!("{}/nowhere", proxy.url()))
        .header("content-type", "application/json")
        .body(json!({"iban": IBAN, "memo": format!("pay to {IBAN}")}).to_string())
        .send()
        .await
        .unwrap();
    let body = br#"{"transaction_id":"12-00000000000000001"}"#;
    http()
        .post(format!("{}/__proxy/notifications/invoices", proxy.url()))
        .header("content-type", "application/json")
        .header(
            "x-signature",
            psi_sandbox::signature::sign_invoice(INVOICE_SECRET.as_bytes(), body),
        )
        .body(body.to_vec())
        .send()
        .await
        .unwrap();
    access_token
}

#[tokio::test]
async fn a_recording_holds_no_secret_and_checks_again_offline() {
    let sandbox = Sandbox::start().await.unwrap();
    sandbox.seed_transactions(1);
    let directory = temporary_directory("record");
    let path = directory.join("recording.jsonl");
    let access_token = record(&sandbox, &path).await;
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 5, "{text}");
    let signature = psi_sandbox::signature::sign_invoice(
        INVOICE_SECRET.as_bytes(),
        br#"{"transaction_id":"12-00000000000000001"}"#,
    );
    for secret in [
        DEMO_CLIENT_SECRET,
        access_token.as_str(),
        // the token's signature part alone
        access_token.rsplit('.').next().unwrap(),
        INVOICE_SECRET,
        signature.as_str(),
        IBAN,
    ] {
        assert!(
            !text.contains(secret),
            "{secret} is in the recording:\n{text}"
        );
    }
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["operation_id"], "getToken");
    assert_eq!(lines[0]["request"]["body"]["client_secret"], "<secret-2>");
    assert_eq!(lines[0]["answer"]["body"]["access_token"], "<token-1>");
    assert_eq!(
        lines[1]["request"]["headers"]["authorization"],
        "Bearer <token-1>"
    );
    assert_eq!(lines[2]["request"]["body"]["secret"], "<secret-1>");
    assert_eq!(
        lines[3]["request"]["body"]["iban"],
        "******************2051"
    );
    assert_eq!(lines[4]["direction"], "notification");
    assert_eq!(
        lines[4]["request"]["headers"]["x-signature"],
        "<signature-1>"
    );

    // `drift FILE` on the recording: the two undeclared paths.
    let report_path = directory.join("report.json");
    let output = Command::new(BINARY)
        .args([
            "drift",
            path.to_str().unwrap(),
            "--fail-on-drift",
            "--report",
        ])
        .arg(&report_path)
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report: Report =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(
        report
            .findings
            .iter()
            .filter(|f| f.kind == Kind::UndeclaredPath)
            .count(),
        1,
        "{report:#?}"
    );
    assert_eq!(report.findings[0].count, 2, "{report:#?}");
    assert_eq!(kinds(&report), vec![Kind::UndeclaredPath], "{report:#?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("undeclared_path"), "{stderr}");
    let _ = std::fs::remove_dir_all(directory);
}

#[test]
fn drift_reads_a_har_file() {
    let directory = temporary_directory("har");
    let har = json!({"log": {"version": "1.2", "entries": [
        {
            "request": {"method": "GET", "url": format!("https://api.example.com{TRANSACTION}/{SEEDED}?x=1"), "headers": []},
            "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}],
                         "content": {"mimeType": "application/json", "text": "{\"currency\":\"EURO\",\"new_member\":1}"}}
        },
        {
            "request": {"method": "POST", "url": "https://auth.example.com/oauth/token", "headers": [],
                        "postData": {"mimeType": "application/json", "text": "{\"client_id\":\"a\",\"client_secret\":\"b\"}"}},
            "response": {"status": 200, "headers": [],
                         "content": {"mimeType": "application/json", "encoding": "base64",
                                     "text": "eyJhY2Nlc3NfdG9rZW4iOiJ0In0="}}
        }
    ]}});
    let path = directory.join("session.har");
    std::fs::write(&path, har.to_string()).unwrap();
    let output = Command::new(BINARY)
        .args(["drift", path.to_str().unwrap()])
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "without --fail-on-drift");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("drift: 2 finding(s)"), "{stderr}");
    assert!(
        stderr.contains("getTransactionStatus answer undeclared_member /new_member"),
        "{stderr}"
    );
    assert!(
        stderr.contains("getTransactionStatus answer format /currency"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(directory);
}

/// The proxy binary on a free port: the process and its address.
fn spawn_proxy(args: &[&str]) -> (std::process::Child, String) {
    let mut child = Command::new(BINARY)
        .args(["proxy", "--port", "0"])
        .args(args)
        .env_clear()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .trim()
        .strip_prefix("psi proxy listening on ")
        .unwrap_or_else(|| panic!("the banner: {first}"))
        .to_owned();
    (child, url)
}

fn terminate(child: std::process::Child) -> std::process::Output {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    child.wait_with_output().unwrap()
}

#[tokio::test]
async fn fail_on_drift_exits_1_with_drift_and_0_without() {
    let sandbox = Sandbox::start().await.unwrap();
    sandbox.seed_transactions(1);
    let directory = temporary_directory("exit");
    let report_path = directory.join("report.json");
    let report_flag = report_path.to_str().unwrap();

    let (child, url) = spawn_proxy(&["--upstream", sandbox.url(), "--fail-on-drift"]);
    // The image's HEALTHCHECK command works on the proxy.
    let health = Command::new(BINARY)
        .args(["health", "--url", &url])
        .env_clear()
        .output()
        .unwrap();
    assert!(health.status.success(), "{health:?}");
    let (_, access_token) = token(&url).await;
    assert_eq!(
        lookup(&url, &access_token, SEEDED).await.status(),
        StatusCode::OK
    );
    let output = terminate(child);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("drift: none"));

    let (child, url) = spawn_proxy(&[
        "--upstream",
        sandbox.url(),
        "--fail-on-drift",
        "--report",
        report_flag,
    ]);
    http()
        .get(format!("{url}/no/such/path"))
        .send()
        .await
        .unwrap();
    let output = terminate(child);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report: Report =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(kinds(&report), vec![Kind::UndeclaredPath]);
    let _ = std::fs::remove_dir_all(directory);
}

#[tokio::test]
async fn seed_from_a_recording_is_a_seed_the_sandbox_serves() {
    let sandbox = Sandbox::start().await.unwrap();
    sandbox.seed_transactions(1);
    let directory = temporary_directory("seed-from");
    let recording = directory.join("recording.jsonl");
    let access_token = record(&sandbox, &recording).await;
    let recorded: Value = lookup(sandbox.url(), &access_token, SEEDED)
        .await
        .json()
        .await
        .unwrap();
    let seed = directory.join("seed.json");
    let output = Command::new(BINARY)
        .args(["seed-from", recording.to_str().unwrap(), "--out"])
        .arg(&seed)
        .env_clear()
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("demo buyer"),
        "what is not mapped is said"
    );

    // A fresh sandbox seeded with it serves the same transaction.
    let settings = psi_sandbox::Settings::default()
        .address(loopback())
        .seed(psi_sandbox::seed::Seed::read(&seed).expect("a seed file"));
    let seeded = Sandbox::start_with(settings)
        .await
        .expect("the seed is accepted");
    let (_, fresh_token) = token(seeded.url()).await;
    let served: Value = lookup(seeded.url(), &fresh_token, SEEDED)
        .await
        .json()
        .await
        .unwrap();
    for pointer in [
        "/gateway_transaction_id",
        "/currency",
        "/created",
        "/partner_transaction_id",
        "/shop_baskets/0/gross_amount",
        "/shop_baskets/0/items",
        "/payment_information/payment_method",
    ] {
        assert_eq!(
            served.pointer(pointer),
            recorded.pointer(pointer),
            "{pointer}"
        );
    }
    let _ = std::fs::remove_dir_all(directory);
}
