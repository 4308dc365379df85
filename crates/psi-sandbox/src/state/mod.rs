//! Everything the sandbox remembers: in memory, and with `--state PATH` also
//! in a SQLite file ([`store`]) that a restarted sandbox loads back.
//!
//! # How every change reaches the file before its answer
//!
//! Each tenant ([`tenants`]) has its own [`Data`]. The collections of
//! [`Data`] are [`Table`](table::Table)s and [`Log`](table::Log)s, which note the
//! rows a handler changes. [`Tenant::data`] hands out the data locked in a
//! [`DataGuard`]; when the guard is dropped and something changed, it
//! writes the changed rows in one SQLite transaction while the lock is
//! still held, then releases the lock. Handlers drop the guard before they
//! answer (it cannot be held across an await: it is not `Send`), so every
//! acknowledged change is committed before its answer leaves, and no
//! handler needs to know about the file. A failed write stops the sandbox
//! ([`store::Store::fail`]) instead of answering.
//!
//! Reads write nothing and lookups never touch SQLite: the in-memory form
//! stays the one served. Without a state file nothing is tracked at all.
//!
//! A tenant's record (credentials, clock offset) is written when it is
//! created, its clock's offset by [`Clock::advance`] itself, and the
//! token-signing key once per file. Armed faults are not kept.

/// [`store::Persisted`] for an API's state that is one [`table::Table`]:
/// `persisted_as_table!(PayLaterState, bookings, tables::PAY_LATER_BOOKINGS)`
/// keeps the field `bookings` in that SQLite table.
macro_rules! persisted_as_table {
    ($state:ty, $field:ident, $table:expr) => {
        impl super::store::Persisted for $state {
            fn has_changes(&self) -> bool {
                self.$field.has_changes()
            }

            fn save(&mut self, batch: &super::store::Batch) -> rusqlite::Result<()> {
                batch.table($table, &mut self.$field)
            }

            fn load(loader: &super::store::Loader) -> Result<Self, String> {
                Ok(Self {
                    $field: loader.table($table)?,
                })
            }
        }
    };
}

mod bank_accounts;
pub mod clock;
pub mod journal;
mod pay_later;
pub mod payment_page;
mod shop_config;
pub mod store;
mod storefront;
mod table;
pub mod tenants;
mod transactions;
mod webhook_subscriptions;

pub use bank_accounts::BankAccountsState;
pub use clock::Clock;
pub use pay_later::PayLaterState;
pub use shop_config::ShopConfigState;
pub use store::{Batch, Loader, Persisted};
pub use storefront::StorefrontState;
pub use tenants::{Tenant, Tenants};
pub use transactions::*;
pub use webhook_subscriptions::WebhookSubscriptionsState;

use crate::auth::control_door::ControlDoor;
use crate::auth::{Keys, Tokens};
use axum::extract::FromRef;
use std::sync::Arc;

/// The handlers' shared state.
pub type AppState = Arc<Shared>;

pub struct Shared {
    /// `http://127.0.0.1:<port>`: base, api, auth and platform address at once.
    pub url: String,
    /// Every merchant served, each with its own data, faults, journal and
    /// clock.
    pub tenants: Arc<Tenants>,
    /// Issues and checks access tokens.
    pub tokens: Tokens,
    /// Signs session and invoice webhooks (`--webhook-secret`).
    pub webhook_secret: String,
    /// The caps on what requests can make the sandbox keep.
    pub limits: crate::settings::Limits,
    /// The hosts webhooks may go to; empty: any (`--webhook-allow`).
    webhook_allow: Vec<String>,
    /// Where the sandbox reaches itself (loopback when it listens on every
    /// interface).
    pub local_url: String,
    /// Stored on start and on every reset (`--seed`).
    pub seed: Option<Arc<crate::seed::Seed>>,
    /// What a control call must show ([`crate::auth::control_door`]).
    pub control_door: ControlDoor,
    /// For webhook deliveries.
    pub http: reqwest::Client,
    /// Wakes the webhook scheduler: a delivery was queued or attempted, or
    /// the clock moved (`notify_one` keeps the wake-up for a scheduler not
    /// waiting yet, so none is lost).
    pub webhook_wake: Arc<tokio::sync::Notify>,
    /// The hand-emulated APIs' documented examples (`Prefer: code=…`).
    pub preferred: Arc<crate::examples::Preferred>,
    /// The documents served from their examples.
    pub examples: crate::examples::Served,
}

impl Shared {
    /// The state `settings` ask for: empty, or loaded from the state file.
    /// Fails only when `settings.state` names a file that cannot be used.
    pub fn new(
        url: String,
        local_url: String,
        settings: &crate::settings::Settings,
    ) -> Result<Self, crate::settings::StartError> {
        let examples = crate::examples::Served::compile(&url, &settings.documents)
            .map_err(|(name, reason)| crate::settings::StartError::Document { name, reason })?;
        let preferred = crate::examples::Preferred::compile(&url)
            .map_err(|(name, reason)| crate::settings::StartError::Document { name, reason })?;
        let (loaded, keys, store) = match &settings.state {
            None => (Vec::new(), Keys::random(), None),
            Some(path) => {
                let opened = store::open(path)?;
                let keys = Keys::from_secret(&opened.signing_key);
                (opened.tenants, keys, Some(Arc::new(opened.store)))
            }
        };
        let tenant_error = |error: tenants::TenantError| crate::settings::StartError::Tenants {
            reason: error.to_string(),
        };
        let tenants = Arc::new(
            Tenants::new(loaded, settings.limits.max_tenants, store).map_err(tenant_error)?,
        );
        for declared in &settings.tenants {
            tenants
                .declare(declared.tenant.clone(), declared.credentials())
                .map_err(|error| crate::settings::StartError::Tenants {
                    reason: format!("--tenants: tenant {}: {error}", declared.tenant),
                })?;
        }
        // Tokens are signed and checked through jsonwebtoken: give it its provider.
        crate::auth::jwt_hs256::install();
        let tokens = Tokens::new(&url, keys, settings.token_lifetime);
        Ok(Self {
            tenants: tenants.clone(),
            tokens,
            webhook_secret: settings.webhook_secret.clone(),
            local_url,
            seed: settings.seed.clone(),
            webhook_allow: settings.webhook_allow.clone(),
            limits: settings.limits,
            control_door: ControlDoor::new(&url, settings.control_token.clone(), tenants),
            http: crate::tls::http_client()
                .map_err(|reason| crate::settings::StartError::Tls { reason })?,
            webhook_wake: Arc::new(tokio::sync::Notify::new()),
            examples,
            preferred: Arc::new(preferred),
            url,
        })
    }

    /// `None` when a notification may be sent to `url`; why not otherwise
    /// (its host is not on the `--webhook-allow` list).
    pub fn webhook_refusal(&self, url: &str) -> Option<String> {
        if self.webhook_allow.is_empty() {
            return None;
        }
        let host = reqwest::Url::parse(url).ok().and_then(|url| {
            url.host_str()
                .map(|host| host.trim_end_matches('.').to_ascii_lowercase())
        });
        match host {
            Some(host) if self.webhook_allow.contains(&host) => None,
            _ => Some(format!(
                "its host is not one webhooks may be sent to (--webhook-allow: {})",
                self.webhook_allow.join(", ")
            )),
        }
    }
}

impl FromRef<AppState> for Tokens {
    fn from_ref(state: &AppState) -> Tokens {
        state.tokens.clone()
    }
}

impl FromRef<AppState> for ControlDoor {
    fn from_ref(state: &AppState) -> ControlDoor {
        state.control_door.clone()
    }
}

/// State of every API; each module owns its part.
#[derive(Default)]
pub struct Data {
    pub transactions: Transactions,
    pub payment_page: payment_page::PaymentPageState,
    pub pay_later: PayLaterState,
    pub bank_accounts: BankAccountsState,
    pub shop_config: ShopConfigState,
    pub storefront: StorefrontState,
    pub webhook_subscriptions: WebhookSubscriptionsState,
}

impl Persisted for Data {
    fn has_changes(&self) -> bool {
        self.transactions.has_changes()
            || self.payment_page.has_changes()
            || self.pay_later.has_changes()
            || self.bank_accounts.has_changes()
            || self.shop_config.has_changes()
            || self.storefront.has_changes()
            || self.webhook_subscriptions.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        self.transactions.save(batch)?;
        self.payment_page.save(batch)?;
        self.pay_later.save(batch)?;
        self.bank_accounts.save(batch)?;
        self.shop_config.save(batch)?;
        self.storefront.save(batch)?;
        self.webhook_subscriptions.save(batch)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        Ok(Self {
            transactions: Transactions::load(loader)?,
            payment_page: payment_page::PaymentPageState::load(loader)?,
            pay_later: PayLaterState::load(loader)?,
            bank_accounts: BankAccountsState::load(loader)?,
            shop_config: ShopConfigState::load(loader)?,
            storefront: StorefrontState::load(loader)?,
            webhook_subscriptions: WebhookSubscriptionsState::load(loader)?,
        })
    }
}

#[cfg(test)]
mod tests;
