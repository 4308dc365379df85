//! The five delivery shapes and the person and company buyer are typed: a
//! JSON request lands in the right shape.

use psi_payment_page::types::{Buyer, Delivery};
use serde_json::json;

fn delivery(value: serde_json::Value) -> Delivery {
    let delivery: Delivery = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(
        serde_json::to_value(&delivery).unwrap(),
        value,
        "shape changed on the way back"
    );
    delivery
}

fn address() -> serde_json::Value {
    json!({"street": "Hauptstraße", "street_number": "1", "zip_code": "10115", "city": "Berlin", "country_code": "DE"})
}

#[test]
fn consumer_to_an_address() {
    let shape = delivery(json!({"full_name": "Erika Mustermann", "address": address()}));
    assert!(
        matches!(shape, Delivery::ConsumerAddressDelivery(d) if d.full_name == "Erika Mustermann")
    );
}

#[test]
fn company_or_named_person_to_an_address() {
    let shape = delivery(
        json!({"company": "Muster GmbH", "first_name": "Erika", "last_name": "Mustermann", "address": address()}),
    );
    assert!(
        matches!(shape, Delivery::NamedAddressDelivery(d) if d.company.as_deref() == Some("Muster GmbH"))
    );
    // The provider's documented B2C delivery, without a company, is the same shape.
    let shape =
        delivery(json!({"first_name": "Erika", "last_name": "Mustermann", "address": address()}));
    assert!(matches!(shape, Delivery::NamedAddressDelivery(d) if d.company.is_none()));
}

#[test]
fn a_delivery_that_names_no_shape_is_the_named_address_shape() {
    // The specification marks no delivery field required: a delivery
    // without an address, or with no field at all, is sent as given.
    for value in [
        json!({"first_name": "Erika", "last_name": "Mustermann"}),
        json!({"company": "Muster GmbH"}),
        json!({}),
    ] {
        let shape = delivery(value.clone());
        assert!(
            matches!(&shape, Delivery::NamedAddressDelivery(d) if d.address.is_none()),
            "{value}"
        );
    }
}

#[test]
fn a_malformed_shape_is_refused_not_read_as_another() {
    let broken = json!({"first_name": "Erika", "pick_up_box": {"country_code": "Germany"}});
    assert!(serde_json::from_value::<Delivery>(broken).is_err());
}

#[test]
fn in_store_collect() {
    let shape = delivery(
        json!({"company": "Muster GmbH", "first_name": "Erika", "last_name": "Mustermann",
        "in_store_collect": {"location_name": "Filiale Mitte", "street": "Hauptstraße", "street_number": "1", "zip_code": "10115", "city": "Berlin", "country_code": "DE"}}),
    );
    assert!(
        matches!(shape, Delivery::InStoreCollectDelivery(d) if d.in_store_collect.location_name.as_deref() == Some("Filiale Mitte"))
    );
}

#[test]
fn pick_up_box() {
    let shape = delivery(json!({"first_name": "Erika", "last_name": "Mustermann",
        "pick_up_box": {"carrier_name": "DHL", "recipient_account_id": "123456789", "location_id": "101", "zip_code": "10115", "city": "Berlin", "country_code": "DE"}}));
    assert!(
        matches!(shape, Delivery::PickUpBoxDelivery(d) if d.pick_up_box.carrier_name.as_deref() == Some("DHL"))
    );
}

#[test]
fn pick_up_shop() {
    let shape = delivery(
        json!({"company": "Kiosk", "first_name": "Erika", "last_name": "Mustermann",
        "pick_up_shop": {"location_name": "Kiosk am Markt", "street": "Markt", "street_number": "2", "zip_code": "10115", "city": "Berlin", "country_code": "DE"}}),
    );
    assert!(
        matches!(shape, Delivery::PickUpShopDelivery(d) if d.pick_up_shop.location_name.as_deref() == Some("Kiosk am Markt"))
    );
}

#[test]
fn person_and_company_buyers() {
    let person: Buyer = serde_json::from_value(json!({"billing_address": address(), "language": "de",
        "contact": {"email": "erika@example.com"},
        "person": {"first_name": "Erika", "last_name": "Mustermann", "date_of_birth": "1980-01-31"}})).unwrap();
    match person {
        Buyer::PersonBuyer(buyer) => {
            assert_eq!(
                buyer.person.date_of_birth,
                chrono::NaiveDate::from_ymd_opt(1980, 1, 31)
            );
        }
        other => panic!("a person buyer landed as {other:?}"),
    }
    let company: Buyer = serde_json::from_value(json!({"billing_address": address(),
        "company": {"name": "Muster GmbH", "vat_id": "DE123456789"}}))
    .unwrap();
    assert!(
        matches!(company, Buyer::CompanyBuyer(b) if b.company.vat_id.as_deref() == Some("DE123456789"))
    );
    assert!(
        serde_json::from_value::<Buyer>(json!({"billing_address": address()})).is_err(),
        "a buyer needs a person or a company"
    );
}
