//! `include` goes out as one comma-separated value.

use psi_order_status::types::IncludeOption;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn include_is_one_comma_joined_query_value() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/order/status/v2/transactions/12-34567890123456789"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "general_order_information": {"transaction_id": "12-34567890123456789", "currency": "EUR"},
            "basket": {"current_order_amount_gross": 43.8}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let client =
        psi_order_status::Client::new(&server.uri(), psi_runtime::Context::new("order-status"));
    let status = client
        .get_order_status()
        .transaction_id("12-34567890123456789")
        .include(vec![IncludeOption::Basket, IncludeOption::PaymentStatus])
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        status
            .basket
            .unwrap()
            .current_order_amount_gross
            .unwrap()
            .to_string(),
        "43.8"
    );

    let requests = server.received_requests().await.unwrap();
    assert_eq!(
        requests[0].url.query(),
        Some("include=basket,payment_status")
    );
    assert!(requests[0].headers.get("api-version").is_none());
    // The specification requires Content-Type on every call, GETs included.
    assert_eq!(
        requests[0].headers.get("content-type").unwrap(),
        "application/json"
    );
}
