//! Injected faults through the test-control API, and psi's retries.

use super::sandbox;

#[tokio::test]
async fn reads_are_retried_through_injected_503s() {
    let (sandbox, client) = sandbox().await;
    let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    sandbox
        .control()
        .fail_next("getTransactionStatus", 503, 2)
        .await
        .unwrap();
    let status = transaction_status(&client, &transaction)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        status.gateway_transaction_id.as_deref(),
        Some(transaction.as_str())
    );
}

#[tokio::test]
async fn a_fault_outlasting_the_retries_reaches_the_caller() {
    let (sandbox, client) = sandbox().await;
    let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    sandbox
        .control()
        .fail_next("getPayLaterStatus", 503, 3)
        .await
        .unwrap();
    let error = pay_later_status(&client, &transaction).await.unwrap_err();
    assert_eq!(error.status(), Some(503));
    // The fault is used up: the next call succeeds.
    pay_later_status(&client, &transaction).await.unwrap();
}

#[tokio::test]
async fn session_creation_is_retried_with_one_key_and_creates_one_session() {
    let (sandbox, client) = sandbox().await;
    sandbox
        .control()
        .fail_next("createSession", 503, 2)
        .await
        .unwrap();
    let session = client
        .payment_page()
        .create_session()
        .body(super::session_request("http://127.0.0.1:9/unused"))
        .send()
        .await
        .unwrap()
        .into_inner();
    let record = client
        .payment_page()
        .get_session_record()
        .session_id(session.session_id.clone().unwrap())
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(record.session_id, session.session_id);
}

#[tokio::test]
async fn a_booking_is_not_sent_again_after_an_injected_503() {
    let (sandbox, client) = sandbox().await;
    let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    sandbox
        .control()
        .fail_next("bookPayLaterOffer", 503, 1)
        .await
        .unwrap();
    let pay_later = client.pay_later();
    let booking = || {
        pay_later
            .book_pay_later_offer()
            .transaction_id(&transaction)
            .body(psi::pay_later::types::PayLaterBookingRequest {
                offer_id: "payl-1".into(),
                extra_members: Default::default(),
            })
            .send()
    };
    assert_eq!(booking().await.unwrap_err().status(), Some(503));
    // Not retried by psi: the merchant decides; the offer is still bookable.
    assert_eq!(booking().await.unwrap().status(), 200);
}

#[tokio::test]
async fn an_injected_delay_beyond_the_timeout_is_a_timeout() {
    let (sandbox, _) = sandbox().await;
    let client = psi::Client::builder()
        .environment(super::environment(&sandbox))
        .credentials(super::credentials())
        .retry(psi::RetryPolicy::none().with_request_timeout(std::time::Duration::from_millis(200)))
        .build()
        .unwrap();
    sandbox
        .control()
        .delay_next("getTransactionStatus", 1000, 1)
        .await
        .unwrap();
    let error = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id("12-00000000000000000")
        .send()
        .await
        .unwrap_err();
    assert!(matches!(error, psi_runtime::Error::Timeout(_)), "{error:?}");
}

/// A bank account call over plain HTTP: (status, Content-Type, body).
async fn bank_account_call(
    sandbox: &psi_sandbox::Sandbox,
    client: &psi::Client,
    method: reqwest::Method,
    path: &str,
    body: Option<serde_json::Value>,
) -> (u16, Option<String>, String) {
    let token = client.token(psi::Api::BankAccounts).await.unwrap();
    let url = format!(
        "{}/shop/consumer/v1/partners/pp-1/consumer/buyer-1/{path}",
        sandbox.url()
    );
    let mut request = reqwest::Client::new()
        .request(method, url)
        .bearer_auth(token.expose());
    if let Some(body) = body {
        request = request.json(&body);
    }
    let answer = request.send().await.unwrap();
    let content_type = answer
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned());
    (
        answer.status().as_u16(),
        content_type,
        answer.text().await.unwrap(),
    )
}

#[tokio::test]
async fn an_after_processing_fault_keeps_the_state_change_and_replaces_the_answer() {
    let (sandbox, client) = sandbox().await;
    let account =
        serde_json::json!({"owner": "Erika Mustermann", "iban": "DE89370400440532013000"});
    sandbox
        .control()
        .answer_after_processing(
            "storeBankAccount",
            200,
            Some(serde_json::json!({"stored": true})),
            1,
        )
        .await
        .unwrap();
    let (status, content_type, body) = bank_account_call(
        &sandbox,
        &client,
        reqwest::Method::POST,
        "bank-accounts",
        Some(account.clone()),
    )
    .await;
    assert_eq!((status, body.as_str()), (200, r#"{"stored":true}"#));
    assert_eq!(content_type.as_deref(), Some("application/json"));

    // The account was stored all the same.
    let (status, _, body) = bank_account_call(
        &sandbox,
        &client,
        reqwest::Method::GET,
        "bank-accounts",
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let stored: serde_json::Value = serde_json::from_str(&body).unwrap();
    let listed = if stored.is_array() {
        stored[0].clone()
    } else {
        stored
    };
    let reference = listed["bank_account_reference"]
        .as_str()
        .unwrap()
        .to_owned();

    // A delete answered 202 without any body still deletes.
    sandbox
        .control()
        .answer_after_processing("deleteBankAccount", 202, None, 1)
        .await
        .unwrap();
    let (status, content_type, body) = bank_account_call(
        &sandbox,
        &client,
        reqwest::Method::DELETE,
        &format!("bank-accounts/{reference}"),
        None,
    )
    .await;
    assert_eq!((status, content_type, body.as_str()), (202, None, ""));
    let (status, _, _) = bank_account_call(
        &sandbox,
        &client,
        reqwest::Method::GET,
        "bank-accounts",
        None,
    )
    .await;
    assert_eq!(status, 404, "the account is gone");

    // The fault was for one call: the next store answers as documented.
    let (status, _, body) = bank_account_call(
        &sandbox,
        &client,
        reqwest::Method::POST,
        "bank-accounts",
        Some(account),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert!(body.contains("bank_account_reference"));
}

#[tokio::test]
async fn an_after_processing_fault_can_set_the_content_type() {
    let (sandbox, client) = sandbox().await;
    sandbox
        .control()
        .post(
            "faults",
            serde_json::json!({"operation": "getBankAccount", "after_processing": true, "status": 200,
                               "body": [], "content_type": "application/json;charset=UTF-8"}),
        )
        .await
        .unwrap();
    let (status, content_type, body) = bank_account_call(
        &sandbox,
        &client,
        reqwest::Method::GET,
        "bank-accounts",
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        content_type.as_deref(),
        Some("application/json;charset=UTF-8")
    );
    assert_eq!(body, "[]");
}

#[tokio::test]
async fn a_fault_that_cannot_be_applied_is_refused_when_armed() {
    let (sandbox, _) = sandbox().await;
    for fault in [
        serde_json::json!({"operation": "deleteBankAccount", "after_processing": true}),
        serde_json::json!({"operation": "deleteBankAccount", "status": 200, "body": {}}),
        serde_json::json!({"operation": "deleteBankAccount", "after_processing": true, "status": 99}),
        serde_json::json!({"operation": "deleteBankAccount", "after_procesing": true, "status": 200}),
    ] {
        let refused = sandbox.control().post("faults", fault.clone()).await;
        assert!(
            refused
                .as_ref()
                .is_err_and(|e| e.to_string().contains("400") || e.to_string().contains("422")),
            "{fault}: {refused:?}"
        );
    }
}

/// Arms a fault from its JSON description.
async fn arm(sandbox: &psi_sandbox::Sandbox, fault: serde_json::Value) {
    sandbox.control().post("faults", fault).await.unwrap();
}

/// Books the first pay later offer of `transaction`.
async fn book_first_offer(
    client: &psi::Client,
    transaction: &str,
) -> Result<
    psi::pay_later::ResponseValue<psi::pay_later::types::PayLaterBookingOutcome>,
    psi::pay_later::Error<psi::pay_later::types::DeclineResponse>,
> {
    client
        .pay_later()
        .book_pay_later_offer()
        .transaction_id(transaction)
        .body(psi::pay_later::types::PayLaterBookingRequest {
            offer_id: "payl-1".to_owned(),
            extra_members: Default::default(),
        })
        .send()
        .await
}

/// The pay later status of `transaction`, as psi reads it.
async fn pay_later_status(
    client: &psi::Client,
    transaction: &str,
) -> Result<
    psi::pay_later::ResponseValue<psi::pay_later::types::PayLaterStatusResponse>,
    psi::pay_later::Error<psi::pay_later::types::DeclineResponse>,
> {
    client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(transaction)
        .send()
        .await
}

/// The transaction status of `transaction`, as psi reads it.
async fn transaction_status(
    client: &psi::Client,
    transaction: &str,
) -> Result<
    psi::transaction_status::ResponseValue<
        psi::transaction_status::types::TransactionStatusResponse,
    >,
    psi::transaction_status::Error<psi::transaction_status::types::DeclineResponse>,
> {
    client
        .transaction_status()
        .get_transaction_status()
        .transaction_id(transaction)
        .send()
        .await
}

/// How many requests of `operation` the sandbox received.
async fn received(sandbox: &psi_sandbox::Sandbox, operation: &str) -> usize {
    let journal = sandbox.control().requests().await.unwrap();
    journal
        .iter()
        .filter(|entry| entry.operation_id == operation)
        .count()
}

#[tokio::test]
async fn an_injected_error_answers_in_the_apis_error_shape() {
    let (sandbox, client) = sandbox().await;
    let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    arm(
        &sandbox,
        serde_json::json!({"operation": "getPayLaterStatus", "status": 409}),
    )
    .await;
    let error = pay_later_status(&client, &transaction).await.unwrap_err();
    assert_eq!(error.status(), Some(409));
    let psi::pay_later::Error::Declined(declined) = error else {
        panic!("a declared decline, got {error}");
    };
    let decline = declined.body.decline.expect("a decline");
    assert_eq!(
        decline.category.map(|c| c.to_string()).as_deref(),
        Some("CONFLICT")
    );
    assert_eq!(decline.reasons, vec!["CONFLICT".to_owned()]);
}

#[tokio::test]
async fn a_session_creation_whose_answer_is_lost_is_sent_again_with_its_key_and_makes_one_session()
{
    let (sandbox, client) = sandbox().await;
    arm(
        &sandbox,
        serde_json::json!({"operation": "createSession", "after_processing": true, "network": "drop"}),
    )
    .await;
    let session = client
        .payment_page()
        .create_session()
        .body(super::session_request("http://127.0.0.1:9/unused"))
        .send()
        .await
        .expect("the second attempt is answered")
        .into_inner();
    assert_eq!(received(&sandbox, "createSession").await, 2);
    let sessions = sandbox.control().sessions().await.unwrap();
    assert_eq!(sessions.len(), 1, "one session for one key");
    assert_eq!(sessions[0].session_id, session.session_id);
}

#[tokio::test]
async fn a_booking_whose_answer_is_lost_is_not_sent_again() {
    let (sandbox, client) = sandbox().await;
    let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    arm(
        &sandbox,
        serde_json::json!({"operation": "bookPayLaterOffer", "after_processing": true, "network": "drop"}),
    )
    .await;
    let error = book_first_offer(&client, &transaction)
        .await
        .expect_err("the answer never came");
    assert_eq!(error.status(), None, "{error}");
    assert_eq!(received(&sandbox, "bookPayLaterOffer").await, 1);
    // The booking was made all the same.
    let status = pay_later_status(&client, &transaction)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        status.pay_later_status,
        Some(psi::pay_later::types::PayLaterStatus::AlreadyBooked)
    );
}

#[tokio::test]
async fn a_call_dropped_before_processing_changes_nothing_and_a_read_is_sent_again() {
    let (sandbox, client) = sandbox().await;
    let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    arm(
        &sandbox,
        serde_json::json!({"operation": "getTransactionStatus", "network": "drop"}),
    )
    .await;
    transaction_status(&client, &transaction)
        .await
        .expect("the read is sent again");
    assert_eq!(received(&sandbox, "getTransactionStatus").await, 2);
}

#[tokio::test]
async fn a_read_whose_answer_is_cut_is_sent_again() {
    let (sandbox, client) = sandbox().await;
    let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    for network in ["empty", "truncated"] {
        sandbox.control().clear_requests().await.unwrap();
        arm(
            &sandbox,
            serde_json::json!({"operation": "getPayLaterOffers", "network": network}),
        )
        .await;
        let offers = client
            .pay_later()
            .get_pay_later_offers()
            .transaction_id(&transaction)
            .send()
            .await
            .unwrap_or_else(|error| panic!("{network}: {error}"))
            .into_inner();
        assert_eq!(offers.pay_later_offers.len(), 5, "{network}");
        assert_eq!(
            received(&sandbox, "getPayLaterOffers").await,
            2,
            "{network}"
        );
    }
}

#[tokio::test]
async fn a_booking_whose_answer_is_cut_fails_without_a_status_and_is_not_sent_again() {
    for network in ["empty", "truncated"] {
        let (sandbox, client) = sandbox().await;
        let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
        arm(
            &sandbox,
            serde_json::json!({"operation": "bookPayLaterOffer", "network": network}),
        )
        .await;
        let error = book_first_offer(&client, &transaction)
            .await
            .expect_err("a cut answer is no answer");
        assert_eq!(error.status(), None, "{network}: {error}");
        assert_eq!(
            received(&sandbox, "bookPayLaterOffer").await,
            1,
            "{network}"
        );
    }
}

#[tokio::test]
async fn a_fault_that_would_never_apply_is_refused() {
    let (sandbox, _client) = sandbox().await;
    for fault in [
        serde_json::json!({"operation": "getPayLaterStatus", "status": 503, "count": 0}),
        serde_json::json!({"operation": "getPayLaterStatus", "status": 42}),
        serde_json::json!({"operation": "bookPayLaterOffer", "after_processing": true}),
    ] {
        let refused = sandbox.control().post("faults", fault.clone()).await;
        assert!(refused.is_err(), "{fault} was armed");
    }
}
