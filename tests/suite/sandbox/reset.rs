//! `POST /__sandbox/reset`: every collection emptied (in the state file
//! too), faults disarmed, the journal emptied, the seed stored again, and
//! every issued token still valid.

use super::{store_transaction, token};
use psi_sandbox::seed::Seed;
use psi_sandbox::{Sandbox, Settings};

const SEED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../crates/psi-sandbox/seed.example.json"
);
const SEEDED: &str = "12-00000000000000001";
const OTHER: &str = "12-00000000000000777";

/// The status of a transaction status lookup of `id` with `token`.
async fn lookup(sandbox: &Sandbox, token: &str, id: &str) -> u16 {
    reqwest::Client::new()
        .get(format!(
            "{}/transaction/status/v2/transactions/{id}",
            sandbox.url()
        ))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn store_other(sandbox: &Sandbox) {
    store_transaction(sandbox, OTHER).await;
}

#[tokio::test]
async fn a_reset_empties_everything_and_keeps_tokens_valid() {
    let sandbox = Sandbox::start().await.unwrap();
    let control = sandbox.control();
    let audience = format!("{}/transaction/status/v2/transactions", sandbox.url());
    let token = token(&sandbox, &audience).await;
    store_other(&sandbox).await;
    control
        .fail_next("getTransactionStatus", 503, 5)
        .await
        .unwrap();
    control
        .subscribe_invoice_webhooks("http://127.0.0.1:9/invoices")
        .await
        .unwrap();
    assert_eq!(lookup(&sandbox, &token, OTHER).await, 503);

    assert_eq!(control.reset().await.unwrap().seeded, 0);

    assert!(
        control.requests().await.unwrap().is_empty(),
        "the journal is empty"
    );
    assert!(control.sessions().await.unwrap().is_empty());
    assert!(control.webhook_subscriptions().await.unwrap().is_empty());
    // The fault is disarmed, the token still valid, the transaction gone.
    assert_eq!(lookup(&sandbox, &token, OTHER).await, 404);
}

#[tokio::test]
async fn a_reset_stores_the_seed_again_and_lasts_in_the_state_file() {
    let directory = std::env::temp_dir().join(format!("psi-reset-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let state = directory.join("sandbox.sqlite");
    let _ = std::fs::remove_file(&state);
    let settings = || {
        Settings::default()
            .state(&state)
            .seed(Seed::read(std::path::Path::new(SEED)).unwrap())
    };
    let sandbox = Sandbox::start_with(settings()).await.unwrap();
    let audience = format!("{}/transaction/status/v2/transactions", sandbox.url());
    let token = token(&sandbox, &audience).await;
    store_other(&sandbox).await;
    assert_eq!(lookup(&sandbox, &token, SEEDED).await, 200);
    assert_eq!(lookup(&sandbox, &token, OTHER).await, 200);

    let outcome = sandbox.control().reset().await.unwrap();
    assert!(outcome.seeded >= 1, "{outcome:?}");
    assert_eq!(lookup(&sandbox, &token, SEEDED).await, 200);
    assert_eq!(lookup(&sandbox, &token, OTHER).await, 404);
    drop(sandbox);

    // The file holds what the reset left.
    let again = loop {
        match Sandbox::start_with(settings()).await {
            Ok(sandbox) => break sandbox,
            // The first sandbox lets go of the file as its task ends.
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    };
    // Another port, so another audience: a token of its own.
    let audience = format!("{}/transaction/status/v2/transactions", again.url());
    let fresh = super::token(&again, &audience).await;
    assert_eq!(lookup(&again, &fresh, OTHER).await, 404);
    assert_eq!(lookup(&again, &fresh, SEEDED).await, 200);
    drop(again);
    let _ = std::fs::remove_dir_all(&directory);
}
