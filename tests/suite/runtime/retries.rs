use super::*;
use psi::payment_page::types::SessionRequest;
use wiremock::matchers::{header, header_exists};

fn session_request(gross_amount: f64) -> SessionRequest {
    serde_json::from_value(serde_json::json!({
        "order_data": {
            "currency": "EUR",
            "shop_baskets": [{
                "gross_amount": serde_json::Number::from_f64(gross_amount).unwrap(),
                "items": [{"quantity": 2, "tax_rate": 19, "gross_unit_price": 18.45, "gross_unit_discount": -1.55,
                           "gross_total_price": 33.8, "net_unit_price": 15.5, "net_unit_discount": -1.3, "net_total_price": 28.4}],
                "special_items": [{"quantity": 1, "tax_rate": 19, "gross_unit_price": 10, "gross_total_price": 10,
                                   "net_unit_price": 8.4, "net_total_price": 8.4}],
                "vats": [{"tax_rate": 19, "net_amount": 36.8, "tax_amount": 7}]
            }]
        },
        "url_data": {"webhook_url": "https://shop.example.com/webhook"}
    }))
    .unwrap()
}

#[tokio::test]
async fn session_creation_survives_503_503_200_with_one_idempotency_key() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("POST"))
        .and(path("/pps/api/v1/session"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/pps/api/v1/session"))
        .and(header_exists("idempotency-key"))
        .respond_with(ResponseTemplate::new(201).set_body_json(serde_json::json!({
            "session_id": "s-1", "landing_page": "https://pp.example.com/landing/s-1"})))
        .mount(&server)
        .await;
    let session = client(&server)
        .payment_page()
        .create_session()
        .body(session_request(43.8))
        .send()
        .await
        .unwrap();
    assert_eq!(session.session_id.as_deref(), Some("s-1"));

    let attempts = requests_to(&server, "/pps/api/v1/session").await;
    assert_eq!(attempts.len(), 3);
    let keys: Vec<_> = attempts
        .iter()
        .map(|r| {
            r.headers
                .get("idempotency-key")
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert!(keys.iter().all(|k| k == &keys[0]), "{keys:?}");
    assert_eq!(
        uuid::Uuid::parse_str(&keys[0]).unwrap().get_version_num(),
        4
    );
    // Each retry is the first request again, built anew: the same body
    // bytes and the same headers (the key and the token included).
    assert!(!attempts[0].body.is_empty());
    for retry in &attempts[1..] {
        assert_eq!(retry.method, attempts[0].method);
        assert_eq!(retry.url, attempts[0].url);
        assert_eq!(retry.body, attempts[0].body);
        assert_eq!(retry.headers, attempts[0].headers);
    }
}

#[tokio::test]
async fn a_401_resend_carries_the_same_body_and_key_with_a_fresh_token() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("POST"))
        .and(path("/pps/api/v1/session"))
        .and(header("authorization", "Bearer token-1"))
        .respond_with(ResponseTemplate::new(401))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/pps/api/v1/session"))
        .and(header("authorization", "Bearer token-2"))
        .respond_with(
            ResponseTemplate::new(201).set_body_json(serde_json::json!({"session_id": "s-3"})),
        )
        .mount(&server)
        .await;
    client(&server)
        .payment_page()
        .create_session()
        .body(session_request(43.8))
        .send()
        .await
        .unwrap();
    let sent = requests_to(&server, "/pps/api/v1/session").await;
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].body, sent[1].body);
    assert!(sent[0].headers.contains_key("idempotency-key"));
    let without_token = |request: &wiremock::Request| {
        let mut headers = request.headers.clone();
        headers.remove("authorization");
        headers
    };
    assert_eq!(without_token(&sent[0]), without_token(&sent[1]));
    assert_eq!(
        sent[1].headers.get("authorization").unwrap(),
        "Bearer token-2"
    );
}

#[tokio::test]
async fn a_caller_key_is_kept() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("POST"))
        .and(path("/pps/api/v1/session"))
        .respond_with(
            ResponseTemplate::new(201).set_body_json(serde_json::json!({"session_id": "s-2"})),
        )
        .mount(&server)
        .await;
    client(&server)
        .payment_page()
        .create_session()
        .idempotency_key("order-100045-attempt-1")
        .body(session_request(43.8))
        .send()
        .await
        .unwrap();
    let sent = requests_to(&server, "/pps/api/v1/session").await;
    assert_eq!(
        sent[0].headers.get("idempotency-key").unwrap(),
        "order-100045-attempt-1"
    );
}

#[tokio::test]
async fn other_posts_are_not_sent_again_after_a_5xx() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("POST"))
        .and(path(format!("/order/paylater/v1/{TRANSACTION}")))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let error = client(&server)
        .pay_later()
        .book_pay_later_offer()
        .transaction_id(TRANSACTION)
        .body(psi::pay_later::types::PayLaterBookingRequest {
            offer_id: "payl-1".into(),
            extra_members: Default::default(),
        })
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(503));
    assert_eq!(
        requests_to(&server, &format!("/order/paylater/v1/{TRANSACTION}"))
            .await
            .len(),
        1
    );
}

// The clock is paused for the whole test and moves only by `advance`: the
// test waits for sockets by spinning (`spin_until`), so the runtime never
// idles and never moves the clock by itself.
#[tokio::test(start_paused = true)]
async fn gets_honour_retry_after_and_give_up_after_max_attempts() {
    let (retries, _recording) = ScheduledRetries::record();
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "1"))
        .mount(&server)
        .await;
    let status_path = format!("/order/paylater/v1/{TRANSACTION}/status");
    let client = client(&server);
    let call = tokio::spawn(async move {
        client
            .pay_later()
            .get_pay_later_status()
            .transaction_id(TRANSACTION)
            .send()
            .await
    });
    for sent in 1..=2 {
        // The client has its answer and is waiting out the Retry-After.
        spin_until(|| retries.count() == sent).await;
        assert_eq!(requests_to(&server, &status_path).await.len(), sent);
        tokio::time::advance(Duration::from_millis(999)).await;
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            requests_to(&server, &status_path).await.len(),
            sent,
            "sent again before Retry-After ran out"
        );
        tokio::time::advance(Duration::from_millis(1)).await;
    }
    spin_until(|| call.is_finished()).await;
    let error = call.await.unwrap().unwrap_err();
    assert_eq!(error.status(), Some(429));
    assert_eq!(requests_to(&server, &status_path).await.len(), 3);
    assert_eq!(retries.delays(), [Duration::from_secs(1); 2]);
}

#[tokio::test]
async fn a_connect_error_is_retried_even_for_a_post() {
    let (retries, _recording) = ScheduledRetries::record();
    // Nothing listens on this port once the listener is dropped (a dropped
    // MockServer would go back to wiremock's pool and keep answering).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    let url = server.uri();
    let client = psi::Client::builder()
        .environment(psi::Environment::new(&dead_url, &url, &url).unwrap())
        .credentials(psi::Credentials::new("merchant-1", CLIENT_SECRET))
        .retry(RetryPolicy::default().with_initial_backoff(Duration::from_millis(5)))
        .build()
        .unwrap();
    let error = client
        .payment_page()
        .create_session()
        .body(session_request(43.8))
        .send()
        .await
        .unwrap_err();
    assert!(
        matches!(error, psi_runtime::Error::Transport(ref failed) if failed.source.is_connect()),
        "{error:?}"
    );
    // Three attempts in all: two retries scheduled, then the budget is spent.
    assert_eq!(retries.count(), 2, "{:?}", retries.delays());
}

#[tokio::test]
async fn invalid_input_is_rejected_before_anything_is_sent() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    let client = client(&server);

    // The basket's gross amount is off by 1.00: more than (3 quantities x 0.02).
    let error = client
        .payment_page()
        .create_session()
        .body(session_request(44.8))
        .send()
        .await
        .unwrap_err();
    let psi::Error::Preflight(refused) = psi::Error::from(error) else {
        panic!("refused before sending")
    };
    assert_eq!(
        refused.violations().paths(),
        ["$.order_data.shop_baskets[0].gross_amount"]
    );

    // An invalid IBAN.
    let error = client
        .bank_accounts()
        .store_bank_account()
        .partner_profile_id("partner-1")
        .shop_buyer_id("buyer-1")
        .body(psi::bank_accounts::types::BankAccountStoreRequest {
            owner: "Erika Mustermann".try_into().unwrap(),
            iban: "DE89 3704 0044 0532 0130 01".try_into().unwrap(),
            bic: None,
            extra_members: Default::default(),
        })
        .send()
        .await
        .unwrap_err();
    let psi::Error::Preflight(refused) = psi::Error::from(error) else {
        panic!("refused before sending")
    };
    assert_eq!(refused.violations().paths(), ["$.iban"]);

    // A key over 64 characters, caught by the generated type.
    let error = client
        .payment_page()
        .create_session()
        .idempotency_key("k".repeat(65))
        .body(session_request(43.8))
        .send()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("idempotency_key"), "{error}");

    assert_eq!(
        server.received_requests().await.unwrap().len(),
        0,
        "not even a token request"
    );
}
