//! A transaction, created when a buyer completes a session, in its compact
//! in-memory form ([`StoredRequest`]): 100,000 of them stay under 100 MB,
//! also when a state file keeps them.

pub mod compact;
mod inflate;
pub mod stored_request;

pub use stored_request::{OrderSummary, StoredRequest};

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
