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
    let status = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id(&transaction)
        .send()
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
    let error = client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(&transaction)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(503));
    // The fault is used up: the next call succeeds.
    client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(&transaction)
        .send()
        .await
        .unwrap();
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
            })
            .send()
    };
    assert_eq!(
        booking().await.unwrap_err().status().map(|s| s.as_u16()),
        Some(503)
    );
    // Not retried by psi: the merchant decides; the offer is still bookable.
    assert_eq!(booking().await.unwrap().status(), 200);
}

#[tokio::test]
async fn an_injected_delay_beyond_the_timeout_is_a_timeout() {
    let (sandbox, _) = sandbox().await;
    let client = psi::Client::builder()
        .environment(super::environment(&sandbox))
        .credentials(sandbox.credentials())
        .retry(psi::RetryPolicy {
            max_attempts: 1,
            request_timeout: std::time::Duration::from_millis(200),
            ..psi::RetryPolicy::default()
        })
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
    assert!(
        matches!(error, progenitor_client::Error::CommunicationError(ref e) if e.is_timeout()),
        "{error:?}"
    );
}
