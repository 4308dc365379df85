//! `Prefer: code=<status>` on the hand-emulated APIs: the documented
//! example of that status, as for the documents served from their
//! examples; without the header the call is processed as usual.

use psi_sandbox::Sandbox;
use serde_json::{json, Value};

const STATUS: &str = "/order/paylater/v1/12-00000000000000001/status";

#[tokio::test]
async fn a_hand_emulated_operation_answers_the_documented_example_asked_for() {
    let sandbox = Sandbox::start().await.unwrap();
    let http = reqwest::Client::new();
    let url = format!("{}{STATUS}", sandbox.url());

    let documented = http
        .get(&url)
        .header("Prefer", "code=404")
        .send()
        .await
        .unwrap();
    assert_eq!(documented.status(), 404);
    let body: Value = documented.json().await.unwrap();
    assert_eq!(body, json!({"decline": {"category": "RESOURCE_NOT_FOUND"}}));

    let undocumented = http
        .get(&url)
        .header("Prefer", "code=418")
        .send()
        .await
        .unwrap();
    assert_eq!(undocumented.status(), 400);
    let body: Value = undocumented.json().await.unwrap();
    assert_eq!(body["decline"]["reasons"][0], "INVALID_PREFER", "{body}");

    // Without the header the call is processed: no token, a 401.
    let processed = http.get(&url).send().await.unwrap();
    assert_eq!(processed.status(), 401);

    let journal = sandbox.control().requests().await.unwrap();
    assert!(journal
        .iter()
        .all(|entry| entry.operation_id == "getPayLaterStatus"));
}
