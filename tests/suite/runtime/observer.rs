//! `psi_runtime::Context::with_observer`: the hook the drift report uses
//! sees each call's final answer once, as received, and nothing else.

use super::TRANSACTION;
use psi_runtime::{Context, Observer, Received, RetryPolicy};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// What the observer saw: (api, operationId, status, Content-Type, body).
type Seen = Arc<Mutex<Vec<(String, String, u16, Option<String>, Vec<u8>)>>>;

fn recording(seen: &Seen) -> Observer {
    let seen = seen.clone();
    Arc::new(move |received: &Received<'_>| {
        seen.lock().unwrap().push((
            received.api.to_owned(),
            received.operation_id.to_owned(),
            received.status,
            received.content_type.map(str::to_owned),
            received.body.to_vec(),
        ));
    })
}

#[tokio::test]
async fn the_observer_sees_each_final_answer_once_before_decoding() {
    let server = MockServer::start().await;
    let status_path = format!("/order/paylater/v1/{TRANSACTION}/status");
    let body = br#"{"transaction_id":"12-34567890123456789","pay_later_status":"AVAILABLE","x":1}"#;
    // A 503 that is retried, then the answer the call ends with.
    Mock::given(method("GET"))
        .and(path(status_path.as_str()))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(status_path.as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body.to_vec(), "application/json"))
        .mount(&server)
        .await;
    let seen = Seen::default();
    let context = Context::new("pay-later")
        .with_retry(RetryPolicy::default().with_initial_backoff(Duration::from_millis(5)))
        .with_observer(recording(&seen));
    let client = psi_pay_later::Client::new_with_client(
        &server.uri(),
        psi_runtime::http_client_builder().build().unwrap(),
        context,
    );
    let answer = client
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.transaction_id.as_deref(), Some(TRANSACTION));
    assert_eq!(
        *seen.lock().unwrap(),
        [(
            "pay-later".to_owned(),
            "getPayLaterStatus".to_owned(),
            200,
            Some("application/json".to_owned()),
            body.to_vec()
        )],
        "the final answer, as received; not the retried 503"
    );

    // A final answer that is not a 2xx is seen too, and one that is not
    // JSON before it fails to decode.
    seen.lock().unwrap().clear();
    server.reset().await;
    Mock::given(method("GET"))
        .and(path(status_path.as_str()))
        .respond_with(ResponseTemplate::new(404).set_body_raw(b"{}".to_vec(), "application/json"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(status_path.as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_raw(b"<html>".to_vec(), "text/html"))
        .mount(&server)
        .await;
    let call = || {
        client
            .get_pay_later_status()
            .transaction_id(TRANSACTION)
            .send()
    };
    assert_eq!(call().await.unwrap_err().status(), Some(404));
    assert!(matches!(call().await, Err(psi_runtime::Error::Decode(_))));
    let statuses: Vec<(u16, Vec<u8>)> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(_, _, status, _, body)| (*status, body.clone()))
        .collect();
    assert_eq!(statuses, [(404, b"{}".to_vec()), (200, b"<html>".to_vec())]);
}
