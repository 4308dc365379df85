//! Constrained strings reject bad input with the field and the rule, before
//! any request leaves the process.

use psi_bank_accounts::types::{BankAccountOwner, BankAccountStoreRequest, Bic, Iban};
use psi_payment_page::types::{CountryCode, CurrencyCode, IdempotencyKey, SessionRequest};
use psi_runtime::{field, parse_json};
use psi_storefront::types::{OrderId, TaxId};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

#[test]
fn idempotency_key_is_at_most_64_characters() {
    assert!(field::<IdempotencyKey, _>("Idempotency-Key", "k".repeat(64).as_str()).is_ok());
    let error = field::<IdempotencyKey, _>("Idempotency-Key", "k".repeat(65).as_str()).unwrap_err();
    assert_eq!(error.field, "Idempotency-Key");
    assert_eq!(
        error.to_string(),
        "Idempotency-Key: longer than 64 characters"
    );
}

#[test]
fn order_id_and_tax_id_are_32_lowercase_hex_characters() {
    let valid = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
    assert!(field::<OrderId, _>("orderId", valid).is_ok());
    assert!(field::<TaxId, _>("taxId", valid).is_ok());
    for bad in [
        "0A1B2C3D4E5F60718293A4B5C6D7E8F9",
        "0a1b",
        "0a1b2c3d4e5f60718293a4b5c6d7e8f9a",
        "g".repeat(32).as_str(),
    ] {
        let error = field::<OrderId, _>("orderId", bad).unwrap_err();
        assert_eq!(error.field, "orderId");
        assert!(
            error.rule.contains("^[0-9a-f]{32}$") || error.rule.contains("characters"),
            "{error}"
        );
        assert!(
            field::<TaxId, _>("taxId", bad).is_err(),
            "{bad} accepted as taxId"
        );
    }
}

#[test]
fn currency_and_country_codes_are_checked() {
    assert!(field::<CurrencyCode, _>("currency", "EUR").is_ok());
    assert!(field::<CountryCode, _>("country_code", "DE").is_ok());
    for bad in ["eur", "EURO", "E1R"] {
        let error = field::<CurrencyCode, _>("currency", bad).unwrap_err();
        assert!(error.to_string().starts_with("currency: "), "{error}");
    }
    for bad in ["de", "DEU", "D"] {
        assert!(
            field::<CountryCode, _>("country_code", bad).is_err(),
            "{bad} accepted"
        );
    }
}

#[test]
fn bank_account_lengths_are_checked() {
    assert!(field::<BankAccountOwner, _>("owner", "o".repeat(1000).as_str()).is_ok());
    assert_eq!(
        field::<BankAccountOwner, _>("owner", "o".repeat(1001).as_str())
            .unwrap_err()
            .to_string(),
        "owner: longer than 1000 characters"
    );
    assert!(field::<Iban, _>("iban", "D".repeat(50).as_str()).is_ok());
    assert!(field::<Iban, _>("iban", "D".repeat(51).as_str()).is_err());
    assert!(field::<Bic, _>("bic", "B".repeat(51).as_str()).is_err());
    let error = parse_json::<BankAccountStoreRequest>(&format!(
        r#"{{"owner":"Erika Mustermann","iban":"{}"}}"#,
        "D".repeat(51)
    ))
    .unwrap_err();
    assert_eq!(error.field, "iban");
}

#[test]
fn a_json_request_names_the_path_of_the_bad_field() {
    let error = parse_json::<SessionRequest>(
        r#"{"order_data":{"currency":"eur","buyer":{"person":{"first_name":"Erika"}}}}"#,
    )
    .unwrap_err();
    assert_eq!(error.field, "order_data.currency");
    assert!(error.rule.contains("^[A-Z]{3}$"), "{error}");

    let error = parse_json::<SessionRequest>(
        r#"{"order_data":{"delivery":{"pick_up_box":{"country_code":"Germany"}}}}"#,
    )
    .unwrap_err();
    assert_eq!(error.field, "order_data.delivery");
}

#[tokio::test]
async fn the_client_rejects_a_bad_key_and_sends_nothing() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(201))
        .mount(&server)
        .await;
    let client =
        psi_payment_page::Client::new(&server.uri(), psi_runtime::Context::new("payment-page"));
    let result = client
        .create_session()
        .idempotency_key("k".repeat(65))
        .body(SessionRequest::builder())
        .send()
        .await;
    let error = result.unwrap_err().to_string();
    assert!(error.contains("idempotency_key"), "{error}");
    assert_eq!(server.received_requests().await.unwrap().len(), 0);
}
