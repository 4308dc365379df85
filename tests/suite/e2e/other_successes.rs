//! Answers the specification leaves open, produced by the sandbox after it
//! processed the call (its after-processing faults): the client reports
//! success, with the typed body where there is one, and the state change
//! happened. The same readings against a fake server are in
//! `runtime/fidelity.rs`; here the whole flow runs.

use super::{completed_transaction, sandbox};
use psi::pay_later::types::{PayLaterBookingRequest, PayLaterStatus};
use psi::storefront::types::{OrderItemQuantity, OrderItemsRequest};
use serde_json::json;

async fn pay_later_status(client: &psi::Client, transaction_id: &str) -> Option<PayLaterStatus> {
    client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(transaction_id)
        .send()
        .await
        .expect("the status is read")
        .into_inner()
        .pay_later_status
}

async fn book(
    client: &psi::Client,
    transaction_id: &str,
) -> psi::pay_later::types::PayLaterBookingOutcome {
    client
        .pay_later()
        .book_pay_later_offer()
        .transaction_id(transaction_id)
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
async fn a_booking_answered_201_with_the_booking_is_a_success() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let booking = json!({"delta_due_date": 30, "fee": 4.95, "currency": "EUR",
                         "original_due_date": "2020-03-27", "new_due_date": "2020-04-26",
                         "booking_timestamp": "2020-03-13T16:42:59.974067+01:00"});
    sandbox
        .control()
        .answer_after_processing("bookPayLaterOffer", 201, Some(booking), 1)
        .await
        .unwrap();
    let outcome = book(&client, &transaction_id).await;
    assert_eq!(outcome.0.and_then(|b| b.delta_due_date), Some(30));
    assert_eq!(
        pay_later_status(&client, &transaction_id).await,
        Some(PayLaterStatus::AlreadyBooked),
        "the booking was made"
    );
}

#[tokio::test]
async fn a_booking_answered_204_without_a_body_is_a_success_without_one() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    sandbox
        .control()
        .answer_after_processing("bookPayLaterOffer", 204, None, 1)
        .await
        .unwrap();
    assert_eq!(book(&client, &transaction_id).await.0, None);
    assert_eq!(
        pay_later_status(&client, &transaction_id).await,
        Some(PayLaterStatus::AlreadyBooked)
    );
}

#[tokio::test]
async fn a_bank_account_delete_answered_200_without_a_body_is_a_success() {
    let (sandbox, client) = sandbox().await;
    let accounts = client.bank_accounts();
    let stored = accounts
        .store_bank_account()
        .partner_profile_id("pp-1")
        .shop_buyer_id("buyer-1")
        .body(psi::bank_accounts::types::BankAccountStoreRequest {
            owner: "Erika Mustermann".parse().unwrap(),
            iban: "DE89 3704 0044 0532 0130 00".parse().unwrap(),
            bic: None,
            extra_members: Default::default(),
        })
        .send()
        .await
        .expect("stored")
        .into_inner();
    let reference = stored.bank_account_reference.expect("a reference");
    sandbox
        .control()
        .answer_after_processing("deleteBankAccount", 200, None, 1)
        .await
        .unwrap();
    let deleted = accounts
        .delete_bank_account()
        .partner_profile_id("pp-1")
        .shop_buyer_id("buyer-1")
        .bank_account_reference(reference)
        .send()
        .await
        .expect("200 without a body is a success");
    assert_eq!(deleted.status().as_u16(), 200);
    let gone = accounts
        .get_bank_account()
        .partner_profile_id("pp-1")
        .shop_buyer_id("buyer-1")
        .send()
        .await;
    assert_eq!(gone.unwrap_err().status(), Some(404));
}

#[tokio::test]
async fn a_storefront_delivery_answered_204_is_a_success() {
    let (sandbox, client) = sandbox().await;
    const ORDER: &str = "346caed4ced140c08a93f63538f75b13";
    const TABLE: &str = "c4fbb4dc62b240469efecad738853a76";
    sandbox
        .control()
        .seed_storefront_order(
            &serde_json::from_value(json!({
                "order_id": ORDER,
                "items": [{"id": TABLE, "name": "Oak side table", "quantity": 2, "unit_price": 16.9}],
                "shipping": 10
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    sandbox
        .control()
        .answer_after_processing("deliverOrderItems", 204, None, 1)
        .await
        .unwrap();
    let storefront = client.storefront().unwrap();
    let delivered = storefront
        .deliver_order_items()
        .order_id(ORDER)
        .body(OrderItemsRequest {
            items: vec![OrderItemQuantity {
                id: Some(TABLE.into()),
                quantity: Some(1.into()),
                update_stock: None,
                extra_members: Default::default(),
            }],
            update_stock: None,
            extra_members: Default::default(),
        })
        .send()
        .await
        .expect("204 is a success");
    assert_eq!(delivered.into_inner().0, None);
    let loaded = storefront
        .load_order_items()
        .order_id(ORDER)
        .send()
        .await
        .unwrap()
        .into_inner();
    let text = serde_json::to_string(&loaded).unwrap();
    assert!(
        text.contains(r#""delivered":1"#),
        "the delivery was recorded: {text}"
    );
}

#[tokio::test]
async fn a_transaction_status_with_null_in_every_optional_field_decodes() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let nulls = json!({
        "gateway_transaction_id": transaction_id, "partner_transaction_id": null,
        "created": null, "shop_buyer_id": null, "currency": null,
        "shop_baskets": [{"partner_shop_id": null, "partner_shop_name": null,
                          "shop_transaction_id": null, "gross_amount": null,
                          "items": null, "special_items": null}],
        "payment_information": {"maximum_processing_offset_in_hours": null,
                                "payment_method": null, "payment_status": null,
                                "dunning_status": null}
    });
    sandbox
        .control()
        .answer_after_processing("getTransactionStatus", 200, Some(nulls), 1)
        .await
        .unwrap();
    let status = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id(&transaction_id)
        .send()
        .await
        .expect("null is absence")
        .into_inner();
    assert_eq!(status.shop_buyer_id, None);
    assert!(status.shop_baskets[0].items.is_empty());
}
