//! End to end: every operation of every client through `psi::Client`
//! against the in-process sandbox, success and documented error paths.

mod auth;
mod bank_accounts;
mod faults;
mod notifications;
mod order_status;
mod pay_later;
mod payment_page;
mod shop_config;
mod storefront;
mod transaction_status;

use psi_sandbox::Sandbox;

/// A sandbox and a client of it.
pub async fn sandbox() -> (Sandbox, psi::Client) {
    let sandbox = Sandbox::start().await.expect("the sandbox starts");
    let client = sandbox.client();
    (sandbox, client)
}

/// The field notes' consistent basket as a session request (gross 43.8).
pub fn session_request(webhook_url: &str) -> psi::payment_page::types::SessionRequest {
    serde_json::from_value(serde_json::json!({
        "order_data": {
            "partner_transaction_id": "order-100045",
            "currency": "EUR",
            "buyer": {
                "billing_address": {"street": "Hauptstraße", "street_number": "1", "zip_code": "10115", "city": "Berlin", "country_code": "DE"},
                "contact": {"email": "erika@example.com"},
                "language": "de",
                "person": {"first_name": "Erika", "last_name": "Mustermann", "date_of_birth": "1980-01-31"}
            },
            "delivery": {"first_name": "Erika", "last_name": "Mustermann",
                "address": {"street": "Hauptstraße", "street_number": "1", "zip_code": "10115", "city": "Berlin", "country_code": "DE"}},
            "shop_baskets": [{
                "partner_shop_id": "shop-1",
                "shop_transaction_id": "SO-100045",
                "gross_amount": 43.8,
                "items": [{"article_number": "ART-1001", "name": "Cotton T-shirt", "quantity": 2, "tax_rate": 19,
                           "gross_unit_price": 18.45, "gross_unit_discount": -1.55, "gross_total_price": 33.8,
                           "net_unit_price": 15.5, "net_unit_discount": -1.3, "net_total_price": 28.4}],
                "special_items": [{"category": "shipping", "name": "Shipping", "quantity": 1, "tax_rate": 19,
                                   "gross_unit_price": 10, "gross_total_price": 10, "net_unit_price": 8.4, "net_total_price": 8.4}],
                "vats": [{"tax_rate": 19, "net_amount": 36.8, "tax_amount": 7}]
            }]
        },
        "url_data": {
            "success_url": "https://shop.example.com/success",
            "failure_url": "https://shop.example.com/failure",
            "cancel_url": "https://shop.example.com/cancel",
            "webhook_url": webhook_url
        }
    }))
    .expect("the example session request is valid")
}

/// Creates a session and completes it as the buyer would; returns the
/// transaction id.
pub async fn completed_transaction(
    sandbox: &Sandbox,
    client: &psi::Client,
    payment_option: &str,
) -> String {
    let session = client
        .payment_page()
        .create_session()
        .body(session_request("http://127.0.0.1:9/unused-webhook"))
        .send()
        .await
        .expect("the session is created")
        .into_inner();
    let session_id = session.session_id.expect("a session id");
    sandbox
        .control()
        .complete_session(&session_id, payment_option)
        .await
        .expect("the buyer completes")
}
