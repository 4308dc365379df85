//! The storefront platform's order-management module, its HTTP floor
//! (`openapi/storefront.yaml`, served under `{platform_url}/api`): both
//! path sets, answering with the order-line state machine of
//! [`crate::models::storefront`].
//!
//! | version | method | path | answers |
//! |---|---|---|---|
//! | 6.x | GET | /api/gateway/order-management/load/{orderId} | 200 `LoadResponse`, `data` keyed by line id; 400 unknown order |
//! | 6.x | POST | /api/gateway/order-management/{deliver,cancel,return}/{orderId} | 200 `{success, message}` (success false when refused or no item is left); 400 unknown order |
//! | 6.x | POST | /api/gateway/order-management/addItem/{orderId} | 200 as above; 404 unknown order |
//! | 7.x | GET | /api/_action/order/{orderId}/gateway/info | 200 `LoadResponse`, `data` a list; 404 unknown order |
//! | 7.x | POST | /api/_action/order/{orderId}/gateway/{deliver,cancel,refund} | 204; 400 unknown order, or no item left; 500 refused (an unknown line, an item without id, more than is open) |
//! | 7.x | POST | /api/_action/order/{orderId}/gateway/addItem | 204; 400 precondition unmet or zero amount; 404 unknown order; 500 refused |
//!
//! The item bodies are read as the module's published source reads them
//! ([`crate::models::storefront`]): a repeated id keeps its last quantity,
//! a line with a quantity of 0 or less is dropped, and `updateStock` is
//! read at the top level (the sandbox keeps no stock, so it only parses).
//!
//! Every error is a `ModuleResult` `{success: false, message}`, also the
//! 401 for a missing, expired, wrong-audience or scope-less token (a
//! platform token with scope `write` is required). An orderId that is not
//! 32 lowercase hex characters is 400, except on 7.x `info`, which declares
//! no 400 and answers 404 (no such order can exist).
//!
//! Seeding (`POST /__sandbox/storefront/orders`, the body: see
//! [`crate::models::storefront`]) answers 201
//! `{"order_id", "transaction_id", "items": [LoadItem...]}`; 400 for a bad
//! seed, 404 for an unknown transaction, 409 for an existing order id.

use crate::auth::Tokens;
use crate::http::extract::Current;
use crate::http::extract::{Bearer, Storefront};
use crate::http::operation::declare;
use crate::media_type::{self, Expected};
use crate::models::storefront::{
    add_item, apply, LineOperation, OperationOutcome, OrderSeed, OrderSeedError, StorefrontOrder,
};
use crate::refusals::{control_error, storefront_failure};
use crate::state::Tenant;
use axum::body::Bytes;
use axum::extract::FromRef;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use psi_storefront::types::{
    AddItemRequest, LoadData, LoadItem, LoadItemList, LoadItemMap, LoadResponse, ModuleResult,
    OrderId, OrderItemsRequest, OrderItemsRequestV7,
};

/// The two path sets differ only in how they answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V6,
    V7,
}

/// The answer to an operation's outcome: 6.x answers 200 with `success`
/// true or false; 7.x 204, 500 for a refusal of the payment service and 400
/// for an invalid request.
fn outcome_answer(outcome: OperationOutcome, version: Version) -> Response {
    match (outcome, version) {
        (OperationOutcome::Done(message), Version::V6) => {
            module_result(StatusCode::OK, true, message)
        }
        (OperationOutcome::Done(_), Version::V7) => StatusCode::NO_CONTENT.into_response(),
        (OperationOutcome::Refused(message) | OperationOutcome::Invalid(message), Version::V6) => {
            module_result(StatusCode::OK, false, &message)
        }
        (OperationOutcome::Refused(message), Version::V7) => {
            storefront_failure(StatusCode::INTERNAL_SERVER_ERROR, &message)
        }
        (OperationOutcome::Invalid(message), Version::V7) => {
            storefront_failure(StatusCode::BAD_REQUEST, &message)
        }
    }
}

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
{
    Router::new()
        .route(
            "/api/gateway/order-management/load/{order_id}",
            declare("loadOrderItems", get(load_v6)),
        )
        .route(
            "/api/gateway/order-management/deliver/{order_id}",
            declare("deliverOrderItems", post(deliver_v6)),
        )
        .route(
            "/api/gateway/order-management/cancel/{order_id}",
            declare("cancelOrderItems", post(cancel_v6)),
        )
        .route(
            "/api/gateway/order-management/return/{order_id}",
            declare("returnOrderItems", post(return_v6)),
        )
        .route(
            "/api/gateway/order-management/addItem/{order_id}",
            declare("addOrderItem", post(add_item_v6)),
        )
        .route(
            "/api/_action/order/{order_id}/gateway/info",
            declare("getOrderInfo", get(info_v7)),
        )
        .route(
            "/api/_action/order/{order_id}/gateway/deliver",
            declare("deliverOrderItemsV7", post(deliver_v7)),
        )
        .route(
            "/api/_action/order/{order_id}/gateway/cancel",
            declare("cancelOrderItemsV7", post(cancel_v7)),
        )
        .route(
            "/api/_action/order/{order_id}/gateway/refund",
            declare("refundOrderItemsV7", post(refund_v7)),
        )
        .route(
            "/api/_action/order/{order_id}/gateway/addItem",
            declare("addOrderItemV7", post(add_item_v7)),
        )
        .route("/__sandbox/storefront/orders", post(seed_order))
}

/// An error answer of the module: `{success: false, message}` with a status.
#[derive(Debug)]
struct Failure {
    status: StatusCode,
    message: String,
}

impl Failure {
    fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        storefront_failure(self.status, &self.message)
    }
}

fn module_result(status: StatusCode, success: bool, message: &str) -> Response {
    let body = ModuleResult {
        success: Some(success),
        message: Some(message.to_owned()),
    };
    (status, Json(body)).into_response()
}

/// The orderId path parameter through the generated type's pattern check.
fn order_id(raw: &str, status: StatusCode) -> Result<OrderId, Failure> {
    raw.parse::<OrderId>()
        .map_err(|error| Failure::new(status, format!("Invalid orderId {raw}: {error}")))
}

fn parse<T: serde::de::DeserializeOwned + serde::Serialize>(body: &Bytes) -> Result<T, Failure> {
    let text = std::str::from_utf8(body)
        .map_err(|_| Failure::new(StatusCode::BAD_REQUEST, "The body is not UTF-8."))?;
    crate::typed::parse(text).map_err(|refusal| {
        Failure::new(
            StatusCode::BAD_REQUEST,
            format!("Invalid body at {}: {}", refusal.json_path, refusal.rule),
        )
    })
}

/// The status of an unknown order, as the module's source answers it: 6.x
/// load 400, 7.x info 404; deliver, cancel and return/refund 400 in both
/// path sets; addItem 404 in both.
#[derive(Debug, Clone, Copy)]
enum Unknown {
    Is400,
    Is404,
}

fn unknown_order(id: &OrderId, unknown: Unknown) -> Failure {
    let status = match unknown {
        Unknown::Is400 => StatusCode::BAD_REQUEST,
        Unknown::Is404 => StatusCode::NOT_FOUND,
    };
    Failure::new(status, format!("Order {} not found", id.as_str()))
}

/// Runs `change` on the order under the lock; an unknown order fails.
fn with_order<R>(
    tenant: &Tenant,
    id: &OrderId,
    unknown: Unknown,
    change: impl FnOnce(&mut StorefrontOrder) -> R,
) -> Result<R, Failure> {
    let mut data = tenant.data();
    let order = data.storefront.orders.get_mut(id.as_str());
    order.map(change).ok_or_else(|| unknown_order(id, unknown))
}

/// Reads the order under the lock (nothing is marked changed); an unknown
/// order fails.
fn read_order<R>(
    tenant: &Tenant,
    id: &OrderId,
    unknown: Unknown,
    read: impl FnOnce(&StorefrontOrder) -> R,
) -> Result<R, Failure> {
    let data = tenant.data();
    let order = data.storefront.orders.get(id.as_str());
    order.map(read).ok_or_else(|| unknown_order(id, unknown))
}

fn answer(result: Result<Response, Failure>) -> Response {
    result.unwrap_or_else(IntoResponse::into_response)
}

async fn load_v6(raw: Path<String>, Bearer { tenant, .. }: Bearer<Storefront>) -> Response {
    answer(load(&tenant, &raw, Version::V6))
}

async fn info_v7(raw: Path<String>, Bearer { tenant, .. }: Bearer<Storefront>) -> Response {
    answer(load(&tenant, &raw, Version::V7))
}

fn load(tenant: &Tenant, raw: &str, version: Version) -> Result<Response, Failure> {
    // info declares no 400: an id no order can have is an unknown order.
    let (bad_id_status, unknown) = match version {
        Version::V6 => (StatusCode::BAD_REQUEST, Unknown::Is400),
        Version::V7 => (StatusCode::NOT_FOUND, Unknown::Is404),
    };
    let id = order_id(raw, bad_id_status)?;
    let items = read_order(tenant, &id, unknown, StorefrontOrder::load_items)?;
    let data = Some(load_data(items, version));
    Ok(Json(LoadResponse {
        success: true,
        data,
    })
    .into_response())
}

/// 6.x keys the items by line id (what it really returns), 7.x lists them.
fn load_data(items: Vec<LoadItem>, version: Version) -> LoadData {
    match version {
        Version::V6 => LoadData::Map(LoadItemMap(
            items
                .into_iter()
                .map(|item| (item.id.clone().unwrap_or_default(), item))
                .collect(),
        )),
        Version::V7 => LoadData::List(LoadItemList(items)),
    }
}

async fn deliver_v6(
    headers: HeaderMap,
    raw: Path<String>,
    Bearer { tenant, .. }: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v6(&tenant, &headers, &raw, &body, LineOperation::Deliver).await
}

async fn cancel_v6(
    headers: HeaderMap,
    raw: Path<String>,
    Bearer { tenant, .. }: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v6(&tenant, &headers, &raw, &body, LineOperation::Cancel).await
}

async fn return_v6(
    headers: HeaderMap,
    raw: Path<String>,
    Bearer { tenant, .. }: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v6(&tenant, &headers, &raw, &body, LineOperation::Return).await
}

async fn deliver_v7(
    headers: HeaderMap,
    raw: Path<String>,
    Bearer { tenant, .. }: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v7(&tenant, &headers, &raw, &body, LineOperation::Deliver).await
}

async fn cancel_v7(
    headers: HeaderMap,
    raw: Path<String>,
    Bearer { tenant, .. }: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v7(&tenant, &headers, &raw, &body, LineOperation::Cancel).await
}

async fn refund_v7(
    headers: HeaderMap,
    raw: Path<String>,
    Bearer { tenant, .. }: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v7(&tenant, &headers, &raw, &body, LineOperation::Return).await
}

/// The checks every POST shares after the token: orderId shape, body.
fn admit<T: serde::de::DeserializeOwned + serde::Serialize>(
    headers: &HeaderMap,
    raw: &str,
    body: &Bytes,
) -> Result<(OrderId, T), Failure> {
    let id = order_id(raw, StatusCode::BAD_REQUEST)?;
    media_type::check(headers, body, Expected::Json)
        .map_err(|expected| Failure::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, expected.message()))?;
    Ok((id, parse(body)?))
}

async fn items_v6(
    tenant: &Tenant,
    headers: &HeaderMap,
    raw: &str,
    body: &Bytes,
    operation: LineOperation,
) -> Response {
    answer(
        admit::<OrderItemsRequest>(headers, raw, body).and_then(|(id, request)| {
            with_order(tenant, &id, Unknown::Is400, |order| {
                apply(order, operation, &request.items)
            })
            .map(|outcome| outcome_answer(outcome, Version::V6))
        }),
    )
}

async fn items_v7(
    tenant: &Tenant,
    headers: &HeaderMap,
    raw: &str,
    body: &Bytes,
    operation: LineOperation,
) -> Response {
    answer(
        admit::<OrderItemsRequestV7>(headers, raw, body).and_then(|(id, request)| {
            // The order first (400 when unknown), then the items: an empty
            // list, or one whose every line is dropped, is 400 too.
            with_order(tenant, &id, Unknown::Is400, |order| {
                apply(order, operation, &request.items)
            })
            .map(|outcome| outcome_answer(outcome, Version::V7))
        }),
    )
}

async fn add_item_v6(
    headers: HeaderMap,
    raw: Path<String>,
    Bearer { tenant, .. }: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    answer(add_item_in(&tenant, &headers, &raw, &body, Version::V6))
}

async fn add_item_v7(
    headers: HeaderMap,
    raw: Path<String>,
    Bearer { tenant, .. }: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    answer(add_item_in(&tenant, &headers, &raw, &body, Version::V7))
}

fn add_item_in(
    tenant: &Tenant,
    headers: &HeaderMap,
    raw: &str,
    body: &Bytes,
    version: Version,
) -> Result<Response, Failure> {
    let (id, request) = admit::<AddItemRequest>(headers, raw, body)?;
    with_order(tenant, &id, Unknown::Is404, |order| {
        add_item(order, request)
    })
    .map(|outcome| outcome_answer(outcome, version))
}

/// A refused seed: `{"error": message}`, the control API's error shape.
fn seed_refusal(error: OrderSeedError) -> Response {
    let status = match error {
        OrderSeedError::Invalid(_) => StatusCode::BAD_REQUEST,
        OrderSeedError::UnknownTransaction(_) => StatusCode::NOT_FOUND,
        OrderSeedError::OrderExists(_) => StatusCode::CONFLICT,
    };
    control_error(status, error.to_string())
}

async fn seed_order(tenant: Current, body: Bytes) -> Response {
    match seed(&tenant, &body) {
        Ok(answer) => (StatusCode::CREATED, Json(answer)).into_response(),
        Err(error) => seed_refusal(error),
    }
}

fn seed(tenant: &Tenant, body: &Bytes) -> Result<serde_json::Value, OrderSeedError> {
    let seed: OrderSeed =
        serde_json::from_slice(body).map_err(|error| OrderSeedError::Invalid(error.to_string()))?;
    let id = seed.order_id()?;
    let mut data = tenant.data();
    let transactions = &data.transactions;
    let lines = seed.lines(|transaction_id| {
        transactions
            .get(transaction_id)
            .map(|transaction| transaction.baskets())
    })?;
    if data.storefront.orders.contains_key(&id) {
        return Err(OrderSeedError::OrderExists(id));
    }
    let order = StorefrontOrder::seeded(id.clone(), seed.transaction_id, lines)?;
    let answer = serde_json::json!({
        "order_id": order.id,
        "transaction_id": order.transaction_id,
        "items": order.load_items(),
    });
    data.storefront.orders.insert(id, order);
    Ok(answer)
}
