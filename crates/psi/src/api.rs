//! The APIs: where each lives and which token audience it takes.

use psi_runtime::{Audience, Environment};

/// One API of the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Api {
    /// Hosted payment page sessions (`{base_url}`).
    PaymentPage,
    /// Pay later status, offers and booking.
    PayLater,
    /// A buyer's bank account.
    BankAccounts,
    /// Order status (payment API 1.8) and invoice files.
    OrderStatus,
    /// Transaction status (payment API 2.0).
    TransactionStatus,
    /// Shop configuration (its own address and audience, as settings).
    ShopConfig,
    /// The storefront platform's order-management module.
    Storefront,
}

impl Api {
    /// Every API, in the order above.
    pub const ALL: [Api; 7] = [
        Api::PaymentPage,
        Api::PayLater,
        Api::BankAccounts,
        Api::OrderStatus,
        Api::TransactionStatus,
        Api::ShopConfig,
        Api::Storefront,
    ];

    /// The name used in traces, as the crate is named (`pay-later`).
    pub fn name(self) -> &'static str {
        match self {
            Api::PaymentPage => "payment-page",
            Api::PayLater => "pay-later",
            Api::BankAccounts => "bank-accounts",
            Api::OrderStatus => "order-status",
            Api::TransactionStatus => "transaction-status",
            Api::ShopConfig => "shop-config",
            Api::Storefront => "storefront",
        }
    }

    /// The token audience, from the specification's Authentication table:
    /// `{api_url}` plus the API's path, `{base_url}` itself for the hosted
    /// payment page, and the platform for the storefront module.
    ///
    /// The table has no row for the shop configuration API: its audience is
    /// the `shop_config_audience` setting and nothing else (`None` without
    /// it). Invoice correspondence files are part of the order status
    /// document and are fetched with the order status token: the
    /// specification names no audience of their own, and the file addresses
    /// come from the invoice webhook (override with
    /// [`ClientBuilder::audience`](crate::ClientBuilder::audience)).
    pub fn audience(self, environment: &Environment) -> Option<Audience> {
        let api = trimmed(&environment.api_url);
        let service = |path: &str| Some(Audience::Service(format!("{api}{path}")));
        match self {
            Api::PaymentPage => Some(Audience::Service(trimmed(&environment.base_url))),
            Api::PayLater => service("/paylater"),
            Api::BankAccounts => service("/shop/consumer/v1"),
            Api::OrderStatus => service("/order/status/v2/transactions"),
            Api::TransactionStatus => service("/transaction/status/v2/transactions"),
            Api::ShopConfig => environment
                .shop_config_audience
                .as_ref()
                .map(|audience| Audience::Service(audience.clone())),
            Api::Storefront => environment
                .platform_url
                .as_ref()
                .map(|url| Audience::Platform(trimmed(url))),
        }
    }

    /// The base URL the generated client puts in front of its paths (the
    /// document's server URL with the environment's addresses). `None` when
    /// the environment lacks the setting: the storefront's `platform_url`,
    /// the shop configuration's `shop_config_url` (the specification does
    /// not state that API's address).
    pub fn base_url(self, environment: &Environment) -> Option<String> {
        let api = trimmed(&environment.api_url);
        match self {
            Api::PaymentPage => Some(trimmed(&environment.base_url)),
            Api::BankAccounts => Some(format!("{api}/shop/consumer/v1")),
            Api::Storefront => environment
                .platform_url
                .as_ref()
                .map(|url| format!("{}/api", trimmed(url))),
            Api::ShopConfig => environment.shop_config_url.as_ref().map(trimmed),
            Api::PayLater | Api::OrderStatus | Api::TransactionStatus => Some(api),
        }
    }
}

/// The address without a trailing slash, as paths are appended to it.
pub(crate) fn trimmed(url: &reqwest::Url) -> String {
    url.as_str().trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audiences_follow_the_specification_table() {
        let environment = Environment::new(
            "https://pp.example.com/",
            "https://api.example.com",
            "https://auth.example.com",
        )
        .unwrap()
        .with_platform_url("https://shop.example.com")
        .unwrap();
        let audience = |api: Api| api.audience(&environment).unwrap().to_string();
        assert_eq!(audience(Api::PaymentPage), "https://pp.example.com");
        assert_eq!(audience(Api::PayLater), "https://api.example.com/paylater");
        assert_eq!(
            audience(Api::BankAccounts),
            "https://api.example.com/shop/consumer/v1"
        );
        assert_eq!(
            audience(Api::OrderStatus),
            "https://api.example.com/order/status/v2/transactions"
        );
        assert_eq!(
            audience(Api::TransactionStatus),
            "https://api.example.com/transaction/status/v2/transactions"
        );
        assert_eq!(
            Api::Storefront.base_url(&environment).unwrap(),
            "https://shop.example.com/api"
        );
    }

    #[test]
    fn shop_configuration_has_no_address_or_audience_without_its_settings() {
        let environment = Environment::new(
            "https://pp.example.com",
            "https://api.example.com",
            "https://auth.example.com",
        )
        .unwrap();
        assert_eq!(Api::ShopConfig.base_url(&environment), None);
        assert_eq!(Api::ShopConfig.audience(&environment), None);

        let environment = environment
            .with_shop_config("https://shops.example.com/base/", "urn:shops")
            .unwrap();
        assert_eq!(
            Api::ShopConfig.base_url(&environment).unwrap(),
            "https://shops.example.com/base"
        );
        assert_eq!(
            Api::ShopConfig.audience(&environment).unwrap().to_string(),
            "urn:shops"
        );
    }
}
