//! The transaction status answer, serialised with serde from the stored
//! order's compact form ([`crate::models::transaction::compact`]) without building the
//! generated types.
//!
//! The compact form keeps each string and amount of the order as its JSON
//! text, as the sandbox serialised it from the generated session request
//! types; the answer writes those texts back unchanged as raw JSON values
//! (amounts keep their scale, strings their escapes). The structs below
//! have the generated `TransactionStatusResponse`'s field names, in its
//! order, with its rules for leaving a field out, so the bytes are the
//! ones serialising the generated types gives (the tests compare both).
//! The outstanding amount is a `Decimal`, exact; the generated type holds
//! the payment status as free-form JSON, which would carry it as a float.

use crate::models::order_status::{payment_status_label, MAXIMUM_PROCESSING_OFFSET_IN_HOURS};
use crate::models::transaction::compact::{
    string_of, Basket, Order, Text, ITEM_KEYS, SPECIAL_ITEM_KEYS,
};
use crate::models::transaction::{Label, TransactionId};
use chrono::{DateTime, FixedOffset, NaiveDate};
use psi_runtime::Decimal;
use serde::ser::SerializeMap as _;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The shop of the order's first basket, whose configuration names the seller.
pub fn first_shop_id<'a>(order: &Order<'a>) -> Option<Cow<'a, str>> {
    let text = order.shop_baskets.first()?.partner_shop_id?;
    string_of(text)
}

/// Whether the answer's `CurrencyCode` takes `text`: its pattern is
/// `^[A-Z]{3}$`.
pub fn is_currency_code(text: &str) -> bool {
    text.len() == 3 && text.bytes().all(|b| b.is_ascii_uppercase())
}

/// What the answer shows of the transaction record itself.
pub struct Record<'a> {
    pub id: TransactionId,
    pub created: DateTime<FixedOffset>,
    pub due_date: NaiveDate,
    pub payment_option: &'a Label,
    pub transfer_type: &'a Label,
}

/// The answer's JSON: `record` with `order`, its baskets sold by
/// `shop_name`, its payment status as of `today`.
pub fn write(record: &Record<'_>, order: &Order<'_>, shop_name: &str, today: NaiveDate) -> Vec<u8> {
    let currency = order.currency.and_then(string_of);
    let currency = currency.as_deref().unwrap_or("EUR");
    let answer = Answer {
        created: record.created,
        currency: is_currency_code(currency).then_some(currency),
        gateway_transaction_id: record.id,
        partner_transaction_id: order.partner_transaction_id.and_then(raw),
        payment_information: PaymentInformation {
            dunning_status: Dunning { level: 0 },
            maximum_processing_offset_in_hours: Decimal::from(MAXIMUM_PROCESSING_OFFSET_IN_HOURS),
            payment_method: PaymentMethod {
                payment_option: record.payment_option,
                transfer_type: record.transfer_type,
            },
            payment_status: PaymentStatus {
                due_date: record.due_date,
                outstanding_amount: order.gross_total().into(),
                status: payment_status_label(record.due_date, today),
            },
        },
        shop_baskets: order
            .shop_baskets
            .iter()
            .map(|basket| BasketAnswer { basket, shop_name })
            .collect(),
    };
    // Room for the usual answer (a basket of a few items) at once.
    let mut json = Vec::with_capacity(1024);
    serde_json::to_writer(&mut json, &answer)
        .expect("the answer serialises: its raw texts are JSON");
    json
}

/// A stored JSON text as a raw value; `None` for a text that is not JSON,
/// which the sandbox never stores.
fn raw(text: &str) -> Option<&RawValue> {
    serde_json::from_str(text).ok()
}

#[derive(Serialize)]
struct Answer<'a> {
    created: DateTime<FixedOffset>,
    #[serde(skip_serializing_if = "Option::is_none")]
    currency: Option<&'a str>,
    gateway_transaction_id: TransactionId,
    #[serde(skip_serializing_if = "Option::is_none")]
    partner_transaction_id: Option<&'a RawValue>,
    payment_information: PaymentInformation<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    shop_baskets: Vec<BasketAnswer<'a>>,
}

#[derive(Serialize)]
struct PaymentInformation<'a> {
    dunning_status: Dunning,
    maximum_processing_offset_in_hours: Decimal,
    payment_method: PaymentMethod<'a>,
    payment_status: PaymentStatus,
}

/// `{level: 0}`: the sandbox sends no dunning letters.
#[derive(Serialize)]
struct Dunning {
    level: u8,
}

#[derive(Serialize)]
struct PaymentMethod<'a> {
    payment_option: &'a str,
    transfer_type: &'a str,
}

#[derive(Serialize)]
struct PaymentStatus {
    due_date: NaiveDate,
    outstanding_amount: Decimal,
    status: &'static str,
}

/// A basket as the answer shows it: the order's basket with the seller's
/// name, its items without their description.
struct BasketAnswer<'a> {
    basket: &'a Basket<'a>,
    shop_name: &'a str,
}

impl Serialize for BasketAnswer<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let basket = self.basket;
        let mut map = serializer.serialize_map(None)?;
        if let Some(amount) = basket.gross_amount.and_then(raw) {
            map.serialize_entry("gross_amount", amount)?;
        }
        if !basket.items.is_empty() {
            let items: Vec<_> = basket
                .items
                .iter()
                .map(|item| Fields(&ITEM_KEYS, item))
                .collect();
            map.serialize_entry("items", &items)?;
        }
        if let Some(shop) = basket.partner_shop_id.and_then(raw) {
            map.serialize_entry("partner_shop_id", shop)?;
        }
        map.serialize_entry("partner_shop_name", self.shop_name)?;
        if let Some(reference) = basket.shop_transaction_id.and_then(raw) {
            map.serialize_entry("shop_transaction_id", reference)?;
        }
        if !basket.special_items.is_empty() {
            let items: Vec<_> = basket
                .special_items
                .iter()
                .map(|item| Fields(&SPECIAL_ITEM_KEYS, item))
                .collect();
            map.serialize_entry("special_items", &items)?;
        }
        map.end()
    }
}

/// An item's present fields under their keys, but its `description`
/// (which the answer's item type does not have; its identification
/// numbers, which the order does not carry, stay absent).
struct Fields<'a>(&'a [&'a str], &'a [Text<'a>]);

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.0.iter().zip(self.1) {
            if *key == "description" {
                continue;
            }
            if let Some(value) = value.and_then(raw) {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}
