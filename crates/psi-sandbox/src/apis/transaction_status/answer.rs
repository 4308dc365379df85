//! The transaction status answer, written straight from the stored order's
//! compact form ([`crate::state::compact`]): no generated types are built,
//! no string or amount is copied.
//!
//! The compact form keeps each string and amount of the order as its JSON
//! text, as the sandbox serialised it from the generated session request
//! types, so it is already written exactly as serialising it again would
//! write it (amounts are `Decimal`s, whose text keeps its scale). The
//! answer writes those texts back unchanged; only the gross total is
//! parsed, to add it up.
//!
//! The answer is written by hand ([`write`]) with the generated
//! `TransactionStatusResponse`'s field names, in its order, with its rules
//! for leaving a field out, so the bytes are the ones serialising the
//! generated types gives (a test in `transaction_status` compares both).
//! serde's own serialiser cost more than half again: it escapes every key
//! and passes each raw value through a marker struct.

use crate::state::compact::{string_of, Basket, Order, Text, ITEM_KEYS, SPECIAL_ITEM_KEYS};
use crate::state::{Label, TransactionId};
use chrono::{DateTime, FixedOffset, NaiveDate};
use psi_runtime::Decimal;
use psi_transaction_status::types::CurrencyCode;
use serde::Serialize;

/// The shop of the order's first basket, whose configuration names the seller.
pub fn first_shop_id(order: &Order<'_>) -> Option<String> {
    let text = order.shop_baskets.first()?.partner_shop_id?;
    string_of(text).map(|shop| shop.into_owned())
}

/// The baskets' gross amounts added up; an amount that is no number
/// counts as absent (the sandbox stored numbers only). The stored text is
/// what `Decimal` wrote, so it is read back as a plain decimal, without
/// the checks a client's number goes through.
fn gross_total(order: &Order<'_>) -> Decimal {
    order
        .shop_baskets
        .iter()
        .filter_map(|basket| basket.gross_amount)
        .filter_map(|text| rust_decimal::Decimal::from_str_exact(text).ok())
        .map(Decimal::from)
        .sum()
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
    let currency: Option<CurrencyCode> = currency.as_deref().unwrap_or("EUR").parse().ok();
    // A usual answer is about 1 KB: one allocation, no growing.
    let mut out = Json(Vec::with_capacity(2048));
    out.raw("{\"created\":");
    out.value(&record.created);
    if let Some(currency) = &currency {
        out.raw(",\"currency\":");
        out.value(currency);
    }
    out.raw(",\"gateway_transaction_id\":");
    out.value(&record.id);
    if let Some(reference) = order.partner_transaction_id {
        out.raw(",\"partner_transaction_id\":");
        out.raw(reference);
    }
    out.raw(",\"payment_information\":{\"dunning_status\":{\"level\":0}");
    out.raw(",\"maximum_processing_offset_in_hours\":");
    out.value(&Decimal::from(super::MAXIMUM_PROCESSING_OFFSET_IN_HOURS));
    out.raw(",\"payment_method\":{\"payment_option\":");
    out.value(record.payment_option);
    out.raw(",\"transfer_type\":");
    out.value(record.transfer_type);
    out.raw("},\"payment_status\":{\"due_date\":");
    out.value(&record.due_date);
    out.raw(",\"outstanding_amount\":");
    out.value(&gross_total(order));
    out.raw(",\"status\":");
    out.value(super::payment_status_label(record.due_date, today));
    out.raw("}}");
    if !order.shop_baskets.is_empty() {
        out.raw(",\"shop_baskets\":[");
        for (index, basket) in order.shop_baskets.iter().enumerate() {
            if index > 0 {
                out.raw(",");
            }
            out.basket(basket, shop_name);
        }
        out.raw("]");
    }
    out.raw("}");
    out.0
}

/// The answer as it is written. The generated types serialise their
/// fields in declaration order (alphabetical), leaving out absent ones and
/// empty lists; the free-form payment sections are maps, whose keys
/// serde_json sorts. The keys below are written in that order, as plain
/// text (none needs escaping); values go through serde_json, or are the
/// stored order's own JSON text.
struct Json(Vec<u8>);

impl Json {
    fn raw(&mut self, text: &str) {
        self.0.extend_from_slice(text.as_bytes());
    }

    fn value<T: Serialize + ?Sized>(&mut self, value: &T) {
        serde_json::to_writer(&mut self.0, value).expect("a value serialises");
    }

    /// `{"key":value,...}` of the fields present, but those named in
    /// `left_out` (which the answer's type does not have).
    fn object(&mut self, keys: &[&str], fields: &[Text<'_>], left_out: &str) {
        let mut separator = "{\"";
        for (key, value) in keys.iter().zip(fields) {
            if let Some(value) = value {
                if *key == left_out {
                    continue;
                }
                self.raw(separator);
                self.raw(key);
                self.raw("\":");
                self.raw(value);
                separator = ",\"";
            }
        }
        if separator == "{\"" {
            self.raw("{");
        }
        self.raw("}");
    }

    fn basket(&mut self, basket: &Basket<'_>, shop_name: &str) {
        self.raw("{");
        if let Some(amount) = basket.gross_amount {
            self.raw("\"gross_amount\":");
            self.raw(amount);
            self.raw(",");
        }
        let items = &basket.items;
        if !items.is_empty() {
            self.raw("\"items\":[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    self.raw(",");
                }
                // The answer's item has every field of the order's item
                // but its description; its identification numbers (which
                // the order does not carry) stay absent and are left out.
                self.object(&ITEM_KEYS, item, "description");
            }
            self.raw("],");
        }
        if let Some(shop) = basket.partner_shop_id {
            self.raw("\"partner_shop_id\":");
            self.raw(shop);
            self.raw(",");
        }
        self.raw("\"partner_shop_name\":");
        self.value(shop_name);
        if let Some(reference) = basket.shop_transaction_id {
            self.raw(",\"shop_transaction_id\":");
            self.raw(reference);
        }
        let special_items = &basket.special_items;
        if !special_items.is_empty() {
            self.raw(",\"special_items\":[");
            for (index, item) in special_items.iter().enumerate() {
                if index > 0 {
                    self.raw(",");
                }
                self.object(&SPECIAL_ITEM_KEYS, item, "description");
            }
            self.raw("]");
        }
        self.raw("}");
    }
}
