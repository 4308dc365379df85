//! The request journal (`GET /__sandbox/requests`): what the sandbox
//! answered, redacted like the log, without the control API's own calls,
//! bounded, and emptied by `DELETE`.

use super::token;
use psi_sandbox::Sandbox;

const LOOKUP: &str = "/transaction/status/v2/transactions/";

#[tokio::test]
async fn the_journal_lists_answered_requests_masked_and_without_control_calls() {
    let sandbox = Sandbox::start().await.unwrap();
    let control = sandbox.control();
    let audience = format!("{}/transaction/status/v2/transactions", sandbox.url());
    let token = token(&sandbox, &audience).await;
    let http = reqwest::Client::new();
    let unknown = http
        .get(format!("{}{LOOKUP}12-00000000000000001", sandbox.url()))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let iban_path = format!(
        "{}/shop/consumer/v1/partners/p/consumer/DE89370400440532013000/bank-accounts",
        sandbox.url()
    );
    let unauthorized = http.get(&iban_path).send().await.unwrap();
    assert_eq!(unauthorized.status(), 401);
    control.sessions().await.unwrap();

    let entries = control.requests().await.unwrap();
    assert_eq!(entries.len(), 3, "{entries:?}");
    assert_eq!(entries[0].method, "POST");
    assert_eq!(entries[0].operation_id, "getToken");
    assert_eq!(entries[1].path, format!("{LOOKUP}12-00000000000000001"));
    assert_eq!(entries[1].operation_id, "getTransactionStatus");
    assert_eq!(entries[1].status, 404);
    assert_eq!(
        entries[2].path,
        "/shop/consumer/v1/partners/p/consumer/DE89…3000/bank-accounts"
    );
    assert_eq!(entries[2].status, 401);
    assert!(entries[0].at <= entries[2].at);

    control.clear_requests().await.unwrap();
    assert!(control.requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn the_journal_keeps_the_most_recent_thousand() {
    let sandbox = Sandbox::start().await.unwrap();
    let http = reqwest::Client::new();
    for index in 0..1_005 {
        let response = http
            .get(format!("{}/no/such/path/{index}", sandbox.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404);
    }
    let entries = sandbox.control().requests().await.unwrap();
    assert_eq!(entries.len(), 1_000);
    assert_eq!(entries[0].path, "/no/such/path/5");
    assert_eq!(entries[999].path, "/no/such/path/1004");
}
