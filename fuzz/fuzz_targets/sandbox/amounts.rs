//! The amounts of the sandbox's answers add up, computed with `bigdecimal`
//! from the answers' number texts (the `sandbox_requests` target's
//! invariants): the basket tolerance of a stored transaction's baskets and
//! the booked quantities of a storefront order's lines.

use bigdecimal::{BigDecimal, RoundingMode};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::str::FromStr;

/// A stored transaction's order, with each amount as its JSON text.
#[derive(Deserialize)]
struct Stored {
    order_data: Option<Order>,
}

#[derive(Deserialize)]
struct Order {
    #[serde(default)]
    shop_baskets: Vec<Basket>,
}

#[derive(Deserialize)]
struct Basket {
    gross_amount: Option<Box<RawValue>>,
    #[serde(default)]
    items: Vec<Line>,
    #[serde(default)]
    special_items: Vec<Special>,
}

#[derive(Deserialize)]
struct Line {
    gross_unit_price: Option<Box<RawValue>>,
    gross_unit_discount: Option<Box<RawValue>>,
    quantity: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
struct Special {
    gross_unit_price: Option<Box<RawValue>>,
    quantity: Option<Box<RawValue>>,
}

/// A JSON number's exact value.
fn exact(raw: &RawValue) -> Result<BigDecimal, String> {
    BigDecimal::from_str(raw.get()).map_err(|_| format!("{} is no number", raw.get()))
}

/// Every basket of a stored transaction with a gross amount and lines that
/// each have a unit price and a quantity is within the basket tolerance.
pub fn baskets_add_up(stored: &[u8]) -> Result<(), String> {
    let stored: Stored = serde_json::from_slice(stored).map_err(|e| e.to_string())?;
    let cents = |value: BigDecimal| value.with_scale_round(2, RoundingMode::HalfUp);
    for (index, basket) in stored
        .order_data
        .iter()
        .flat_map(|o| &o.shop_baskets)
        .enumerate()
    {
        let lines: Vec<_> = basket
            .items
            .iter()
            .map(|i| (&i.gross_unit_price, &i.gross_unit_discount, &i.quantity))
            .chain(
                basket
                    .special_items
                    .iter()
                    .map(|s| (&s.gross_unit_price, &None, &s.quantity)),
            )
            .collect();
        let Some(gross) = &basket.gross_amount else {
            continue;
        };
        if lines.is_empty() || lines.iter().any(|(u, _, q)| u.is_none() || q.is_none()) {
            continue;
        }
        let (mut sum, mut quantities) = (BigDecimal::from(0), BigDecimal::from(0));
        for (unit, discount, quantity) in lines {
            let unit = exact(unit.as_deref().unwrap())?;
            let discount = match discount {
                Some(discount) => exact(discount)?,
                None => BigDecimal::from(0),
            };
            let quantity = exact(quantity.as_deref().unwrap())?;
            sum += cents((unit + discount) * &quantity);
            quantities += quantity;
        }
        let allowed = quantities * BigDecimal::from_str("0.02").unwrap();
        let difference = (exact(gross)? - &sum).abs();
        if difference > allowed {
            return Err(format!(
                "basket {index}: gross amount {} against lines of {sum}, {difference} apart (allowed {allowed})",
                gross.get()
            ));
        }
    }
    Ok(())
}

/// A storefront order's load answer: `data` keyed by line id or a list
/// (read as text first: serde's untagged enums cannot hold a `RawValue`).
#[derive(Deserialize)]
struct Loaded<'a> {
    #[serde(borrow)]
    data: &'a RawValue,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoadedLine {
    id: String,
    ordered: Box<RawValue>,
    unit_price: Box<RawValue>,
    total_price: Box<RawValue>,
    position: Position,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Position {
    canceled: Box<RawValue>,
    returned: Box<RawValue>,
    delivered: Box<RawValue>,
    max_delivery: Box<RawValue>,
    max_cancel: Box<RawValue>,
    max_return: Box<RawValue>,
}

/// Every line of a storefront order is booked within what was ordered, and
/// its open quantities and total follow from its quantities.
pub fn lines_add_up(loaded: &[u8]) -> Result<(), String> {
    let loaded: Loaded = serde_json::from_slice(loaded).map_err(|e| e.to_string())?;
    let data = loaded.data.get();
    let lines: Vec<LoadedLine> = if data.starts_with('{') {
        let keyed: std::collections::BTreeMap<String, LoadedLine> =
            serde_json::from_str(data).map_err(|e| e.to_string())?;
        keyed.into_values().collect()
    } else {
        serde_json::from_str(data).map_err(|e| e.to_string())?
    };
    let zero = BigDecimal::from(0);
    for line in lines {
        let p = &line.position;
        let [ordered, unit, total, canceled, returned, delivered, max_delivery, max_cancel, max_return] =
            [
                &line.ordered,
                &line.unit_price,
                &line.total_price,
                &p.canceled,
                &p.returned,
                &p.delivered,
                &p.max_delivery,
                &p.max_cancel,
                &p.max_return,
            ]
            .map(|raw| exact(raw));
        let (ordered, unit, total) = (ordered?, unit?, total?);
        let (canceled, returned, delivered) = (canceled?, returned?, delivered?);
        let (max_delivery, max_cancel, max_return) = (max_delivery?, max_cancel?, max_return?);
        let id = &line.id;
        let open = &ordered - &delivered - &canceled;
        let checks = [
            (
                ordered >= zero && canceled >= zero && returned >= zero && delivered >= zero,
                "no quantity is negative",
            ),
            (open >= zero, "delivered + canceled ≤ ordered"),
            (returned <= delivered, "returned ≤ delivered"),
            (
                max_delivery == open && max_cancel == open,
                "maxDelivery = maxCancel = ordered − delivered − canceled",
            ),
            (
                max_return == &delivered - &returned,
                "maxReturn = delivered − returned",
            ),
            (
                total == &unit * &ordered,
                "totalPrice = unitPrice × ordered",
            ),
        ];
        if let Some((_, rule)) = checks.iter().find(|(holds, _)| !holds) {
            return Err(format!("line {id}: {rule} does not hold"));
        }
    }
    Ok(())
}
