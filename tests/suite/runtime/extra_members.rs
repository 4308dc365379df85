//! Members the documents do not declare yet reach the wire as given,
//! beside the declared ones, at any depth of a request body; a declared
//! name among them is refused before anything is sent.

use super::*;
use psi::payment_page::types::SessionRequest;
use psi_runtime::ExtraMembers;

/// The sandbox's demo request, amounts as written.
fn request() -> SessionRequest {
    psi_sandbox::demo::session_request("https://shop.example.com/webhook")
}

#[tokio::test]
async fn extra_members_are_sent_as_given_beside_the_declared_ones() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    mount_session_endpoint(&server).await;
    let mut request = request();
    request.extra_members = ExtraMembers::new().with("channel", "mobile-app").unwrap();
    let order = request.order_data.as_mut().unwrap();
    order.extra_members = ExtraMembers::new()
        .with(
            "loyalty",
            serde_json::json!({"card": "LC-4711", "points": 120}),
        )
        .unwrap();
    order.shop_baskets[0].items[0].extra_members =
        ExtraMembers::new().with("ean", "4006381333931").unwrap();
    client(&server)
        .payment_page()
        .create_session()
        .body(request)
        .send()
        .await
        .expect("sent");
    let sent = requests_to(&server, "/pps/api/v1/session").await;
    let body: serde_json::Value = serde_json::from_slice(&sent[0].body).unwrap();
    assert_eq!(body["channel"], "mobile-app");
    assert_eq!(body["order_data"]["loyalty"]["card"], "LC-4711");
    assert_eq!(
        body["order_data"]["shop_baskets"][0]["items"][0]["ean"],
        "4006381333931"
    );
    // The declared members are all still there, amounts exact.
    let text = String::from_utf8(sent[0].body.clone()).unwrap();
    assert!(text.contains(r#""gross_unit_price":18.45"#), "{text}");
    assert_eq!(body["order_data"]["currency"], "EUR");
}

#[tokio::test]
async fn an_extra_member_named_like_a_declared_one_is_refused_before_sending() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    mount_session_endpoint(&server).await;
    let mut request = request();
    request.order_data.as_mut().unwrap().extra_members =
        ExtraMembers::new().with("currency", "USD").unwrap();
    let error = client(&server)
        .payment_page()
        .create_session()
        .body(request)
        .send()
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("extra member `currency` is declared by the document"),
        "{text}"
    );
    assert!(requests_to(&server, "/pps/api/v1/session").await.is_empty());
}

#[tokio::test]
async fn a_builder_keeps_the_extra_members() {
    let order = request().order_data.unwrap();
    let mut with_extra = order.clone();
    with_extra.extra_members = ExtraMembers::new().with("channel", "pos").unwrap();
    let rebuilt: psi::payment_page::types::OrderData =
        psi::payment_page::types::builder::OrderData::from(with_extra.clone())
            .try_into()
            .unwrap();
    assert_eq!(rebuilt, with_extra);
    let built: psi::payment_page::types::OrderData = psi::payment_page::types::OrderData::builder()
        .currency(order.currency.clone())
        .extra_members(ExtraMembers::new().with("channel", "pos").unwrap())
        .try_into()
        .unwrap();
    assert_eq!(built.extra_members.get("channel").unwrap(), "pos");
}
