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

/// A value for some of the APIs (an audience, an address): at most one per
/// API, found by a scan of at most `Api::ALL.len()` entries.
///
/// Not a `HashMap`: for seven keys a scan is as fast as hashing, and each
/// `HashMap<Api, _>` would compile its own hashing, growing, inserting and
/// dropping into every application's build.
#[derive(Debug)]
pub(crate) struct ApiTable<T>(Vec<(Api, T)>);

impl<T> Default for ApiTable<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> ApiTable<T> {
    pub(crate) fn get(&self, api: Api) -> Option<&T> {
        self.0
            .iter()
            .find(|(key, _)| *key == api)
            .map(|(_, value)| value)
    }

    /// Sets `api`'s value, replacing the one it had.
    pub(crate) fn insert(&mut self, api: Api, value: T) {
        match self.0.iter_mut().find(|(key, _)| *key == api) {
            Some((_, old)) => *old = value,
            None => self.0.push((api, value)),
        }
    }
}

/// Later entries replace earlier ones for the same API.
impl<T> Extend<(Api, T)> for ApiTable<T> {
    fn extend<I: IntoIterator<Item = (Api, T)>>(&mut self, entries: I) {
        for (api, value) in entries {
            self.insert(api, value);
        }
    }
}

impl<T> FromIterator<(Api, T)> for ApiTable<T> {
    fn from_iter<I: IntoIterator<Item = (Api, T)>>(entries: I) -> Self {
        let mut table = Self::default();
        table.extend(entries);
        table
    }
}

impl<T> IntoIterator for ApiTable<T> {
    type Item = (Api, T);
    type IntoIter = std::vec::IntoIter<(Api, T)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psi_runtime::Environment;

    #[test]
    fn a_table_keeps_one_value_per_api_the_last_set() {
        let mut table: ApiTable<&str> = [
            (Api::PayLater, "a"),
            (Api::Storefront, "b"),
            (Api::PayLater, "c"),
        ]
        .into_iter()
        .collect();
        assert_eq!(table.get(Api::PayLater), Some(&"c"));
        assert_eq!(table.get(Api::Storefront), Some(&"b"));
        assert_eq!(table.get(Api::ShopConfig), None);
        table.insert(Api::Storefront, "d");
        table.insert(Api::ShopConfig, "e");
        let mut entries: Vec<_> = table.into_iter().collect();
        entries.sort();
        assert_eq!(
            entries,
            [
                (Api::PayLater, "c"),
                (Api::ShopConfig, "e"),
                (Api::Storefront, "d")
            ]
        );
    }

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
