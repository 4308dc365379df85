//! The sandbox remembers a token's verified signature (so a lookup does not
//! check the HMAC on every call); what it answers must not change: the
//! remembered token is still refused by every other API, expires with the
//! sandbox clock (forwards and back), and a forged copy is still refused.

use super::{store_transaction, token};
use psi_sandbox::Sandbox;
use serde_json::Value;

const TRANSACTION: &str = "12-00000000000000042";

/// The status and the decline reasons (none for a 2xx) of a GET of `path`.
async fn get(sandbox: &Sandbox, path: &str, token: &str) -> (u16, Vec<String>) {
    let response = reqwest::Client::new()
        .get(format!("{}{path}", sandbox.url()))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    let reasons = body["decline"]["reasons"]
        .as_array()
        .map(|reasons| {
            reasons
                .iter()
                .map(|r| r.as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default();
    (status, reasons)
}

#[tokio::test]
async fn a_remembered_token_is_refused_elsewhere_expires_and_cannot_be_forged() {
    let sandbox = Sandbox::start().await.unwrap();
    store_transaction(&sandbox, TRANSACTION).await;
    let url = sandbox.url().to_owned();
    let lookup = format!("/transaction/status/v2/transactions/{TRANSACTION}");
    let status_token = token(
        &sandbox,
        &format!("{url}/transaction/status/v2/transactions"),
    )
    .await;

    // Verified once, then served from memory: both calls answer the record.
    for _ in 0..2 {
        assert_eq!(get(&sandbox, &lookup, &status_token).await, (200, vec![]));
    }

    // The remembered token is still for its own API alone.
    for path in [
        format!("/order/status/v2/transactions/{TRANSACTION}?include=all"),
        format!("/order/paylater/v1/{TRANSACTION}/offers"),
        format!("/order/paylater/v1/{TRANSACTION}/status"),
    ] {
        let refused = get(&sandbox, &path, &status_token).await;
        assert_eq!(refused, (401, vec!["WRONG_AUDIENCE".to_owned()]), "{path}");
    }
    // And another API's remembered token is refused here.
    let order_token = token(&sandbox, &format!("{url}/order/status/v2/transactions")).await;
    let order_status = format!("/order/status/v2/transactions/{TRANSACTION}");
    assert_eq!(get(&sandbox, &order_status, &order_token).await.0, 200);
    assert_eq!(
        get(&sandbox, &lookup, &order_token).await,
        (401, vec!["WRONG_AUDIENCE".to_owned()])
    );

    // A copy with another signature is not the remembered token.
    let (head, signature) = status_token.rsplit_once('.').unwrap();
    let other = if signature.starts_with('A') { "B" } else { "A" };
    let forged = format!("{head}.{other}{}", &signature[1..]);
    assert_eq!(
        get(&sandbox, &lookup, &forged).await,
        (401, vec!["INVALID_TOKEN".to_owned()])
    );

    // The sandbox clock moves past the expiry: the remembered token expires,
    // and comes back when the clock does.
    let control = sandbox.control();
    control.advance_clock(1801).await.unwrap();
    assert_eq!(
        get(&sandbox, &lookup, &status_token).await,
        (401, vec!["EXPIRED_TOKEN".to_owned()])
    );
    control.advance_clock(-1801).await.unwrap();
    assert_eq!(get(&sandbox, &lookup, &status_token).await, (200, vec![]));
}
