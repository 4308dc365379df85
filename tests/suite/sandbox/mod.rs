//! The sandbox itself, through plain HTTP: what it does with input no
//! client of the documents would send.

mod from_examples;
mod hostile;
mod journal;
mod lookups;
mod prefer;
mod remembered_tokens;
mod reset;
mod tenants;

use psi_sandbox::Sandbox;
use serde_json::{json, Value};

/// A token from the sandbox's token server for `audience`, with the demo
/// credentials.
pub(super) async fn token(sandbox: &Sandbox, audience: &str) -> String {
    let response = reqwest::Client::new()
        .post(format!("{}/oauth/token", sandbox.url()))
        .json(&json!({
            "grant_type": "client_credentials",
            "client_id": psi_sandbox::DEMO_CLIENT_ID,
            "client_secret": psi_sandbox::DEMO_CLIENT_SECRET,
            "audience": audience,
        }))
        .send()
        .await
        .expect("the token server answers");
    assert_eq!(response.status(), 200, "a token for {audience}");
    let body: Value = response.json().await.expect("a token body");
    body["access_token"].as_str().expect("a token").to_owned()
}

/// Stores the transaction `id` with the demo session's order, through the
/// control API.
pub(super) async fn store_transaction(sandbox: &Sandbox, id: &str) {
    let order = psi_sandbox::demo::session_request("https://shop.example.com/webhook").order_data;
    sandbox
        .control()
        .post(
            "transactions",
            json!({"transaction_id": id, "order_data": order}),
        )
        .await
        .unwrap();
}
