//! The client accepts every reading the specification leaves open: any 2xx
//! as success, a confirmation with a body or without one, `null` in every
//! optional field of a response; it sends exactly the media type its
//! document declares. A fake server answers the way a real service may.

use super::{client, mount_token_endpoint, requests_to, TRANSACTION};
use psi::pay_later::types::PayLaterBookingRequest;
use psi::storefront::types::{OrderItemQuantity, OrderItemsRequest, OrderItemsRequestV7};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const ORDER: &str = "0123456789abcdef0123456789abcdef";

async fn server_answering(verb: &str, at: &str, answer: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    // The storefront module takes its token from the platform.
    Mock::given(method("POST"))
        .and(path("/api/oauth/token"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(super::token_body("platform-token", 1800)),
        )
        .mount(&server)
        .await;
    Mock::given(method(verb))
        .and(path(at))
        .respond_with(answer)
        .mount(&server)
        .await;
    server
}

fn booking_body() -> serde_json::Value {
    json!({
        "delta_due_date": 30, "fee": 4.95, "currency": "EUR",
        "original_due_date": "2020-03-27", "new_due_date": "2020-04-26",
        "booking_timestamp": "2020-03-13T16:42:59.974067+01:00"
    })
}

async fn book(server: &MockServer) -> psi::pay_later::types::PayLaterBookingOutcome {
    client(server)
        .pay_later()
        .book_pay_later_offer()
        .transaction_id(TRANSACTION)
        .body(PayLaterBookingRequest {
            offer_id: "payl-2".into(),
            extra_members: Default::default(),
        })
        .send()
        .await
        .expect("any 2xx is a success")
        .into_inner()
}

#[tokio::test]
async fn a_booking_answered_201_with_its_body_is_a_success() {
    let at = format!("/order/paylater/v1/{TRANSACTION}");
    let server = server_answering(
        "POST",
        &at,
        ResponseTemplate::new(201).set_body_json(booking_body()),
    )
    .await;
    let booking = book(&server).await.0.expect("the body is there");
    assert_eq!(booking.delta_due_date, Some(30));
    assert_eq!(booking.fee.unwrap().to_string(), "4.95");
}

#[tokio::test]
async fn a_booking_answered_without_a_body_is_a_success_without_one() {
    let at = format!("/order/paylater/v1/{TRANSACTION}");
    for status in [200, 202, 204] {
        let server = server_answering("POST", &at, ResponseTemplate::new(status)).await;
        assert_eq!(book(&server).await.0, None, "status {status}");
    }
}

#[tokio::test]
async fn the_booking_goes_out_as_json_with_the_utf8_charset() {
    let at = format!("/order/paylater/v1/{TRANSACTION}");
    let server = server_answering(
        "POST",
        &at,
        ResponseTemplate::new(200).set_body_json(booking_body()),
    )
    .await;
    book(&server).await;
    let sent = requests_to(&server, &at).await;
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].headers.get("content-type").unwrap(),
        "application/json;charset=UTF-8"
    );
    // Other bodies go out as the plain type their documents declare.
    let server = server_answering(
        "POST",
        "/shop/consumer/v1/partners/p-1/consumer/b-1/bank-accounts",
        ResponseTemplate::new(201).set_body_json(
            json!({"bank_account_reference": "3b241101-e2bb-4255-8caf-4136c566a962"}),
        ),
    )
    .await;
    client(&server)
        .bank_accounts()
        .store_bank_account()
        .partner_profile_id("p-1")
        .shop_buyer_id("b-1")
        .body(psi::bank_accounts::types::BankAccountStoreRequest {
            owner: "Max Mustermann".parse().unwrap(),
            iban: "DE89 3704 0044 0532 0130 00".parse().unwrap(),
            bic: None,
            extra_members: Default::default(),
        })
        .send()
        .await
        .expect("stored");
    let sent = requests_to(
        &server,
        "/shop/consumer/v1/partners/p-1/consumer/b-1/bank-accounts",
    )
    .await;
    assert_eq!(
        sent[0].headers.get("content-type").unwrap(),
        "application/json"
    );
}

#[tokio::test]
async fn a_bank_account_delete_answered_200_with_or_without_a_body_is_a_success() {
    let at = "/shop/consumer/v1/partners/p-1/consumer/b-1/bank-accounts/3b241101-e2bb-4255-8caf-4136c566a962";
    for answer in [
        ResponseTemplate::new(200),
        ResponseTemplate::new(200).set_body_json(json!({"deleted": true})),
        ResponseTemplate::new(204),
    ] {
        let server = server_answering("DELETE", at, answer).await;
        let deleted = client(&server)
            .bank_accounts()
            .delete_bank_account()
            .partner_profile_id("p-1")
            .shop_buyer_id("b-1")
            .bank_account_reference("3b241101-e2bb-4255-8caf-4136c566a962")
            .send()
            .await;
        assert!(deleted.is_ok(), "{deleted:?}");
    }
}

fn item() -> Vec<OrderItemQuantity> {
    vec![OrderItemQuantity {
        id: Some("line-1".into()),
        quantity: Some(1.into()),
        update_stock: None,
        extra_members: Default::default(),
    }]
}

#[tokio::test]
async fn storefront_item_operations_answered_204_are_successes() {
    let v7 = format!("/api/_action/order/{ORDER}/gateway/deliver");
    let server = server_answering("POST", &v7, ResponseTemplate::new(204)).await;
    let delivered = client(&server)
        .storefront()
        .unwrap()
        .deliver_order_items_v7()
        .order_id(ORDER)
        .body(OrderItemsRequestV7 {
            items: item(),
            update_stock: None,
            extra_members: Default::default(),
        })
        .send()
        .await
        .expect("204 is a success");
    assert_eq!(delivered.status().as_u16(), 204);
    assert_eq!(delivered.into_inner().0, None);

    let v6 = format!("/api/gateway/order-management/deliver/{ORDER}");
    for (answer, body) in [
        (ResponseTemplate::new(204), None),
        (
            ResponseTemplate::new(200)
                .set_body_json(json!({"success": true, "message": "Delivery reported."})),
            Some(true),
        ),
    ] {
        let server = server_answering("POST", &v6, answer).await;
        let delivered = client(&server)
            .storefront()
            .unwrap()
            .deliver_order_items()
            .order_id(ORDER)
            .body(OrderItemsRequest {
                items: item(),
                update_stock: None,
                extra_members: Default::default(),
            })
            .send()
            .await
            .expect("a 2xx is a success");
        assert_eq!(delivered.into_inner().0.map(|r| r.success.unwrap()), body);
    }
}

#[tokio::test]
async fn a_transaction_status_with_null_in_every_optional_field_decodes() {
    let at = format!("/transaction/status/v2/transactions/{TRANSACTION}");
    let body = json!({
        "gateway_transaction_id": TRANSACTION,
        "partner_transaction_id": null,
        "created": null,
        "shop_buyer_id": null,
        "currency": null,
        "shop_baskets": [{
            "partner_shop_id": null, "partner_shop_name": null, "shop_transaction_id": null,
            "gross_amount": null, "items": null, "special_items": null
        }],
        "payment_information": {
            "maximum_processing_offset_in_hours": null,
            "payment_method": null, "payment_status": null, "dunning_status": null
        }
    });
    let server = server_answering("GET", &at, ResponseTemplate::new(200).set_body_json(body)).await;
    let status = client(&server)
        .transaction_status()
        .get_transaction_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .expect("nulls are absence")
        .into_inner();
    assert_eq!(status.shop_buyer_id, None);
    assert!(status.shop_baskets[0].special_items.is_empty());
    let payment = status.payment_information.unwrap();
    assert!(payment.dunning_status.is_empty() && payment.payment_status.is_empty());
}

/// The error of a pay later status lookup answered with `answer`.
async fn status_lookup_failing_with(
    answer: ResponseTemplate,
) -> psi::pay_later::Error<psi::common::DeclineResponse> {
    let at = format!("/order/paylater/v1/{TRANSACTION}/status");
    let server = server_answering("GET", &at, answer).await;
    client(&server)
        .pay_later()
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .unwrap_err()
}

#[tokio::test]
async fn an_error_without_a_body_keeps_its_status() {
    let error = status_lookup_failing_with(ResponseTemplate::new(404)).await;
    match error {
        psi::pay_later::Error::Declined(response) => {
            assert_eq!(response.status, 404);
            assert_eq!(response.body.decline, None);
        }
        other => panic!("expected the declared 404, got {other:?}"),
    }
}

#[tokio::test]
async fn a_declared_error_whose_body_does_not_decode_says_so_with_its_bytes() {
    let answer = ResponseTemplate::new(400).set_body_raw("not json", "application/json");
    let error = status_lookup_failing_with(answer).await;
    match error {
        psi::pay_later::Error::UnexpectedStatus(answer) => {
            assert_eq!(answer.status, 400);
            assert_eq!(answer.excerpt, "not json");
        }
        other => panic!("expected the body that did not decode, got {other:?}"),
    }
}

#[tokio::test]
async fn an_answer_with_a_value_outside_its_format_decodes_as_received() {
    // Payment API 1.8 states no format for its currency; a numeric ISO 4217
    // code is the service's answer all the same.
    let at = format!("/order/status/v2/transactions/{TRANSACTION}");
    let answer = ResponseTemplate::new(200).set_body_json(json!({
        "general_order_information": {"transaction_id": TRANSACTION, "currency": "978"}
    }));
    let server = server_answering("GET", &at, answer).await;
    let status = client(&server)
        .order_status()
        .get_order_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .expect("the answer decodes")
        .into_inner();
    let currency = status
        .general_order_information
        .and_then(|general| general.currency)
        .expect("the currency is kept");
    assert_eq!(currency.as_str(), "978");
    // What psi sends is still checked: the same text is not a currency code to build.
    assert!("978".parse::<psi::common::CurrencyCode>().is_err());
}

/// The shop configuration's 400 holds one array per field whose elements
/// are any JSON, strings or objects: such an answer is the declared error
/// body (a decline), never an unexpected status.
#[tokio::test]
async fn a_shop_configuration_400_with_objects_in_its_errors_is_declined() {
    let at = "/v2/partners/partner-1/shops/shop-1";
    let answer = json!({
        "message": "invalid",
        "errors": {"name": [{"code": "x"}], "address.city": ["required"]}
    });
    let server = server_answering(
        "PUT",
        at,
        ResponseTemplate::new(400).set_body_json(answer.clone()),
    )
    .await;
    let url = server.uri();
    let client = psi::Client::builder()
        .environment(
            psi::Environment::new(&url, &url, &url)
                .and_then(|environment| environment.with_shop_config(&url, &url))
                .unwrap(),
        )
        .credentials(psi::Credentials::new("merchant-1", super::CLIENT_SECRET))
        .build()
        .unwrap();
    let configuration: psi::shop_config::types::ShopConfiguration =
        crate::example_shop_configuration();
    let result = client
        .shop_config()
        .update_shop_configuration()
        .partner_profile_id("partner-1")
        .shop_id("shop-1")
        .body(configuration)
        .send()
        .await;
    let declined = match result {
        Err(psi_runtime::Error::Declined(declined)) => *declined,
        other => panic!("expected a decline, got {other:?}"),
    };
    assert_eq!(declined.status, 400);
    assert_eq!(declined.body.message.as_deref(), Some("invalid"));
    // The whole body, read as sent: objects and strings alike.
    assert_eq!(serde_json::to_value(&declined.body).unwrap(), answer);
    assert_eq!(requests_to(&server, at).await.len(), 1);
}

/// The hosted payment page answers a session-record read it refuses with
/// `{"code": "INVALID_TOKEN"}`, not the decline shape: still a typed
/// decline, the code kept as its reason.
#[tokio::test]
async fn a_session_record_401_with_a_code_is_declined_with_the_code() {
    let at = "/pps/api/v1/session-record/s-1";
    let server = server_answering(
        "GET",
        at,
        ResponseTemplate::new(401).set_body_json(json!({"code": "INVALID_TOKEN"})),
    )
    .await;
    let error = psi::Error::from(
        client(&server)
            .payment_page()
            .get_session_record()
            .session_id("s-1")
            .send()
            .await
            .unwrap_err(),
    );
    let psi::Error::Declined(declined) = &error else {
        panic!("expected a decline, got {error:?}");
    };
    assert_eq!(declined.status(), 401);
    assert_eq!(declined.decline().unwrap().reasons, ["INVALID_TOKEN"]);
    assert!(error.to_string().contains("(INVALID_TOKEN)"), "{error}");
}

/// The provider's publications spell the offers `pay_Later_offers` (as the
/// specification does) and `pay_later_offers`: either is read, so no
/// answer's offers are silently empty.
#[tokio::test]
async fn pay_later_offers_are_read_under_either_spelling() {
    for member in ["pay_Later_offers", "pay_later_offers"] {
        let at = "/order/paylater/v1/12-34567890123456789/offers";
        let server = server_answering(
            "GET",
            at,
            ResponseTemplate::new(200).set_body_json(json!({
                "transaction_id": "12-34567890123456789",
                "current_due_date": "2020-03-27",
                member: [{"offer_id": "payl-1", "price": 2.95, "currency": "EUR",
                          "delta_due_date": 14, "new_due_date": "2020-04-10", "available": "AVAILABLE"}]
            })),
        )
        .await;
        let offers = client(&server)
            .pay_later()
            .get_pay_later_offers()
            .transaction_id("12-34567890123456789")
            .send()
            .await
            .unwrap_or_else(|error| panic!("{member}: {error}"))
            .into_inner();
        assert_eq!(offers.pay_later_offers.len(), 1, "{member}");
        assert_eq!(
            offers.pay_later_offers[0].offer_id.as_deref(),
            Some("payl-1")
        );
    }
}
