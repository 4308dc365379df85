//! Everything the sandbox remembers: in memory, and with `--state PATH` also
//! in a SQLite file ([`store`]) that a restarted sandbox loads back.
//!
//! # How every change reaches the file before its answer
//!
//! Each tenant ([`tenants`]) has its own [`Data`]. The collections of
//! [`Data`] are [`Table`](table::Table)s and [`Log`](table::Log)s, which note the
//! rows a handler changes. Handlers lock the data ([`Tenant::data`]) briefly
//! and never across an await. After the handler, the request's save step
//! (`http/save.rs`) calls [`Tenant::save`]: under the data lock the changed
//! rows are serialised and handed to the state file's writer thread
//! ([`store`]), which writes each job in one SQLite transaction, in the
//! order handed over; the answer leaves once its job is written. So every
//! acknowledged change is committed before its answer leaves, no handler
//! needs to know about the file, and no async worker waits on SQLite. A
//! failed write stops the sandbox instead of answering.
//!
//! Reads write nothing and lookups never touch SQLite: the in-memory form
//! stays the one served, and a read that finds the writer idle does not
//! reach it. Without a state file nothing is tracked at all.
//!
//! A tenant's record (credentials, clock offset) is handed to the writer
//! when it is created, its clock's offset by [`Clock::advance`] itself,
//! and the token-signing key is written once per file. Armed faults are
//! not kept.

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
