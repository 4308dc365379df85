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

use super::order_status::{
    dunning_status, payment_method, payment_status_of, seller_of_shop, transaction_not_found,
    MAXIMUM_PROCESSING_OFFSET_IN_HOURS,
};
use crate::audiences::Service;
use crate::faults::inject;
use crate::state::{currency_of, gross_total_of, OrderSummary};
use crate::{auth, AppState, Transaction};
use axum::extract::{Path, State as AxumState};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use chrono::NaiveDate;
use psi_payment_page::types::{BasketItem, ShopBasket, SpecialItem};
use psi_runtime::Decimal;
use psi_transaction_status::types::{
    BasketInformationDto, PaymentInformationDto, TransactionItem, TransactionSpecialItem,
    TransactionStatusResponse,
};

pub fn routes() -> Router<AppState> {
    Router::new().route(
        "/transaction/status/v2/transactions/{transaction_id}",
        get(get_transaction_status),
    )
}

async fn get_transaction_status(
    AxumState(state): AxumState<AppState>,
    Path(transaction_id): Path<String>,
    headers: HeaderMap,
) -> Response {
    if let Some(response) = inject(&state, "getTransactionStatus").await {
        return response;
    }
    if let Err(response) = auth::require_or_decline(&state, &headers, Service::TransactionStatus) {
        return response;
    }
    let Some(transaction) = state.data().transactions.get(&transaction_id).cloned() else {
        return transaction_not_found();
    };
    // The stored order is read once, outside the lock (it is deflated JSON:
    // reading it is the dearest part of a lookup).
    let order = transaction.order_summary();
    let shop_id = order
        .shop_baskets
        .first()
        .and_then(|basket| basket.partner_shop_id.as_deref());
    let shop_name = seller_of_shop(&state.data(), shop_id).name;
    let today = state.clock.now_local().date_naive();
    json(&transaction_status(&transaction, order, &shop_name, today))
}

/// What `Json` answers, serialised into a buffer that holds a usual answer
/// (about 1 KB) from the start instead of growing from 128 bytes.
fn json(answer: &TransactionStatusResponse) -> Response {
    let mut body = Vec::with_capacity(2048);
    match serde_json::to_writer(&mut body, answer) {
        Ok(()) => {
            let json = HeaderValue::from_static("application/json");
            ([(header::CONTENT_TYPE, json)], body).into_response()
        }
        // Generated types always serialise; if one did not, `Json` answers
        // the error as it always has.
        Err(_) => Json(answer).into_response(),
    }
}

/// `order` is the transaction's stored order; `shop_name` the stored shop
/// configuration's legal name, or the sandbox shop's.
fn transaction_status(
    transaction: &Transaction,
    order: OrderSummary,
    shop_name: &str,
    today: NaiveDate,
) -> TransactionStatusResponse {
    let gross_total = gross_total_of(&order);
    let currency = currency_of(&order).parse().ok();
    TransactionStatusResponse {
        gateway_transaction_id: Some(transaction.id.to_string()),
        partner_transaction_id: order.partner_transaction_id,
        created: Some(transaction.created),
        // The session request carries no buyer id, so the shop never sent one.
        shop_buyer_id: None,
        currency,
        shop_baskets: order
            .shop_baskets
            .iter()
            .map(|basket| basket_information(basket, shop_name))
            .collect(),
        payment_information: Some(PaymentInformationDto {
            maximum_processing_offset_in_hours: Some(Decimal::from(
                MAXIMUM_PROCESSING_OFFSET_IN_HOURS,
            )),
            payment_method: payment_method(transaction),
            payment_status: payment_status_of(transaction, gross_total, today),
            dunning_status: dunning_status(),
        }),
    }
}

fn basket_information(basket: &ShopBasket, shop_name: &str) -> BasketInformationDto {
    BasketInformationDto {
        partner_shop_id: basket.partner_shop_id.clone(),
        partner_shop_name: Some(shop_name.to_owned()),
        shop_transaction_id: basket.shop_transaction_id.clone(),
        gross_amount: basket.gross_amount,
        items: basket.items.iter().map(transaction_item).collect(),
        special_items: basket
            .special_items
            .iter()
            .map(transaction_special_item)
            .collect(),
    }
}

/// Every field the session's item carries, unchanged. The session request
/// has no identification numbers, so those stay absent.
fn transaction_item(item: &BasketItem) -> TransactionItem {
    TransactionItem {
        article_number: item.article_number.clone(),
        name: item.name.clone(),
        category: item.category.clone(),
        unit: item.unit.clone(),
        quantity: item.quantity,
        tax_rate: item.tax_rate,
        gross_unit_price: item.gross_unit_price,
        net_unit_price: item.net_unit_price,
        gross_unit_discount: item.gross_unit_discount,
        net_unit_discount: item.net_unit_discount,
        gross_total_price: item.gross_total_price,
        net_total_price: item.net_total_price,
        identification_number: None,
        unique_identification_number: None,
    }
}

fn transaction_special_item(item: &SpecialItem) -> TransactionSpecialItem {
    TransactionSpecialItem {
        article_number: item.article_number.clone(),
        name: item.name.clone(),
        category: item.category.clone(),
        unit: item.unit.clone(),
        quantity: item.quantity,
        tax_rate: item.tax_rate,
        gross_unit_price: item.gross_unit_price,
        net_unit_price: item.net_unit_price,
        gross_total_price: item.gross_total_price,
        net_total_price: item.net_total_price,
        identification_number: None,
        unique_identification_number: None,
    }
}
