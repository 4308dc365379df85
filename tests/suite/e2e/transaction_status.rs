//! Transaction status (payment API 2.0) against the sandbox: the completed
//! session's baskets come back with every amount exactly as sent, and the
//! documented errors.

use super::{completed_transaction, sandbox, session_request};
use psi::transaction_status::types::{DeclineCategory, DeclineResponse};
use psi::transaction_status::Error;
use serde_json::json;

#[tokio::test]
async fn the_status_mirrors_the_completed_session_exactly() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let answer = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id(&transaction_id)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    let status = answer.into_inner();
    let stored = sandbox
        .control()
        .transaction(&transaction_id)
        .await
        .unwrap();

    assert_eq!(
        status.gateway_transaction_id.as_deref(),
        Some(transaction_id.as_str())
    );
    assert_eq!(
        status.partner_transaction_id.as_deref(),
        Some("order-100045")
    );
    assert_eq!(status.created, Some(stored.created));
    assert_eq!(status.currency.as_deref().map(String::as_str), Some("EUR"));
    assert_eq!(status.shop_buyer_id, None);

    let sent = session_request("unused").order_data.unwrap().shop_baskets;
    assert_eq!(status.shop_baskets.len(), sent.len());
    for (basket, sent) in status.shop_baskets.iter().zip(&sent) {
        assert_eq!(basket.partner_shop_id, sent.partner_shop_id);
        assert_eq!(basket.partner_shop_name.as_deref(), Some("Sandbox shop"));
        assert_eq!(basket.shop_transaction_id, sent.shop_transaction_id);
        assert_eq!(basket.gross_amount, sent.gross_amount);
        assert_eq!(basket.items.len(), sent.items.len());
        for (item, sent) in basket.items.iter().zip(&sent.items) {
            assert_eq!(
                (
                    item.article_number.as_deref(),
                    item.name.as_deref(),
                    item.quantity,
                    item.tax_rate
                ),
                (
                    sent.article_number.as_deref(),
                    sent.name.as_deref(),
                    sent.quantity,
                    sent.tax_rate
                )
            );
            assert_eq!(
                [
                    item.gross_unit_price,
                    item.net_unit_price,
                    item.gross_unit_discount,
                    item.net_unit_discount
                ],
                [
                    sent.gross_unit_price,
                    sent.net_unit_price,
                    sent.gross_unit_discount,
                    sent.net_unit_discount
                ]
            );
            assert_eq!(
                [item.gross_total_price, item.net_total_price],
                [sent.gross_total_price, sent.net_total_price]
            );
        }
        assert_eq!(basket.special_items.len(), sent.special_items.len());
        for (item, sent) in basket.special_items.iter().zip(&sent.special_items) {
            assert_eq!(item.category, sent.category);
            assert_eq!(
                [
                    item.quantity,
                    item.tax_rate,
                    item.gross_unit_price,
                    item.net_unit_price,
                    item.gross_total_price,
                    item.net_total_price
                ],
                [
                    sent.quantity,
                    sent.tax_rate,
                    sent.gross_unit_price,
                    sent.net_unit_price,
                    sent.gross_total_price,
                    sent.net_total_price
                ]
            );
        }
    }
    // The literal values too, so a change of the shared request cannot hide a drift.
    let item = &status.shop_baskets[0].items[0];
    assert_eq!(item.gross_unit_price, Some("18.45".parse().unwrap()));
    assert_eq!(item.net_unit_discount, Some("-1.3".parse().unwrap()));
    assert_eq!(
        status.shop_baskets[0].gross_amount,
        Some("43.8".parse().unwrap())
    );

    let payment = status.payment_information.unwrap();
    assert_eq!(payment.maximum_processing_offset_in_hours, Some(24.into()));
    assert_eq!(
        serde_json::Value::Object(payment.payment_method),
        json!({"payment_option": "OPEN_INVOICE", "transfer_type": "BANK_TRANSFER"})
    );
    assert_eq!(
        serde_json::Value::Object(payment.payment_status),
        json!({"status": "OPEN", "due_date": stored.due_date, "outstanding_amount": 43.8})
    );
    assert_eq!(
        serde_json::Value::Object(payment.dunning_status),
        json!({"level": 0})
    );
}

#[tokio::test]
async fn the_shop_name_comes_from_the_stored_shop_configuration() {
    let (sandbox, client) = sandbox().await;
    let configuration: psi::shop_config::types::ShopConfiguration = serde_json::from_value(json!({
        "name": "Example Moebel",
        "address": {"street": "Musterstrasse", "city": "Berlin", "postal_code": "10115", "country_code": "DE"},
        "legal": {"name": "Example Moebel GmbH", "legal_form": "GmbH", "commercial_register_number": "HRB 123456 B",
                  "registration_office": "Amtsgericht Charlottenburg", "tax_number": "27/123/45678"}
    }))
    .unwrap();
    super::client(&sandbox)
        .shop_config()
        .update_shop_configuration()
        .partner_profile_id("pp-4711")
        .shop_id("shop-1")
        .body(configuration)
        .send()
        .await
        .unwrap();
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let status = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id(&transaction_id)
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        status.shop_baskets[0].partner_shop_name.as_deref(),
        Some("Example Moebel GmbH")
    );
}

#[tokio::test]
async fn the_payment_method_is_what_the_buyer_chose() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "PREPAYMENT").await;
    let status = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id(&transaction_id)
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        status.payment_information.unwrap().payment_method["payment_option"],
        json!("PREPAYMENT")
    );
}

#[tokio::test]
async fn an_unknown_transaction_is_a_404() {
    let (_sandbox, client) = sandbox().await;
    let result = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id("12-00000000000000000")
        .send()
        .await;
    match result {
        Err(Error::Declined(answer)) => {
            assert_eq!(answer.status, 404);
            let decline = answer.body.decline.unwrap();
            assert_eq!(decline.category, Some(DeclineCategory::ResourceNotFound));
            assert_eq!(decline.reasons, ["TRANSACTION_NOT_FOUND"]);
        }
        other => panic!("expected a 404, got {other:?}"),
    }
}

#[tokio::test]
async fn a_missing_or_foreign_token_is_a_401() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let url = format!(
        "{}/transaction/status/v2/transactions/{transaction_id}",
        sandbox.url()
    );
    let missing = reqwest::get(&url).await.unwrap();
    assert_eq!(missing.status().as_u16(), 401);
    let body: DeclineResponse = missing.json().await.unwrap();
    assert_eq!(body.decline.unwrap().reasons, ["MISSING_TOKEN"]);
    // The payment API 1.8 token is for the order status, not this API.
    let foreign = client.token(psi::Api::OrderStatus).await.unwrap();
    let refused = reqwest::Client::new()
        .get(&url)
        .bearer_auth(foreign.expose())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 401);
    let body: DeclineResponse = refused.json().await.unwrap();
    assert_eq!(body.decline.unwrap().reasons, ["WRONG_AUDIENCE"]);
}
