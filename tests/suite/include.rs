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

/// The query the server received for one call through the runtime's
/// `send` with `operation`, whose request carries `query`.
async fn received_query(operation: &'static psi_runtime::call::Operation, query: &str) -> String {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_string("{}"))
        .mount(&server)
        .await;
    let context = psi_runtime::Context::new("order-status");
    let http = reqwest::Client::new();
    let url = format!("{}/x?{query}", server.uri());
    let build = || Ok(http.get(&url).build()?);
    psi_runtime::call::send::<()>(&context, &http, operation, &build, None)
        .await
        .unwrap();
    let requests = server.received_requests().await.unwrap();
    requests[0].url.query().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn only_comma_separated_parameters_get_literal_commas() {
    // The generator gives `include` of the order status lookup, and no
    // other parameter of the crate, literal commas.
    let generated = include_str!("../../crates/psi-order-status/src/generated.rs");
    assert_eq!(
        generated
            .matches("comma_separated_query: &[\"include\"]")
            .count(),
        1
    );
    assert_eq!(generated.matches("comma_separated_query: &[]").count(), 1);

    // A second parameter whose value holds a comma as data (no operation of
    // the documents has one today; a future one must keep its `%2C`).
    let mut url = reqwest::Url::parse("http://127.0.0.1:9/x").unwrap();
    url.query_pairs_mut()
        .append_pair("note", "a,b")
        .append_pair("include", "basket,payment_status")
        .append_pair("shop_reference", "x,y");
    let query = url.query().unwrap().to_owned();
    assert_eq!(
        query,
        "note=a%2Cb&include=basket%2Cpayment_status&shop_reference=x%2Cy"
    );
    static WITH_INCLUDE: psi_runtime::call::Operation = psi_runtime::call::Operation {
        id: "getOrderStatus",
        idempotent: false,
        request_media_type: None,
        optional_body: false,
        comma_separated_query: &["include"],
        declared_errors: &[],
        refused_when_false: None,
    };
    assert_eq!(
        received_query(&WITH_INCLUDE, &query).await,
        "note=a%2Cb&include=basket,payment_status&shop_reference=x%2Cy"
    );

    // An operation without comma-separated parameters: even a parameter
    // named `include` keeps its `%2C` there.
    static WITHOUT: psi_runtime::call::Operation = psi_runtime::call::Operation {
        comma_separated_query: &[],
        ..WITH_INCLUDE
    };
    assert_eq!(
        received_query(&WITHOUT, "include=a%2Cb").await,
        "include=a%2Cb"
    );
}
