//! The storefront orders kept by the sandbox.

use super::store::{tables, Batch, Loader};
use super::table::Table;
use super::Persisted;
use crate::models::storefront::StorefrontOrder;

/// The seeded orders, by order id.
#[derive(Debug, Default)]
pub struct StorefrontState {
    pub(crate) orders: Table<String, StorefrontOrder>,
}

impl Persisted for StorefrontState {
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
