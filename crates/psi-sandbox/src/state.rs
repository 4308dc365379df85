//! Everything the sandbox remembers, in memory.

use crate::apis;
use crate::auth::Keys;
use crate::clock::Clock;
use crate::faults::Fault;
use chrono::{DateTime, FixedOffset};
use psi::Api;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The handlers' shared state.
pub type AppState = Arc<Shared>;

pub struct Shared {
    /// `http://127.0.0.1:<port>`: base, api, auth and platform address at once.
    pub url: String,
    pub clock: Clock,
    pub keys: Keys,
    pub token_lifetime: Duration,
    pub faults: Mutex<Vec<Fault>>,
    pub data: Mutex<Data>,
    /// For webhook deliveries.
    pub http: reqwest::Client,
}

impl Shared {
    pub fn new(url: String, token_lifetime: Duration) -> Self {
        Self {
            url,
            clock: Clock::default(),
            keys: Keys::random(),
            token_lifetime,
            faults: Mutex::new(Vec::new()),
            data: Mutex::new(Data::default()),
            http: reqwest::Client::new(),
        }
    }

    /// The sandbox's environment: every address is the sandbox itself.
    pub fn environment(&self) -> psi::Environment {
        psi::Environment::new(&self.url, &self.url, &self.url)
            .and_then(|e| e.with_platform_url(&self.url))
            .expect("the sandbox URL is an absolute http URL")
    }

    /// The audience a token for `api` must carry (the specification's table).
    pub fn audience_of(&self, api: Api) -> String {
        api.audience(&self.environment())
            .map(|a| a.to_string())
            .unwrap_or_default()
    }

    /// Every audience the token server issues tokens for: the APIs of the
    /// table, including those this sandbox does not serve.
    pub fn audiences(&self) -> Vec<String> {
        let api = self.url.trim_end_matches('/');
        let mut all: Vec<String> = Api::ALL
            .iter()
            .filter(|a| **a != Api::Storefront)
            .map(|a| self.audience_of(*a))
            .collect();
        for path in [
            "/transaction/management",
            "/dispute/management",
            "/webhook/management",
        ] {
            all.push(format!("{api}{path}"));
        }
        all
    }

    /// The data, locked. Handlers hold it briefly and never across an await.
    pub fn data(&self) -> MutexGuard<'_, Data> {
        self.data.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// State of every API; each module owns its part.
#[derive(Default)]
pub struct Data {
    pub transactions: std::collections::HashMap<String, Transaction>,
    pub payment_page: apis::payment_page::State,
    pub pay_later: apis::pay_later::State,
    pub bank_accounts: apis::bank_accounts::State,
    pub shop_config: apis::shop_config::State,
    pub storefront: apis::storefront::State,
}

/// A transaction, created when a buyer completes a session. The pay later,
/// order status, transaction status and invoice emulations read it.
#[derive(Debug, Clone)]
pub struct Transaction {
    /// Shaped like `12-34567890123456789`.
    pub id: String,
    pub session_id: String,
    pub created: DateTime<FixedOffset>,
    /// The session request the buyer completed (order data and URLs).
    pub request: psi_payment_page::types::SessionRequest,
    /// What the buyer chose on the hosted page, e.g. `OPEN_INVOICE`.
    pub payment_option: String,
    /// E.g. `BANK_TRANSFER`, `DIRECT_DEBIT`.
    pub transfer_type: String,
    /// The invoice's correspondence id (for the correspondence retrieval).
    pub correspondence_id: String,
    /// Due date of the invoice (creation + 14 days), moved by pay later.
    pub due_date: chrono::NaiveDate,
}

impl Transaction {
    pub fn currency(&self) -> String {
        self.request
            .order_data
            .as_ref()
            .and_then(|o| o.currency.as_ref())
            .map(|c| c.to_string())
            .unwrap_or_else(|| "EUR".to_owned())
    }

    pub fn partner_transaction_id(&self) -> Option<String> {
        self.request
            .order_data
            .as_ref()
            .and_then(|o| o.partner_transaction_id.clone())
    }

    pub fn baskets(&self) -> &[psi_payment_page::types::ShopBasket] {
        self.request
            .order_data
            .as_ref()
            .map_or(&[], |o| o.shop_baskets.as_slice())
    }
}

/// A fresh transaction id shaped like the provider's: `12-` and 17 digits.
pub fn new_transaction_id() -> String {
    let digits: u64 = rand::random::<u64>() % 100_000_000_000_000_000;
    format!("12-{digits:017}")
}
