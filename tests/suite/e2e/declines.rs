//! One `match` on `psi::Error` handles a 422 decline from every API.
//!
//! The sandbox processes each call and then answers 422 with the API's own
//! error body (its after-processing faults): the payment APIs' decline, the
//! shop configuration's validation error, the storefront module's result.
//! Where a document does not declare 422 (the provider's documentation
//! names it for the payment APIs), the answer still arrives as
//! `psi::Error::Declined` when its body is the API's error body.

use super::sandbox;
use psi::Answer;
use psi_sandbox::Sandbox;
use serde_json::{json, Value};

/// What a merchant's code keeps from a failed call.
#[derive(Debug, PartialEq)]
struct Handled {
    api: String,
    operation_id: String,
    attempts: Option<u32>,
    /// The decline category, or the message of an API without one.
    why: Option<String>,
}

/// The one handler: every API's failures go through this match.
fn handle(error: psi::Error) -> Handled {
    match error {
        psi::Error::Declined(declined) if declined.status() == 422 => {
            let why = match declined.answer() {
                Answer::Decline(decline) => decline.category.as_ref().map(ToString::to_string),
                Answer::ShopConfiguration(refusal) => refusal.message.clone(),
                Answer::Storefront(result) => result.message.clone(),
                other => panic!("an answer this test does not expect: {other:?}"),
            };
            Handled {
                api: declined.api().to_owned(),
                operation_id: declined.operation_id().to_owned(),
                attempts: declined.attempts(),
                why,
            }
        }
        other => panic!("expected a 422 decline, got {other:?}"),
    }
}

fn decline(category: &str) -> Value {
    json!({"decline": {"category": category, "reasons": ["EXAMPLE_REASON"],
                       "invalid_fields": [{"json_path": "$.example", "message": "example"}]}})
}

/// The next call to `operation` is processed, then answered 422 with `body`.
async fn answer_422(sandbox: &Sandbox, operation: &str, body: Value) {
    sandbox
        .control()
        .answer_after_processing(operation, 422, Some(body), 1)
        .await
        .expect("the fault is armed");
}

fn expected(api: &str, operation_id: &str, why: &str) -> Handled {
    Handled {
        api: api.to_owned(),
        operation_id: operation_id.to_owned(),
        attempts: Some(1),
        why: Some(why.to_owned()),
    }
}

#[tokio::test]
async fn payment_page() {
    let (sandbox, client) = sandbox().await;
    answer_422(&sandbox, "createSession", decline("RISK_DECISION")).await;
    let error = client
        .payment_page()
        .create_session()
        .body(super::session_request("https://shop.example.com/webhooks"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        handle(error.into()),
        expected("payment-page", "createSession", "RISK_DECISION")
    );
}

#[tokio::test]
async fn pay_later() {
    let (sandbox, client) = sandbox().await;
    answer_422(&sandbox, "getPayLaterStatus", decline("CONTRACT")).await;
    let error = client
        .pay_later()
        .get_pay_later_status()
        .transaction_id("EXAMPLE-TRANSACTION")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        handle(error.into()),
        expected("pay-later", "getPayLaterStatus", "CONTRACT")
    );
}

#[tokio::test]
async fn bank_accounts() {
    let (sandbox, client) = sandbox().await;
    answer_422(&sandbox, "getBankAccount", decline("PAYMENT_ATTRIBUTE")).await;
    let error = client
        .bank_accounts()
        .get_bank_account()
        .partner_profile_id("pp0123456789")
        .shop_buyer_id("buyer-4711")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        handle(error.into()),
        expected("bank-accounts", "getBankAccount", "PAYMENT_ATTRIBUTE")
    );
}

#[tokio::test]
async fn order_status() {
    let (sandbox, client) = sandbox().await;
    answer_422(
        &sandbox,
        "getOrderStatus",
        decline("UNPROCESSABLE_OPERATION"),
    )
    .await;
    let error = client
        .order_status()
        .get_order_status()
        .transaction_id("EXAMPLE-TRANSACTION")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        handle(error.into()),
        expected("order-status", "getOrderStatus", "UNPROCESSABLE_OPERATION")
    );
}

#[tokio::test]
async fn transaction_status() {
    let (sandbox, client) = sandbox().await;
    answer_422(
        &sandbox,
        "getTransactionStatus",
        decline("TRANSACTION_RISK"),
    )
    .await;
    let error = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id("EXAMPLE-TRANSACTION")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        handle(error.into()),
        expected(
            "transaction-status",
            "getTransactionStatus",
            "TRANSACTION_RISK"
        )
    );
}

#[tokio::test]
async fn shop_config() {
    let (sandbox, client) = sandbox().await;
    let refusal = json!({"message": "The given data was invalid.",
                         "errors": {"legal.tax_number": ["is required"]}});
    answer_422(&sandbox, "updateShopConfiguration", refusal).await;
    let configuration: psi::shop_config::types::ShopConfiguration =
        crate::example_shop_configuration();
    let error = client
        .shop_config()
        .update_shop_configuration()
        .partner_profile_id("pp0123456789")
        .shop_id("shop-1")
        .body(configuration)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        handle(error.into()),
        expected(
            "shop-config",
            "updateShopConfiguration",
            "The given data was invalid."
        )
    );
}

#[tokio::test]
async fn storefront() {
    let (sandbox, client) = sandbox().await;
    let result = json!({"success": false, "message": "The payment service refused the change."});
    answer_422(&sandbox, "getOrderInfo", result).await;
    let error = client
        .storefront()
        .expect("the sandbox client has the platform's settings")
        .get_order_info()
        .order_id("346caed4ced140c08a93f63538f75b13")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        handle(error.into()),
        expected(
            "storefront",
            "getOrderInfo",
            "The payment service refused the change."
        )
    );
}

/// The same handler sees a retried call's attempts: 503 twice, then 422.
#[tokio::test]
async fn attempts_count_the_retries() {
    let (sandbox, client) = sandbox().await;
    sandbox
        .control()
        .fail_next("getTransactionStatus", 503, 2)
        .await
        .unwrap();
    answer_422(
        &sandbox,
        "getTransactionStatus",
        decline("TRANSACTION_RISK"),
    )
    .await;
    let error = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id("EXAMPLE-TRANSACTION")
        .send()
        .await
        .unwrap_err();
    assert_eq!(handle(error.into()).attempts, Some(3));
}
