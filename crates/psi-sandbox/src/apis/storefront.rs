//! The storefront platform's order-management module
//! (`openapi/storefront.yaml`, served under `{platform_url}/api`): both path
//! sets, with the quantities of every order line tracked per operation.
//!
//! | version | method | path | answers |
//! |---|---|---|---|
//! | 6.x | GET | /api/gateway/order-management/load/{orderId} | 200 `LoadResponse`, `data` keyed by line id; 400 unknown order |
//! | 6.x | POST | /api/gateway/order-management/{deliver,cancel,return}/{orderId} | 200 `{success, message}` (success false when refused); 400 unknown order |
//! | 6.x | POST | /api/gateway/order-management/addItem/{orderId} | as above |
//! | 7.x | GET | /api/_action/order/{orderId}/gateway/info | 200 `LoadResponse`, `data` a list; 404 unknown order |
//! | 7.x | POST | /api/_action/order/{orderId}/gateway/{deliver,cancel,refund} | 204; 400 empty item list, an item without id or with a quantity that is absent or not positive; 404 unknown order; 500 refused |
//! | 7.x | POST | /api/_action/order/{orderId}/gateway/addItem | 204; 400 precondition unmet or zero amount; 404 unknown order; 500 refused |
//!
//! Every error is a `ModuleResult` `{success: false, message}`, also the
//! 401 for a missing, expired, wrong-audience or scope-less token (a
//! platform token with scope `write` is required). An orderId that is not
//! 32 lowercase hex characters is 400, except on 7.x `info`, which declares
//! no 400 and answers 404 (no such order can exist).
//!
//! Open quantities per line:
//! `maxDelivery = maxCancel = ordered - delivered - canceled` and
//! `maxReturn = delivered - returned`. A request naming an unknown line, a
//! quantity that is absent or not positive, or more than the open quantity
//! (summed over repeated ids) is refused as a whole.
//!
//! addItem needs a seeded line with `delivered - returned > 0`; it appends a
//! line with a generated id, ordered 1 and delivered 1 at once (so it blocks
//! no other operation and could itself be returned), unit price
//! `grossAmount`. Added lines do not satisfy the precondition of a later
//! addItem. A credit larger than the captured balance (sum over all lines of
//! `(delivered - returned) * unitPrice`) is refused by the "payment service".
//!
//! Seeding (`POST /__sandbox/storefront/orders`, answers 201
//! `{"order_id", "transaction_id", "items": [LoadItem...]}`; 400 for a bad
//! seed, 404 for an unknown transaction, 409 for an existing order id):
//!
//! ```json
//! {"order_id": "<32 lowercase hex, optional: generated>",
//!  "items": [{"id": "<line id, optional: generated>", "name": "Oak side table",
//!             "quantity": 2, "unit_price": 16.9}],
//!  "shipping": 10}
//! ```
//!
//! or `{"order_id"?, "transaction_id": "12-..."}` to take the lines of that
//! transaction's first basket: each item at `gross_unit_price +
//! gross_unit_discount`, special items of category `shipping` summed into
//! the `shipping` line, other special items as lines. The shipping line has
//! id `shipping`, ordered 1, and is tracked like any other line.

use crate::amounts;
use crate::http::extract::{Bearer, Storefront};
use crate::http::operation::declare;
use crate::media_type::{self, Expected};
use crate::state::{tables, Batch, Loader, Persisted, Table};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{Path, State as Extract};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use psi_runtime::Decimal;
use psi_storefront::types::{
    AddItemRequest, LoadData, LoadItem, LoadItemList, LoadItemMap, LoadItemPosition, LoadResponse,
    ModuleResult, OrderId, OrderItemQuantity, OrderItemsRequest, OrderItemsRequestV7,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The id of the shipping line, as the module names it.
const SHIPPING: &str = "shipping";

/// The seeded orders, by order id.
#[derive(Debug, Default)]
pub struct State {
    orders: Table<String, Order>,
}

impl Persisted for State {
    fn has_changes(&self) -> bool {
        self.orders.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        batch.table(tables::STOREFRONT_ORDERS, &mut self.orders)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        Ok(Self {
            orders: loader.table(tables::STOREFRONT_ORDERS)?,
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Order {
    id: String,
    transaction_id: Option<String>,
    lines: Vec<Line>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Line {
    id: String,
    position_id: String,
    name: String,
    unit_price: Decimal,
    ordered: Decimal,
    delivered: Decimal,
    canceled: Decimal,
    returned: Decimal,
    /// Appended by addItem: not an order item for addItem's precondition.
    added: bool,
}

impl Line {
    fn new(id: String, name: String, quantity: Decimal, unit_price: Decimal) -> Self {
        Line {
            id,
            position_id: new_id(),
            name,
            unit_price,
            ordered: quantity,
            delivered: Decimal::ZERO,
            canceled: Decimal::ZERO,
            returned: Decimal::ZERO,
            added: false,
        }
    }

    fn open_for_delivery_or_cancel(&self) -> Decimal {
        amounts::sub(amounts::sub(self.ordered, self.delivered), self.canceled)
    }

    fn open_for_return(&self) -> Decimal {
        amounts::sub(self.delivered, self.returned)
    }

    /// The line's total price, or `None` past the decimal range (refused
    /// when a seed or an added item would store such a line).
    fn checked_total(&self) -> Option<Decimal> {
        self.unit_price.checked_mul(self.ordered)
    }

    fn to_load_item(&self) -> LoadItem {
        let open = self.open_for_delivery_or_cancel();
        LoadItem {
            id: Some(self.id.clone()),
            name: Some(self.name.clone()),
            ordered: Some(self.ordered),
            unit_price: Some(self.unit_price),
            total_price: Some(amounts::mul(self.unit_price, self.ordered)),
            position: Some(LoadItemPosition {
                id: Some(self.position_id.clone()),
                canceled: Some(self.canceled),
                returned: Some(self.returned),
                delivered: Some(self.delivered),
                max_delivery: Some(open),
                max_cancel: Some(open),
                max_return: Some(self.open_for_return()),
            }),
        }
    }
}

impl Order {
    fn line_mut(&mut self, id: &str) -> Option<&mut Line> {
        self.lines.iter_mut().find(|line| line.id == id)
    }

    fn load_items(&self) -> Vec<LoadItem> {
        self.lines.iter().map(Line::to_load_item).collect()
    }

    /// What has been captured and not refunded: the most a credit may take back.
    fn captured_balance(&self) -> Decimal {
        amounts::sum(
            self.lines
                .iter()
                .map(|line| amounts::mul(line.open_for_return(), line.unit_price)),
        )
    }

    /// The order's lines added up at their full price, or `None` past the
    /// decimal range: what a stored order must stay within, so that its
    /// balance and totals are exact.
    fn checked_total(&self) -> Option<Decimal> {
        amounts::checked_sum(
            self.lines
                .iter()
                .map(Line::checked_total)
                .collect::<Option<Vec<_>>>()?,
        )
    }

    fn has_shipped_unreturned_item(&self) -> bool {
        self.lines
            .iter()
            .any(|line| !line.added && line.open_for_return() > Decimal::ZERO)
    }
}

/// 32 lowercase hex characters, the shape of the platform's ids.
fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// deliver, cancel and return (refund): the same checks, another counter.
#[derive(Debug, Clone, Copy)]
enum Operation {
    Deliver,
    Cancel,
    Return,
}

impl Operation {
    fn open(self, line: &Line) -> Decimal {
        match self {
            Operation::Deliver | Operation::Cancel => line.open_for_delivery_or_cancel(),
            Operation::Return => line.open_for_return(),
        }
    }

    fn book(self, line: &mut Line, quantity: Decimal) {
        match self {
            Operation::Deliver => line.delivered = amounts::add(line.delivered, quantity),
            Operation::Cancel => line.canceled = amounts::add(line.canceled, quantity),
            Operation::Return => line.returned = amounts::add(line.returned, quantity),
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Operation::Deliver => "delivery",
            Operation::Cancel => "cancellation",
            Operation::Return => "refund",
        }
    }

    fn done(self) -> &'static str {
        match self {
            Operation::Deliver => "Delivery reported.",
            Operation::Cancel => "Items canceled.",
            Operation::Return => "Return reported.",
        }
    }
}

/// The two path sets differ only in how they answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V6,
    V7,
}

/// The result of an operation on a known order.
enum Outcome {
    Done(&'static str),
    /// The payment service refused (6.x: 200 success false, 7.x: 500).
    Refused(String),
    /// The request is invalid (6.x: 200 success false, 7.x: 400).
    Invalid(String),
}

impl Outcome {
    fn answer(self, version: Version) -> Response {
        match (self, version) {
            (Outcome::Done(message), Version::V6) => module_result(StatusCode::OK, true, message),
            (Outcome::Done(_), Version::V7) => StatusCode::NO_CONTENT.into_response(),
            (Outcome::Refused(message) | Outcome::Invalid(message), Version::V6) => {
                module_result(StatusCode::OK, false, &message)
            }
            (Outcome::Refused(message), Version::V7) => {
                module_result(StatusCode::INTERNAL_SERVER_ERROR, false, &message)
            }
            (Outcome::Invalid(message), Version::V7) => {
                module_result(StatusCode::BAD_REQUEST, false, &message)
            }
        }
    }
}

/// Checks every requested quantity against the open one, then books them
/// all, so a refused request changes nothing.
fn apply(order: &mut Order, operation: Operation, items: &[OrderItemQuantity]) -> Outcome {
    // 6.x answers every refusal alike, 200 with success false; 7.x with
    // 500 and success false.
    let requested = match summed_quantities(items) {
        Ok(requested) => requested,
        Err(message) => {
            return Outcome::Refused(format!(
                "The payment service refused the {}: {message}",
                operation.noun()
            ))
        }
    };
    if let Err(message) = check_open(order, operation, &requested) {
        return Outcome::Refused(format!(
            "The payment service refused the {}: {message}",
            operation.noun()
        ));
    }
    for (id, quantity) in requested {
        if let Some(line) = order.line_mut(&id) {
            operation.book(line, quantity);
        }
    }
    Outcome::Done(operation.done())
}

/// The requested quantity per line id, repeated ids added up.
fn summed_quantities(items: &[OrderItemQuantity]) -> Result<BTreeMap<String, Decimal>, String> {
    if items.is_empty() {
        return Err("no items given".to_owned());
    }
    let mut requested = BTreeMap::new();
    for item in items {
        // An empty id is one no line has: refused like any unknown id. An
        // item without an id names no line at all, so it is refused too.
        let id = item
            .id
            .clone()
            .ok_or_else(|| "an item without an id names no order line".to_owned())?;
        let quantity = item
            .quantity
            .filter(|q| *q > Decimal::ZERO)
            .ok_or(format!("the quantity of {id} must be positive"))?;
        let past_range = format!("the quantities of {id} add up past the decimal range");
        let total = requested.entry(id).or_insert(Decimal::ZERO);
        *total = total.checked_add(quantity).ok_or(past_range)?;
    }
    Ok(requested)
}

fn check_open(
    order: &mut Order,
    operation: Operation,
    requested: &BTreeMap<String, Decimal>,
) -> Result<(), String> {
    for (id, quantity) in requested {
        let line = order.line_mut(id).ok_or(format!("unknown item {id}"))?;
        let open = operation.open(line);
        if *quantity > open {
            return Err(format!("{quantity} of item {id} requested, {open} open"));
        }
    }
    Ok(())
}

fn add_item(order: &mut Order, request: AddItemRequest) -> Outcome {
    if request.gross_amount.is_zero() {
        return Outcome::Invalid("grossAmount must not be zero.".to_owned());
    }
    if !order.has_shipped_unreturned_item() {
        return Outcome::Invalid("No shipped and not returned item in the order.".to_owned());
    }
    let credit = -request.gross_amount;
    if credit > order.captured_balance() {
        return Outcome::Refused(format!(
            "The payment service refused the credit: {credit} exceeds the captured balance {}",
            order.captured_balance()
        ));
    }
    let mut line = Line::new(new_id(), request.name, Decimal::ONE, request.gross_amount);
    // Delivered at once: an added debit or credit is settled, never shipped.
    line.delivered = Decimal::ONE;
    line.added = true;
    order.lines.push(line);
    if order.checked_total().is_none() {
        order.lines.pop();
        return Outcome::Invalid(
            "grossAmount takes the order's total past the decimal range.".to_owned(),
        );
    }
    Outcome::Done("Item added.")
}

pub fn routes() -> Router<AppState> {
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
        module_result(self.status, false, &self.message)
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

fn unknown_order(id: &OrderId, version: Version) -> Failure {
    let status = match version {
        Version::V6 => StatusCode::BAD_REQUEST,
        Version::V7 => StatusCode::NOT_FOUND,
    };
    Failure::new(status, format!("Order {} not found", id.as_str()))
}

/// Runs `change` on the order under the lock; an unknown order fails.
fn with_order<R>(
    state: &AppState,
    id: &OrderId,
    version: Version,
    change: impl FnOnce(&mut Order) -> R,
) -> Result<R, Failure> {
    let mut data = state.data();
    let order = data.storefront.orders.get_mut(id.as_str());
    order.map(change).ok_or_else(|| unknown_order(id, version))
}

/// Reads the order under the lock (nothing is marked changed); an unknown
/// order fails.
fn read_order<R>(
    state: &AppState,
    id: &OrderId,
    version: Version,
    read: impl FnOnce(&Order) -> R,
) -> Result<R, Failure> {
    let data = state.data();
    let order = data.storefront.orders.get(id.as_str());
    order.map(read).ok_or_else(|| unknown_order(id, version))
}

fn answer(result: Result<Response, Failure>) -> Response {
    result.unwrap_or_else(IntoResponse::into_response)
}

async fn load_v6(state: Extract<AppState>, raw: Path<String>, _: Bearer<Storefront>) -> Response {
    answer(load(&state, &raw, Version::V6))
}

async fn info_v7(state: Extract<AppState>, raw: Path<String>, _: Bearer<Storefront>) -> Response {
    answer(load(&state, &raw, Version::V7))
}

fn load(state: &AppState, raw: &str, version: Version) -> Result<Response, Failure> {
    // info declares no 400: an id no order can have is an unknown order.
    let bad_id_status = match version {
        Version::V6 => StatusCode::BAD_REQUEST,
        Version::V7 => StatusCode::NOT_FOUND,
    };
    let id = order_id(raw, bad_id_status)?;
    let items = read_order(state, &id, version, Order::load_items)?;
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
    state: Extract<AppState>,
    headers: HeaderMap,
    raw: Path<String>,
    _: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v6(&state, &headers, &raw, &body, Operation::Deliver).await
}

async fn cancel_v6(
    state: Extract<AppState>,
    headers: HeaderMap,
    raw: Path<String>,
    _: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v6(&state, &headers, &raw, &body, Operation::Cancel).await
}

async fn return_v6(
    state: Extract<AppState>,
    headers: HeaderMap,
    raw: Path<String>,
    _: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v6(&state, &headers, &raw, &body, Operation::Return).await
}

async fn deliver_v7(
    state: Extract<AppState>,
    headers: HeaderMap,
    raw: Path<String>,
    _: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v7(&state, &headers, &raw, &body, Operation::Deliver).await
}

async fn cancel_v7(
    state: Extract<AppState>,
    headers: HeaderMap,
    raw: Path<String>,
    _: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v7(&state, &headers, &raw, &body, Operation::Cancel).await
}

async fn refund_v7(
    state: Extract<AppState>,
    headers: HeaderMap,
    raw: Path<String>,
    _: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    items_v7(&state, &headers, &raw, &body, Operation::Return).await
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
    state: &AppState,
    headers: &HeaderMap,
    raw: &str,
    body: &Bytes,
    operation: Operation,
) -> Response {
    answer(
        admit::<OrderItemsRequest>(headers, raw, body).and_then(|(id, request)| {
            with_order(state, &id, Version::V6, |order| {
                apply(order, operation, &request.items)
            })
            .map(|outcome| outcome.answer(Version::V6))
        }),
    )
}

async fn items_v7(
    state: &AppState,
    headers: &HeaderMap,
    raw: &str,
    body: &Bytes,
    operation: Operation,
) -> Response {
    answer(
        admit::<OrderItemsRequestV7>(headers, raw, body).and_then(|(id, request)| {
            if request.items.is_empty() {
                return Err(Failure::new(StatusCode::BAD_REQUEST, "No items given."));
            }
            // A quantity the payment service cannot book (absent, zero or
            // negative) is its refusal, as every other one: 500 with
            // success false (docs/service-notes.md). The document states no
            // bound on quantities, so the request itself is well-formed.
            with_order(state, &id, Version::V7, |order| {
                apply(order, operation, &request.items)
            })
            .map(|outcome| outcome.answer(Version::V7))
        }),
    )
}

async fn add_item_v6(
    state: Extract<AppState>,
    headers: HeaderMap,
    raw: Path<String>,
    _: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    answer(add_item_in(&state, &headers, &raw, &body, Version::V6))
}

async fn add_item_v7(
    state: Extract<AppState>,
    headers: HeaderMap,
    raw: Path<String>,
    _: Bearer<Storefront>,
    body: Bytes,
) -> Response {
    answer(add_item_in(&state, &headers, &raw, &body, Version::V7))
}

fn add_item_in(
    state: &AppState,
    headers: &HeaderMap,
    raw: &str,
    body: &Bytes,
    version: Version,
) -> Result<Response, Failure> {
    let (id, request) = admit::<AddItemRequest>(headers, raw, body)?;
    with_order(state, &id, version, |order| add_item(order, request))
        .map(|outcome| outcome.answer(version))
}

/// The seed body (see the module documentation).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Seed {
    order_id: Option<String>,
    transaction_id: Option<String>,
    #[serde(default)]
    items: Vec<SeedItem>,
    shipping: Option<Decimal>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedItem {
    id: Option<String>,
    name: Option<String>,
    quantity: Decimal,
    unit_price: Decimal,
}

/// A refused seed: `{"error": message}`, the control API's error shape.
#[derive(Debug)]
struct SeedError(StatusCode, String);

impl IntoResponse for SeedError {
    fn into_response(self) -> Response {
        (self.0, Json(serde_json::json!({"error": self.1}))).into_response()
    }
}

fn bad_seed(message: impl Into<String>) -> SeedError {
    SeedError(StatusCode::BAD_REQUEST, message.into())
}

async fn seed_order(Extract(state): Extract<AppState>, body: Bytes) -> Response {
    match seed(&state, &body) {
        Ok(answer) => (StatusCode::CREATED, Json(answer)).into_response(),
        Err(error) => error.into_response(),
    }
}

fn seed(state: &AppState, body: &Bytes) -> Result<serde_json::Value, SeedError> {
    let seed: Seed = serde_json::from_slice(body).map_err(|error| bad_seed(error.to_string()))?;
    let id = match &seed.order_id {
        Some(raw) => raw
            .parse::<OrderId>()
            .map_err(|error| bad_seed(format!("order_id: {error}")))?
            .to_string(),
        None => new_id(),
    };
    let mut data = state.data();
    let lines = match &seed.transaction_id {
        Some(transaction_id) => lines_of_transaction(&data.transactions, transaction_id, &seed)?,
        None => lines_of_seed(&seed)?,
    };
    let lines = checked_ids(lines)?;
    if data.storefront.orders.contains_key(&id) {
        return Err(SeedError(
            StatusCode::CONFLICT,
            format!("order {id} exists"),
        ));
    }
    let order = Order {
        id: id.clone(),
        transaction_id: seed.transaction_id,
        lines,
    };
    if order.checked_total().is_none() {
        return Err(bad_seed(
            "items: the lines' quantity x unit_price add up past the decimal range",
        ));
    }
    let answer = serde_json::json!({
        "order_id": order.id,
        "transaction_id": order.transaction_id,
        "items": order.load_items(),
    });
    data.storefront.orders.insert(id, order);
    Ok(answer)
}

fn lines_of_seed(seed: &Seed) -> Result<Vec<Line>, SeedError> {
    let mut lines = Vec::new();
    for (index, item) in seed.items.iter().enumerate() {
        if item.quantity <= Decimal::ZERO {
            return Err(bad_seed("items[].quantity must be positive"));
        }
        if item.unit_price.checked_mul(item.quantity).is_none() {
            return Err(bad_seed(format!(
                "items[{index}]: quantity x unit_price is past the decimal range"
            )));
        }
        let id = item.id.clone().unwrap_or_else(new_id);
        let name = item.name.clone().unwrap_or_else(|| "Item".to_owned());
        lines.push(Line::new(id, name, item.quantity, item.unit_price));
    }
    if let Some(shipping) = seed.shipping {
        lines.push(shipping_line(shipping));
    }
    Ok(lines)
}

fn shipping_line(gross: Decimal) -> Line {
    Line::new(
        SHIPPING.to_owned(),
        "Shipping".to_owned(),
        Decimal::ONE,
        gross,
    )
}

fn lines_of_transaction(
    transactions: &crate::state::Transactions,
    transaction_id: &str,
    seed: &Seed,
) -> Result<Vec<Line>, SeedError> {
    if !seed.items.is_empty() || seed.shipping.is_some() {
        return Err(bad_seed("give either transaction_id or items and shipping"));
    }
    let transaction = transactions.get(transaction_id).ok_or_else(|| {
        SeedError(
            StatusCode::NOT_FOUND,
            format!("transaction {transaction_id} not found"),
        )
    })?;
    let baskets = transaction.baskets();
    let basket = baskets
        .first()
        .ok_or_else(|| bad_seed("the transaction has no basket"))?;
    Ok(lines_of_basket(basket))
}

/// Items at their discounted gross unit price; shipping summed into one line.
fn lines_of_basket(basket: &psi_payment_page::types::ShopBasket) -> Vec<Line> {
    let mut lines: Vec<Line> = basket
        .items
        .iter()
        .map(|item| {
            let unit_price = amounts::add(
                item.gross_unit_price.unwrap_or_default(),
                item.gross_unit_discount.unwrap_or_default(),
            );
            basket_line(item.name.as_deref(), item.quantity, unit_price)
        })
        .collect();
    let (shipping, others): (Vec<_>, Vec<_>) = basket
        .special_items
        .iter()
        .partition(|special| special.category.as_deref() == Some(SHIPPING));
    for special in others {
        let unit_price = special.gross_unit_price.unwrap_or_default();
        lines.push(basket_line(
            special.name.as_deref(),
            special.quantity,
            unit_price,
        ));
    }
    if !shipping.is_empty() {
        let gross = amounts::sum(
            shipping
                .iter()
                .map(|s| s.gross_total_price.unwrap_or_default()),
        );
        lines.push(shipping_line(gross));
    }
    lines
}

fn basket_line(name: Option<&str>, quantity: Option<Decimal>, unit_price: Decimal) -> Line {
    let name = name.unwrap_or("Item").to_owned();
    Line::new(new_id(), name, quantity.unwrap_or(Decimal::ONE), unit_price)
}

/// An order needs lines with distinct ids (the 6.x answer is keyed by them).
fn checked_ids(lines: Vec<Line>) -> Result<Vec<Line>, SeedError> {
    if lines.is_empty() {
        return Err(bad_seed("the order has no lines"));
    }
    let mut seen = std::collections::HashSet::new();
    for line in &lines {
        if line.id.is_empty() || !seen.insert(line.id.as_str()) {
            return Err(bad_seed(format!(
                "line id {:?} is empty or repeated",
                line.id
            )));
        }
    }
    Ok(lines)
}
