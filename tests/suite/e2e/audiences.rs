//! The sandbox's own audience table and token server, tested from the
//! specification's Authentication table with literal paths (not computed by
//! a helper either side shares), over plain HTTP: a token for one API is
//! refused (401) by every other; the token server issues tokens only for
//! the table's audiences and only for complete client-credentials requests.

use base64::Engine;
use psi_sandbox::Sandbox;
use serde_json::{json, Value};

const NO_TRANSACTION: &str = "12-00000000000000000";
const NO_SESSION: &str = "3f2c1d9e-4b5a-4c6d-8e7f-0a1b2c3d4e5f";
const NO_ORDER: &str = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";

/// One API as the sandbox serves it: the audience its tokens carry and a
/// call that needs a token (answered other than 401 with the right one).
struct Api {
    name: &'static str,
    audience: String,
    method: reqwest::Method,
    url: String,
    body: Option<Value>,
}

/// The table, sandbox URL `U` = `http://127.0.0.1:<port>`.
fn table(sandbox: &Sandbox) -> Vec<Api> {
    let u = sandbox.url();
    let get = |name, audience: String, path: String| Api {
        name,
        audience,
        method: reqwest::Method::GET,
        url: format!("{u}{path}"),
        body: None,
    };
    vec![
        get(
            "payment page",
            u.to_owned(),
            format!("/pps/api/v1/session-record/{NO_SESSION}"),
        ),
        get(
            "pay later",
            format!("{u}/paylater"),
            format!("/order/paylater/v1/{NO_TRANSACTION}/status"),
        ),
        get(
            "bank accounts",
            format!("{u}/shop/consumer/v1"),
            "/shop/consumer/v1/partners/pp-1/consumer/buyer-1/bank-accounts".to_owned(),
        ),
        get(
            "order status",
            format!("{u}/order/status/v2/transactions"),
            format!("/order/status/v2/transactions/{NO_TRANSACTION}"),
        ),
        get(
            "invoice correspondence (order status token)",
            format!("{u}/order/status/v2/transactions"),
            format!("/api/order/{NO_TRANSACTION}/correspondences/invoices/{NO_SESSION}/pdf"),
        ),
        get(
            "transaction status",
            format!("{u}/transaction/status/v2/transactions"),
            format!("/transaction/status/v2/transactions/{NO_TRANSACTION}"),
        ),
        Api {
            name: "shop configuration",
            audience: format!("{u}/shop-config"),
            method: reqwest::Method::PUT,
            url: format!("{u}/shop-config/v2/partners/pp-1/shops/shop-1"),
            body: Some(json!({})),
        },
        get(
            "storefront",
            "platform".to_owned(),
            format!("/api/_action/order/{NO_ORDER}/gateway/info"),
        ),
    ]
}

async fn token_answer(sandbox: &Sandbox, body: Value) -> (u16, Value) {
    let answer = reqwest::Client::new()
        .post(format!("{}/oauth/token", sandbox.url()))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

fn token_request(audience: &str) -> Value {
    json!({
        "client_id": psi_sandbox::DEMO_CLIENT_ID,
        "client_secret": psi_sandbox::DEMO_CLIENT_SECRET,
        "audience": audience,
        "grant_type": "client_credentials",
    })
}

/// A token for `audience`: the platform's from its own endpoint, any
/// other from the token server.
async fn token(sandbox: &Sandbox, audience: &str) -> String {
    if audience == "platform" {
        let answer: Value = reqwest::Client::new()
            .post(format!("{}/api/oauth/token", sandbox.url()))
            .json(&json!({
                "grant_type": "client_credentials",
                "client_id": psi_sandbox::DEMO_PLATFORM_CLIENT_ID,
                "client_secret": psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET,
                "scope": "write",
            }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        return answer["access_token"].as_str().unwrap().to_owned();
    }
    let (status, answer) = token_answer(sandbox, token_request(audience)).await;
    assert_eq!(status, 200, "a token for {audience}: {answer}");
    answer["access_token"].as_str().unwrap().to_owned()
}

async fn call(api: &Api, bearer: Option<&str>) -> u16 {
    let mut request = reqwest::Client::new().request(api.method.clone(), &api.url);
    if let Some(body) = &api.body {
        request = request.json(body);
    }
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap().status().as_u16()
}

fn claims(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a JWT");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test]
async fn each_api_takes_exactly_the_audience_of_the_specification_table() {
    let (sandbox, _) = super::sandbox().await;
    let apis = table(&sandbox);
    for api in &apis {
        let token = token(&sandbox, &api.audience).await;
        assert_eq!(claims(&token)["aud"], api.audience.as_str(), "{}", api.name);
        for other in &apis {
            let status = call(other, Some(&token)).await;
            if other.audience == api.audience {
                assert_ne!(status, 401, "{}'s token at {}", api.name, other.name);
            } else {
                assert_eq!(status, 401, "{}'s token at {}", api.name, other.name);
            }
        }
        assert_eq!(call(api, None).await, 401, "{} without a token", api.name);
    }
}

#[tokio::test]
async fn the_unserved_apis_of_the_table_get_tokens_that_no_served_api_takes() {
    let (sandbox, _) = super::sandbox().await;
    let u = sandbox.url();
    for path in [
        "/transaction/management",
        "/dispute/management",
        "/webhook/management",
    ] {
        let token = token(&sandbox, &format!("{u}{path}")).await;
        for api in table(&sandbox) {
            assert_eq!(
                call(&api, Some(&token)).await,
                401,
                "{path} at {}",
                api.name
            );
        }
    }
}

#[tokio::test]
async fn the_sandbox_publishes_its_addresses() {
    let (sandbox, _) = super::sandbox().await;
    let u = sandbox.url();
    let addresses = sandbox.addresses();
    assert_eq!(addresses.base_url, u);
    assert_eq!(addresses.api_url, u);
    assert_eq!(addresses.auth_url, u);
    assert_eq!(addresses.platform_url, u);
    assert_eq!(addresses.shop_config_url, format!("{u}/shop-config"));
    assert_eq!(addresses.shop_config_audience, format!("{u}/shop-config"));
    let about = sandbox.control().get("").await.unwrap();
    assert_eq!(
        about["addresses"]["shop_config_url"],
        format!("{u}/shop-config")
    );
    assert_eq!(
        about["addresses"]["shop_config_audience"],
        format!("{u}/shop-config")
    );
}

#[tokio::test]
async fn the_token_server_issues_tokens_only_for_the_table() {
    let (sandbox, _) = super::sandbox().await;
    let u = sandbox.url();
    for audience in [
        format!("{u}/"),
        format!("{u}/paylater/"),
        format!("{u}/v2"),
        format!("{u}/shop/consumer"),
        "https://api.example.com/paylater".to_owned(),
        "platform".to_owned(),
        String::new(),
    ] {
        let (status, answer) = token_answer(&sandbox, token_request(&audience)).await;
        assert_eq!(status, 400, "{audience:?}: {answer}");
        assert_eq!(answer["error"], "invalid_target", "{audience:?}");
    }
}

#[tokio::test]
async fn the_token_server_needs_every_field_and_the_client_credentials_grant() {
    let (sandbox, _) = super::sandbox().await;
    let audience = format!("{}/paylater", sandbox.url());
    for field in ["client_id", "client_secret", "audience", "grant_type"] {
        let mut request = token_request(&audience);
        request.as_object_mut().unwrap().remove(field);
        let (status, answer) = token_answer(&sandbox, request).await;
        assert_eq!(status, 400, "without {field}: {answer}");
        assert_eq!(answer["error"], "invalid_request");
        let description = answer["error_description"].as_str().unwrap();
        assert!(description.contains(field), "{description}");
    }
    let mut password = token_request(&audience);
    password["grant_type"] = json!("password");
    let (status, answer) = token_answer(&sandbox, password).await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"], "unsupported_grant_type");
    assert!(answer["error_description"]
        .as_str()
        .unwrap()
        .contains("grant_type"));

    let mut wrong_secret = token_request(&audience);
    wrong_secret["client_secret"] = json!("not-the-secret");
    let (status, answer) = token_answer(&sandbox, wrong_secret).await;
    assert_eq!(status, 401);
    assert_eq!(answer["error"], "invalid_client");
    assert!(!answer.to_string().contains("not-the-secret"));
}

/// `header.payload.` with the given header and the claims of `token`.
fn resigned(header: Value, token: &str, signature: &str) -> String {
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let payload = token.split('.').nth(1).unwrap();
    format!(
        "{}.{payload}.{signature}",
        engine.encode(header.to_string())
    )
}

#[tokio::test]
async fn unsigned_forged_and_expired_tokens_are_refused() {
    let (sandbox, _) = super::sandbox().await;
    let apis = table(&sandbox);
    let pay_later = apis.iter().find(|api| api.name == "pay later").unwrap();
    let good = token(&sandbox, &pay_later.audience).await;
    assert_eq!(call(pay_later, Some(&good)).await, 404);

    let unsigned = resigned(json!({"alg": "none", "typ": "JWT"}), &good, "");
    assert_eq!(call(pay_later, Some(&unsigned)).await, 401, "alg none");
    // The claims of the pay later token with the signature of another token.
    let other = token(&sandbox, &format!("{}/shop/consumer/v1", sandbox.url())).await;
    let foreign_signature = other.split('.').nth(2).unwrap();
    let forged = resigned(
        json!({"alg": "HS256", "typ": "JWT"}),
        &good,
        foreign_signature,
    );
    assert_eq!(call(pay_later, Some(&forged)).await, 401, "wrong signature");

    sandbox.control().advance_clock(1801).await.unwrap();
    assert_eq!(call(pay_later, Some(&good)).await, 401, "expired");
}
