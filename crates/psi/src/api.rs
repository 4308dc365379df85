//! The APIs: where each lives and which token audience it takes.
//!
//! `Api` itself (its variants, names, audiences and base URLs) is generated
//! from the `x-psi` blocks of `openapi/*.yaml` into `api/generated.rs`; this
//! file keeps what no document says.

#[rustfmt::skip]
mod generated;
pub use generated::Api;

/// The address without a trailing slash, as paths are appended to it.
pub(crate) fn trimmed(url: &reqwest::Url) -> String {
    url.as_str().trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use psi_runtime::Environment;

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
