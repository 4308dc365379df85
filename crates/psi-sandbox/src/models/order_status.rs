//! The payment information of a transaction as the order status API
//! (`openapi/order-status.yaml`) and the transaction status API show it.
//!
//! The payment status follows the sandbox clock: `OPEN` until the due
//! date, `OVERDUE` after it (the sandbox runs no dunning, so the dunning
//! level stays 0). Nothing is ever paid in the sandbox, so the whole gross
//! total is outstanding.

use crate::models::transaction::Transaction;
use chrono::NaiveDate;
use psi_runtime::Decimal;
use serde_json::{json, Map, Value};

/// How long the provider may take to process a change, as the documents'
/// examples show it.
pub const MAXIMUM_PROCESSING_OFFSET_IN_HOURS: i64 = 24;

/// The baskets' gross amounts, added up over the shops.
pub fn gross_total(transaction: &Transaction) -> Decimal {
    crate::amounts::sum(
        transaction
            .baskets()
            .iter()
            .filter_map(|basket| basket.gross_amount),
    )
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// `{payment_option, transfer_type}`, as the buyer chose on the page.
pub fn payment_method(transaction: &Transaction) -> Map<String, Value> {
    object(
        json!({"payment_option": transaction.payment_option, "transfer_type": transaction.transfer_type}),
    )
}

/// `{status, due_date, outstanding_amount}`: OPEN until the due date (which
/// pay later may have moved), OVERDUE after it. Nothing is ever paid in the
/// sandbox, so the whole gross total is outstanding.
pub fn payment_status(transaction: &Transaction, today: NaiveDate) -> Map<String, Value> {
    payment_status_of(transaction, gross_total(transaction), today)
}

/// [`payment_status`] of a transaction whose order's gross total (see
/// [`gross_total`]) the caller has at hand: the order is not read again.
pub fn payment_status_of(
    transaction: &Transaction,
    gross_total: Decimal,
    today: NaiveDate,
) -> Map<String, Value> {
    object(json!({
        "status": payment_status_label(transaction.due_date, today),
        "due_date": transaction.due_date,
        "outstanding_amount": gross_total,
    }))
}

/// `OPEN` until the due date, `OVERDUE` after it.
pub fn payment_status_label(due_date: NaiveDate, today: NaiveDate) -> &'static str {
    if today > due_date {
        "OVERDUE"
    } else {
        "OPEN"
    }
}

/// `{level: 0}`: the sandbox sends no dunning letters.
pub fn dunning_status() -> Map<String, Value> {
    object(json!({"level": 0}))
}
