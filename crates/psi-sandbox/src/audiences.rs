//! The sandbox's own addresses and token audience table, written from the
//! specification's Authentication table (and not taken from the client, so
//! a misreading on either side shows up as a refused call).
//!
//! With the sandbox URL `U` = `http://127.0.0.1:<port>`:
//!
//! | API | audience |
//! |---|---|
//! | hosted payment page | `U` itself (`{base_url}`) |
//! | pay later | `U/paylater` |
//! | bank account management | `U/shop/consumer/v1` |
//! | order status (payment API 1.8) | `U/order/status/v2/transactions` |
//! | invoice correspondence retrieval | the order status audience (see below) |
//! | transaction status (payment API 2.0) | `U/transaction/status/v2/transactions` |
//! | shop configuration | `U/shop-config` (sandbox choice, see below) |
//! | storefront platform | the platform's own token endpoint, audience `platform` |
//!
//! The table also lists the payment API (`/transaction/management`), the
//! dispute API (`/dispute/management`) and webhook subscriptions
//! (`/webhook/management`): the token server issues tokens for them though
//! the sandbox serves none of their operations.
//!
//! Choices the specification leaves open:
//! - The invoice correspondence files (`/api/order/{id}/correspondences/...`)
//!   belong to the order status document (payment API 1.8) and the table
//!   names no audience of their own, so they take the order status token.
//! - The specification gives no address and no audience for the shop
//!   configuration API. The sandbox serves it under its own base
//!   `U/shop-config` (the PUT is
//!   `U/shop-config/v2/partners/{partner_profile_id}/shops/{shop_id}`) and
//!   takes that base as its audience; both are printed on startup
//!   (`PSI_SHOP_CONFIG_URL`, `PSI_SHOP_CONFIG_AUDIENCE`) and answered by
//!   `GET /__sandbox`.

use serde::Serialize;

/// Where the sandbox serves the shop configuration API, below its URL.
pub const SHOP_CONFIG_PREFIX: &str = "/shop-config";

/// The audience of the storefront platform's own tokens.
pub const PLATFORM_AUDIENCE: &str = "platform";

/// An API the sandbox checks tokens for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// Hosted payment page.
    PaymentPage,
    /// Pay later.
    PayLater,
    /// Bank accounts.
    BankAccounts,
    /// Also the invoice correspondence retrieval.
    OrderStatus,
    /// Transaction status (payment API 2.0).
    TransactionStatus,
    /// Shop configuration.
    ShopConfig,
    /// Storefront platform module.
    Storefront,
}

impl Service {
    /// Every service, in declaration order (`service as usize` indexes it).
    pub const ALL: [Service; 7] = [
        Service::PaymentPage,
        Service::PayLater,
        Service::BankAccounts,
        Service::OrderStatus,
        Service::TransactionStatus,
        Service::ShopConfig,
        Service::Storefront,
    ];
}

/// The paths after `U` of the audiences the token server issues tokens for
/// and the sandbox serves no operation of.
const UNSERVED_AUDIENCE_PATHS: [&str; 3] = [
    "/transaction/management",
    "/dispute/management",
    "/webhook/management",
];

/// The audience a token for `service` must carry, exactly; `url` is the
/// sandbox URL without a trailing slash.
pub fn audience_of(url: &str, service: Service) -> String {
    match service {
        Service::PaymentPage => url.to_owned(),
        Service::PayLater => format!("{url}/paylater"),
        Service::BankAccounts => format!("{url}/shop/consumer/v1"),
        Service::OrderStatus => format!("{url}/order/status/v2/transactions"),
        Service::TransactionStatus => format!("{url}/transaction/status/v2/transactions"),
        Service::ShopConfig => format!("{url}{SHOP_CONFIG_PREFIX}"),
        Service::Storefront => PLATFORM_AUDIENCE.to_owned(),
    }
}

/// Every audience the token server (`/oauth/token`) issues tokens for: the
/// table's rows plus the shop configuration; not the platform's.
pub fn token_server_audiences(url: &str) -> Vec<String> {
    let served = Service::ALL
        .into_iter()
        .filter(|service| *service != Service::Storefront)
        .map(|service| audience_of(url, service));
    let unserved = UNSERVED_AUDIENCE_PATHS
        .iter()
        .map(|path| format!("{url}{path}"));
    served.chain(unserved).collect()
}

/// The addresses a client of this sandbox needs, as plain strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Addresses {
    /// `{base_url}`: the hosted payment page.
    pub base_url: String,
    /// `{api_url}`: pay later, bank accounts, order and transaction status.
    pub api_url: String,
    /// `{auth_url}`: the token server.
    pub auth_url: String,
    /// `{platform_url}`: the storefront platform (its API under `/api`).
    pub platform_url: String,
    /// The base of the shop configuration API (`U/shop-config`).
    pub shop_config_url: String,
    /// The audience of shop configuration tokens (`U/shop-config`).
    pub shop_config_audience: String,
}

impl Addresses {
    /// Every address of the sandbox at `url`.
    pub fn of(url: &str) -> Self {
        let url = url.trim_end_matches('/');
        Self {
            base_url: url.to_owned(),
            api_url: url.to_owned(),
            auth_url: url.to_owned(),
            platform_url: url.to_owned(),
            shop_config_url: format!("{url}{SHOP_CONFIG_PREFIX}"),
            shop_config_audience: audience_of(url, Service::ShopConfig),
        }
    }

    /// The `export PSI_...=...` line a shell needs to point a client here.
    pub fn exports(&self) -> String {
        format!(
            "export PSI_BASE_URL={} PSI_API_URL={} PSI_AUTH_URL={} PSI_PLATFORM_URL={} \
             PSI_SHOP_CONFIG_URL={} PSI_SHOP_CONFIG_AUDIENCE={}",
            self.base_url,
            self.api_url,
            self.auth_url,
            self.platform_url,
            self.shop_config_url,
            self.shop_config_audience
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Service;

    #[test]
    fn all_lists_every_service_at_its_index() {
        for (index, service) in Service::ALL.iter().enumerate() {
            assert_eq!(*service as usize, index, "{service:?}");
        }
    }
}
