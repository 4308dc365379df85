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

/// The runtime's per-operation rules of the order status crate, exactly as
/// `wire_client!` assembles them from the generated tables.
fn order_status_operations() -> psi_runtime::hooks::Operations {
    psi_runtime::hooks::Operations {
        ids: psi_order_status::OPERATION_IDS,
        idempotent: psi_order_status::IDEMPOTENT_OPERATIONS,
        request_media_types: psi_order_status::REQUEST_MEDIA_TYPES,
        optional_bodies: psi_order_status::OPTIONAL_BODY_OPERATIONS,
        comma_separated_query: psi_order_status::COMMA_SEPARATED_QUERY,
    }
}

#[tokio::test]
async fn only_comma_separated_parameters_get_literal_commas() {
    // The generated table names `include` of the order status lookup only.
    assert_eq!(
        psi_order_status::COMMA_SEPARATED_QUERY,
        [("getOrderStatus", "include")]
    );
    // A second parameter whose value holds a comma as data (no operation of
    // the documents has one today; a future one must keep its `%2C`).
    let mut url =
        reqwest::Url::parse("http://127.0.0.1:9/order/status/v2/transactions/12-34567890123456789")
            .unwrap();
    url.query_pairs_mut()
        .append_pair("note", "a,b")
        .append_pair("include", "basket,payment_status")
        .append_pair("shop_reference", "x,y");
    assert_eq!(
        url.query(),
        Some("note=a%2Cb&include=basket%2Cpayment_status&shop_reference=x%2Cy")
    );
    let mut request = reqwest::Request::new(reqwest::Method::GET, url);
    let context = psi_runtime::Context::new("order-status");
    let info = progenitor_client::OperationInfo {
        operation_id: "get_order_status",
    };
    psi_runtime::hooks::pre::<()>(&context, &mut request, &info, order_status_operations())
        .await
        .unwrap();
    assert_eq!(
        request.url().query(),
        Some("note=a%2Cb&include=basket,payment_status&shop_reference=x%2Cy")
    );

    // Another operation of the same crate has no comma-separated parameter:
    // even a parameter named `include` keeps its `%2C` there.
    let mut request = reqwest::Request::new(
        reqwest::Method::GET,
        "http://127.0.0.1:9/x?include=a%2Cb".parse().unwrap(),
    );
    let info = progenitor_client::OperationInfo {
        operation_id: "get_invoice_correspondence",
    };
    psi_runtime::hooks::pre::<()>(&context, &mut request, &info, order_status_operations())
        .await
        .unwrap();
    assert_eq!(request.url().query(), Some("include=a%2Cb"));
}
