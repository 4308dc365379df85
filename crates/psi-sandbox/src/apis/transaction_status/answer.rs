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
//! The structs below mirror the generated `TransactionStatusResponse`:
//! the same field names, in the same order, with the same rules for
//! leaving a field out, so the bytes are the ones serialising the generated
//! types gives (a test in `transaction_status` compares both).

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
#[derive(Deserialize, Serialize)]
struct Item<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    article_number: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    category: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    gross_total_price: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    gross_unit_discount: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    gross_unit_price: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    name: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    net_total_price: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    net_unit_discount: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    net_unit_price: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    quantity: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    tax_rate: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    unit: Raw<'a>,
}

/// A special item (shipping, ...): no discounts, no identification numbers.
#[derive(Deserialize, Serialize)]
struct SpecialItem<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    article_number: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    category: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    gross_total_price: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    gross_unit_price: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    name: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    net_total_price: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    net_unit_price: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    quantity: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    tax_rate: Raw<'a>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
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
    let currency = order.currency.as_deref().unwrap_or("EUR").parse().ok();
    let baskets = order
        .baskets()
        .iter()
        .map(|basket| AnswerBasket {
            gross_amount: basket.gross_amount,
            items: basket.items.as_deref().unwrap_or_default(),
            partner_shop_id: basket.partner_shop_id,
            partner_shop_name: shop_name,
            shop_transaction_id: basket.shop_transaction_id,
            special_items: basket.special_items.as_deref().unwrap_or_default(),
        })
        .collect();
    let answer = Answer {
        created: &record.created,
        currency,
        gateway_transaction_id: record.id,
        partner_transaction_id: order.partner_transaction_id,
        payment_information: PaymentInformation {
            dunning_status: DunningStatus { level: 0 },
            maximum_processing_offset_in_hours: Decimal::from(
                super::MAXIMUM_PROCESSING_OFFSET_IN_HOURS,
            ),
            payment_method: PaymentMethod {
                payment_option: record.payment_option,
                transfer_type: record.transfer_type,
            },
            payment_status: PaymentStatus {
                due_date: record.due_date,
                outstanding_amount: order.gross_total(),
                status: super::payment_status_label(record.due_date, today),
            },
        },
        shop_baskets: baskets,
    };
    // A usual answer is about 1 KB: one allocation, no growing.
    let mut body = Vec::with_capacity(2048);
    serde_json::to_writer(&mut body, &answer).expect("the answer serialises");
    body
}

#[derive(Serialize)]
struct Answer<'a> {
    created: &'a DateTime<FixedOffset>,
    #[serde(skip_serializing_if = "Option::is_none")]
    currency: Option<CurrencyCode>,
    gateway_transaction_id: TransactionId,
    #[serde(skip_serializing_if = "Option::is_none")]
    partner_transaction_id: Raw<'a>,
    payment_information: PaymentInformation<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    shop_baskets: Vec<AnswerBasket<'a>>,
}

#[derive(Serialize)]
struct AnswerBasket<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    gross_amount: Raw<'a>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    items: &'a [Item<'a>],
    #[serde(skip_serializing_if = "Option::is_none")]
    partner_shop_id: Raw<'a>,
    partner_shop_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    shop_transaction_id: Raw<'a>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    special_items: &'a [SpecialItem<'a>],
}

/// The generated type keeps these sections as free-form JSON objects,
/// which serialise with their keys sorted: so are these fields.
#[derive(Serialize)]
struct PaymentInformation<'a> {
    dunning_status: DunningStatus,
    maximum_processing_offset_in_hours: Decimal,
    payment_method: PaymentMethod<'a>,
    payment_status: PaymentStatus,
}

#[derive(Serialize)]
struct DunningStatus {
    level: u8,
}

#[derive(Serialize)]
struct PaymentMethod<'a> {
    payment_option: &'a Label,
    transfer_type: &'a Label,
}

#[derive(Serialize)]
struct PaymentStatus {
    due_date: NaiveDate,
    outstanding_amount: Decimal,
    status: &'static str,
}
