//! `psi-sandbox seed-from RECORDING`: the transaction status answers of a
//! recording (`getTransactionStatus`, 2xx) turned into a `--seed` file,
//! so the sandbox serves the shapes the real service sent.
//!
//! Each answer maps onto the body of `POST /__sandbox/transactions`:
//! `gateway_transaction_id` → `transaction_id`, `created`,
//! `payment_information.payment_method` → `payment_option` and
//! `transfer_type`, and `order_data` from `partner_transaction_id`,
//! `currency` and the `shop_baskets` (their items and special items with
//! the members a session's basket has; the VAT lines summed per tax rate
//! from the lines' net and gross totals). The answer holds no buyer, so
//! each entry carries the demo buyer; order status answers
//! (`getOrderStatus`) give no net prices, so they only fill in a
//! transaction's `created` and are otherwise reported as not mapped. The
//! last answer of a transaction wins. Everything not mapped is said in
//! [`SeedFrom::notes`].

use rust_decimal::Decimal;
use serde_json::{json, Map, Value};
// The members of a session's basket items and special items.
use crate::models::transaction::compact::{ITEM_KEYS, SPECIAL_ITEM_KEYS};
use std::collections::BTreeMap;
use std::str::FromStr;

/// The seed and what could not be mapped.
#[derive(Debug)]
pub struct SeedFrom {
    /// `{"transactions": [...]}`.
    pub seed: Value,
    /// One line per thing left out, for stderr.
    pub notes: Vec<String>,
}

/// Maps the recording `text` (the proxy's JSON lines).
pub fn seed_from(text: &str) -> Result<SeedFrom, String> {
    let mut transactions: BTreeMap<String, Value> = BTreeMap::new();
    let mut order_created: BTreeMap<String, Value> = BTreeMap::new();
    let mut notes = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line_no = index + 1;
        let value: Value = serde_json::from_str(line)
            .map_err(|e| format!("line {line_no}: not a recording line: {e}"))?;
        let status = value.pointer("/answer/status").and_then(Value::as_u64);
        let body = value.pointer("/answer/body").filter(|b| b.is_object());
        let operation = value.get("operation_id").and_then(Value::as_str);
        let (Some(status), Some(body)) = (status, body) else {
            continue;
        };
        if !(200..300).contains(&status) {
            continue;
        }
        match operation {
            Some("getTransactionStatus") => match transaction(body, &mut notes, line_no) {
                Some((id, entry)) => {
                    transactions.insert(id, entry);
                }
                None => notes.push(format!(
                    "line {line_no}: a transaction status answer without a gateway_transaction_id or shop_baskets: not mapped"
                )),
            },
            Some("getOrderStatus") => {
                let info = body.get("general_order_information");
                let id = info
                    .and_then(|i| i.get("transaction_id"))
                    .and_then(Value::as_str);
                let created = info.and_then(|i| i.get("order_creation_date"));
                if let (Some(id), Some(created)) = (id, created) {
                    order_created.insert(id.to_owned(), created.clone());
                }
            }
            _ => {}
        }
    }
    for (id, created) in order_created {
        match transactions.get_mut(&id) {
            Some(entry) if entry.get("created").is_none() => {
                entry["created"] = created;
            }
            Some(_) => {}
            None => notes.push(format!(
                "{id}: only an order status answer was recorded; it has no net prices or VAT lines, so it is not mapped (record a transaction status lookup of it too)"
            )),
        }
    }
    if transactions.is_empty() {
        notes.push(
            "no transaction status answer (getTransactionStatus, 2xx) in the recording".to_owned(),
        );
    } else {
        notes.push(format!(
            "every entry carries the demo buyer: a transaction status answer has none ({} entries)",
            transactions.len()
        ));
    }
    Ok(SeedFrom {
        seed: json!({"transactions": transactions.into_values().collect::<Vec<_>>()}),
        notes,
    })
}

fn transaction(body: &Value, notes: &mut Vec<String>, line: usize) -> Option<(String, Value)> {
    let id = body.get("gateway_transaction_id")?.as_str()?.to_owned();
    let baskets = body.get("shop_baskets")?.as_array()?;
    let mut order = Map::new();
    for member in ["partner_transaction_id", "currency"] {
        if let Some(value) = body.get(member).filter(|v| !v.is_null()) {
            order.insert(member.to_owned(), value.clone());
        }
    }
    order.insert("buyer".to_owned(), crate::demo::buyer());
    let mut mapped = Vec::new();
    for basket in baskets {
        let mut out = Map::new();
        for member in ["partner_shop_id", "shop_transaction_id", "gross_amount"] {
            if let Some(value) = basket.get(member).filter(|v| !v.is_null()) {
                out.insert(member.to_owned(), value.clone());
            }
        }
        let mut vats: BTreeMap<String, (Value, Decimal, Decimal)> = BTreeMap::new();
        for (kind, members) in [
            ("items", &ITEM_KEYS[..]),
            ("special_items", &SPECIAL_ITEM_KEYS[..]),
        ] {
            let Some(lines) = basket.get(kind).and_then(Value::as_array) else {
                continue;
            };
            let mut kept = Vec::new();
            for item in lines {
                let Some(item) = item.as_object() else {
                    continue;
                };
                let mut copy = Map::new();
                for (name, value) in item {
                    if members.contains(&name.as_str()) {
                        copy.insert(name.clone(), value.clone());
                    } else if !value.is_null() {
                        notes.push(format!(
                            "line {line}: {id}: {kind}[].{name} is not part of a session's basket: left out"
                        ));
                    }
                }
                if let (Some(rate), Some(net), Some(gross)) = (
                    item.get("tax_rate"),
                    decimal(item.get("net_total_price")),
                    decimal(item.get("gross_total_price")),
                ) {
                    let entry = vats.entry(rate.to_string()).or_insert((
                        rate.clone(),
                        Decimal::ZERO,
                        Decimal::ZERO,
                    ));
                    entry.1 += net;
                    entry.2 += gross;
                }
                kept.push(Value::Object(copy));
            }
            out.insert(kind.to_owned(), Value::Array(kept));
        }
        let vats: Vec<Value> = vats
            .into_values()
            .map(|(rate, net, gross)| {
                json!({"tax_rate": rate, "net_amount": number(net), "tax_amount": number(gross - net)})
            })
            .collect();
        out.insert("vats".to_owned(), Value::Array(vats));
        mapped.push(Value::Object(out));
    }
    order.insert("shop_baskets".to_owned(), Value::Array(mapped));
    let mut entry = Map::new();
    entry.insert("transaction_id".to_owned(), json!(id));
    if let Some(created) = body.get("created").filter(|v| !v.is_null()) {
        entry.insert("created".to_owned(), created.clone());
    }
    let method = body.pointer("/payment_information/payment_method");
    for member in ["payment_option", "transfer_type"] {
        if let Some(value) = method.and_then(|m| m.get(member)).filter(|v| v.is_string()) {
            entry.insert(member.to_owned(), value.clone());
        }
    }
    entry.insert("order_data".to_owned(), Value::Object(order));
    Some((id, Value::Object(entry)))
}

fn decimal(value: Option<&Value>) -> Option<Decimal> {
    let number = value?.as_number()?;
    Decimal::from_str(&number.to_string()).ok()
}

fn number(value: Decimal) -> Value {
    serde_json::from_str(&value.normalize().to_string()).unwrap_or(Value::Null)
}
