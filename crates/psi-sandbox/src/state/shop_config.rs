//! The shop configurations kept by the sandbox.

use super::store::tables;
use super::table::Table;
use psi_shop_config::types::ShopConfiguration;

/// The stored configurations, by partner profile and shop.
#[derive(Debug, Default)]
pub struct ShopConfigState {
    pub(crate) configurations: Table<(String, String), ShopConfiguration>,
}

persisted_as_table!(ShopConfigState, configurations, tables::SHOP_CONFIGURATIONS);

impl ShopConfigState {
    pub fn get(&self, partner_profile_id: &str, shop_id: &str) -> Option<&ShopConfiguration> {
        self.configurations
            .get(&(partner_profile_id.to_owned(), shop_id.to_owned()))
    }

    /// The configuration of a shop under whichever partner registered it
    /// (a transaction's basket names the shop, not the partner); of two
    /// partners, the first in order, whatever the table's order.
    pub fn of_shop(&self, shop_id: &str) -> Option<&ShopConfiguration> {
        self.configurations
            .iter()
            .filter(|((_, shop), _)| shop == shop_id)
            .min_by(|((a, _), _), ((b, _), _)| a.cmp(b))
            .map(|(_, configuration)| configuration)
    }
}
