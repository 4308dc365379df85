//! Calls a generated builder refuses before anything goes out: a required
//! parameter never set is named with the same message as progenitor's
//! (the builder starts it without allocating one), a value its type
//! refuses keeps its own message.

use super::*;
use psi::pay_later::Error;

/// The message of a call the builder refused.
fn refused<T: std::fmt::Debug, E: std::fmt::Debug>(sent: Result<T, Error<E>>) -> String {
    match sent {
        Err(Error::InvalidRequest(message)) => message,
        other => panic!("expected the builder to refuse the call, got {other:?}"),
    }
}

#[tokio::test]
async fn a_required_parameter_never_set_is_named_before_anything_is_sent() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(status_body()))
        .mount(&server)
        .await;
    let client = client(&server);

    let unset = client.pay_later().get_pay_later_status().send().await;
    let message = refused(unset);
    assert_eq!(message, "transaction_id was not initialized");
    assert_eq!(
        psi::Error::from(Error::<psi::pay_later::types::DeclineResponse>::InvalidRequest(message))
            .to_string(),
        "invalid call: transaction_id was not initialized"
    );

    // Several required parameters: the first one not set, in progenitor's order.
    let bank_accounts = client.bank_accounts();
    let unset = bank_accounts
        .get_bank_account()
        .partner_profile_id("partner-1")
        .send()
        .await;
    assert_eq!(refused(unset), "shop_buyer_id was not initialized");
    let unset = bank_accounts
        .delete_bank_account()
        .partner_profile_id("partner-1")
        .shop_buyer_id("buyer-1")
        .send()
        .await;
    assert_eq!(refused(unset), "bank_account_reference was not initialized");

    // A value its type refuses keeps the setter's message.
    let wrong = client
        .storefront()
        .unwrap()
        .get_order_info()
        .order_id("346caed4")
        .send()
        .await;
    assert_eq!(
        refused(wrong),
        "conversion to `OrderId` for order_id failed"
    );

    assert!(
        server.received_requests().await.unwrap().is_empty(),
        "nothing went out, not even a token request"
    );
}
