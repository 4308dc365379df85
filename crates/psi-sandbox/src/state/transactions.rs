//! Transactions in their compact in-memory form: 100,000 of them stay
//! under 100 MB (BENCHMARKS.md), also when a state file keeps them.

use super::{compact, inflate, tables, Batch, Loader, Persisted, Table};
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

/// Days from a transaction to its invoice's due date: the sandbox's own
/// choice (the specification gives no payment term).
pub const PAYMENT_TERM_DAYS: u64 = 14;

/// A transaction, created when a buyer completes a session. The pay later,
/// order status, transaction status and invoice emulations read it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Transaction {
    /// Shaped like `12-34567890123456789`.
    pub id: TransactionId,
    /// The session's id, a UUID kept inline.
    pub session_id: uuid::Uuid,
    pub created: DateTime<FixedOffset>,
    /// The session request the buyer completed (order data and URLs).
    pub request: StoredRequest,
    /// What the buyer chose on the hosted page, e.g. `OPEN_INVOICE`.
    #[serde(deserialize_with = "known_label")]
    pub payment_option: Label,
    /// E.g. `BANK_TRANSFER`, `DIRECT_DEBIT`.
    #[serde(deserialize_with = "known_label")]
    pub transfer_type: Label,
    /// The invoice's correspondence id (for the correspondence retrieval).
    /// A UUID, kept inline: 16 bytes instead of a 36-character string.
    pub correspondence_id: uuid::Uuid,
    /// Due date of the invoice (creation + 14 days), moved by pay later.
    pub due_date: chrono::NaiveDate,
}

impl Transaction {
    /// The parts of the stored order that answers about the transaction
    /// read: a handler that needs several of them reads them once with this.
    pub fn order_summary(&self) -> OrderSummary {
        self.request.summary()
    }

    /// The order's currency code (`EUR` when it names none), from the
    /// stored order's compact form: nothing inflated or parsed as JSON.
    pub fn currency(&self) -> String {
        self.request.order().currency().into_owned()
    }

    pub fn partner_transaction_id(&self) -> Option<String> {
        self.order_summary().partner_transaction_id
    }

    pub fn baskets(&self) -> Vec<psi_payment_page::types::ShopBasket> {
        self.order_summary().shop_baskets
    }
}

/// The parts of a stored order that the answers about a transaction read
/// (status lookups, pay later, totals), as the order has them. Reading only
/// these skips the buyer and the delivery, whose shapes (one of several
/// delivery kinds, dates of birth) cost most of reading a whole order.
#[derive(Debug, Default, Deserialize)]
pub struct OrderSummary {
    pub partner_transaction_id: Option<String>,
    /// The currency code, checked when the order was stored; read by the
    /// tests' reference for the compact form's currency.
    #[cfg_attr(not(test), allow(dead_code))]
    pub currency: Option<String>,
    #[serde(default)]
    pub shop_baskets: Vec<psi_payment_page::types::ShopBasket>,
}

/// The order's currency code, `EUR` when it names none, read through the
/// generated types: the reference the tests hold the compact form's
/// [`compact::Order::currency`] to (the handlers use that one).
#[cfg(test)]
pub fn currency_of(order: &OrderSummary) -> String {
    order.currency.clone().unwrap_or_else(|| "EUR".to_owned())
}

/// The order's gross amount: its baskets' gross amounts added up, read
/// through the generated types: the reference the tests hold the compact
/// form's [`compact::Order::gross_total`] to (the handlers use that one).
#[cfg(test)]
pub fn gross_total_of(order: &OrderSummary) -> psi_runtime::Decimal {
    order
        .shop_baskets
        .iter()
        .filter_map(|basket| basket.gross_amount)
        .sum()
}

/// A session request kept in two parts: the order members lookups read in
/// a compact binary form ([`compact::Order`], postcard-encoded, every value
/// its exact JSON text), and everything else (the buyer, the delivery, ...)
/// as deflated JSON.
///
/// Parsed, the provider's documented request is about 3.4 KB of small
/// allocations; as compact JSON 1.7 KB, deflated 0.7 KB, which is what
/// keeps 100,000 transactions under 100 MB (BENCHMARKS.md). A lookup then
/// inflated and parsed the whole order for its baskets; now it decodes the
/// compact part borrowing its strings ([`StoredRequest::order`]), and only
/// readers of the whole request inflate ([`StoredRequest::json`]).
///
/// One allocation holds both parts: the compact part's length (4 bytes,
/// little endian), the compact part, the deflated rest. It is shared by
/// reference count, so a handler takes it out of the locked data without a
/// copy and reads it after the lock is released.
#[derive(Clone)]
pub struct StoredRequest(std::sync::Arc<[u8]>);

impl StoredRequest {
    /// Keeps the order data; the URLs served the session and are not kept.
    pub fn new(request: &psi_payment_page::types::SessionRequest) -> Self {
        let order_only = psi_payment_page::types::SessionRequest {
            order_data: request.order_data.clone(),
            url_data: None,
        };
        let json = serde_json::to_string(&order_only).expect("a session request serialises");
        Self::from_json(&json).expect("the compact form has a place for every schema field")
    }

    /// Splits `json` (see [`compact::split`]).
    fn from_json(json: &str) -> Result<Self, String> {
        let (order, rest) = compact::split(json)?;
        let order = postcard::to_allocvec(&order).map_err(|e| e.to_string())?;
        let rest = miniz_oxide::deflate::compress_to_vec(rest.as_bytes(), 10);
        let length = u32::try_from(order.len()).map_err(|e| e.to_string())?;
        let mut bytes = Vec::with_capacity(4 + order.len() + rest.len());
        bytes.extend_from_slice(&length.to_le_bytes());
        bytes.extend_from_slice(&order);
        bytes.extend_from_slice(&rest);
        Ok(Self(bytes.into()))
    }

    /// The compact part and the deflated rest.
    fn parts(&self) -> (&[u8], &[u8]) {
        let (length, bytes) = self.0.split_at(4);
        let length = u32::from_le_bytes(length.try_into().expect("4 bytes")) as usize;
        bytes.split_at(length)
    }

    /// The order members lookups read, borrowing their text from here: no
    /// inflating, no JSON parsing, a few small vectors allocated.
    pub fn order(&self) -> compact::Order<'_> {
        compact::decode(self.parts().0).expect("the sandbox wrote this")
    }

    /// The whole request's JSON, as the sandbox stored it: the one way to
    /// the buyer, the delivery and the rest (see [`StoredRequest::get`]).
    pub fn json(&self) -> String {
        let (_, rest) = self.parts();
        let order = self.order();
        inflate::with_inflated(rest, |rest| {
            let rest = std::str::from_utf8(rest).map_err(|e| e.to_string())?;
            compact::join(&order, rest)
        })
        .expect("the sandbox deflated this")
        .expect("the sandbox split this")
    }

    /// The request, parsed again.
    pub fn get(&self) -> psi_payment_page::types::SessionRequest {
        serde_json::from_str(&self.json()).expect("the sandbox stored a valid request")
    }

    /// The parts of the order answers read (see [`OrderSummary`]), from
    /// the compact part alone.
    pub fn summary(&self) -> OrderSummary {
        serde_json::from_str(&self.order().to_json()).expect("the sandbox stored a valid order")
    }

    /// Bytes kept.
    pub fn stored_len(&self) -> usize {
        self.0.len()
    }
}

/// In the state file: the whole request as deflated JSON in base64, as
/// before the request was kept in two parts (the file format is unchanged).
impl Serialize for StoredRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use base64::Engine;
        let deflated = miniz_oxide::deflate::compress_to_vec(self.json().as_bytes(), 10);
        serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(deflated))
    }
}

impl<'de> Deserialize<'de> for StoredRequest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use base64::Engine;
        let text = String::deserialize(deserializer)?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(serde::de::Error::custom)?;
        let json = miniz_oxide::inflate::decompress_to_vec(&bytes)
            .map_err(|e| serde::de::Error::custom(format!("request: not deflated data: {e}")))?;
        // Checked here, so the readers can keep trusting it; kept as the
        // generated types write it, whatever form the file had.
        let request = serde_json::from_slice::<psi_payment_page::types::SessionRequest>(&json)
            .map_err(|e| serde::de::Error::custom(format!("request: {e}")))?;
        Ok(Self::new(&request))
    }
}

impl std::fmt::Debug for StoredRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (order, rest) = self.parts();
        write!(
            f,
            "StoredRequest({} bytes compact, {} bytes deflated)",
            order.len(),
            rest.len()
        )
    }
}

/// A transaction id, `12-` and 17 digits, kept as the number the digits
/// spell: 8 bytes inline instead of a heap string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TransactionId(u64);

impl TransactionId {
    const LIMIT: u64 = 100_000_000_000_000_000;

    /// A fresh id shaped like the provider's.
    pub fn random() -> Self {
        Self(fastrand::u64(..Self::LIMIT))
    }

    /// The id whose 17 digits spell `number` (below 10^17).
    pub fn from_number(number: u64) -> Self {
        Self(number % Self::LIMIT)
    }

    /// `12-34567890123456789`; anything else is no id of this service.
    pub fn parse(id: &str) -> Option<Self> {
        let digits = id.strip_prefix("12-")?;
        if digits.len() != 17 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok().map(Self)
    }
}

impl std::fmt::Display for TransactionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "12-{:017}", self.0)
    }
}

impl serde::Serialize for TransactionId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TransactionId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not 12- and 17 digits")))
    }
}

/// The stored transactions, by id; boxed so the table holds 16 bytes per
/// transaction rather than the whole record.
#[derive(Default)]
pub struct Transactions(Table<TransactionId, Box<Transaction>>);

impl Transactions {
    pub fn get(&self, id: &str) -> Option<&Transaction> {
        self.0.get(&TransactionId::parse(id)?).map(|t| &**t)
    }

    /// The transaction, marked changed.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Transaction> {
        self.0.get_mut(&TransactionId::parse(id)?).map(|t| &mut **t)
    }

    pub fn insert(&mut self, transaction: Transaction) {
        self.0.insert(transaction.id, Box::new(transaction));
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl std::ops::Index<&str> for Transactions {
    type Output = Transaction;
    fn index(&self, id: &str) -> &Transaction {
        self.get(id).expect("a stored transaction")
    }
}

impl std::ops::Index<&String> for Transactions {
    type Output = Transaction;
    fn index(&self, id: &String) -> &Transaction {
        &self[id.as_str()]
    }
}

impl Persisted for Transactions {
    fn has_changes(&self) -> bool {
        self.0.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        batch.table(tables::TRANSACTIONS, &mut self.0)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        loader.table(tables::TRANSACTIONS).map(Self)
    }
}

/// A short label such as a payment option: the documented values cost no
/// allocation, anything else the buyer sends is kept as given.
pub type Label = std::borrow::Cow<'static, str>;

/// The documented payment options and transfer types (interface.md).
const KNOWN_LABELS: &[&str] = &[
    "OPEN_INVOICE",
    "PREPAYMENT",
    "INSTALMENT",
    "PAY_NOW",
    "BANK_TRANSFER",
    "DIRECT_DEBIT",
    "SEPA_DIRECT_DEBIT",
];

pub fn label(value: String) -> Label {
    match KNOWN_LABELS.iter().find(|known| **known == value) {
        Some(known) => Label::Borrowed(known),
        None => Label::Owned(value),
    }
}

/// A label read back from the state file, allocation-free when documented.
fn known_label<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Label, D::Error> {
    String::deserialize(deserializer).map(label)
}

/// A completed transaction of `template` numbered `index`, its order with
/// its own references (as a merchant's would be: nothing can be shared
/// between them), for [`crate::Sandbox::seed_transactions`].
pub fn demo_transaction(
    index: usize,
    template: &psi_payment_page::types::SessionRequest,
    now: DateTime<FixedOffset>,
) -> Transaction {
    let mut request = template.clone();
    if let Some(order) = request.order_data.as_mut() {
        order.partner_transaction_id = Some(format!("order-{index}"));
        for basket in &mut order.shop_baskets {
            basket.shop_transaction_id = Some(format!("SO-{index}"));
        }
    }
    Transaction {
        id: TransactionId::from_number(index as u64),
        session_id: uuid::Uuid::new_v4(),
        created: now,
        request: StoredRequest::new(&request),
        payment_option: label("OPEN_INVOICE".to_owned()),
        transfer_type: label("BANK_TRANSFER".to_owned()),
        correspondence_id: uuid::Uuid::new_v4(),
        due_date: now.date_naive() + chrono::Days::new(14),
    }
}
