use super::*;
use psi::Api;
use wiremock::matchers::{body_partial_json, header};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_calls_on_a_cold_cache_fetch_one_token() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("GET"))
        .and(path(format!("/order/paylater/v1/{TRANSACTION}/status")))
        .and(header("authorization", "Bearer token-1"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(status_body())
                .set_delay(Duration::from_millis(5)),
        )
        .expect(100)
        .mount(&server)
        .await;
    let client = client(&server);
    let calls: Vec<_> = (0..100)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .pay_later()
                    .get_pay_later_status()
                    .transaction_id(TRANSACTION)
                    .send()
                    .await
            })
        })
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }
    assert_eq!(requests_to(&server, "/oauth/token").await.len(), 1);
}

#[tokio::test]
async fn the_token_request_carries_the_audience_of_the_api() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/oauth/token"))
        .and(body_partial_json(serde_json::json!({
            "grant_type": "client_credentials", "client_id": "merchant-1",
            "client_secret": CLIENT_SECRET, "audience": format!("{}/shop/consumer/v1", server.uri())
        })))
        .respond_with(ResponseTemplate::new(200).set_body_json(token_body("bank-token", 1800)))
        .expect(1)
        .mount(&server)
        .await;
    let token = client(&server).token(Api::BankAccounts).await.unwrap();
    assert_eq!(token.expose(), "bank-token");
}

#[tokio::test]
async fn an_expired_token_is_refreshed() {
    let server = MockServer::start().await;
    // 1800 s: refreshed in the background from 1620 s, no longer sent from
    // 1740 s on tokio's clock. No call between the two here: the call at
    // 1740 s finds no usable token and waits for a fresh one.
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(status_body()))
        .mount(&server)
        .await;
    let pay_later = client(&server).pay_later();
    let call = || {
        pay_later
            .get_pay_later_status()
            .transaction_id(TRANSACTION)
            .send()
    };
    call().await.unwrap();
    // The calls themselves take real time (well under the 10 s left here).
    jump_clock(Duration::from_secs(1610)).await;
    call().await.unwrap();
    assert_eq!(
        requests_to(&server, "/oauth/token").await.len(),
        1,
        "reused while valid"
    );
    jump_clock(Duration::from_secs(130)).await;
    call().await.unwrap();
    let api_calls = requests_to(&server, &format!("/order/paylater/v1/{TRANSACTION}/status")).await;
    assert_eq!(requests_to(&server, "/oauth/token").await.len(), 2);
    assert_eq!(
        api_calls[2].headers.get("authorization").unwrap(),
        "Bearer token-2"
    );
}

#[tokio::test]
async fn a_401_drops_the_token_and_retries_once_with_a_fresh_one() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("GET"))
        .and(header("authorization", "Bearer token-1"))
        .respond_with(ResponseTemplate::new(401))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(header("authorization", "Bearer token-2"))
        .respond_with(ResponseTemplate::new(200).set_body_json(status_body()))
        .mount(&server)
        .await;
    let status = client(&server)
        .pay_later()
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .unwrap();
    assert_eq!(status.status(), 200);
    assert_eq!(requests_to(&server, "/oauth/token").await.len(), 2);
    assert_eq!(
        requests_to(&server, &format!("/order/paylater/v1/{TRANSACTION}/status"))
            .await
            .len(),
        2
    );
}

#[tokio::test]
async fn a_second_401_is_returned_not_retried_forever() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(401))
        .mount(&server)
        .await;
    let error = client(&server)
        .pay_later()
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(401));
    assert_eq!(
        requests_to(&server, &format!("/order/paylater/v1/{TRANSACTION}/status"))
            .await
            .len(),
        2
    );
}

#[tokio::test]
async fn a_token_endpoint_failure_names_the_audience_and_status_but_not_the_secret() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/oauth/token"))
        .respond_with(
            ResponseTemplate::new(401).set_body_json(
                serde_json::json!({"error": "invalid_client", "echo": CLIENT_SECRET}),
            ),
        )
        .mount(&server)
        .await;
    let client = client(&server);
    let error = client.token(Api::PayLater).await.unwrap_err();
    assert_eq!(error.status(), Some(401));
    assert_eq!(error.kind(), psi::TokenErrorKind::RejectedCredentials);
    assert_eq!(
        error.audience().to_string(),
        format!("{}/paylater", server.uri())
    );
    let message = error.to_string();
    assert!(
        message.contains("/paylater") && message.contains("401"),
        "{message}"
    );
    assert!(!message.contains(CLIENT_SECRET) && !format!("{error:?}").contains(CLIENT_SECRET));

    let call_error = client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .unwrap_err();
    let call_error = psi::Error::from(call_error);
    let psi::Error::Token(token_error) = &call_error else {
        panic!("a token failure: {call_error:?}")
    };
    assert_eq!(token_error.kind(), psi::TokenErrorKind::RejectedCredentials);
    let message = call_error.to_string();
    assert!(
        message.contains("/paylater") && message.contains("401"),
        "{message}"
    );
    assert!(!message.contains(CLIENT_SECRET));
    assert!(
        requests_to(&server, &format!("/order/paylater/v1/{TRANSACTION}/status"))
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn storefront_calls_use_the_platform_token_with_scope_write() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/oauth/token"))
        .and(body_partial_json(serde_json::json!({"grant_type": "client_credentials", "client_id": "platform-1", "scope": "write"})))
        .respond_with(ResponseTemplate::new(200).set_body_json(token_body("platform-token", 600)))
        .expect(1)
        .mount(&server)
        .await;
    let order = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
    Mock::given(method("GET"))
        .and(path(format!("/api/_action/order/{order}/gateway/info")))
        .and(header("authorization", "Bearer platform-token"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(serde_json::json!({"success": true, "data": []})),
        )
        .expect(2)
        .mount(&server)
        .await;
    let storefront = client(&server).storefront().unwrap();
    for _ in 0..2 {
        storefront
            .get_order_info()
            .order_id(order)
            .send()
            .await
            .unwrap();
    }
    assert!(
        requests_to(&server, "/oauth/token").await.is_empty(),
        "the provider's token server is not asked"
    );
}
