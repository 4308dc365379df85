//! Money is `psi_runtime::Decimal` on every API and survives the wire exactly,
//! without serde_json's global `arbitrary_precision` (which psi leaves off
//! unless the `arbitrary-precision` feature asks for it: CI runs this module
//! both ways).

use psi_payment_page::types::{SessionRequest, ShopBasket};
use psi_runtime::Decimal;
use psi_storefront::types::LoadData;
use psi_transaction_status::types::TransactionItem;
use std::str::FromStr;

/// The amounts of the brief: a tenth, a scale that must survive, and more
/// significant digits than an `f64` holds.
const EXACT: [&str; 4] = ["0.1", "43.80", "12345678901234567.89", "-1.55"];

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

#[test]
fn the_feature_is_off_unless_asked_for() {
    // With arbitrary_precision a Value keeps the text; without, an f64.
    let value: serde_json::Value = serde_json::from_str("43.80").unwrap();
    let text = value.to_string();
    assert_eq!(
        text == "43.80",
        cfg!(feature = "arbitrary-precision"),
        "{text}"
    );
}

#[test]
fn exact_amounts_round_trip_typed_to_text_to_typed() {
    for text in EXACT {
        let typed = TransactionItem::builder()
            .gross_unit_price(Some(Decimal::from_str(text).unwrap()))
            .net_total_price(Some(Decimal::from_str(text).unwrap()))
            .try_into()
            .map(|item: TransactionItem| item)
            .unwrap();
        let json = serde_json::to_string(&typed).unwrap();
        assert_eq!(
            json,
            format!(r#"{{"gross_unit_price":{text},"net_total_price":{text}}}"#)
        );
        let back: TransactionItem = serde_json::from_str(&json).unwrap();
        assert_eq!(back, typed);
        // The text, scale included (43.80 stays 43.80).
        assert_eq!(back.gross_unit_price.unwrap().to_string(), text);
        let parsed: TransactionItem = psi_runtime::parse_json(&json).unwrap();
        assert_eq!(parsed.net_total_price.unwrap().to_string(), text);
    }
}

#[test]
fn amounts_from_a_json_value_keep_what_the_value_holds() {
    for text in EXACT {
        let value: serde_json::Value =
            serde_json::from_str(&format!(r#"{{"gross_unit_price":{text}}}"#)).unwrap();
        let item: TransactionItem = serde_json::from_value(value.clone()).unwrap();
        let held = item.gross_unit_price.unwrap();
        let sent = Decimal::from_str(text).unwrap();
        if cfg!(feature = "arbitrary-precision") {
            assert_eq!(held.to_string(), text);
            assert_eq!(serde_json::to_value(&item).unwrap(), value);
        } else if text == "12345678901234567.89" {
            // 19 significant digits: a Value holds an f64, which cannot.
            assert_ne!(held, sent, "{text}");
        } else {
            // Equal values; a Value does not keep the scale (43.80 -> 43.8).
            assert_eq!(held, sent, "{text}");
        }
    }
}

#[test]
fn numbers_no_decimal_holds_are_refused_naming_the_field() {
    for text in ["1e400", "1.23456789012345678901234567891", "1e-30"] {
        let json = format!(r#"{{"name":"shirt","gross_unit_price":{text}}}"#);
        let error = psi_runtime::parse_json::<TransactionItem>(&json).unwrap_err();
        assert_eq!(error.field, "gross_unit_price", "{text}");
        assert!(
            error.rule.contains("refused rather than rounded"),
            "{error}"
        );
        assert!(serde_json::from_str::<TransactionItem>(&json).is_err());
    }
}

/// storefront's `LoadData` is an untagged enum: serde buffers its content,
/// where serde_json hands numbers over as `f64` unless `arbitrary_precision`
/// is on. Values of up to 15 significant digits are exact either way.
#[test]
fn amounts_inside_an_untagged_enum_are_read() {
    let json = r#"[{"id":"1","name":"shirt","ordered":2,"unitPrice":43.80,"totalPrice":12345678901234567.89}]"#;
    let Some(LoadData::List(list)) = serde_json::from_str::<Option<LoadData>>(json).unwrap() else {
        panic!("a list")
    };
    let item = &list.0[0];
    assert_eq!(item.ordered, Some(Decimal::TWO));
    assert_eq!(item.unit_price, Some(Decimal::new(4380, 2)));
    let total = item.total_price.unwrap();
    if cfg!(feature = "arbitrary-precision") {
        assert_eq!(item.unit_price.unwrap().to_string(), "43.80");
        assert_eq!(total.to_string(), "12345678901234567.89");
    } else {
        assert_eq!(total.to_string(), "12345678901234568");
    }
    // Writing has no buffering: the decimal's own text goes out.
    let back = serde_json::to_string(&LoadData::List(list.clone())).unwrap();
    assert!(back.contains(&format!(r#""totalPrice":{total}"#)), "{back}");
}

/// A basket of the three amounts (VAT 0 %, so net = gross), created through
/// `psi::Client`, completed, and read back from the sandbox's transaction
/// status, typed and as the wire text reqwest received.
#[tokio::test]
async fn exact_amounts_survive_the_sandbox() {
    let (sandbox, client) = crate::e2e::sandbox().await;
    let gross = "12345678901234611.79"; // 12345678901234567.89 + 43.80 + 0.1
    let items: Vec<String> = ["12345678901234567.89", "43.80", "0.1"]
        .iter()
        .enumerate()
        .map(|(n, price)| {
            format!(
                r#"{{"article_number":"A-{n}","name":"item {n}","quantity":1,"tax_rate":0,
                    "gross_unit_price":{price},"gross_total_price":{price},
                    "net_unit_price":{price},"net_total_price":{price}}}"#
            )
        })
        .collect();
    let mut request =
        serde_json::to_string(&crate::e2e::session_request("http://127.0.0.1:9/unused")).unwrap();
    let basket_at = request.find(r#""shop_baskets":"#).unwrap();
    let basket_end = basket_at + request[basket_at..].find("}]}]").unwrap() + 4;
    request.replace_range(
        basket_at..basket_end,
        &format!(
            r#""shop_baskets":[{{"partner_shop_id":"shop-1","shop_transaction_id":"SO-1","gross_amount":{gross},
                "items":[{}],"vats":[{{"tax_rate":0,"net_amount":{gross},"tax_amount":0}}]}}]"#,
            items.join(",")
        ),
    );
    let request: SessionRequest = serde_json::from_str(&request).unwrap();
    let session_id = client
        .payment_page()
        .create_session()
        .body(request)
        .send()
        .await
        .expect("the session is created")
        .into_inner()
        .session_id
        .unwrap();
    let transaction_id = sandbox
        .control()
        .complete_session(&session_id, "OPEN_INVOICE")
        .await
        .unwrap();

    let status = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id(&transaction_id)
        .send()
        .await
        .unwrap()
        .into_inner();
    let basket = &status.shop_baskets[0];
    assert_eq!(basket.gross_amount.unwrap().to_string(), gross);
    let prices: Vec<String> = basket
        .items
        .iter()
        .map(|item| item.gross_unit_price.unwrap().to_string())
        .collect();
    assert_eq!(prices, ["12345678901234567.89", "43.80", "0.1"]);

    // The wire text itself, through a plain reqwest call.
    let token: serde_json::Value = reqwest::Client::new()
        .post(format!("{}/oauth/token", sandbox.url()))
        .json(&serde_json::json!({
            "grant_type": "client_credentials",
            "client_id": psi_sandbox::DEMO_CLIENT_ID,
            "client_secret": psi_sandbox::DEMO_CLIENT_SECRET,
            "audience": format!("{}/transaction/status/v2/transactions", sandbox.url()),
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let text = reqwest::Client::new()
        .get(format!(
            "{}/transaction/status/v2/transactions/{transaction_id}",
            sandbox.addresses().api_url
        ))
        .bearer_auth(token["access_token"].as_str().expect("a token"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for amount in ["12345678901234567.89", "43.80", "0.1", gross] {
        assert!(text.contains(&format!(":{amount}")), "{amount} in {text}");
    }
    assert!(!text.contains("serde_json"), "{text}");
}
