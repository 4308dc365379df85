//! The storefront platform's orders: the quantities of every order line,
//! tracked per operation (deliver, cancel, return), the addItem rules and
//! the seeding of orders.
//!
//! Open quantities per line:
//! `maxDelivery = maxCancel = ordered - delivered - canceled` and
//! `maxReturn = delivered - returned`. As the module's published source
//! reads a request: the lines are keyed by id, so a repeated id keeps its
//! last quantity; then a line whose quantity is absent, 0 or less is
//! dropped. Nothing left is an invalid request ("No items given."); a line
//! naming an unknown id (or none) or more than its open quantity is refused
//! by the payment service, and the request as a whole with it.
//!
//! addItem needs a seeded line with `delivered - returned > 0`; it appends a
//! line with a generated id, ordered 1 and delivered 1 at once (so it blocks
//! no other operation and could itself be returned), unit price
//! `grossAmount`. Added lines do not satisfy the precondition of a later
//! addItem. A credit larger than the captured balance (sum over all lines of
//! `(delivered - returned) * unitPrice`) is refused by the "payment service".
//!
//! A seed ([`OrderSeed`]) gives the order's lines:
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
use psi_payment_page::types::ShopBasket;
use psi_runtime::Decimal;
use psi_storefront::types::{
    AddItemRequest, LoadItem, LoadItemPosition, OrderId, OrderItemQuantity,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The id of the shipping line, as the module names it.
const SHIPPING: &str = "shipping";

/// A seeded order and the quantities booked on its lines.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StorefrontOrder {
    pub(crate) id: String,
    pub(crate) transaction_id: Option<String>,
    lines: Vec<OrderLine>,
}

/// One line of an order: what was ordered and how much of it is
/// delivered, canceled and returned.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OrderLine {
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

impl OrderLine {
    fn new(id: String, name: String, quantity: Decimal, unit_price: Decimal) -> Self {
        OrderLine {
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

impl StorefrontOrder {
    fn line_mut(&mut self, id: &str) -> Option<&mut OrderLine> {
        self.lines.iter_mut().find(|line| line.id == id)
    }

    pub fn load_items(&self) -> Vec<LoadItem> {
        self.lines.iter().map(OrderLine::to_load_item).collect()
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
                .map(OrderLine::checked_total)
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
pub enum LineOperation {
    Deliver,
    Cancel,
    Return,
}

impl LineOperation {
    fn open(self, line: &OrderLine) -> Decimal {
        match self {
            LineOperation::Deliver | LineOperation::Cancel => line.open_for_delivery_or_cancel(),
            LineOperation::Return => line.open_for_return(),
        }
    }

    fn book(self, line: &mut OrderLine, quantity: Decimal) {
        match self {
            LineOperation::Deliver => line.delivered = amounts::add(line.delivered, quantity),
            LineOperation::Cancel => line.canceled = amounts::add(line.canceled, quantity),
            LineOperation::Return => line.returned = amounts::add(line.returned, quantity),
        }
    }

    fn noun(self) -> &'static str {
        match self {
            LineOperation::Deliver => "delivery",
            LineOperation::Cancel => "cancellation",
            LineOperation::Return => "refund",
        }
    }

    fn done(self) -> &'static str {
        match self {
            LineOperation::Deliver => "Delivery reported.",
            LineOperation::Cancel => "Items canceled.",
            LineOperation::Return => "Return reported.",
        }
    }
}

/// The result of an operation on a known order.
pub enum OperationOutcome {
    /// Booked; the module's message.
    Done(&'static str),
    /// The payment service refused.
    Refused(String),
    /// The request is invalid.
    Invalid(String),
}

/// The module's answer when no line is left to send.
pub const NO_ITEMS: &str = "No items given.";

/// Checks every requested quantity against the open one, then books them
/// all, so a refused request changes nothing.
pub fn apply(
    order: &mut StorefrontOrder,
    operation: LineOperation,
    items: &[OrderItemQuantity],
) -> OperationOutcome {
    let requested = requested_quantities(items);
    if requested.is_empty() {
        return OperationOutcome::Invalid(NO_ITEMS.to_owned());
    }
    if let Err(message) = check_open(order, operation, &requested) {
        return OperationOutcome::Refused(format!(
            "The payment service refused the {}: {message}",
            operation.noun()
        ));
    }
    for (id, quantity) in requested {
        if let Some(line) = order.line_mut(&id) {
            operation.book(line, quantity);
        }
    }
    OperationOutcome::Done(operation.done())
}

/// The requested quantity per line id, as the module reads the items: keyed
/// by id, a repeated id keeps its last quantity; then every line whose
/// quantity is absent, 0 or less is dropped. An item without an id is keyed
/// by the empty id, which no line has.
fn requested_quantities(items: &[OrderItemQuantity]) -> BTreeMap<String, Decimal> {
    let mut requested = BTreeMap::new();
    for item in items {
        let id = item.id.clone().unwrap_or_default();
        // `insert` replaces: the last quantity of an id is the one kept.
        requested.insert(id, item.quantity.unwrap_or(Decimal::ZERO));
    }
    requested.retain(|_, quantity| *quantity > Decimal::ZERO);
    requested
}

fn check_open(
    order: &mut StorefrontOrder,
    operation: LineOperation,
    requested: &BTreeMap<String, Decimal>,
) -> Result<(), String> {
    for (id, quantity) in requested {
        if id.is_empty() {
            return Err("an item without an id names no order line".to_owned());
        }
        let line = order.line_mut(id).ok_or(format!("unknown item {id}"))?;
        let open = operation.open(line);
        if *quantity > open {
            return Err(format!("{quantity} of item {id} requested, {open} open"));
        }
    }
    Ok(())
}

/// Appends the debit or credit of `request` as a settled line, if the
/// order has a shipped and unreturned item and a credit stays within the
/// captured balance (see the module docs).
pub fn add_item(order: &mut StorefrontOrder, request: AddItemRequest) -> OperationOutcome {
    if request.gross_amount.is_zero() {
        return OperationOutcome::Invalid("grossAmount must not be zero.".to_owned());
    }
    if !order.has_shipped_unreturned_item() {
        return OperationOutcome::Invalid(
            "No shipped and not returned item in the order.".to_owned(),
        );
    }
    let credit = -request.gross_amount;
    if credit > order.captured_balance() {
        return OperationOutcome::Refused(format!(
            "The payment service refused the credit: {credit} exceeds the captured balance {}",
            order.captured_balance()
        ));
    }
    let mut line = OrderLine::new(new_id(), request.name, Decimal::ONE, request.gross_amount);
    // Delivered at once: an added debit or credit is settled, never shipped.
    line.delivered = Decimal::ONE;
    line.added = true;
    order.lines.push(line);
    if order.checked_total().is_none() {
        order.lines.pop();
        return OperationOutcome::Invalid(
            "grossAmount takes the order's total past the decimal range.".to_owned(),
        );
    }
    OperationOutcome::Done("Item added.")
}

/// The seed body (see the module documentation).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderSeed {
    order_id: Option<String>,
    pub(crate) transaction_id: Option<String>,
    #[serde(default)]
    items: Vec<OrderSeedItem>,
    shipping: Option<Decimal>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OrderSeedItem {
    id: Option<String>,
    name: Option<String>,
    quantity: Decimal,
    unit_price: Decimal,
}

/// Why a seed is refused.
#[derive(Debug)]
pub enum OrderSeedError {
    /// The seed breaks a rule; the message says which.
    Invalid(String),
    /// The seed's transaction (its id) does not exist.
    UnknownTransaction(String),
    /// An order with this id exists.
    OrderExists(String),
}

impl std::fmt::Display for OrderSeedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OrderSeedError::Invalid(message) => f.write_str(message),
            OrderSeedError::UnknownTransaction(id) => write!(f, "transaction {id} not found"),
            OrderSeedError::OrderExists(id) => write!(f, "order {id} exists"),
        }
    }
}

fn bad_seed(message: impl Into<String>) -> OrderSeedError {
    OrderSeedError::Invalid(message.into())
}

impl OrderSeed {
    /// The order id given, checked against the platform's pattern, or a
    /// new one.
    pub fn order_id(&self) -> Result<String, OrderSeedError> {
        match &self.order_id {
            Some(raw) => Ok(raw
                .parse::<OrderId>()
                .map_err(|error| bad_seed(format!("order_id: {error}")))?
                .to_string()),
            None => Ok(new_id()),
        }
    }

    /// The order's lines, with distinct ids: the seed's items and shipping,
    /// or the first basket of its transaction, whose baskets `baskets_of`
    /// finds by transaction id (`None`: no such transaction).
    pub fn lines(
        &self,
        baskets_of: impl FnOnce(&str) -> Option<Vec<ShopBasket>>,
    ) -> Result<Vec<OrderLine>, OrderSeedError> {
        let lines = match &self.transaction_id {
            Some(transaction_id) => lines_of_transaction(self, transaction_id, baskets_of)?,
            None => lines_of_seed(self)?,
        };
        checked_ids(lines)
    }
}

impl StorefrontOrder {
    /// The order `id` of `lines`, refused when its lines add up past the
    /// decimal range.
    pub fn seeded(
        id: String,
        transaction_id: Option<String>,
        lines: Vec<OrderLine>,
    ) -> Result<StorefrontOrder, OrderSeedError> {
        let order = StorefrontOrder {
            id,
            transaction_id,
            lines,
        };
        if order.checked_total().is_none() {
            return Err(bad_seed(
                "items: the lines' quantity x unit_price add up past the decimal range",
            ));
        }
        Ok(order)
    }
}

fn lines_of_seed(seed: &OrderSeed) -> Result<Vec<OrderLine>, OrderSeedError> {
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
        lines.push(OrderLine::new(id, name, item.quantity, item.unit_price));
    }
    if let Some(shipping) = seed.shipping {
        lines.push(shipping_line(shipping));
    }
    Ok(lines)
}

fn shipping_line(gross: Decimal) -> OrderLine {
    OrderLine::new(
        SHIPPING.to_owned(),
        "Shipping".to_owned(),
        Decimal::ONE,
        gross,
    )
}

fn lines_of_transaction(
    seed: &OrderSeed,
    transaction_id: &str,
    baskets_of: impl FnOnce(&str) -> Option<Vec<ShopBasket>>,
) -> Result<Vec<OrderLine>, OrderSeedError> {
    if !seed.items.is_empty() || seed.shipping.is_some() {
        return Err(bad_seed("give either transaction_id or items and shipping"));
    }
    let baskets = baskets_of(transaction_id)
        .ok_or_else(|| OrderSeedError::UnknownTransaction(transaction_id.to_owned()))?;
    let basket = baskets
        .first()
        .ok_or_else(|| bad_seed("the transaction has no basket"))?;
    Ok(lines_of_basket(basket))
}

/// Items at their discounted gross unit price; shipping summed into one line.
fn lines_of_basket(basket: &ShopBasket) -> Vec<OrderLine> {
    let mut lines: Vec<OrderLine> = basket
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

fn basket_line(name: Option<&str>, quantity: Option<Decimal>, unit_price: Decimal) -> OrderLine {
    let name = name.unwrap_or("Item").to_owned();
    OrderLine::new(new_id(), name, quantity.unwrap_or(Decimal::ONE), unit_price)
}

/// An order needs lines with distinct ids (the 6.x answer is keyed by them).
fn checked_ids(lines: Vec<OrderLine>) -> Result<Vec<OrderLine>, OrderSeedError> {
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
