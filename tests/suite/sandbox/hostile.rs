//! Hostile input against the in-process sandbox, with plain HTTP (reqwest
//! or raw TCP, never the psi client): oversized bodies, URIs and headers,
//! deep nesting, invalid UTF-8, numbers no decimal holds, path tricks in
//! ids, forged and foreign tokens, a clock pushed past its range.
//!
//! Each answer must have a status of the small set the route documents,
//! a JSON body in the owning API's error shape, and never a word of
//! serde_json's internals; after all of them the sandbox still serves.

use super::token;
use base64::Engine;
use psi_sandbox::Sandbox;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The statuses a refusal of hostile input may have.
const DOCUMENTED: &[u16] = &[400, 401, 404, 413, 414, 415, 422, 431];

/// A status, the headers' content type and the body, as JSON.
struct Answer {
    status: u16,
    content_type: String,
    body: Value,
    text: String,
}

impl Answer {
    /// Checks the rules every refusal follows and returns the body.
    fn refused(&self, expected: u16, what: &str) -> &Value {
        assert_eq!(self.status, expected, "{what}: {}", self.text);
        assert!(DOCUMENTED.contains(&self.status), "{what}");
        assert!(
            self.content_type.starts_with("application/json"),
            "{what}: content type {:?}",
            self.content_type
        );
        assert!(!self.body.is_null(), "{what}: not JSON: {:?}", self.text);
        assert!(!self.text.contains("$serde_json"), "{what}: {}", self.text);
        assert!(!self.text.contains("serde_json::"), "{what}: {}", self.text);
        &self.body
    }

    /// A payment API's decline: its reasons.
    fn decline(&self, expected: u16, what: &str) -> Vec<String> {
        let body = self.refused(expected, what);
        let reasons = body["decline"]["reasons"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: no decline: {body}"));
        reasons
            .iter()
            .map(|r| r.as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let bytes = response.bytes().await.expect("a body");
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Answer {
        status,
        content_type,
        body,
        text,
    }
}

/// Sends `head` (request line and headers, no blank line) and `body` over
/// a fresh connection and reads one answer: for requests reqwest would
/// normalise or refuse to send.
async fn raw(sandbox: &Sandbox, head: &str, body: &[u8]) -> Answer {
    raw_to(sandbox, "sandbox", head, body).await
}

/// [`raw`] with the `Host` header `host`.
async fn raw_to(sandbox: &Sandbox, host: &str, head: &str, body: &[u8]) -> Answer {
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(sandbox.address())
            .await
            .expect("the sandbox accepts");
        let mut request =
            format!("{head}\r\nhost: {host}\r\nconnection: close\r\n\r\n").into_bytes();
        request.extend_from_slice(body);
        // The sandbox may answer (and close) before reading everything.
        let _ = stream.write_all(&request).await;
        let mut received = Vec::new();
        let _ = stream.read_to_end(&mut received).await;
        received
    };
    let received = tokio::time::timeout(Duration::from_secs(30), exchange)
        .await
        .expect("the sandbox answers within 30 s");
    let text = String::from_utf8_lossy(&received).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("an HTTP answer: {text:?}"));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let content_type = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-type")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_default();
    Answer {
        status,
        content_type,
        body: serde_json::from_str(body).unwrap_or(Value::Null),
        text: body.to_owned(),
    }
}

/// The audience the sandbox expects of shop configuration tokens (the
/// specification's table names none; the sandbox decides).
fn shop_config_audience(sandbox: &Sandbox) -> String {
    sandbox.addresses().shop_config_audience
}

async fn platform_token(sandbox: &Sandbox) -> String {
    let body: Value = reqwest::Client::new()
        .post(format!("{}/api/oauth/token", sandbox.url()))
        .json(&json!({
            "grant_type": "client_credentials",
            "client_id": psi_sandbox::DEMO_PLATFORM_CLIENT_ID,
            "client_secret": psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET,
            "scope": "write",
        }))
        .send()
        .await
        .expect("the platform token endpoint answers")
        .json()
        .await
        .expect("a token body");
    body["access_token"].as_str().expect("a token").to_owned()
}

/// The provider's documented consistent session request (gross 43.8), as
/// the sandbox's demo builds it, in JSON.
fn session_request() -> Value {
    serde_json::to_value(psi_sandbox::demo::session_request(
        "http://127.0.0.1:9/unused",
    ))
    .expect("the demo request serialises")
}

fn session_with_number(pointer: &str, number: &str) -> String {
    const MARK: &str = "\"__number__\"";
    let mut body = session_request();
    *body.pointer_mut(pointer).expect("the field exists") = json!("__number__");
    body.to_string().replace(MARK, number)
}

fn shop_configuration() -> Value {
    serde_json::to_value(psi_sandbox::demo::shop_configuration())
        .expect("the demo configuration serialises")
}

/// A JWT signed with nothing (`alg: none`) for `audience`, valid for a day.
fn unsigned_token(audience: &str) -> String {
    let encode = |value: Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string().as_bytes())
    };
    let now = chrono::Utc::now().timestamp();
    format!(
        "{}.{}.",
        encode(json!({"alg": "none", "typ": "JWT"})),
        encode(
            json!({"aud": audience, "exp": now + 86_400, "iat": now, "sub": psi_sandbox::DEMO_CLIENT_ID})
        )
    )
}

#[tokio::test]
async fn hostile_requests_are_refused_in_the_documented_shapes_and_the_sandbox_survives() {
    let sandbox = Sandbox::start().await.expect("the sandbox starts");
    let url = sandbox.url().to_owned();
    let http = reqwest::Client::new();
    let page_token = token(&sandbox, &url).await;
    let session = format!("{url}/pps/api/v1/session");
    let post_session = |body: Vec<u8>| {
        http.post(&session)
            .bearer_auth(&page_token)
            .header("content-type", "application/json")
            .body(body)
            .send()
    };

    // --- sizes -------------------------------------------------------
    let ten_mb = vec![b' '; 10 * 1024 * 1024];
    let declared = raw(
        &sandbox,
        &format!(
            "POST /pps/api/v1/session HTTP/1.1\r\ncontent-type: application/json\r\ncontent-length: {}",
            ten_mb.len()
        ),
        &[],
    )
    .await;
    assert_eq!(
        declared.decline(413, "a declared 10 MB body"),
        ["PAYLOAD_TOO_LARGE"]
    );
    assert_eq!(declared.body["decline"]["category"], "SYNTAX");
    let sent = raw(
        &sandbox,
        "PUT /shop-config/v2/partners/p-1/shops/s-1 HTTP/1.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked",
        &chunked(&ten_mb),
    )
    .await;
    let body = sent.refused(413, "a chunked 10 MB body to the shop configuration");
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.contains("2097152")),
        "{body}"
    );
    let storefront_413 = raw(
        &sandbox,
        &format!(
            "POST /api/_action/order/{}/gateway/deliver HTTP/1.1\r\ncontent-length: 3000000",
            "a".repeat(32)
        ),
        &[],
    )
    .await;
    assert_eq!(
        storefront_413.refused(413, "a storefront body")["success"],
        false
    );
    let token_413 = raw(
        &sandbox,
        "POST /oauth/token HTTP/1.1\r\ncontent-length: 3000000",
        &[],
    )
    .await;
    assert!(token_413.refused(413, "a token body")["error_description"].is_string());

    // A URI the sandbox refuses itself (20 KB) and one hyper refuses
    // before routing (100 KB, beyond what reqwest will send: raw TCP).
    let long = "a".repeat(20_000);
    let paylater = answer(
        http.get(format!("{url}/order/paylater/v1/{long}/status"))
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(paylater.decline(414, "a 20 KB URI"), ["URI_TOO_LONG"]);
    let longer = "a".repeat(100_000);
    for (path, what) in [
        (format!("/order/paylater/v1/{longer}/status"), "pay later"),
        (
            format!("/shop-config/v2/partners/{longer}/shops/s"),
            "shop configuration",
        ),
        (
            format!("/api/_action/order/{longer}/gateway/info"),
            "storefront",
        ),
    ] {
        let refused = raw(&sandbox, &format!("GET {path} HTTP/1.1"), &[]).await;
        let body = refused.refused(414, &format!("a 100 KB URI to the {what}"));
        let shaped = match what {
            "pay later" => body["decline"]["reasons"][0] == "URI_TOO_LONG",
            "shop configuration" => body["message"].is_string() && body["errors"].is_object(),
            _ => body["success"] == false,
        };
        assert!(shaped, "{what}: {body}");
    }

    // A 1 MB header (refused by the sandbox's limit) and a 3 MB one (past
    // hyper's buffer: refused before it is read to the end, so over raw TCP).
    let big = answer(
        http.get(format!(
            "{url}/order/paylater/v1/12-34567890123456789/status"
        ))
        .header("x-padding", "a".repeat(1024 * 1024))
        .send()
        .await
        .expect("an answer"),
    )
    .await;
    assert_eq!(big.decline(431, "a 1 MB header"), ["HEADERS_TOO_LARGE"]);
    let huge = raw(
        &sandbox,
        &format!(
            "GET /order/paylater/v1/12-34567890123456789/status HTTP/1.1\r\nx-padding: {}",
            "a".repeat(3 * 1024 * 1024)
        ),
        &[],
    )
    .await;
    assert_eq!(huge.decline(431, "a 3 MB header"), ["HEADERS_TOO_LARGE"]);
    let many = raw(
        &sandbox,
        &format!(
            "GET /__sandbox HTTP/1.1\r\n{}",
            (0..200)
                .map(|i| format!("x-h{i}: v"))
                .collect::<Vec<_>>()
                .join("\r\n")
        ),
        &[],
    )
    .await;
    assert!(many.refused(431, "200 headers")["error"].is_string());

    // --- bodies that are not what they claim --------------------------
    let deep = "[".repeat(100_000);
    let nested = answer(
        post_session(deep.clone().into_bytes())
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(nested.decline(400, "100k-deep nesting"), ["INVALID_FIELD"]);
    let nested_shop = answer(
        http.put(format!("{url}/shop-config/v2/partners/p-1/shops/s-1"))
            .bearer_auth(token(&sandbox, &shop_config_audience(&sandbox)).await)
            .header("content-type", "application/json")
            .body(format!("{{\"name\": {deep}"))
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    nested_shop.refused(400, "100k-deep nesting in a shop configuration");
    let not_utf8 = answer(
        post_session(b"{\"order_data\": \"\xff\xfe\"}".to_vec())
            .await
            .expect("an answer"),
    )
    .await;
    not_utf8.decline(400, "an invalid UTF-8 body");

    // --- numbers ------------------------------------------------------
    let gross = "/order_data/shop_baskets/0/gross_amount";
    let gross_path = "$.order_data.shop_baskets[0].gross_amount";
    for (number, limit) in [
        ("1e400", "out of the range of a decimal"),
        ("1e30", "out of the range of a decimal"),
        (
            "123456789012345678901234567890",
            "out of the range of a decimal",
        ),
        (
            "43.80000000000000000000000000000001",
            "at most 28 significant digits",
        ),
        ("1e-30", "at most 28 digits after the decimal point"),
    ] {
        let refused = answer(
            post_session(session_with_number(gross, number).into_bytes())
                .await
                .expect("an answer"),
        )
        .await;
        assert_eq!(refused.decline(400, number), ["INVALID_FIELD"]);
        let invalid = &refused.body["decline"]["invalid_fields"][0];
        assert_eq!(invalid["json_path"], gross_path, "{number}");
        assert!(
            invalid["message"]
                .as_str()
                .is_some_and(|m| m.contains(limit)),
            "{number}: {invalid}"
        );
    }
    let tax = answer(
        post_session(
            session_with_number("/order_data/shop_baskets/0/vats/0/tax_amount", "1e30")
                .into_bytes(),
        )
        .await
        .expect("an answer"),
    )
    .await;
    tax.decline(400, "a tax amount of 1e30");
    assert_eq!(
        tax.body["decline"]["invalid_fields"][0]["json_path"],
        "$.order_data.shop_baskets[0].vats[0].tax_amount"
    );
    // Exact values are taken as they are: 28 digits reach the basket check
    // (and fail it), an exponent that spells 43.8 passes it.
    let big_but_exact = answer(
        post_session(session_with_number(gross, "1234567890123456789012345678").into_bytes())
            .await
            .expect("an answer"),
    )
    .await;
    let reasons = big_but_exact.decline(422, "a 28-digit gross amount");
    assert!(
        reasons.contains(&"SUM_OF_ITEM_AMOUNTS_NOT_MATCHING_TRANSACTION_AMOUNT".to_owned()),
        "{reasons:?}"
    );
    let exponent = post_session(session_with_number(gross, "4.38e1").into_bytes())
        .await
        .expect("an answer");
    assert_eq!(exponent.status(), 201, "4.38e1 is exactly 43.8");

    // --- ids ------------------------------------------------------------
    let shop_token = token(&sandbox, &shop_config_audience(&sandbox)).await;
    for (partner, shop, field) in [
        ("%00", "..%2F..", "partner_profile_id"),
        ("p-1", "..%2F..", "shop_id"),
        ("p-1", "a%0Ab", "shop_id"),
    ] {
        let what = format!("shop configuration {partner}/{shop}");
        let refused = answer(
            http.put(format!(
                "{url}/shop-config/v2/partners/{partner}/shops/{shop}"
            ))
            .bearer_auth(&shop_token)
            .json(&shop_configuration())
            .send()
            .await
            .expect("an answer"),
        )
        .await;
        let body = refused.refused(404, &what);
        assert!(body["errors"][field].is_array(), "{what}: {body}");
        let stored = answer(
            http.get(format!("{url}/__sandbox/shop-config/{partner}/{shop}"))
                .send()
                .await
                .expect("an answer"),
        )
        .await;
        stored.refused(404, &what);
    }
    let bank_token = token(&sandbox, &format!("{url}/shop/consumer/v1")).await;
    let bank = answer(
        http.get(format!(
            "{url}/shop/consumer/v1/partners/p%00/consumer/b-1/bank-accounts"
        ))
        .bearer_auth(&bank_token)
        .send()
        .await
        .expect("an answer"),
    )
    .await;
    assert_eq!(
        bank.decline(404, "a bank account partner p%00"),
        ["UNKNOWN_ID"]
    );
    assert_eq!(
        bank.body["decline"]["invalid_fields"][0]["json_path"],
        "partner_profile_id"
    );
    // Literal dot-segments, which reqwest would resolve before sending.
    let dots = raw(
        &sandbox,
        "GET /shop/consumer/v1/partners/../consumer/b-1/bank-accounts HTTP/1.1",
        &[],
    )
    .await;
    dots.decline(404, "a partner id ..");
    let not_utf8_id = raw(
        &sandbox,
        "GET /shop/consumer/v1/partners/%FF/consumer/b-1/bank-accounts HTTP/1.1",
        &[],
    )
    .await;
    not_utf8_id.decline(404, "a partner id %FF");
    for (path, status) in [
        ("/api/_action/order/%FF/gateway/info", 404),
        ("/api/gateway/order-management/load/%FF", 400),
    ] {
        let refused = raw(&sandbox, &format!("GET {path} HTTP/1.1"), &[]).await;
        assert_eq!(refused.refused(status, path)["success"], false);
    }

    // --- storefront -------------------------------------------------------
    let platform = platform_token(&sandbox).await;
    for operation in ["deliver", "cancel", "refund"] {
        let bad_item = answer(
            http.post(format!(
                "{url}/api/_action/order/{}/gateway/{operation}",
                "0".repeat(32)
            ))
            .bearer_auth(&platform)
            .json(&json!({"items": [{"id": 5}]}))
            .send()
            .await
            .expect("an answer"),
        )
        .await;
        let body = bad_item.refused(
            400,
            &format!("7.x {operation} of an item whose id is not a string"),
        );
        assert_eq!(body["success"], false);
    }

    // --- tokens -------------------------------------------------------
    let status_path = format!("{url}/order/paylater/v1/12-34567890123456789/status");
    let forged = unsigned_token(&format!("{url}/paylater"));
    let unsigned = answer(
        http.get(&status_path)
            .bearer_auth(&forged)
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(
        unsigned.decline(401, "an alg-none token"),
        ["INVALID_TOKEN"]
    );
    let foreign = answer(
        http.get(&status_path)
            .bearer_auth(&bank_token)
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(
        foreign.decline(401, "a bank accounts token on pay later"),
        ["WRONG_AUDIENCE"]
    );
    let paylater_token = token(&sandbox, &format!("{url}/paylater")).await;
    let foreign_shop = answer(
        http.put(format!("{url}/shop-config/v2/partners/p-1/shops/s-1"))
            .bearer_auth(&paylater_token)
            .json(&shop_configuration())
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    assert!(
        foreign_shop.refused(401, "a pay later token on the shop configuration")["message"]
            .is_string()
    );
    // Each API has its own audience: a payment page token is refused by the
    // shop configuration although both are served from one address.
    answer(
        http.put(format!("{url}/shop-config/v2/partners/p-1/shops/s-1"))
            .bearer_auth(&page_token)
            .json(&shop_configuration())
            .send()
            .await
            .expect("an answer"),
    )
    .await
    .refused(401, "a payment page token on the shop configuration");

    // --- clock ----------------------------------------------------------
    let advance = format!("{url}/__sandbox/clock/advance");
    for seconds in [
        "9000000000000",
        "9223372036854775807",
        "-9223372036854775808",
        "1e30",
        "1.5",
    ] {
        let refused = answer(
            http.post(&advance)
                .header("content-type", "application/json")
                .body(format!("{{\"seconds\": {seconds}}}"))
                .send()
                .await
                .expect("an answer"),
        )
        .await;
        let body = refused.refused(400, &format!("advancing by {seconds}"));
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("seconds")),
            "{body}"
        );
    }

    // --- the sandbox still serves -------------------------------------
    let about = http
        .get(format!("{url}/__sandbox"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(about.status(), 200);
    let now: Value = about.json().await.expect("JSON");
    let now = chrono::DateTime::parse_from_rfc3339(now["now"].as_str().expect("now"))
        .expect("an RFC 3339 time");
    assert!(
        (now.to_utc() - chrono::Utc::now()).num_minutes().abs() < 5,
        "the clock did not move"
    );
    token(&sandbox, &url).await;
    let created = post_session(session_request().to_string().into_bytes())
        .await
        .expect("an answer");
    assert_eq!(created.status(), 201);
}

/// `body` in chunked transfer coding, 64 KiB a chunk.
fn chunked(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + body.len() / 1000 + 16);
    for chunk in body.chunks(64 * 1024) {
        out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

#[tokio::test]
async fn unknown_paths_and_methods_answer_json() {
    let sandbox = Sandbox::start().await.expect("the sandbox starts");
    let http = reqwest::Client::new();
    let url = sandbox.url();
    let nowhere = answer(http.get(format!("{url}/nowhere")).send().await.unwrap()).await;
    nowhere.refused(404, "an unknown path");
    let wrong_method = answer(
        http.delete(format!("{url}/pps/api/v1/session"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(wrong_method.status, 405);
    assert!(wrong_method.content_type.starts_with("application/json"));
    assert_eq!(
        wrong_method.body["decline"]["reasons"][0],
        "METHOD_NOT_ALLOWED"
    );
}

/// `value` as JSON text with each `"__name__"` string replaced by the
/// number text given for it (numbers no float holds exactly).
fn with_numbers(value: &Value, numbers: &[(&str, &str)]) -> String {
    let mut text = value.to_string();
    for (name, number) in numbers {
        text = text.replace(&format!("\"__{name}__\""), number);
    }
    text
}

/// One shop basket whose gross amount and only item are `__amount__`.
fn basket_of(shop: &str) -> Value {
    json!({
        "partner_shop_id": shop,
        "shop_transaction_id": format!("SO-{shop}"),
        "gross_amount": "__amount__",
        "items": [{
            "article_number": "GOLD",
            "name": "Gold",
            "quantity": 1,
            "tax_rate": 19,
            "gross_unit_price": "__amount__",
            "gross_total_price": "__amount__",
        }],
    })
}

/// Five times ten to the 28th: each fits a decimal, two added up do not.
const HALF_PAST_THE_RANGE: &str = "50000000000000000000000000000";
/// The largest decimal.
const RANGE_END: &str = "79228162514264337593543950335";

/// A state file in a fresh temporary directory.
fn state_file(name: &str) -> std::path::PathBuf {
    let directory = std::env::temp_dir().join(format!(
        "psi-hostile-{name}-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4()
    ));
    std::fs::create_dir_all(&directory).expect("a temporary directory");
    directory.join("state.db")
}

/// Starts a sandbox on `path`, waiting for a stopped one to let go of it.
async fn start_on_state(path: &std::path::Path) -> Sandbox {
    for _ in 0..100 {
        match Sandbox::start_with(psi_sandbox::Settings::default().state(path)).await {
            Ok(sandbox) => return sandbox,
            Err(psi_sandbox::StartError::State { .. }) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(other) => panic!("the sandbox does not start: {other}"),
        }
    }
    panic!("the state file stays locked")
}

async fn post_json(url: &str, body: String) -> Answer {
    answer(
        reqwest::Client::new()
            .post(url)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("an answer"),
    )
    .await
}

/// Every read of the stored transaction `id` answers 200 (none drops the
/// connection): transaction status, pay later offers, order status with
/// every section, and the invoice in its three formats.
async fn every_read_of(sandbox: &Sandbox, id: &str) {
    let url = sandbox.url().to_owned();
    let stored: Value = sandbox
        .control()
        .get(&format!("transactions/{id}"))
        .await
        .expect("the stored transaction");
    let correspondence = stored["correspondence_id"].as_str().expect("an id");
    let order_status = token(sandbox, &format!("{url}/order/status/v2/transactions")).await;
    let reads = [
        (
            format!("/transaction/status/v2/transactions/{id}"),
            token(
                sandbox,
                &format!("{url}/transaction/status/v2/transactions"),
            )
            .await,
        ),
        (
            format!("/order/paylater/v1/{id}/offers"),
            token(sandbox, &format!("{url}/paylater")).await,
        ),
        (
            format!("/order/status/v2/transactions/{id}?include=all"),
            order_status.clone(),
        ),
        (
            format!("/api/order/{id}/correspondences/invoices/{correspondence}/html"),
            order_status.clone(),
        ),
        (
            format!("/api/order/{id}/correspondences/invoices/{correspondence}/eml"),
            order_status.clone(),
        ),
        (
            format!("/api/order/{id}/correspondences/invoices/{correspondence}/pdf"),
            order_status,
        ),
    ];
    for (path, token) in reads {
        let response = reqwest::Client::new()
            .get(format!("{url}{path}"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{path}: no answer: {e}"));
        assert_eq!(response.status(), 200, "{path}");
        response
            .bytes()
            .await
            .unwrap_or_else(|e| panic!("{path}: no body: {e}"));
    }
}

#[tokio::test]
async fn amounts_no_decimal_adds_up_are_refused_on_arrival_and_every_read_survives_a_restart() {
    let path = state_file("amounts");
    let sandbox = start_on_state(&path).await;
    let url = sandbox.url().to_owned();
    let demo = session_request();

    // Two baskets of 5e28, each valid alone: their sum is past the range.
    let mut two_baskets = demo.clone();
    two_baskets["order_data"]["shop_baskets"] = json!([basket_of("a"), basket_of("b")]);
    let session = answer(
        reqwest::Client::new()
            .post(format!("{url}/pps/api/v1/session"))
            .bearer_auth(token(&sandbox, &url).await)
            .header("content-type", "application/json")
            .body(with_numbers(
                &two_baskets,
                &[("amount", HALF_PAST_THE_RANGE)],
            ))
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(
        session.decline(422, "two baskets of 5e28"),
        ["INVALID_FIELD"]
    );
    let invalid = &session.body["decline"]["invalid_fields"][0];
    assert_eq!(
        invalid["json_path"], "$.order_data.shop_baskets",
        "{invalid}"
    );
    assert!(
        invalid["message"]
            .as_str()
            .is_some_and(|m| m.contains("gross amounts add up past the decimal range")),
        "{invalid}"
    );

    // The control API (and so --seed) checks a transaction as a session.
    let transactions = format!("{url}/__sandbox/transactions");
    let new_transaction =
        |id: &str, order_data: &Value| json!({"transaction_id": id, "order_data": order_data});
    let stored = post_json(
        &transactions,
        with_numbers(
            &new_transaction("12-00000000000000001", &two_baskets["order_data"]),
            &[("amount", HALF_PAST_THE_RANGE)],
        ),
    )
    .await;
    let error = stored.refused(422, "a control transaction of two baskets of 5e28")["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        error.contains("$.order_data.shop_baskets: the baskets' gross amounts"),
        "{error}"
    );
    let mut negative_rate = demo["order_data"].clone();
    negative_rate["shop_baskets"][0]["items"][0]["tax_rate"] = json!(-100);
    let stored = post_json(
        &transactions,
        new_transaction("12-00000000000000002", &negative_rate).to_string(),
    )
    .await;
    let error = stored.refused(422, "a tax rate of -100")["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        error.contains(
            "$.order_data.shop_baskets[0].items[0].tax_rate: must be a percentage from 0 to 100"
        ),
        "{error}"
    );
    let mut header_in_email = demo["order_data"].clone();
    header_in_email["buyer"]["contact"]["email"] =
        json!("erika@example.com\r\nBcc: all@example.com");
    let stored = post_json(
        &transactions,
        new_transaction("12-00000000000000003", &header_in_email).to_string(),
    )
    .await;
    let error = stored.refused(422, "an email with CR LF")["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        error.contains("$.order_data.buyer.contact.email"),
        "{error}"
    );
    for id in [
        "12-00000000000000001",
        "12-00000000000000002",
        "12-00000000000000003",
    ] {
        let refused = sandbox
            .control()
            .get(&format!("transactions/{id}"))
            .await
            .unwrap();
        assert!(refused["error"].is_string(), "{id} was stored: {refused}");
    }

    // An order at the range's end is valid, and every read of it answers.
    let mut at_the_end = demo["order_data"].clone();
    at_the_end["shop_baskets"] = json!([basket_of("a")]);
    let stored = post_json(
        &transactions,
        with_numbers(
            &new_transaction("12-00000000000000004", &at_the_end),
            &[("amount", RANGE_END)],
        ),
    )
    .await;
    assert_eq!(stored.status, 201, "{}", stored.text);
    every_read_of(&sandbox, "12-00000000000000004").await;
    // So is a session of it, whose hosted page adds up its amount due.
    let mut one_basket = demo.clone();
    one_basket["order_data"]["shop_baskets"] = json!([basket_of("a")]);
    let created = answer(
        reqwest::Client::new()
            .post(format!("{url}/pps/api/v1/session"))
            .bearer_auth(token(&sandbox, &url).await)
            .header("content-type", "application/json")
            .body(with_numbers(&one_basket, &[("amount", RANGE_END)]))
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let landing_page = created.body["landing_page"]
        .as_str()
        .expect("a page")
        .to_owned();
    let page = reqwest::get(&landing_page).await.expect("the page answers");
    assert_eq!(page.status(), 200);
    assert!(page.text().await.expect("HTML").contains("79"));

    // Storefront seeds: a line or a sum of lines past the range is refused.
    let orders = format!("{url}/__sandbox/storefront/orders");
    let seed = |items: Value| json!({"items": items}).to_string();
    let refused = post_json(
        &orders,
        seed(json!([{"id": "a", "quantity": 2, "unit_price": "__price__"}]))
            .replace("\"__price__\"", HALF_PAST_THE_RANGE),
    )
    .await;
    let error = refused.refused(400, "quantity x unit price past the range")["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(error.contains("items[0]: quantity x unit_price"), "{error}");
    let refused = post_json(
        &orders,
        seed(json!([
            {"id": "a", "quantity": 1, "unit_price": "__price__"},
            {"id": "b", "quantity": 1, "unit_price": "__price__"},
        ]))
        .replace("\"__price__\"", HALF_PAST_THE_RANGE),
    )
    .await;
    assert!(refused.refused(400, "two lines past the range")["error"]
        .as_str()
        .is_some_and(|e| e.contains("add up past the decimal range")));

    // A delivery naming one line twice, each quantity 5e28: the module keeps
    // the last quantity (repeated ids do not add up), so it is delivered,
    // not a panic; a third 5e28 is more than is open, refused.
    let order_id = "0123456789abcdef0123456789abcdef";
    let seeded = post_json(
        &orders,
        json!({"order_id": order_id, "items": [{"id": "a", "quantity": "__q__", "unit_price": 1}]})
            .to_string()
            .replace("\"__q__\"", HALF_PAST_THE_RANGE),
    )
    .await;
    assert_eq!(seeded.status, 201, "{}", seeded.text);
    let platform = platform_token(&sandbox).await;
    let delivery = answer(
        reqwest::Client::new()
            .post(format!("{url}/api/_action/order/{order_id}/gateway/deliver"))
            .bearer_auth(&platform)
            .header("content-type", "application/json")
            .body(
                json!({"items": [{"id": "a", "quantity": "__q__"}, {"id": "a", "quantity": "__q__"}]})
                    .to_string()
                    .replace("\"__q__\"", HALF_PAST_THE_RANGE),
            )
            .send()
            .await
            .expect("an answer, not a dropped connection"),
    )
    .await;
    assert_eq!(delivery.status, 204, "{}", delivery.text);
    let again = answer(
        reqwest::Client::new()
            .post(format!(
                "{url}/api/_action/order/{order_id}/gateway/deliver"
            ))
            .bearer_auth(&platform)
            .header("content-type", "application/json")
            .body(
                json!({"items": [{"id": "a", "quantity": "__q__"}]})
                    .to_string()
                    .replace("\"__q__\"", HALF_PAST_THE_RANGE),
            )
            .send()
            .await
            .expect("an answer, not a dropped connection"),
    )
    .await;
    assert_eq!(again.status, 500, "{}", again.text);
    assert_eq!(again.body["success"], false, "{}", again.text);
    let info = format!("{url}/api/_action/order/{order_id}/gateway/info");
    let read = reqwest::Client::new()
        .get(&info)
        .bearer_auth(&platform)
        .send()
        .await
        .expect("an answer");
    assert_eq!(read.status(), 200);

    // The same file after a restart: nothing refused was kept, and what
    // was kept reads back whole.
    drop(sandbox);
    let sandbox = start_on_state(&path).await;
    every_read_of(&sandbox, "12-00000000000000004").await;
    // The restarted sandbox listens on another port: the same path there.
    let page_path = landing_page
        .strip_prefix(&url)
        .expect("a page of the sandbox");
    let page = reqwest::get(format!("{}{page_path}", sandbox.url()))
        .await
        .expect("the page answers");
    assert_eq!(page.status(), 200, "the hosted page after the restart");
    for id in [
        "12-00000000000000001",
        "12-00000000000000002",
        "12-00000000000000003",
    ] {
        let refused = sandbox
            .control()
            .get(&format!("transactions/{id}"))
            .await
            .unwrap();
        assert!(refused["error"].is_string(), "{id} was stored: {refused}");
    }
    let platform = platform_token(&sandbox).await;
    let read = reqwest::Client::new()
        .get(format!(
            "{}/api/_action/order/{order_id}/gateway/info",
            sandbox.url()
        ))
        .bearer_auth(&platform)
        .send()
        .await
        .expect("an answer");
    assert_eq!(read.status(), 200);
    let _ = std::fs::remove_dir_all(path.parent().expect("a directory"));
}

#[tokio::test]
async fn the_control_api_takes_json_writes_from_its_own_host_and_keeps_an_operators_secret() {
    let sandbox =
        Sandbox::start_with(psi_sandbox::Settings::default().webhook_secret("operator-secret"))
            .await
            .expect("the sandbox starts");
    let url = sandbox.url().to_owned();
    let port = sandbox.address().port();
    let control = sandbox.control();
    let before = control.now().await.expect("the sandbox time");

    // Writes a web page could send without asking (no-cors fetch: text/plain,
    // a form, or no body at all) are refused, and change nothing.
    let http = reqwest::Client::new();
    let advance = format!("{url}/__sandbox/clock/advance");
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let mut request = http.post(&advance).body(r#"{"seconds": 864000}"#);
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let refused = answer(request.send().await.expect("an answer")).await;
        let error = refused.refused(415, &format!("a control write as {content_type:?}"))["error"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(error.contains("application/json"), "{error}");
    }
    let fault = answer(
        http.post(format!("{url}/__sandbox/faults"))
            .header("content-type", "text/plain;charset=UTF-8")
            .body(r#"{"operation": "createSession", "status": 503, "count": 1}"#)
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    fault.refused(415, "a fault armed as text/plain");
    let disarm = answer(
        http.delete(format!("{url}/__sandbox/faults"))
            .send()
            .await
            .expect("an answer"),
    )
    .await;
    disarm.refused(415, "a DELETE without application/json");
    let after = control.now().await.expect("the sandbox time");
    assert!(
        (after - before).num_hours() < 1,
        "the clock moved: {before} -> {after}"
    );
    let page_token = token(&sandbox, &url).await;
    let created = http
        .post(format!("{url}/pps/api/v1/session"))
        .bearer_auth(&page_token)
        .json(&session_request())
        .send()
        .await
        .expect("an answer");
    assert_eq!(created.status(), 201, "no fault was armed");
    // The same write as application/json is served.
    let served = http
        .post(&advance)
        .header("content-type", "application/json; charset=utf-8")
        .body(r#"{"seconds": 1}"#)
        .send()
        .await
        .expect("an answer");
    assert_eq!(served.status(), 200);

    // Only a Host naming this sandbox is answered (a rebound name is not).
    for host in [
        format!("evil.example:{port}"),
        "localhost.evil.example".to_owned(),
    ] {
        for path in ["/__sandbox", "/__sandbox/sessions", "/__sandbox/webhooks"] {
            let refused = raw_to(&sandbox, &host, &format!("GET {path} HTTP/1.1"), &[]).await;
            assert_eq!(refused.status, 403, "{host} {path}: {}", refused.text);
            assert!(refused.body["error"]
                .as_str()
                .is_some_and(|e| e.contains("Host")));
        }
    }
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        "LOCALHOST".to_owned(),
        format!("[::1]:{port}"),
    ] {
        let served = raw_to(&sandbox, &host, "GET /__sandbox HTTP/1.1", &[]).await;
        assert_eq!(served.status, 200, "{host}: {}", served.text);
    }
    // The APIs are not the control API: any Host reaches them.
    let api = raw_to(
        &sandbox,
        "evil.example",
        "GET /order/paylater/v1/12-34567890123456789/status HTTP/1.1",
        &[],
    )
    .await;
    assert_eq!(api.status, 401, "{}", api.text);

    // An operator's secret is answered by no endpoint.
    for path in ["", "sessions", "webhooks", "webhook-subscriptions"] {
        let answered = control.get(path).await.expect("an answer");
        assert!(
            !answered.to_string().contains("operator-secret"),
            "/__sandbox/{path} answers the operator's secret"
        );
    }
    let about = control.get("").await.expect("an answer");
    assert_eq!(about["webhook_secret"], Value::Null, "{about}");
    // The demo secret is no secret: it is answered.
    let demo = Sandbox::start().await.expect("the sandbox starts");
    let about = demo.control().get("").await.expect("an answer");
    assert_eq!(about["webhook_secret"], psi_sandbox::DEMO_WEBHOOK_SECRET);
}

#[tokio::test]
async fn an_idempotency_replay_compares_amounts_by_their_exact_value() {
    let sandbox = Sandbox::start().await.expect("the sandbox starts");
    let url = sandbox.url().to_owned();
    let page_token = token(&sandbox, &url).await;
    let mut order = session_request();
    order["order_data"]["shop_baskets"] = json!([basket_of("a")]);
    let create = |amount: &str| {
        reqwest::Client::new()
            .post(format!("{url}/pps/api/v1/session"))
            .bearer_auth(&page_token)
            .header("content-type", "application/json")
            .header("idempotency-key", "order-100045-1")
            .body(with_numbers(&order, &[("amount", amount)]))
            .send()
    };
    let first = answer(create("12345678901234567.89").await.expect("an answer")).await;
    assert_eq!(first.status, 201, "{}", first.text);
    // The same value spelled otherwise is the same call: the same session.
    let again = answer(create("12345678901234567.890").await.expect("an answer")).await;
    assert_eq!(again.status, 201, "{}", again.text);
    assert_eq!(again.body["session_id"], first.body["session_id"]);
    // One cent less (the same binary float) is another call with the key.
    let other = answer(create("12345678901234567.88").await.expect("an answer")).await;
    assert_eq!(other.status, 409, "{}", other.text);
    assert_eq!(
        other.body["decline"]["reasons"],
        json!(["IDEMPOTENCY_KEY_REUSED"])
    );
    assert_eq!(sandbox.control().sessions().await.unwrap().len(), 1);
}

#[tokio::test]
async fn with_a_webhook_allow_list_no_session_or_subscription_names_another_host() {
    let sandbox =
        Sandbox::start_with(psi_sandbox::Settings::default().webhook_allow("Shop.Example.com"))
            .await
            .expect("the sandbox starts");
    let url = sandbox.url().to_owned();
    let page_token = token(&sandbox, &url).await;
    let create = |webhook: &str| {
        reqwest::Client::new()
            .post(format!("{url}/pps/api/v1/session"))
            .bearer_auth(&page_token)
            .json(&psi_sandbox::demo::session_request(webhook))
            .send()
    };
    let refused = answer(
        create("http://169.254.169.254/latest")
            .await
            .expect("an answer"),
    )
    .await;
    assert_eq!(
        refused.decline(422, "a webhook to another host"),
        ["INVALID_FIELD"]
    );
    assert_eq!(
        refused.body["decline"]["invalid_fields"][0]["json_path"],
        "$.url_data.webhook_url"
    );
    let allowed = create("https://shop.example.com/webhook")
        .await
        .expect("an answer");
    assert_eq!(allowed.status(), 201);
    let subscribe = |receiver: &str| {
        reqwest::Client::new()
            .post(format!("{url}/__sandbox/webhook-subscriptions"))
            .json(&json!({"url": receiver}))
            .send()
    };
    let refused = answer(
        subscribe("http://127.0.0.1:6379/")
            .await
            .expect("an answer"),
    )
    .await;
    assert!(
        refused.refused(400, "a subscription to another host")["error"]
            .as_str()
            .is_some_and(|e| e.contains("--webhook-allow"))
    );
    let subscribed = subscribe("https://shop.example.com/invoices")
        .await
        .expect("an answer");
    assert_eq!(subscribed.status(), 201);
}

/// A sandbox with `limits` changed by `change`.
async fn limited(change: impl FnOnce(&mut psi_sandbox::Limits)) -> Sandbox {
    let mut limits = psi_sandbox::Limits::default();
    change(&mut limits);
    Sandbox::start_with(psi_sandbox::Settings::default().limits(limits))
        .await
        .expect("the sandbox starts")
}

async fn new_session(
    sandbox: &Sandbox,
    page_token: &str,
    key: Option<&str>,
    body: String,
) -> Answer {
    let mut request = reqwest::Client::new()
        .post(format!("{}/pps/api/v1/session", sandbox.url()))
        .bearer_auth(page_token)
        .header("content-type", "application/json")
        .body(body);
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    answer(request.send().await.expect("an answer")).await
}

#[tokio::test]
async fn beyond_the_session_cap_the_oldest_finished_session_is_forgotten() {
    let sandbox = limited(|limits| limits.max_sessions = 3).await;
    let url = sandbox.url().to_owned();
    let page_token = token(&sandbox, &url).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let created = new_session(&sandbox, &page_token, None, session_request().to_string()).await;
        assert_eq!(created.status, 201, "{}", created.text);
        ids.push(created.body["session_id"].as_str().unwrap().to_owned());
    }
    let control = sandbox.control();
    control
        .complete_session(&ids[1], "OPEN_INVOICE")
        .await
        .expect("completed");
    let record = |id: String| {
        let page_token = page_token.clone();
        let url = url.clone();
        async move {
            reqwest::Client::new()
                .get(format!("{url}/pps/api/v1/session-record/{id}"))
                .bearer_auth(page_token)
                .send()
                .await
                .expect("an answer")
                .status()
                .as_u16()
        }
    };
    // A fourth: the finished one goes, though it is not the oldest.
    let fourth = new_session(&sandbox, &page_token, None, session_request().to_string()).await;
    assert_eq!(fourth.status, 201);
    assert_eq!(
        record(ids[1].clone()).await,
        404,
        "the finished session is forgotten"
    );
    assert_eq!(
        record(ids[0].clone()).await,
        200,
        "the oldest open one is kept"
    );
    // A fifth, none finished: the oldest goes.
    let fifth = new_session(&sandbox, &page_token, None, session_request().to_string()).await;
    assert_eq!(fifth.status, 201);
    assert_eq!(record(ids[0].clone()).await, 404);
    assert_eq!(record(ids[2].clone()).await, 200);
    assert_eq!(control.sessions().await.unwrap().len(), 3);

    // No more keys than sessions are kept: the oldest key goes first.
    let mut other = session_request();
    other["order_data"]["partner_transaction_id"] = json!("order-other");
    for key in ["k-1", "k-2", "k-3", "k-4"] {
        let created = new_session(
            &sandbox,
            &page_token,
            Some(key),
            session_request().to_string(),
        )
        .await;
        assert_eq!(created.status, 201, "{}", created.text);
    }
    let kept = new_session(&sandbox, &page_token, Some("k-4"), other.to_string()).await;
    assert_eq!(kept.status, 409, "the newest key is kept: {}", kept.text);
    let forgotten = new_session(&sandbox, &page_token, Some("k-1"), other.to_string()).await;
    assert_eq!(
        forgotten.status, 201,
        "the oldest key is forgotten: {}",
        forgotten.text
    );
}

#[tokio::test]
async fn an_idempotency_key_is_forgotten_after_24_hours_of_sandbox_time() {
    let sandbox = Sandbox::start().await.expect("the sandbox starts");
    let url = sandbox.url().to_owned();
    let page_token = token(&sandbox, &url).await;
    let mut other = session_request();
    other["order_data"]["partner_transaction_id"] = json!("order-other");
    let first = new_session(
        &sandbox,
        &page_token,
        Some("k-1"),
        session_request().to_string(),
    )
    .await;
    assert_eq!(first.status, 201);
    let reused = new_session(&sandbox, &page_token, Some("k-1"), other.to_string()).await;
    assert_eq!(reused.status, 409, "{}", reused.text);
    sandbox
        .control()
        .advance_clock(24 * 3600)
        .await
        .expect("the clock moves");
    // The token expired with the clock; a fresh one.
    let page_token = token(&sandbox, &url).await;
    let after = new_session(&sandbox, &page_token, Some("k-1"), other.to_string()).await;
    assert_eq!(after.status, 201, "the key expired: {}", after.text);
    assert_ne!(after.body["session_id"], first.body["session_id"]);
}

#[tokio::test]
async fn subscriptions_are_de_duplicated_and_capped_and_faults_capped() {
    let sandbox = limited(|limits| {
        limits.max_webhook_subscriptions = 2;
        limits.max_faults = 2;
    })
    .await;
    let url = sandbox.url().to_owned();
    let control = sandbox.control();
    for _ in 0..50 {
        control
            .subscribe_invoice_webhooks("http://127.0.0.1:9/invoices")
            .await
            .expect("subscribed");
    }
    let subscriptions = control.webhook_subscriptions().await.unwrap();
    assert_eq!(subscriptions.len(), 1, "{subscriptions:?}");
    control
        .subscribe_invoice_webhooks("http://127.0.0.1:9/second")
        .await
        .expect("subscribed");
    let third = post_json(
        &format!("{url}/__sandbox/webhook-subscriptions"),
        json!({"url": "http://127.0.0.1:9/third"}).to_string(),
    )
    .await;
    assert!(third.refused(400, "a third subscription")["error"]
        .as_str()
        .is_some_and(|e| e.contains("--max-webhook-subscriptions")));
    let fault = json!({"operation": "createSession", "status": 503, "count": 1}).to_string();
    for _ in 0..2 {
        let armed = post_json(&format!("{url}/__sandbox/faults"), fault.clone()).await;
        assert_eq!(armed.status, 204, "{}", armed.text);
    }
    let refused = post_json(&format!("{url}/__sandbox/faults"), fault).await;
    assert!(refused.refused(400, "a third fault")["error"]
        .as_str()
        .is_some_and(|e| e.contains("--max-faults")));
}

#[tokio::test]
async fn connections_beyond_the_limit_wait_and_a_silent_one_is_closed() {
    let half_a_head = b"GET /__sandbox HTTP/1.1\r\nhost: localhost\r\n";
    // One connection at most: a second waits until the first closes.
    let sandbox = limited(|limits| limits.max_connections = 1).await;
    let mut first = tokio::net::TcpStream::connect(sandbox.address())
        .await
        .expect("the sandbox accepts");
    first.write_all(half_a_head).await.expect("sent");
    let address = sandbox.address();
    let mut second = tokio::spawn(async move {
        let mut stream = tokio::net::TcpStream::connect(address)
            .await
            .expect("the listen queue takes it");
        stream
            .write_all(b"GET /__sandbox HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n")
            .await
            .expect("sent");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await;
        String::from_utf8_lossy(&answer).into_owned()
    });
    assert!(
        tokio::time::timeout(Duration::from_secs(1), &mut second)
            .await
            .is_err(),
        "the second connection was served while the first was open"
    );
    drop(first);
    let answer = tokio::time::timeout(Duration::from_secs(30), second)
        .await
        .expect("served once the first closed")
        .expect("the reader ends");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    // A connection that sends half a head and then nothing is closed.
    let sandbox = limited(|limits| limits.header_read_timeout = Duration::from_secs(1)).await;
    let mut silent = tokio::net::TcpStream::connect(sandbox.address())
        .await
        .expect("the sandbox accepts");
    silent.write_all(half_a_head).await.expect("sent");
    let mut rest = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), silent.read_to_end(&mut rest))
        .await
        .expect("the silent connection is closed")
        .expect("read to its end");
}

/// Answers every request 200 on a fresh local port; answers the URL.
async fn accepting_receiver() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let address = listener.local_addr().expect("its address");
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buffer = [0u8; 4096];
                while let Ok(read) = stream.read(&mut buffer).await {
                    if read == 0 {
                        return;
                    }
                    request.extend_from_slice(&buffer[..read]);
                    let text = String::from_utf8_lossy(&request).to_ascii_lowercase();
                    let Some(end) = text.find("\r\n\r\n") else {
                        continue;
                    };
                    let length = text
                        .lines()
                        .find_map(|line| line.strip_prefix("content-length:"))
                        .and_then(|value| value.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break;
                    }
                }
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .await;
            });
        }
    });
    format!("http://{address}/hook")
}

#[tokio::test]
async fn the_delivery_log_keeps_its_cap_by_dropping_the_oldest_delivered() {
    let sandbox = limited(|limits| limits.max_deliveries = 4).await;
    let url = sandbox.url().to_owned();
    let receiver = accepting_receiver().await;
    let page_token = token(&sandbox, &url).await;
    let control = sandbox.control();
    let mut last = String::new();
    for _ in 0..9 {
        let body = serde_json::to_string(&psi_sandbox::demo::session_request(&receiver))
            .expect("a request");
        let created = new_session(&sandbox, &page_token, None, body).await;
        assert_eq!(created.status, 201, "{}", created.text);
        last = created.body["session_id"].as_str().unwrap().to_owned();
        control
            .complete_session(&last, "OPEN_INVOICE")
            .await
            .expect("completed");
        // Each notification is delivered before the next is queued.
        let mut delivered = false;
        for _ in 0..400 {
            let entries = control.webhooks().await.expect("the log");
            assert!(entries.len() <= 4, "{} kept", entries.len());
            delivered = entries.iter().any(|d| d.session_id == last && d.delivered);
            if delivered {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(delivered, "the notification of {last} was delivered");
    }
    let entries = control.webhooks().await.expect("the log");
    assert!((2..=4).contains(&entries.len()), "{} kept", entries.len());
    assert_eq!(
        entries.last().map(|d| d.session_id.as_str()),
        Some(last.as_str())
    );
}
