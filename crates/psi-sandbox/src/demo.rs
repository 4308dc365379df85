//! Demo data: the provider's documented consistent order, as the quickstart, the
//! end-to-end tests and the benchmarks use it.

use psi_payment_page::types::SessionRequest;
use psi_shop_config::types::ShopConfiguration;
use serde_json::json;

fn address() -> serde_json::Value {
    json!({"street": "Hauptstraße", "street_number": "1", "zip_code": "10115", "city": "Berlin", "country_code": "DE"})
}

/// The demo buyer: Erika Mustermann of Berlin (also what `psi-sandbox
/// seed-from` gives a transaction whose recorded answer names none).
pub fn buyer() -> serde_json::Value {
    json!({
        "billing_address": address(),
        "contact": {"email": "erika@example.com"},
        "language": "de",
        "person": {"first_name": "Erika", "last_name": "Mustermann", "date_of_birth": "1980-01-31"}
    })
}

/// A person buying two T-shirts with shipping: items 33.80, shipping 10.00,
/// VAT 19 % (net 36.80, tax 7.00), gross 43.80 EUR; notifications go to
/// `webhook_url`.
pub fn session_request(webhook_url: &str) -> SessionRequest {
    serde_json::from_value(json!({
        "order_data": {
            "partner_transaction_id": "order-100045",
            "currency": "EUR",
            "buyer": buyer(),
            "delivery": {"first_name": "Erika", "last_name": "Mustermann", "address": address()},
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
    .expect("the demo session request is valid")
}

/// A complete, valid configuration of a German GmbH.
pub fn shop_configuration() -> ShopConfiguration {
    serde_json::from_value(json!({
        "name": "Example Shop",
        "website": "https://shop.example.com",
        "address": {"street": "Hauptstraße", "street_number": "1", "city": "Berlin", "postal_code": "10115", "country_code": "DE"},
        "legal": {
            "name": "Example Shop GmbH", "legal_form": "GmbH", "commercial_register_number": "HRB 12345",
            "registration_office": "Amtsgericht Berlin-Charlottenburg", "vat_id_number": "DE123456789",
            "managing_directors": "Erika Mustermann", "designation_of_management": "Geschäftsführerin"
        },
        "contacts": {"customer_service": {"email": "service@shop.example.com"}},
        "correspondence_settings": {"branding_settings": {"logo_position": "LEFT", "highlight_color": "#0a7cff"}}
    }))
    .expect("the demo shop configuration is valid")
}

/// The id of the demo tenant: the merchant the `DEMO_*` credentials are
/// (one sandbox serves several tenants; this one always exists).
pub const DEMO_TENANT: &str = "demo";
/// The demo merchant's credentials (printed by `cargo run -p psi-sandbox`).
pub const DEMO_CLIENT_ID: &str = "sandbox-merchant";
/// The client secret of the demo merchant (`DEMO_CLIENT_ID`).
pub const DEMO_CLIENT_SECRET: &str = "sandbox-client-secret";
/// The storefront platform's demo credentials.
pub const DEMO_PLATFORM_CLIENT_ID: &str = "sandbox-platform";
/// The client secret of the demo storefront platform client.
pub const DEMO_PLATFORM_CLIENT_SECRET: &str = "sandbox-platform-secret";
/// The secret webhooks are signed with.
pub const DEMO_WEBHOOK_SECRET: &str = "sandbox-webhook-secret";
