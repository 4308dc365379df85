//! The storefront orders kept by the sandbox.

use super::store::tables;
use super::table::Table;
use crate::models::storefront::StorefrontOrder;

/// The seeded orders, by order id.
#[derive(Debug, Default)]
pub struct StorefrontState {
    pub(crate) orders: Table<String, StorefrontOrder>,
}

persisted_as_table!(StorefrontState, orders, tables::STOREFRONT_ORDERS);
