//! One sandbox for a whole team: each suite its own tenant, with its own
//! data, faults, journal, clock and reset; a tenant's credentials reach its
//! own data alone.

use psi::{Credentials, Environment};
use psi_sandbox::{Control, Sandbox};
use serde_json::{json, Value};

/// What `POST /__sandbox/tenants` answers.
struct Tenant {
    id: String,
    client_id: String,
    client_secret: String,
    platform_client_id: String,
    platform_client_secret: String,
    control_token: String,
}

/// A new tenant named `name`, created without a token (the sandbox listens
/// on loopback without `--control-token`).
async fn create_tenant(sandbox: &Sandbox, name: &str) -> Tenant {
    let answer: Value = sandbox
        .control()
        .post("tenants", json!({ "name": name }))
        .await
        .expect("the tenant is created");
    let field = |name: &str| {
        answer[name]
            .as_str()
            .unwrap_or_else(|| panic!("{name} in {answer}"))
            .to_owned()
    };
    Tenant {
        id: field("tenant"),
        client_id: field("client_id"),
        client_secret: field("client_secret"),
        platform_client_id: field("platform_client_id"),
        platform_client_secret: field("platform_client_secret"),
        control_token: field("control_token"),
    }
}

fn environment(sandbox: &Sandbox) -> Environment {
    crate::e2e::environment(sandbox)
}

/// A client of `tenant`, retrying nothing (a fault must reach the caller).
fn client(sandbox: &Sandbox, tenant: &Tenant) -> psi::Client {
    psi::Client::builder()
        .environment(environment(sandbox))
        .credentials(Credentials::new(
            tenant.client_id.as_str(),
            tenant.client_secret.as_str(),
        ))
        .platform_credentials(Credentials::new(
            tenant.platform_client_id.as_str(),
            tenant.platform_client_secret.as_str(),
        ))
        .retry(psi::RetryPolicy::none())
        .build()
        .expect("a client")
}

fn control(sandbox: &Sandbox, tenant: &Tenant) -> Control {
    Control::new(sandbox.url()).with_token(&tenant.control_token)
}

/// The status of a transaction status lookup of `transaction` by `client`.
async fn lookup(client: &psi::Client, transaction: &str) -> Option<u16> {
    match client
        .transaction_status()
        .get_transaction_status()
        .transaction_id(transaction)
        .send()
        .await
    {
        Ok(_) => Some(200),
        Err(error) => error.status(),
    }
}

/// A session of `client`'s tenant, completed by its buyer through its
/// control token; answers the transaction id.
async fn completed_transaction(client: &psi::Client, control: &Control) -> String {
    let session = client
        .payment_page()
        .create_session()
        .body(crate::e2e::session_request(
            "http://127.0.0.1:9/unused-webhook",
        ))
        .send()
        .await
        .expect("the session is created")
        .into_inner();
    let session_id = session.session_id.expect("a session id");
    control
        .complete_session(&session_id, "OPEN_INVOICE")
        .await
        .expect("the buyer completes")
}

/// One test suite on its own tenant: it stores data, arms a fault, moves
/// its clock, resets, and checks at every step that it sees its own
/// effects and nothing else. Answers its transaction id.
async fn suite(sandbox: &Sandbox, index: usize) -> (String, String) {
    let tenant = create_tenant(sandbox, &format!("suite-{index}")).await;
    let client = client(sandbox, &tenant);
    let control = control(sandbox, &tenant);

    // Its data: `index % 3 + 1` sessions, one completed.
    let transaction = completed_transaction(&client, &control).await;
    for _ in 0..index % 3 {
        client
            .payment_page()
            .create_session()
            .body(crate::e2e::session_request("http://127.0.0.1:9/x"))
            .send()
            .await
            .expect("a session");
    }
    let sessions = control.sessions().await.expect("its sessions");
    assert_eq!(
        sessions.len(),
        index % 3 + 1,
        "suite {index} sees its own sessions only"
    );
    assert_eq!(lookup(&client, &transaction).await, Some(200));

    // Its fault fails its own next call, once.
    control
        .fail_next("getTransactionStatus", 503, 1)
        .await
        .expect("armed");
    assert_eq!(
        lookup(&client, &transaction).await,
        Some(503),
        "suite {index}"
    );
    assert_eq!(
        lookup(&client, &transaction).await,
        Some(200),
        "suite {index}"
    );

    // Its journal holds its own calls only: every path it shows is one of
    // its own lookups or creations.
    let journal = control.requests().await.expect("its journal");
    let lookups = journal
        .iter()
        .filter(|entry| entry.operation_id == "getTransactionStatus")
        .count();
    assert_eq!(
        lookups, 3,
        "suite {index}: its three lookups, no one else's"
    );
    assert!(journal
        .iter()
        .filter(|entry| entry.operation_id == "getTransactionStatus")
        .all(|entry| entry.path.ends_with(&transaction)));

    // Its clock: two hours on expires its token (30 minutes) and its
    // open sessions, not another suite's.
    let before = control.now().await.expect("its time");
    control.advance_clock(7_200).await.expect("moved");
    let after = control.now().await.expect("its time");
    assert!((after - before).num_seconds() >= 7_200, "suite {index}");
    // The client fetches a new token when the old one is refused as
    // expired; the lookup still succeeds.
    assert_eq!(
        lookup(&client, &transaction).await,
        Some(200),
        "suite {index}"
    );

    // Its reset empties its own data alone.
    let reset: Value = control.post("reset", json!({})).await.expect("reset");
    assert_eq!(reset["tenants"], json!([tenant.id]), "suite {index}");
    assert!(control.sessions().await.expect("its sessions").is_empty());
    assert_eq!(
        lookup(&client, &transaction).await,
        Some(404),
        "suite {index}"
    );

    // Data again after the reset, for the checks after every suite ran.
    let transaction = completed_transaction(&client, &control).await;
    (tenant.id, transaction)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_suites_in_parallel_see_nothing_of_each_other() {
    let sandbox = std::sync::Arc::new(Sandbox::start().await.expect("the sandbox starts"));
    // The demo tenant has a transaction of its own that no suite may touch.
    let demo = crate::e2e::client(&sandbox);
    let demo_transaction = crate::e2e::completed_transaction(&sandbox, &demo, "OPEN_INVOICE").await;
    let suites = (0..16).map(|index| {
        let sandbox = sandbox.clone();
        tokio::spawn(async move { suite(&sandbox, index).await })
    });
    let mut finished = Vec::new();
    for suite in suites {
        finished.push(suite.await.expect("the suite passed"));
    }
    // Every suite's transaction is its own: found by its tenant alone.
    let control = sandbox.control();
    let listed: Value = control.get("tenants").await.expect("tenants");
    assert_eq!(listed.as_array().map(Vec::len), Some(17), "{listed}");
    for (id, transaction) in &finished {
        let own: Value = Control::new(sandbox.url())
            .get(&format!("transactions/{transaction}?tenant={id}"))
            .await
            .expect("its own transaction");
        assert_eq!(own["transaction_id"], transaction.as_str());
        assert!(
            control.transaction(transaction).await.is_err(),
            "the demo tenant does not see {id}'s transaction"
        );
    }
    // The demo tenant kept its transaction, its clock and no fault.
    assert_eq!(lookup(&demo, &demo_transaction).await, Some(200));
    let demo_now = control.now().await.expect("the demo time");
    assert!((demo_now.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_seconds() < 600);
    assert_eq!(control.sessions().await.expect("demo sessions").len(), 1);
}

#[tokio::test]
async fn a_tenant_reaches_its_own_resources_alone() {
    let sandbox = Sandbox::start().await.expect("the sandbox starts");
    let first = create_tenant(&sandbox, "first").await;
    let second = create_tenant(&sandbox, "second").await;
    let first_client = client(&sandbox, &first);
    let second_client = client(&sandbox, &second);
    let first_control = control(&sandbox, &first);
    let transaction = completed_transaction(&first_client, &first_control).await;

    // The other tenant's token: the transaction is unknown (404), as the
    // service answers for another merchant's id.
    assert_eq!(lookup(&first_client, &transaction).await, Some(200));
    assert_eq!(lookup(&second_client, &transaction).await, Some(404));

    // Its control token: refused for the other tenant's control calls.
    let refused = first_control
        .get(&format!("sessions?tenant={}", second.id))
        .await
        .expect("an answer");
    let message = refused["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("is not the tenant of this control token"),
        "{refused}"
    );
    let refused = first_control
        .post("tenants", json!({"name": "third"}))
        .await
        .expect_err("a tenant creates no tenant");
    assert!(refused.to_string().contains("403"), "{refused}");
    let refused = first_control
        .delete(&format!("tenants/{}", second.id))
        .await
        .expect_err("a tenant deletes no tenant");
    assert!(refused.to_string().contains("403"), "{refused}");
    // Its own sessions only, and itself among the tenants.
    assert_eq!(first_control.sessions().await.unwrap().len(), 1);
    let listed: Value = first_control.get("tenants").await.expect("an answer");
    assert_eq!(
        listed,
        json!([{"tenant": "first", "client_id": first.client_id, "platform_client_id": first.platform_client_id}])
    );
    assert!(control(&sandbox, &second)
        .sessions()
        .await
        .unwrap()
        .is_empty());

    // A wrong secret is still a 401 for every tenant.
    let wrong = Tenant {
        client_secret: "not-the-secret".to_owned(),
        ..first
    };
    let error = client(&sandbox, &wrong)
        .transaction_status()
        .get_transaction_status()
        .transaction_id(&transaction)
        .send()
        .await
        .expect_err("refused credentials");
    assert!(
        error.to_string().contains("401") || error.status() == Some(401),
        "{error}"
    );

    // A deleted tenant's token names no tenant: 401.
    let token_before = lookup(&second_client, &transaction).await;
    assert_eq!(token_before, Some(404));
    sandbox
        .control()
        .delete(&format!("tenants/{}", second.id))
        .await
        .expect("deleted");
    assert_eq!(lookup(&second_client, &transaction).await, Some(401));
    // An unknown control token is a 401.
    let refused = Control::new(sandbox.url())
        .with_token(&second.control_token)
        .sessions()
        .await
        .expect_err("a deleted tenant's control token");
    assert!(refused.to_string().contains("401"), "{refused}");
}

#[tokio::test]
async fn tenant_names_and_the_cap_are_checked() {
    let mut limits = psi_sandbox::Limits::default();
    limits.max_tenants = 2;
    let settings = psi_sandbox::Settings::default().limits(limits);
    let sandbox = Sandbox::start_with(settings)
        .await
        .expect("the sandbox starts");
    let control = sandbox.control();
    let refused = control
        .post("tenants", json!({"name": "Not Valid"}))
        .await
        .expect_err("a name outside the rule");
    assert!(
        refused.to_string().contains("^[a-z0-9][a-z0-9-]{0,39}$"),
        "{refused}"
    );
    let made: Value = control
        .post("tenants", json!({}))
        .await
        .expect("a tenant with a chosen name");
    let id = made["tenant"].as_str().expect("an id");
    assert!(id.starts_with("t-") && id.len() == 14, "{id}");
    let refused = control
        .post("tenants", json!({}))
        .await
        .expect_err("past --max-tenants");
    assert!(refused.to_string().contains("--max-tenants"), "{refused}");
    // A tenant no one has: 404 from the route, after routing (an undeclared
    // method is still a 405).
    let unknown: Value = control
        .get("sessions?tenant=nobody")
        .await
        .expect("an answer");
    assert_eq!(unknown["error"], "tenant: no tenant nobody", "{unknown}");
    let trace = reqwest::Client::new()
        .request(
            reqwest::Method::TRACE,
            format!("{}/__sandbox/reset?tenant=nobody", sandbox.url()),
        )
        .send()
        .await
        .expect("an answer");
    assert_eq!(trace.status(), 405);
    let refused = control
        .delete("tenants/demo")
        .await
        .expect_err("the demo tenant stays");
    assert!(refused.to_string().contains("409"), "{refused}");
}
