//! The transaction status answer, written straight from the stored order's
//! JSON: no generated types are built, no string or amount is copied.
//!
//! The stored order is JSON the sandbox serialised itself from the
//! generated session request types, so each string and amount in it is
//! already written exactly as serialising it again would write it (amounts
//! are `Decimal`s, whose text keeps its scale). The answer therefore takes
//! them as raw JSON ([`RawValue`], borrowed from the inflated bytes) and
//! writes them back unchanged; only the gross total is parsed, to add it up.
//!
//! The answer is written by hand ([`write`]) with the generated
//! `TransactionStatusResponse`'s field names, in its order, with its rules
//! for leaving a field out, so the bytes are the ones serialising the
//! generated types gives (a test in `transaction_status` compares both).
//! serde's own serialiser cost more than half again: it escapes every key
//! and passes each raw value through a marker struct.

use crate::state::{Label, TransactionId};
use chrono::{DateTime, FixedOffset, NaiveDate};
use psi_runtime::Decimal;
use psi_transaction_status::types::CurrencyCode;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A string or amount of the stored order, as its JSON text.
type Raw<'a> = Option<&'a RawValue>;

/// A stored session request, read for what the answer shows.
#[derive(Deserialize)]
struct StoredRequest<'a> {
    #[serde(borrow, default)]
    order_data: Option<Order<'a>>,
}

/// The parts of a stored order the answer shows.
#[derive(Deserialize, Default)]
pub struct Order<'a> {
    #[serde(borrow, default)]
    partner_transaction_id: Raw<'a>,
    #[serde(borrow, default)]
    currency: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    shop_baskets: Option<Vec<Basket<'a>>>,
}

impl<'a> Order<'a> {
    /// The order of a stored request's JSON (`{"order_data": ...}`), or
    /// why it is none.
    pub fn read(json: &'a [u8]) -> Result<Self, String> {
        // Checked as UTF-8 once, as a whole: reading from bytes would check
        // each string and raw value on its own, which costs more.
        let text = std::str::from_utf8(json).map_err(|e| e.to_string())?;
        let request: StoredRequest<'a> = serde_json::from_str(text).map_err(|e| e.to_string())?;
        Ok(request.order_data.unwrap_or_default())
    }

    fn baskets(&self) -> &[Basket<'a>] {
        self.shop_baskets.as_deref().unwrap_or_default()
    }

    /// The shop of the first basket, whose configuration names the seller.
    pub fn first_shop_id(&self) -> Option<String> {
        let raw = self.baskets().first()?.partner_shop_id?;
        serde_json::from_str(raw.get()).ok()
    }

    /// The baskets' gross amounts added up; an amount that is no number
    /// counts as absent (the sandbox stored numbers only). The stored text
    /// is what `Decimal` wrote, so it is read back as a plain decimal,
    /// without the checks a client's number goes through.
    fn gross_total(&self) -> Decimal {
        self.baskets()
            .iter()
            .filter_map(|basket| basket.gross_amount)
            .filter_map(|raw| rust_decimal::Decimal::from_str_exact(raw.get()).ok())
            .map(Decimal::from)
            .sum()
    }
}

#[derive(Deserialize)]
struct Basket<'a> {
    #[serde(borrow, default)]
    gross_amount: Raw<'a>,
    #[serde(borrow, default)]
    items: Option<Vec<Item<'a>>>,
    #[serde(borrow, default)]
    partner_shop_id: Raw<'a>,
    #[serde(borrow, default)]
    shop_transaction_id: Raw<'a>,
    #[serde(borrow, default)]
    special_items: Option<Vec<SpecialItem<'a>>>,
}

/// A basket item as the answer shows it: every field the order's item
/// has except its description. The order carries no identification
/// numbers, so the answer's stay absent (and are left out).
#[derive(Deserialize)]
struct Item<'a> {
    #[serde(borrow, default)]
    article_number: Raw<'a>,
    #[serde(borrow, default)]
    category: Raw<'a>,
    #[serde(borrow, default)]
    gross_total_price: Raw<'a>,
    #[serde(borrow, default)]
    gross_unit_discount: Raw<'a>,
    #[serde(borrow, default)]
    gross_unit_price: Raw<'a>,
    #[serde(borrow, default)]
    name: Raw<'a>,
    #[serde(borrow, default)]
    net_total_price: Raw<'a>,
    #[serde(borrow, default)]
    net_unit_discount: Raw<'a>,
    #[serde(borrow, default)]
    net_unit_price: Raw<'a>,
    #[serde(borrow, default)]
    quantity: Raw<'a>,
    #[serde(borrow, default)]
    tax_rate: Raw<'a>,
    #[serde(borrow, default)]
    unit: Raw<'a>,
}

/// A special item (shipping, ...): no discounts, no identification numbers.
#[derive(Deserialize)]
struct SpecialItem<'a> {
    #[serde(borrow, default)]
    article_number: Raw<'a>,
    #[serde(borrow, default)]
    category: Raw<'a>,
    #[serde(borrow, default)]
    gross_total_price: Raw<'a>,
    #[serde(borrow, default)]
    gross_unit_price: Raw<'a>,
    #[serde(borrow, default)]
    name: Raw<'a>,
    #[serde(borrow, default)]
    net_total_price: Raw<'a>,
    #[serde(borrow, default)]
    net_unit_price: Raw<'a>,
    #[serde(borrow, default)]
    quantity: Raw<'a>,
    #[serde(borrow, default)]
    tax_rate: Raw<'a>,
    #[serde(borrow, default)]
    unit: Raw<'a>,
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
    let currency: Option<CurrencyCode> = order.currency.as_deref().unwrap_or("EUR").parse().ok();
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
        out.raw(reference.get());
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
    out.value(&order.gross_total());
    out.raw(",\"status\":");
    out.value(super::payment_status_label(record.due_date, today));
    out.raw("}}");
    if !order.baskets().is_empty() {
        out.raw(",\"shop_baskets\":[");
        for (index, basket) in order.baskets().iter().enumerate() {
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

    /// `{"key":value,...}` of the fields present.
    fn object(&mut self, fields: &[(&str, Raw<'_>)]) {
        let mut separator = "{\"";
        for (key, value) in fields {
            if let Some(value) = value {
                self.raw(separator);
                self.raw(key);
                self.raw("\":");
                self.raw(value.get());
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
            self.raw(amount.get());
            self.raw(",");
        }
        let items = basket.items.as_deref().unwrap_or_default();
        if !items.is_empty() {
            self.raw("\"items\":[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    self.raw(",");
                }
                self.object(&item.fields());
            }
            self.raw("],");
        }
        if let Some(shop) = basket.partner_shop_id {
            self.raw("\"partner_shop_id\":");
            self.raw(shop.get());
            self.raw(",");
        }
        self.raw("\"partner_shop_name\":");
        self.value(shop_name);
        if let Some(reference) = basket.shop_transaction_id {
            self.raw(",\"shop_transaction_id\":");
            self.raw(reference.get());
        }
        let special_items = basket.special_items.as_deref().unwrap_or_default();
        if !special_items.is_empty() {
            self.raw(",\"special_items\":[");
            for (index, item) in special_items.iter().enumerate() {
                if index > 0 {
                    self.raw(",");
                }
                self.object(&item.fields());
            }
            self.raw("]");
        }
        self.raw("}");
    }
}

impl<'a> Item<'a> {
    /// The answer's item fields, in the generated type's order (its
    /// identification numbers, between `gross_unit_price` and `name` and
    /// before `unit`, are always absent).
    fn fields(&self) -> [(&'static str, Raw<'a>); 12] {
        [
            ("article_number", self.article_number),
            ("category", self.category),
            ("gross_total_price", self.gross_total_price),
            ("gross_unit_discount", self.gross_unit_discount),
            ("gross_unit_price", self.gross_unit_price),
            ("name", self.name),
            ("net_total_price", self.net_total_price),
            ("net_unit_discount", self.net_unit_discount),
            ("net_unit_price", self.net_unit_price),
            ("quantity", self.quantity),
            ("tax_rate", self.tax_rate),
            ("unit", self.unit),
        ]
    }
}

impl<'a> SpecialItem<'a> {
    /// As [`Item::fields`], without discounts.
    fn fields(&self) -> [(&'static str, Raw<'a>); 10] {
        [
            ("article_number", self.article_number),
            ("category", self.category),
            ("gross_total_price", self.gross_total_price),
            ("gross_unit_price", self.gross_unit_price),
            ("name", self.name),
            ("net_total_price", self.net_total_price),
            ("net_unit_price", self.net_unit_price),
            ("quantity", self.quantity),
            ("tax_rate", self.tax_rate),
            ("unit", self.unit),
        ]
    }
}
