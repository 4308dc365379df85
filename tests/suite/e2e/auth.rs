//! The token server and token checks of every API.

use super::sandbox;
use psi::Api;

const STATUS_PATH: &str = "/order/paylater/v1/12-00000000000000000/status";

async fn raw_get(url: &str, bearer: Option<&str>) -> u16 {
    let mut request = reqwest::Client::new().get(url);
    if let Some(token) = bearer {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn wrong_credentials_get_401_with_a_typed_error() {
    let (sandbox, _) = sandbox().await;
    let client = psi::Client::builder()
        .environment(super::environment(&sandbox))
        .credentials(psi::Credentials::new(
            psi_sandbox::DEMO_CLIENT_ID,
            "not-the-secret",
        ))
        .build()
        .unwrap();
    let error = client.token(Api::PayLater).await.unwrap_err();
    assert_eq!(error.status(), Some(401));
    assert_eq!(error.kind(), psi::TokenErrorKind::RejectedCredentials);
    assert!(error.to_string().contains("/paylater"), "{error}");
}

#[tokio::test]
async fn tokens_are_signed_jwts_with_audience_and_expiry() {
    let (sandbox, client) = sandbox().await;
    let token = client.token(Api::PayLater).await.unwrap();
    let parts: Vec<&str> = token.expose().split('.').collect();
    assert_eq!(parts.len(), 3, "a JWT has three parts");
    use base64::Engine;
    let claims: serde_json::Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(parts[1])
            .unwrap(),
    )
    .unwrap();
    assert_eq!(claims["aud"], format!("{}/paylater", sandbox.url()));
    assert!(claims["exp"].as_i64().unwrap() > claims["iat"].as_i64().unwrap());
}

#[tokio::test]
async fn every_api_rejects_missing_tampered_expired_and_foreign_tokens() {
    let (sandbox, client) = sandbox().await;
    let url = format!("{}{STATUS_PATH}", sandbox.url());
    let good = client.token(Api::PayLater).await.unwrap();
    // The transaction does not exist: a valid token gets past auth to a 404.
    assert_eq!(raw_get(&url, Some(good.expose())).await, 404);

    assert_eq!(raw_get(&url, None).await, 401, "missing");
    let mut tampered = good.expose().to_owned();
    let last = tampered.pop().unwrap();
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    assert_eq!(
        raw_get(&url, Some(&tampered)).await,
        401,
        "tampered signature"
    );
    let foreign = client.token(Api::BankAccounts).await.unwrap();
    assert_eq!(
        raw_get(&url, Some(foreign.expose())).await,
        401,
        "wrong audience"
    );

    sandbox.control().advance_clock(1801).await.unwrap();
    assert_eq!(raw_get(&url, Some(good.expose())).await, 401, "expired");
}

#[tokio::test]
async fn the_client_recovers_from_an_expired_token_by_itself() {
    let (sandbox, client) = sandbox().await;
    let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let pay_later = client.pay_later();
    let status = || {
        pay_later
            .get_pay_later_status()
            .transaction_id(&transaction)
            .send()
    };
    status().await.unwrap();
    // The sandbox clock moves past the token's expiry; psi's cache does not
    // know, sends the stale token, gets 401, refreshes once and succeeds.
    sandbox.control().advance_clock(3600).await.unwrap();
    assert_eq!(status().await.unwrap().status(), 200);
}
