//! Money is `rust_decimal::Decimal` on every API and survives the wire exactly.

use psi_payment_page::types::{SessionRequest, ShopBasket};
use psi_transaction_status::types::TransactionItem;
use psi_runtime::Decimal;
use std::str::FromStr;

const WIRE_VALUES: &[&str] = &[
    "43.8",
    "18.45",
    "-1.55",
    "0.1",
    "1234567.89",
    "33.80",
    "0.10000000000000000000001",
];

#[test]
fn wire_amounts_round_trip_unchanged() {
    for text in WIRE_VALUES {
        let json = format!(r#"{{"gross_unit_price":{text},"net_total_price":{text}}}"#);
        let item: TransactionItem = serde_json::from_str(&json).unwrap();
        // The field is a Decimal, not a float: this line does not compile otherwise.
        let price: Decimal = item.gross_unit_price.unwrap();
        assert_eq!(price, Decimal::from_str(text).unwrap());
        assert_eq!(
            serde_json::to_string(&item).unwrap(),
            json,
            "{text} changed on the way back"
        );
    }
}

#[test]
fn sums_of_wire_amounts_are_exact() {
    let tenth: TransactionItem = serde_json::from_str(r#"{"gross_unit_price":0.1}"#).unwrap();
    let fifth: TransactionItem = serde_json::from_str(r#"{"gross_unit_price":0.2}"#).unwrap();
    let sum = tenth.gross_unit_price.unwrap() + fifth.gross_unit_price.unwrap();
    assert_eq!(sum.to_string(), "0.3");
    assert_ne!(0.1_f64 + 0.2_f64, 0.3_f64, "floats would have lost this");

    let big: TransactionItem = serde_json::from_str(r#"{"gross_unit_price":1234567.89}"#).unwrap();
    let total: Decimal = (0..1000).map(|_| big.gross_unit_price.unwrap()).sum();
    assert_eq!(total.to_string(), "1234567890.00");
}

#[test]
fn the_example_basket_adds_up_to_the_cent() {
    let basket: ShopBasket = serde_json::from_value(serde_json::json!({
        "gross_amount": 43.8,
        "items": [{
            "quantity": 2, "tax_rate": 19,
            "gross_unit_price": 18.45, "gross_unit_discount": -1.55, "gross_total_price": 33.8,
            "net_unit_price": 15.5, "net_unit_discount": -1.3, "net_total_price": 28.4
        }],
        "special_items": [{"category": "shipping", "quantity": 1, "gross_unit_price": 10, "gross_total_price": 10, "net_total_price": 8.4}],
        "vats": [{"tax_rate": 19, "net_amount": 36.8, "tax_amount": 7}]
    }))
    .unwrap();
    let item = &basket.items[0];
    let unit = item.gross_unit_price.unwrap() + item.gross_unit_discount.unwrap();
    assert_eq!(
        unit * item.quantity.unwrap(),
        item.gross_total_price.unwrap()
    );
    let items: Decimal = basket
        .items
        .iter()
        .filter_map(|i| i.gross_total_price)
        .sum();
    let specials: Decimal = basket
        .special_items
        .iter()
        .filter_map(|i| i.gross_total_price)
        .sum();
    assert_eq!(items + specials, basket.gross_amount.unwrap());
    let vat = &basket.vats[0];
    assert_eq!(
        vat.net_amount.unwrap() + vat.tax_amount.unwrap(),
        basket.gross_amount.unwrap()
    );
}

#[test]
fn a_whole_session_request_keeps_every_amount() {
    let json = r#"{"order_data":{"currency":"EUR","shop_baskets":[{"gross_amount":43.8,"vats":[{"tax_rate":19,"net_amount":36.8,"tax_amount":7}]}]}}"#;
    let request: SessionRequest = serde_json::from_str(json).unwrap();
    let back = serde_json::to_value(&request).unwrap();
    assert_eq!(
        back,
        serde_json::from_str::<serde_json::Value>(json).unwrap()
    );
    assert!(serde_json::to_string(&request)
        .unwrap()
        .contains(r#""net_amount":36.8"#));
}
