//! A stored request split into its compact part and the deflated rest
//! comes back whole: the same JSON text, the same generated value.

use super::{decode, split, Order, Text, ITEM_KEYS};
use crate::models::transaction::stored_request::StoredRequest;
use psi_payment_page::types::{BasketItem, SessionRequest, ShopBasket, SpecialItem, Vat};

/// The request as `StoredRequest::new` keeps it: its order, no URLs.
fn order_only(request: &SessionRequest) -> SessionRequest {
    SessionRequest {
        order_data: request.order_data.clone(),
        url_data: None,
        extra_members: Default::default(),
    }
}

/// Stores `request` and checks every way back against the original.
fn assert_kept(request: &SessionRequest) {
    let original = order_only(request);
    let json = serde_json::to_string(&original).expect("serialises");
    assert_decoded_as_postcard_does(&json);
    let stored = StoredRequest::new(request);
    assert_eq!(stored.json(), json, "the same JSON text");
    assert_eq!(stored.get(), original, "the same generated value");
    let summary = stored.summary();
    let order = original.order_data.clone().unwrap_or_default();
    assert_eq!(summary.shop_baskets, order.shop_baskets);
    assert_eq!(summary.partner_transaction_id, order.partner_transaction_id);
    assert_eq!(summary.currency, order.currency.map(String::from), "{json}");
    // The state file keeps the whole request deflated, as before.
    let in_file = serde_json::to_value(&stored).expect("serialises");
    let deflated = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        in_file.as_str().expect("a string"),
    )
    .expect("base64");
    let inflated = miniz_oxide::inflate::decompress_to_vec(&deflated).expect("deflated");
    assert_eq!(String::from_utf8(inflated).expect("UTF-8"), json);
    let loaded: StoredRequest = serde_json::from_value(in_file).expect("loads");
    assert_eq!(loaded.json(), json, "loaded from the file");
}

/// The hand-written decoder reads the compact part as postcard does, and
/// refuses (rather than misreads) every shortened or altered copy of it.
fn assert_decoded_as_postcard_does(json: &str) {
    let (order, _) = split(json).expect("splits");
    let bytes = postcard::to_allocvec(&order).expect("encodes");
    let by_postcard: Order<'_> = postcard::from_bytes(&bytes).expect("decodes");
    assert_eq!(decode(&bytes), Some(by_postcard));
    assert_eq!(decode(&bytes).as_ref(), Some(&order));
    for end in 0..bytes.len() {
        let shortened = &bytes[..end];
        let by_postcard = postcard::from_bytes::<Order<'_>>(shortened).ok();
        assert_eq!(decode(shortened), by_postcard, "{end} bytes");
    }
    for at in 0..bytes.len() {
        let mut altered = bytes.clone();
        altered[at] ^= 0x81;
        let by_postcard = postcard::from_bytes::<Order<'_>>(&altered).ok();
        assert_eq!(decode(&altered), by_postcard, "byte {at} altered");
    }
}

fn request(text: &str) -> SessionRequest {
    serde_json::from_str(text).expect("a session request")
}

#[test]
fn the_demo_order_comes_back_whole() {
    let demo = crate::demo::session_request("https://shop.example.com/webhook");
    assert_kept(&demo);
    let stored = StoredRequest::new(&demo);
    let order = stored.order();
    assert_eq!(order.partner_transaction_id, Some(r#""order-100045""#));
    assert_eq!(order.currency, Some(r#""EUR""#));
    let basket = &order.shop_baskets[0];
    assert_eq!(basket.gross_amount, Some("43.8"));
    let item = &basket.items[0];
    let article = ITEM_KEYS.iter().position(|k| *k == "article_number");
    assert_eq!(item[article.expect("a key")], Some(r#""ART-1001""#));
    assert_eq!(basket.vats.len(), 1);
}

#[test]
fn unusual_orders_come_back_whole() {
    let requests = [
        // Escapes, trailing zeros, many digits, two baskets, descriptions.
        r#"{"order_data": {"partner_transaction_id": "ord \"quoted\" \\ \u00fc \u0001 \ud83d\ude00",
            "currency": "CHF",
            "shop_baskets": [
              {"partner_shop_id": "shop/\u00e4", "shop_transaction_id": "S\"1", "gross_amount": 10.50,
               "items": [{"article_number": "A\n1", "name": "\u00c4", "description": "d\te", "category": "c",
                          "unit": "pc", "quantity": 2.000, "tax_rate": 7.7, "gross_unit_price": 5.25,
                          "gross_unit_discount": 0, "net_unit_price": 4.874651810584958217270194986,
                          "net_unit_discount": -0.00, "gross_total_price": 10.50, "net_total_price": 9.75}],
               "vats": [{"tax_rate": 7.70, "net_amount": 9.75, "tax_amount": 0.75}, {}]},
              {"gross_amount": 0.01, "special_items": [{"name": "fee", "quantity": 1, "gross_unit_price": 0.01,
                "gross_total_price": 0.01, "description": "a fee"}]}]}}"#,
        // Nulls: absent once parsed, absent when stored.
        r#"{"order_data": {"partner_transaction_id": null, "currency": null,
            "shop_baskets": [{"gross_amount": null, "items": null, "special_items": null, "vats": null,
                              "partner_shop_id": "s"}]}}"#,
        // No order at all; an empty order; an order without baskets; empty baskets.
        "{}",
        r#"{"order_data": {}}"#,
        r#"{"order_data": {"shop_baskets": []}}"#,
        r#"{"order_data": {"shop_baskets": [{}, {"items": [{}, {"unit": "kg"}], "special_items": [{}]}]}}"#,
        // A text of 128 bytes and more: a length of two bytes.
        r#"{"order_data": {"partner_transaction_id": "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789ä",
            "shop_baskets": [{"partner_shop_id": "ü"}]}}"#,
        // Big numbers.
        r#"{"order_data": {"shop_baskets": [{"gross_amount": 99999999999.99},
            {"gross_amount": 12345678901234567.80, "items": [{"quantity": 79228162514264337593543950335}]}]}}"#,
    ];
    for text in requests {
        assert_kept(&request(text));
    }
    // A buyer and a delivery but no baskets; a buyer whose name has escapes.
    let mut demo = crate::demo::session_request("https://shop.example.com/webhook");
    let order = demo.order_data.as_mut().expect("an order");
    order.shop_baskets.clear();
    order.partner_transaction_id = None;
    assert_kept(&demo);
    let mut json = serde_json::to_string(&demo).expect("JSON");
    json = json.replace("Erika", "E\\\"r\\u00efka\\n");
    assert!(json.contains(r#"E\"r"#), "{json}");
    assert_kept(&request(&json));
    // The URLs are not kept, whatever the order.
    assert!(demo.url_data.is_some());
    demo.order_data = None;
    assert_kept(&demo);
}

/// Struct literals without `..Default::default()`: a field the schema
/// gains breaks this test's build, a reminder that the compact form needs
/// a place for it (until then, storing such an order fails loudly).
#[test]
fn every_field_of_a_basket_has_a_place() {
    let price = |text: &str| Some(text.parse().expect("a decimal"));
    let text = |text: &str| Some(text.to_owned());
    let item = BasketItem {
        article_number: text("a"),
        category: text("b"),
        description: text("c"),
        gross_total_price: price("1.10"),
        gross_unit_discount: price("-0.10"),
        gross_unit_price: price("1.20"),
        name: text("d"),
        net_total_price: price("1.00"),
        net_unit_discount: price("-0.05"),
        net_unit_price: price("1.05"),
        quantity: price("1"),
        tax_rate: price("10.0"),
        unit: text("e"),
        extra_members: Default::default(),
    };
    let special_item = SpecialItem {
        article_number: text("f"),
        category: text("g"),
        description: text("h"),
        gross_total_price: price("2.20"),
        gross_unit_price: price("2.20"),
        name: text("i"),
        net_total_price: price("2.00"),
        net_unit_price: price("2.00"),
        quantity: price("1"),
        tax_rate: price("10"),
        unit: text("j"),
        extra_members: Default::default(),
    };
    let vat = Vat {
        net_amount: price("3.00"),
        tax_amount: price("0.30"),
        tax_rate: price("10.00"),
        extra_members: Default::default(),
    };
    let basket = ShopBasket {
        gross_amount: price("3.30"),
        items: vec![item],
        partner_shop_id: text("k"),
        shop_transaction_id: text("l"),
        special_items: vec![special_item],
        vats: vec![vat],
        extra_members: Default::default(),
    };
    let mut request = crate::demo::session_request("https://shop.example.com/webhook");
    request.order_data.as_mut().expect("an order").shop_baskets = vec![basket];
    assert_kept(&request);
    let stored = StoredRequest::new(&request);
    let order = stored.order();
    let fields: &[Text<'_>] = &order.shop_baskets[0].items[0];
    assert!(fields.iter().all(Option::is_some), "{fields:?}");
}

#[test]
fn a_member_without_a_place_is_refused_not_lost() {
    for json in [
        r#"{"order_data": {"shop_baskets": [{"colour": "red"}]}}"#,
        r#"{"order_data": {"shop_baskets": [{"items": [{"colour": "red"}]}]}}"#,
        r#"{"order_data": {"shop_baskets": [{"vats": [{"colour": "red"}]}]}}"#,
    ] {
        let refused = split(json).expect_err("refused");
        assert!(refused.contains("\"colour\""), "{refused}");
    }
}
