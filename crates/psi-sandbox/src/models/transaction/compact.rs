//! The members of a stored order that lookups read, kept apart from the
//! rest of the request and without their keys.
//!
//! A transaction keeps its session request in two parts
//! ([`super::stored_request::StoredRequest`]): the order's `currency`,
//! `partner_transaction_id` and `shop_baskets` as an [`Order`] encoded
//! with postcard, and everything else as deflated JSON. A lookup decodes
//! the first part borrowing its strings: no inflating, no JSON parsing.
//!
//! Every value is kept as its exact JSON text (`"SO-1"` with its quotes
//! and escapes, `10.50` with its trailing zero), so writing the members
//! back ([`join`]) gives the JSON the sandbox stored, byte for byte, and
//! nothing is re-rounded. Items, special items and VAT lines are arrays
//! of their schema's fields in key order ([`ITEM_KEYS`] ...), absent
//! fields `None`: the keys, most of the JSON's bytes, are not stored.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// A member's value as its JSON text; `None` when the member is absent.
pub type Text<'a> = Option<&'a str>;

/// The fields of a basket item (the payment page's `BasketItem`), in the
/// order the generated type writes them (by key).
pub const ITEM_KEYS: [&str; 13] = [
    "article_number",
    "category",
    "description",
    "gross_total_price",
    "gross_unit_discount",
    "gross_unit_price",
    "name",
    "net_total_price",
    "net_unit_discount",
    "net_unit_price",
    "quantity",
    "tax_rate",
    "unit",
];

/// The fields of a special item (shipping, fees): an item without discounts.
pub const SPECIAL_ITEM_KEYS: [&str; 11] = [
    "article_number",
    "category",
    "description",
    "gross_total_price",
    "gross_unit_price",
    "name",
    "net_total_price",
    "net_unit_price",
    "quantity",
    "tax_rate",
    "unit",
];

/// The fields of a basket's VAT line.
pub const VAT_KEYS: [&str; 3] = ["net_amount", "tax_amount", "tax_rate"];

/// An item's fields, in [`ITEM_KEYS`] order.
pub type Item<'a> = [Text<'a>; 13];
/// A special item's fields, in [`SPECIAL_ITEM_KEYS`] order.
pub type SpecialItem<'a> = [Text<'a>; 11];
/// A VAT line's fields, in [`VAT_KEYS`] order.
pub type Vat<'a> = [Text<'a>; 3];

/// The order members lookups read. Empty lists stand for absent ones: the
/// generated types never write an empty list.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Order<'a> {
    #[serde(borrow)]
    pub currency: Text<'a>,
    #[serde(borrow)]
    pub partner_transaction_id: Text<'a>,
    #[serde(borrow)]
    pub shop_baskets: Vec<Basket<'a>>,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Basket<'a> {
    #[serde(borrow)]
    pub gross_amount: Text<'a>,
    #[serde(borrow)]
    pub items: Vec<Item<'a>>,
    #[serde(borrow)]
    pub partner_shop_id: Text<'a>,
    #[serde(borrow)]
    pub shop_transaction_id: Text<'a>,
    #[serde(borrow)]
    pub special_items: Vec<SpecialItem<'a>>,
    #[serde(borrow)]
    pub vats: Vec<Vat<'a>>,
}

/// Reads what `postcard::to_allocvec(&order)` wrote; `None` for bytes
/// postcard did not write. The texts are borrowed from `bytes`.
pub fn decode(bytes: &[u8]) -> Option<Order<'_>> {
    postcard::from_bytes(bytes).ok()
}

/// The string a JSON string's text spells (`"a\"b"` is `a"b`), borrowed
/// when it has no escapes; `None` when the text is no string.
pub fn string_of(text: &str) -> Option<Cow<'_, str>> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str(text).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// A JSON object's members, each value as its text, sorted by key (the
/// order the generated types write them in). Keys are borrowed, so a key
/// written with escapes is refused; the sandbox writes none.
type Members<'a> = BTreeMap<&'a str, &'a RawValue>;

fn members(json: &str) -> Result<Members<'_>, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

/// A stored request's JSON split into the [`Order`] members and the JSON
/// of everything else (the request without them). Refuses a basket, item
/// or VAT line member the compact form has no place for, rather than lose it.
pub fn split(json: &str) -> Result<(Order<'_>, String), String> {
    let request = members(json)?;
    let Some(order_data) = request.get("order_data").copied() else {
        return Ok((Order::default(), json.to_owned()));
    };
    let mut rest = members(order_data.get())?;
    let mut order = Order {
        currency: rest.remove("currency").map(RawValue::get),
        partner_transaction_id: rest.remove("partner_transaction_id").map(RawValue::get),
        shop_baskets: Vec::new(),
    };
    if let Some(baskets) = rest.remove("shop_baskets") {
        let baskets: Vec<Members<'_>> =
            serde_json::from_str(baskets.get()).map_err(|e| format!("shop_baskets: {e}"))?;
        order.shop_baskets = baskets.into_iter().map(basket).collect::<Result<_, _>>()?;
    }
    let rest_of_order = object(rest.iter().map(|(key, value)| (*key, value.get())));
    let rest_of_request = object(request.iter().map(|(key, value)| {
        let text = match *key {
            "order_data" => rest_of_order.as_str(),
            _ => value.get(),
        };
        (*key, text)
    }));
    Ok((order, rest_of_request))
}

fn basket(mut members: Members<'_>) -> Result<Basket<'_>, String> {
    let basket = Basket {
        gross_amount: members.remove("gross_amount").map(RawValue::get),
        items: list(members.remove("items"), &ITEM_KEYS, "items")?,
        partner_shop_id: members.remove("partner_shop_id").map(RawValue::get),
        shop_transaction_id: members.remove("shop_transaction_id").map(RawValue::get),
        special_items: list(
            members.remove("special_items"),
            &SPECIAL_ITEM_KEYS,
            "special_items",
        )?,
        vats: list(members.remove("vats"), &VAT_KEYS, "vats")?,
    };
    match members.keys().next() {
        Some(key) => Err(format!("shop_baskets: no place for the member {key:?}")),
        None => Ok(basket),
    }
}

/// A list of objects with `keys` as arrays of their fields.
fn list<'a, const N: usize>(
    list: Option<&'a RawValue>,
    keys: &[&str; N],
    name: &str,
) -> Result<Vec<[Text<'a>; N]>, String> {
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    let objects: Vec<Members<'a>> =
        serde_json::from_str(list.get()).map_err(|e| format!("{name}: {e}"))?;
    objects
        .into_iter()
        .map(|members| {
            let mut fields = [None; N];
            for (key, value) in members {
                let index = keys
                    .iter()
                    .position(|known| *known == key)
                    .ok_or_else(|| format!("{name}: no place for the member {key:?}"))?;
                fields[index] = Some(value.get());
            }
            Ok(fields)
        })
        .collect()
}

/// The request's JSON again: `rest` (from [`split`]) with `order`'s
/// members put back, byte for byte the JSON that was split.
pub fn join(order: &Order<'_>, rest: &str) -> Result<String, String> {
    let mut request: BTreeMap<&str, &str> = members(rest)?
        .into_iter()
        .map(|(key, value)| (key, value.get()))
        .collect();
    let mut order_members: BTreeMap<&str, &str> = match request.get("order_data").copied() {
        Some(order_data) => members(order_data)?
            .into_iter()
            .map(|(key, value)| (key, value.get()))
            .collect(),
        None => BTreeMap::new(),
    };
    let baskets = order.baskets_json();
    for (key, value) in order.members(&baskets) {
        order_members.insert(key, value);
    }
    let order_data = object(order_members.into_iter());
    if request.contains_key("order_data") || order != &Order::default() {
        request.insert("order_data", &order_data);
    }
    Ok(object(request.into_iter()))
}

impl Order<'_> {
    /// The baskets' gross amounts added up; an amount that is no number
    /// counts as absent (the sandbox stored numbers only). The stored text
    /// is what `Decimal` wrote, so it is read back as a plain decimal,
    /// without the checks a client's number goes through.
    pub fn gross_total(&self) -> rust_decimal::Decimal {
        self.shop_baskets
            .iter()
            .filter_map(|basket| basket.gross_amount)
            .filter_map(|text| rust_decimal::Decimal::from_str_exact(text).ok())
            .fold(rust_decimal::Decimal::ZERO, |total, amount| {
                total.saturating_add(amount)
            })
    }

    /// The order's currency code, `EUR` when it names none (a test holds
    /// it to the generated types' reading).
    pub fn currency(&self) -> Cow<'_, str> {
        self.currency
            .and_then(string_of)
            .unwrap_or(Cow::Borrowed("EUR"))
    }

    /// The members present, by key, `shop_baskets` written as `baskets`.
    fn members<'s>(&'s self, baskets: &'s str) -> impl Iterator<Item = (&'static str, &'s str)> {
        let baskets = (!self.shop_baskets.is_empty()).then_some(baskets);
        [
            ("currency", self.currency),
            ("partner_transaction_id", self.partner_transaction_id),
            ("shop_baskets", baskets),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
    }

    /// These members alone as a JSON object (what an `OrderSummary` reads).
    pub fn to_json(&self) -> String {
        let baskets = self.baskets_json();
        object(self.members(&baskets))
    }

    /// `shop_baskets` as its JSON text.
    fn baskets_json(&self) -> String {
        let mut out = String::with_capacity(1024);
        out.push('[');
        for (index, basket) in self.shop_baskets.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            let mut members = Vec::with_capacity(6);
            let items = list_json(&basket.items, &ITEM_KEYS);
            let special_items = list_json(&basket.special_items, &SPECIAL_ITEM_KEYS);
            let vats = list_json(&basket.vats, &VAT_KEYS);
            members.extend(basket.gross_amount.map(|v| ("gross_amount", v)));
            members.extend(items.as_deref().map(|v| ("items", v)));
            members.extend(basket.partner_shop_id.map(|v| ("partner_shop_id", v)));
            members.extend(
                basket
                    .shop_transaction_id
                    .map(|v| ("shop_transaction_id", v)),
            );
            members.extend(special_items.as_deref().map(|v| ("special_items", v)));
            members.extend(vats.as_deref().map(|v| ("vats", v)));
            out.push_str(&object(members.into_iter()));
        }
        out.push(']');
        out
    }
}

/// A list of field arrays as JSON, `None` when empty (the generated types
/// leave an empty list out).
fn list_json<const N: usize>(list: &[[Text<'_>; N]], keys: &[&str; N]) -> Option<String> {
    if list.is_empty() {
        return None;
    }
    let objects: Vec<Object<'_>> = list
        .iter()
        .map(|fields| {
            Object::of(
                keys.iter()
                    .zip(fields)
                    .filter_map(|(k, v)| Some((*k, (*v)?))),
            )
        })
        .collect();
    Some(serde_json::to_string(&objects).expect("JSON texts serialise"))
}

/// `{"key":value,...}` of JSON texts, in the order given.
fn object<'k, 'v>(members: impl Iterator<Item = (&'k str, &'v str)>) -> String {
    serde_json::to_string(&Object::of(members)).expect("JSON texts serialise")
}

/// An object's members as raw JSON values, serialised in their order. A
/// text that is not JSON (which the sandbox never stores) is left out.
struct Object<'a>(Vec<(&'a str, &'a RawValue)>);

impl<'a> Object<'a> {
    fn of<'k: 'a, 'v: 'a>(members: impl Iterator<Item = (&'k str, &'v str)>) -> Self {
        Object(
            members
                .filter_map(|(key, text)| Some((key, serde_json::from_str(text).ok()?)))
                .collect(),
        )
    }
}

impl Serialize for Object<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(key, value)| (key, value)))
    }
}

#[cfg(test)]
mod tests;
