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

use super::order_status::{
    payment_status_label, shop_name_of, transaction_not_found, MAXIMUM_PROCESSING_OFFSET_IN_HOURS,
};
use crate::audiences::Service;
use crate::faults::inject;
use crate::{auth, AppState};
use axum::body::Body;
use axum::extract::{RawPathParams, Request, State as AxumState};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

pub fn routes() -> Router<AppState> {
    Router::new().route(
        "/transaction/status/v2/transactions/{transaction_id}",
        get(get_transaction_status),
    )
}

/// The route's handler: the id read borrowed (`ids::Check` refused one
/// that is not UTF-8 before), and the request taken whole for its headers
/// (a `HeaderMap` extractor copies them).
async fn get_transaction_status(
    AxumState(state): AxumState<AppState>,
    params: RawPathParams,
    request: Request,
) -> Response {
    let transaction_id = params.iter().next().map_or("", |(_, id)| id);
    look_up(&state, transaction_id, request.headers()).await
}

/// The path of a lookup up to its id, for [`crate::hot_routes`].
pub const LOOKUP_PATH_PREFIX: &str = "/transaction/status/v2/transactions/";

/// A lookup (`getTransactionStatus`) of `transaction_id`, the path id
/// percent-decoded and passed by the id rule ([`crate::ids`]).
///
/// The sandbox's most frequent call, so it does only what the answer
/// needs: the record's few fields and its stored order's bytes (by
/// reference count) are taken under the lock; after it, the order's
/// compact part is decoded (nothing inflated, no JSON parsed) and the
/// answer written from its texts directly ([`answer`]).
pub async fn look_up(state: &AppState, transaction_id: &str, headers: &HeaderMap) -> Response {
    if let Some(response) = inject(state, "getTransactionStatus").await {
        return response;
    }
    if let Err(response) = auth::require_or_decline(state, headers, Service::TransactionStatus) {
        return response;
    }
    let found = state.data().transactions.get(transaction_id).map(|t| {
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
    let today = state.clock.now_local().date_naive();
    let order = request.order();
    let shop_name = shop_name_of(&state.data(), answer::first_shop_id(&order).as_deref());
    let body = answer::write(&record, &order, &shop_name, today);
    let mut response = Response::new(Body::from(body));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests;
