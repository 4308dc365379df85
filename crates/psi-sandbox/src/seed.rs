//! `psi-sandbox --seed FILE`: transactions and storefront orders to have
//! from the start (see `crates/psi-sandbox/seed.example.json`).
//!
//! ```json
//! {
//!   "transactions": [
//!     {"transaction_id": "12-00000000000000001", "order_data": {...}, "payment_option": "OPEN_INVOICE"}
//!   ],
//!   "storefront_orders": [
//!     {"order_id": "0123456789abcdef0123456789abcdef", "transaction_id": "12-00000000000000001"}
//!   ]
//! }
//! ```
//!
//! Each entry is exactly the body of the control API's call that stores
//! it (`POST /__sandbox/transactions`, `POST /__sandbox/storefront/orders`)
//! and is stored through that call, so a seed is checked like any other;
//! the file's number texts are passed on untouched (no float in between).
//! Every entry names its id, so seeding a `--state` file again on the next
//! start keeps what is there (the 409 of an existing id counts as kept)
//! instead of storing everything twice.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::path::{Path, PathBuf};

/// A seed file, read and checked for its ids, not yet stored.
#[derive(Debug)]
pub struct Seed {
    path: PathBuf,
    transactions: Vec<Box<RawValue>>,
    storefront_orders: Vec<Box<RawValue>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    transactions: Vec<Box<RawValue>>,
    #[serde(default)]
    storefront_orders: Vec<Box<RawValue>>,
}

/// The id field each kind of entry must carry.
#[derive(Deserialize)]
struct TransactionId {
    transaction_id: Option<String>,
}

#[derive(Deserialize)]
struct OrderId {
    order_id: Option<String>,
}

/// How many entries were stored, and how many were there already.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// Newly stored.
    pub stored: usize,
    /// Already there with that id (kept as it was).
    pub kept: usize,
}

/// A seed file that cannot be read or stored: the file, the entry's JSON
/// path and why.
#[derive(Debug)]
pub struct SeedError(String);

impl std::fmt::Display for SeedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SeedError {}

impl Seed {
    /// Reads `path`; refuses a file that is not a seed, or an entry
    /// without its id.
    pub fn read(path: &Path) -> Result<Seed, SeedError> {
        let failed = |why: String| SeedError(format!("--seed: {}: {why}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| failed(e.to_string()))?;
        let file: File = serde_json::from_str(&text).map_err(|e| failed(e.to_string()))?;
        for (index, entry) in file.transactions.iter().enumerate() {
            let id: TransactionId = serde_json::from_str(entry.get())
                .map_err(|e| failed(format!("$.transactions[{index}]: {e}")))?;
            if id.transaction_id.is_none() {
                return Err(failed(format!(
                    "$.transactions[{index}].transaction_id: required in a seed file, so a restart keeps it instead of storing it twice"
                )));
            }
        }
        for (index, entry) in file.storefront_orders.iter().enumerate() {
            let id: OrderId = serde_json::from_str(entry.get())
                .map_err(|e| failed(format!("$.storefront_orders[{index}]: {e}")))?;
            if id.order_id.is_none() {
                return Err(failed(format!(
                    "$.storefront_orders[{index}].order_id: required in a seed file, so a restart keeps it instead of storing it twice"
                )));
            }
        }
        Ok(Seed {
            path: path.to_owned(),
            transactions: file.transactions,
            storefront_orders: file.storefront_orders,
        })
    }

    /// The seed file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stores every entry in the sandbox at `url` through its control API,
    /// transactions first (orders may take their lines from one).
    pub async fn apply(&self, url: &str) -> Result<Report, SeedError> {
        self.apply_with_token(url, None).await
    }

    /// [`Seed::apply`] for a sandbox whose control API needs
    /// `control_token` (`--control-token`).
    pub async fn apply_with_token(
        &self,
        url: &str,
        control_token: Option<&str>,
    ) -> Result<Report, SeedError> {
        self.apply_to(url, control_token, None).await
    }

    /// [`Seed::apply_with_token`] into the tenant `tenant` (the demo tenant
    /// when `None`), which the operator's control token, or a tokenless
    /// call to a sandbox without one, may name.
    pub async fn apply_to(
        &self,
        url: &str,
        control_token: Option<&str>,
        tenant: Option<&str>,
    ) -> Result<Report, SeedError> {
        let http =
            crate::tls::http_client().map_err(|reason| SeedError(format!("--seed: {reason}")))?;
        let mut report = Report::default();
        let kinds = [
            (
                "transactions",
                "/__sandbox/transactions",
                &self.transactions,
            ),
            (
                "storefront_orders",
                "/__sandbox/storefront/orders",
                &self.storefront_orders,
            ),
        ];
        for (kind, path, entries) in kinds {
            for (index, entry) in entries.iter().enumerate() {
                let failed = |why: String| {
                    SeedError(format!(
                        "--seed: {}: $.{kind}[{index}]: {why}",
                        self.path.display()
                    ))
                };
                let mut request = http.post(format!("{url}{path}"));
                if let Some(tenant) = tenant {
                    request = request.query(&[("tenant", tenant)]);
                }
                if let Some(token) = control_token {
                    request = request.bearer_auth(token);
                }
                let response = request
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(entry.get().to_owned())
                    .send()
                    .await
                    .map_err(|e| failed(e.to_string()))?;
                match response.status() {
                    status if status.is_success() => report.stored += 1,
                    reqwest::StatusCode::CONFLICT => report.kept += 1,
                    status => {
                        let answer = response.text().await.unwrap_or_default();
                        return Err(failed(format!("refused with {status}: {answer}")));
                    }
                }
            }
        }
        Ok(report)
    }
}
