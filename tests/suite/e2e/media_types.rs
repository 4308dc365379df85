//! Request media types as the documents state them: every body is
//! `application/json`, the pay later booking's `application/json;charset=UTF-8`;
//! anything else is 415 in the API's own error shape, naming the type.

use psi::Api;
use psi_sandbox::Sandbox;
use serde_json::{json, Value};

const ORDER: &str = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";

/// One operation with a request body, reached over plain HTTP.
struct Operation {
    name: &'static str,
    method: reqwest::Method,
    url: String,
    token: Option<String>,
    body: Value,
    expected: &'static str,
}

async fn token(client: &psi::Client, api: Api) -> Option<String> {
    Some(client.token(api).await.unwrap().expose().to_owned())
}

async fn operations(sandbox: &Sandbox, client: &psi::Client) -> Vec<Operation> {
    let u = sandbox.url();
    let transaction = super::completed_transaction(sandbox, client, "OPEN_INVOICE").await;
    let shop_config_token = super::client(sandbox).token(Api::ShopConfig).await.unwrap();
    let storefront = token(client, Api::Storefront).await;
    let json = "application/json";
    let post = |name, url: String, token: Option<String>, body: Value, expected| Operation {
        name,
        method: reqwest::Method::POST,
        url,
        token,
        body,
        expected,
    };
    vec![
        post(
            "getToken",
            format!("{u}/oauth/token"),
            None,
            json!({"client_id": psi_sandbox::DEMO_CLIENT_ID, "client_secret": psi_sandbox::DEMO_CLIENT_SECRET,
                   "audience": format!("{u}/paylater"), "grant_type": "client_credentials"}),
            json,
        ),
        post(
            "getPlatformToken",
            format!("{u}/api/oauth/token"),
            None,
            json!({"client_id": psi_sandbox::DEMO_PLATFORM_CLIENT_ID, "client_secret": psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET,
                   "grant_type": "client_credentials", "scope": "write"}),
            json,
        ),
        post(
            "createSession",
            format!("{u}/pps/api/v1/session"),
            token(client, Api::PaymentPage).await,
            serde_json::to_value(super::session_request("http://127.0.0.1:9/hook")).unwrap(),
            json,
        ),
        post(
            "bookPayLaterOffer",
            format!("{u}/order/paylater/v1/{transaction}"),
            token(client, Api::PayLater).await,
            json!({"offer_id": "payl-1"}),
            "application/json;charset=UTF-8",
        ),
        post(
            "storeBankAccount",
            format!("{u}/shop/consumer/v1/partners/pp-1/consumer/buyer-1/bank-accounts"),
            token(client, Api::BankAccounts).await,
            json!({"owner": "Erika Mustermann", "iban": "DE89370400440532013000"}),
            json,
        ),
        Operation {
            name: "updateShopConfiguration",
            method: reqwest::Method::PUT,
            url: format!("{u}/shop-config/v2/partners/pp-1/shops/shop-1"),
            token: Some(shop_config_token.expose().to_owned()),
            body: serde_json::to_value(psi_sandbox::demo::shop_configuration()).unwrap(),
            expected: json,
        },
        post(
            "deliverOrderItems",
            format!("{u}/api/gateway/order-management/deliver/{ORDER}"),
            storefront.clone(),
            json!({"items": [{"id": "line-1", "quantity": 1}]}),
            json,
        ),
        post(
            "deliverOrderItemsV7",
            format!("{u}/api/_action/order/{ORDER}/gateway/deliver"),
            storefront.clone(),
            json!({"items": [{"id": "line-1", "quantity": 1}]}),
            json,
        ),
        post(
            "addOrderItemV7",
            format!("{u}/api/_action/order/{ORDER}/gateway/addItem"),
            storefront,
            json!({"grossAmount": 1, "name": "credit", "taxId": ORDER}),
            json,
        ),
    ]
}

async fn send(operation: &Operation, content_type: &str) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .request(operation.method.clone(), &operation.url)
        .header("content-type", content_type)
        .body(operation.body.to_string());
    if let Some(token) = &operation.token {
        request = request.bearer_auth(token);
    }
    let answer = request.send().await.unwrap();
    (answer.status().as_u16(), answer.text().await.unwrap())
}

#[tokio::test]
async fn a_body_of_another_media_type_is_415_naming_the_expected_one() {
    let (sandbox, client) = super::sandbox().await;
    for operation in operations(&sandbox, &client).await {
        for content_type in [
            "text/plain",
            "application/xml",
            "application/json;charset=ISO-8859-1",
        ] {
            let (status, body) = send(&operation, content_type).await;
            assert_eq!(status, 415, "{} as {content_type}: {body}", operation.name);
            assert!(
                body.contains(operation.expected),
                "{} names {}: {body}",
                operation.name,
                operation.expected
            );
        }
    }
}

#[tokio::test]
async fn the_stated_media_type_gets_past_the_check_in_any_spelling() {
    let (sandbox, client) = super::sandbox().await;
    for operation in operations(&sandbox, &client).await {
        for content_type in [operation.expected, "Application/JSON ; Charset = utf-8"] {
            let (status, body) = send(&operation, content_type).await;
            assert_ne!(status, 415, "{} as {content_type}: {body}", operation.name);
        }
    }
}

/// The document states `application/json;charset=UTF-8` (psi sends that),
/// and the provider's own example sends plain `application/json`: the
/// sandbox books with either; only a non-JSON media type is 415.
#[tokio::test]
async fn the_booking_takes_json_with_or_without_the_utf8_charset() {
    let (sandbox, client) = super::sandbox().await;
    let operations = operations(&sandbox, &client).await;
    let booking = operations
        .iter()
        .find(|operation| operation.name == "bookPayLaterOffer")
        .unwrap();
    let (status, body) = send(booking, "text/plain").await;
    assert_eq!(status, 415, "{body}");
    let decline: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        decline["decline"]["reasons"],
        json!(["UNSUPPORTED_MEDIA_TYPE"])
    );
    assert_eq!(
        decline["decline"]["invalid_fields"][0],
        json!({"json_path": "Content-Type", "message": "Content-Type must be application/json;charset=UTF-8"})
    );
    // Nothing was booked: plain application/json books.
    let (status, body) = send(booking, "application/json").await;
    assert_eq!(status, 200, "{body}");
    let booked: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(booked["delta_due_date"], 14);

    // A second transaction, booked with the documented type.
    let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let documented = Operation {
        url: format!("{}/order/paylater/v1/{transaction}", sandbox.url()),
        method: booking.method.clone(),
        name: booking.name,
        token: booking.token.clone(),
        body: booking.body.clone(),
        expected: booking.expected,
    };
    let (status, body) = send(&documented, "application/json;charset=UTF-8").await;
    assert_eq!(status, 200, "{body}");
}
