//! Transaction status API, payment API 2.0 (`openapi/transaction-status.yaml`).
//!
//! | method | path | does |
//! |---|---|---|
//! | GET | /transaction/status/v2/transactions/{transaction-id} | the transaction with its shop baskets |
//!
//! Reads the transactions the hosted payment page creates when a buyer
//! completes a session: the baskets come back with every price exactly as
//! the session request sent them. The payment information is the one the
//! order status API shows with `include=all`. The document's 422 has no
//! stated condition, so the sandbox never answers it.

mod answer;

use super::order_status::{shop_name_of, transaction_not_found};
use crate::auth::Tokens;
use crate::http::extract::{Bearer, TransactionStatus};
use crate::http::operation::declare;
use axum::extract::FromRef;
use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
{
    Router::new().route(
        "/transaction/status/v2/transactions/{transaction_id}",
        declare("getTransactionStatus", get(get_transaction_status)),
    )
}

/// A lookup (`getTransactionStatus`) of `transaction_id`, the path id
/// percent-decoded and passed by the id rule ([`crate::ids`]).
///
/// Only what the answer needs is taken under the lock: the record's few
/// fields and its stored order's bytes (by reference count). After it,
/// the order's compact part is decoded (nothing inflated, no JSON parsed)
/// and the answer serialised from its texts ([`answer`]).
async fn get_transaction_status(
    Path(transaction_id): Path<String>,
    Bearer { tenant, .. }: Bearer<TransactionStatus>,
) -> Response {
    let found = tenant.data().transactions.get(&transaction_id).map(|t| {
        let record = (t.id, t.created, t.due_date);
        let labels = (t.payment_option.clone(), t.transfer_type.clone());
        (record, labels, t.request.clone())
    });
    let Some(((id, created, due_date), (payment_option, transfer_type), request)) = found else {
        return transaction_not_found();
    };
    let record = answer::Record {
        id,
        created,
        due_date,
        payment_option: &payment_option,
        transfer_type: &transfer_type,
    };
    let today = tenant.clock.now_local().date_naive();
    let order = request.order();
    let shop_name = shop_name_of(&tenant.data(), answer::first_shop_id(&order).as_deref());
    let body = answer::write(&record, &order, &shop_name, today);
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(test)]
mod tests;
