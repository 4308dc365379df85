//! The answer written from the stored order's compact form ([`super::answer`]) is, byte for
//! byte, the one the generated types give (the way the sandbox answered
//! before: the order parsed, the generated answer built and serialised).

use super::answer;
use crate::models::order_status::{
    dunning_status, payment_method, payment_status_of, MAXIMUM_PROCESSING_OFFSET_IN_HOURS,
};
use crate::models::transaction::stored_request::{currency_of, gross_total_of};
use crate::models::transaction::{
    demo_transaction, label, OrderSummary, StoredRequest, Transaction, TransactionId,
};
use chrono::{DateTime, NaiveDate};
use psi_payment_page::types::{BasketItem, SessionRequest, ShopBasket, SpecialItem};
use psi_runtime::Decimal;
use psi_transaction_status::types::{
    BasketInformationDto, PaymentInformationDto, TransactionItem, TransactionSpecialItem,
    TransactionStatusResponse,
};

/// The answer written from the compact form, as the handler writes it.
fn written(transaction: &Transaction, shop_name: &str, today: NaiveDate) -> String {
    let record = answer::Record {
        id: transaction.id,
        created: transaction.created,
        due_date: transaction.due_date,
        payment_option: &transaction.payment_option,
        transfer_type: &transaction.transfer_type,
    };
    let order = transaction.request.order();
    let body = answer::write(&record, &order, shop_name, today);
    String::from_utf8(body.to_vec()).expect("UTF-8")
}

/// The answer through the generated types, from the whole stored request.
fn reference(transaction: &Transaction, shop_name: &str, today: NaiveDate) -> String {
    let order = transaction.request.get().order_data.unwrap_or_default();
    let order: OrderSummary =
        serde_json::from_str(&serde_json::to_string(&order).expect("JSON")).expect("an order");
    let answer = generated_answer(transaction, order, shop_name, today);
    serde_json::to_string(&answer).expect("serialises")
}

/// A transaction of `order`, given as JSON text: a `serde_json::Value`
/// would hold its amounts as floats.
fn transaction(order: &str, due_date: &str) -> Transaction {
    let text = format!("{{\"order_data\": {order}}}");
    let request: SessionRequest = serde_json::from_str(&text).expect("a session request");
    Transaction {
        id: TransactionId::parse("12-00000000000004711").expect("an id"),
        session_id: uuid::Uuid::nil(),
        created: DateTime::parse_from_rfc3339("2026-11-20T10:15:30.123456789+01:00")
            .expect("a time"),
        request: StoredRequest::new(&request),
        payment_option: label("OPEN_INVOICE".to_owned()),
        transfer_type: label("a \"custom\" transfer".to_owned()),
        correspondence_id: uuid::Uuid::nil(),
        due_date: due_date.parse().expect("a date"),
    }
}

fn day(text: &str) -> NaiveDate {
    text.parse().expect("a date")
}

#[test]
fn the_demo_order_answers_as_the_generated_types_do() {
    let template = crate::demo::session_request("https://shop.example.com/webhook");
    let now = DateTime::parse_from_rfc3339("2026-11-20T10:15:30+01:00").expect("a time");
    let transaction = demo_transaction(7, &template, now);
    for today in [day("2026-11-20"), day("2026-12-31")] {
        let written = written(&transaction, "Sandbox shop", today);
        assert_eq!(written, reference(&transaction, "Sandbox shop", today));
        assert!(
            written.contains("\"shop_transaction_id\":\"SO-7\""),
            "{written}"
        );
    }
}

#[test]
fn unusual_orders_answer_as_the_generated_types_do() {
    // As JSON text, so that amounts keep their trailing zeros and digits.
    let orders = [
        // Escapes, amounts with trailing zeros and many digits, two baskets,
        // an item with a description (not shown).
        r#"{"partner_transaction_id": "ord \"quoted\" \\ \u00fc \u0001", "currency": "CHF",
            "shop_baskets": [
              {"partner_shop_id": "shop/\u00e4", "shop_transaction_id": "S\"1", "gross_amount": 10.50,
               "items": [{"article_number": "A\n1", "name": "\u00c4", "description": "not shown", "category": "c",
                          "unit": "pc", "quantity": 2.000, "tax_rate": 7.7, "gross_unit_price": 5.25,
                          "gross_unit_discount": 0, "net_unit_price": 4.874651810584958217270194986,
                          "net_unit_discount": -0.00, "gross_total_price": 10.50, "net_total_price": 9.75}]},
              {"gross_amount": 0.01, "special_items": [{"name": "fee", "quantity": 1, "gross_unit_price": 0.01,
                                                         "gross_total_price": 0.01}]}]}"#,
        // Nothing but the required minimum: no currency, no reference, no basket.
        "{}",
        // A basket without amounts or items; one with empty items.
        r#"{"currency": "EUR", "shop_baskets": [{"partner_shop_id": "shop-1"}]}"#,
        r#"{"shop_baskets": [{"items": [{}, {"unit": "kg"}], "special_items": [{}]}]}"#,
        // Large amounts.
        r#"{"shop_baskets": [{"gross_amount": 99999999999.99}, {"gross_amount": 12345678901234567.80}]}"#,
    ];
    for order in orders {
        let transaction = transaction(order, "2026-11-30");
        for today in [day("2026-11-30"), day("2026-12-01")] {
            for shop in ["Sandbox shop", "Müller \"&\" Söhne <GmbH>"] {
                let exact = gross_total_of(&transaction.order_summary()).to_string();
                assert_eq!(
                    written(&transaction, shop, today),
                    with_outstanding(&reference(&transaction, shop, today), &exact),
                    "{order}"
                );
            }
        }
    }
    let kept = written(
        &transaction(orders[0], "2026-11-30"),
        "s",
        day("2026-11-30"),
    );
    assert!(kept.contains(r#""gross_amount":10.50,"#), "{kept}");
    assert!(kept.contains(r#""outstanding_amount":10.51,"#), "{kept}");
}

/// The pay later offers and bookings read the order's total and currency
/// from the compact form; they are the ones the generated types read.
#[test]
fn the_compact_total_and_currency_are_the_generated_types_ones() {
    let orders = [
        r#"{"currency": "CHF", "shop_baskets": [{"gross_amount": 10.50}, {"gross_amount": 0.01}]}"#,
        "{}",
        r#"{"currency": "E\u0055R", "shop_baskets": [{"partner_shop_id": "shop-1"}]}"#,
        r#"{"shop_baskets": [{"gross_amount": 99999999999.99}, {"gross_amount": 12345678901234567.80}]}"#,
        r#"{"currency": "USD", "shop_baskets": [{"gross_amount": 43.80, "items": [{"unit": "kg"}]}]}"#,
    ];
    for order in orders {
        let transaction = transaction(order, "2026-11-30");
        let summary = transaction.order_summary();
        let compact = transaction.request.order();
        let total: Decimal = compact.gross_total().into();
        assert_eq!(
            total.to_string(),
            gross_total_of(&summary).to_string(),
            "{order}"
        );
        assert_eq!(compact.currency(), currency_of(&summary), "{order}");
    }
}

/// `answer` with its outstanding amount written as `exact`. The generated
/// type keeps the payment status as free-form JSON, through which the
/// amount would pass as a float (`10.50` as `10.5`, 17 digits with an
/// exponent); the answer writes the exact decimal.
fn with_outstanding(answer: &str, exact: &str) -> String {
    let key = "\"outstanding_amount\":";
    let start = answer.find(key).expect("an outstanding amount") + key.len();
    let end = start + answer[start..].find([',', '}']).expect("its end");
    format!("{}{exact}{}", &answer[..start], &answer[end..])
}

#[test]
fn times_dates_and_labels_answer_as_serde_writes_them() {
    let mut transaction = transaction(r#"{"currency": "EUR"}"#, "2026-11-30");
    let times = [
        "2026-11-20T10:15:30Z",
        "2026-11-20T10:15:30.5Z",
        "2026-11-20T10:15:30.120+01:00",
        "2026-11-20T10:15:30.123456-09:30",
        "0001-01-01T00:00:00.000000001+14:00",
        "9999-12-31T23:59:59.999999999-00:59",
        "2026-06-30T23:59:60.5Z",
    ];
    let due_dates = ["2026-11-30", "0099-01-09", "9999-12-31"];
    let labels = ["INSTALMENT", "tab\there", "quote \" and back\\slash", "ü"];
    for (index, time) in times.iter().enumerate() {
        transaction.created = DateTime::parse_from_rfc3339(time).expect("a time");
        transaction.due_date = day(due_dates[index % due_dates.len()]);
        transaction.payment_option = label(labels[index % labels.len()].to_owned());
        let today = day("2026-12-01");
        let exact = gross_total_of(&transaction.order_summary()).to_string();
        assert_eq!(
            written(&transaction, "s", today),
            with_outstanding(&reference(&transaction, "s", today), &exact),
            "{time}"
        );
    }
    // Offsets in seconds (a FixedOffset allows them) round to the minute.
    transaction.created = DateTime::parse_from_rfc3339(times[3]).expect("a time");
    for seconds in [29, 30, -30, -31, 3_599, 86_399, -86_399] {
        let offset = chrono::FixedOffset::east_opt(seconds).expect("an offset");
        transaction.created = transaction.created.with_timezone(&offset);
        let today = day("2026-12-01");
        let exact = gross_total_of(&transaction.order_summary()).to_string();
        assert_eq!(
            written(&transaction, "s", today),
            with_outstanding(&reference(&transaction, "s", today), &exact),
            "{seconds}"
        );
    }
}

#[test]
fn currency_codes_are_the_generated_types_own() {
    use psi_transaction_status::types::CurrencyCode;
    for text in [
        "EUR", "CHF", "XXX", "eur", "EU", "EURO", "", "E1R", "ÄBC", "EUR\n", " EU", "AB€",
    ] {
        let parsed = text.parse::<CurrencyCode>();
        assert_eq!(answer::is_currency_code(text), parsed.is_ok(), "{text:?}");
        if let Ok(code) = parsed {
            assert_eq!(serde_json::to_string(&code).unwrap(), format!("\"{text}\""));
        }
    }
}

#[test]
fn the_first_baskets_shop_names_the_seller() {
    let transaction = transaction(
        r#"{"shop_baskets": [{"partner_shop_id": "shop \"7\""}, {"partner_shop_id": "other"}]}"#,
        "2026-11-30",
    );
    let shop = answer::first_shop_id(&transaction.request.order());
    assert_eq!(shop.as_deref(), Some("shop \"7\""));
    let empty = transaction_of_nothing();
    let shop = answer::first_shop_id(&empty.request.order());
    assert_eq!(shop, None);
}

fn transaction_of_nothing() -> Transaction {
    transaction("{}", "2026-11-30")
}

// The way the sandbox built the answer before it was written from the
// stored JSON: kept as the reference the tests compare against.

fn generated_answer(
    transaction: &Transaction,
    order: OrderSummary,
    shop_name: &str,
    today: NaiveDate,
) -> TransactionStatusResponse {
    let gross_total = gross_total_of(&order);
    let currency = currency_of(&order).parse().ok();
    TransactionStatusResponse {
        gateway_transaction_id: Some(transaction.id.to_string()),
        partner_transaction_id: order.partner_transaction_id,
        created: Some(transaction.created),
        shop_buyer_id: None,
        currency,
        shop_baskets: order
            .shop_baskets
            .iter()
            .map(|basket| basket_information(basket, shop_name))
            .collect(),
        payment_information: Some(PaymentInformationDto {
            maximum_processing_offset_in_hours: Some(Decimal::from(
                MAXIMUM_PROCESSING_OFFSET_IN_HOURS,
            )),
            payment_method: payment_method(transaction),
            payment_status: payment_status_of(transaction, gross_total, today),
            dunning_status: dunning_status(),
        }),
    }
}

fn basket_information(basket: &ShopBasket, shop_name: &str) -> BasketInformationDto {
    BasketInformationDto {
        partner_shop_id: basket.partner_shop_id.clone(),
        partner_shop_name: Some(shop_name.to_owned()),
        shop_transaction_id: basket.shop_transaction_id.clone(),
        gross_amount: basket.gross_amount,
        items: basket.items.iter().map(transaction_item).collect(),
        special_items: basket
            .special_items
            .iter()
            .map(transaction_special_item)
            .collect(),
    }
}

fn transaction_item(item: &BasketItem) -> TransactionItem {
    TransactionItem {
        article_number: item.article_number.clone(),
        name: item.name.clone(),
        category: item.category.clone(),
        unit: item.unit.clone(),
        quantity: item.quantity,
        tax_rate: item.tax_rate,
        gross_unit_price: item.gross_unit_price,
        net_unit_price: item.net_unit_price,
        gross_unit_discount: item.gross_unit_discount,
        net_unit_discount: item.net_unit_discount,
        gross_total_price: item.gross_total_price,
        net_total_price: item.net_total_price,
        discount: None,
        description: None,
        additional_description: None,
        identification_number: None,
        unique_identification_number: None,
    }
}

fn transaction_special_item(item: &SpecialItem) -> TransactionSpecialItem {
    TransactionSpecialItem {
        article_number: item.article_number.clone(),
        name: item.name.clone(),
        category: item.category.clone(),
        unit: item.unit.clone(),
        quantity: item.quantity,
        tax_rate: item.tax_rate,
        gross_unit_price: item.gross_unit_price,
        net_unit_price: item.net_unit_price,
        gross_total_price: item.gross_total_price,
        gross_unit_discount: None,
        net_unit_discount: None,
        net_total_price: item.net_total_price,
        discount: None,
        description: None,
        additional_description: None,
        identification_number: None,
        unique_identification_number: None,
    }
}
