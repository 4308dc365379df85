//! A transaction's session request as it is kept: its compact order part
//! ([`super::compact`]) and the deflated rest, and the parts of the order
//! the answers about a transaction read.

use super::{compact, inflate};
use serde::{Deserialize, Serialize};

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
/// Parsed, a request is many small allocations; deflated, its JSON is a
/// fraction of that, which keeps 100,000 transactions under 100 MB
/// (BENCHMARKS.md, Current figures). A lookup decodes the compact part
/// borrowing its strings ([`StoredRequest::order`]) rather than inflating
/// and parsing the whole order; only readers of the whole request inflate
/// ([`StoredRequest::json`]).
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
            extra_members: Default::default(),
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

/// In the state file: the whole request as deflated JSON in base64; the
/// two parts are the in-memory form only.
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
