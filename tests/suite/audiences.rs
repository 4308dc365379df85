//! The client's token audiences, written from the specification's
//! Authentication table as literal strings (not computed by a shared
//! helper): `{api_url}` plus the API's path, `{base_url}` itself for the
//! hosted payment page, and the platform for the storefront.

use psi::{Api, Environment};

fn environment() -> Environment {
    Environment::new(
        "https://pay.example.com",
        "https://api.example.com",
        "https://auth.example.com",
    )
    .and_then(|environment| environment.with_platform_url("https://shop.example.com"))
    .expect("absolute URLs")
}

fn audience(api: Api) -> String {
    api.audience(&environment())
        .map(|audience| audience.to_string())
        .expect("an audience")
}

#[test]
fn the_client_takes_the_audiences_of_the_specification_table() {
    assert_eq!(audience(Api::PaymentPage), "https://pay.example.com");
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
}

#[test]
fn the_storefront_takes_the_platform_token() {
    let storefront = Api::Storefront.audience(&environment());
    assert!(
        matches!(storefront, Some(psi_runtime::Audience::Platform(ref url)) if url == "https://shop.example.com"),
        "{storefront:?}"
    );
}

/// The table has no row for the shop configuration API: its audience is a
/// setting, never derived from `{api_url}`.
#[test]
fn shop_configuration_takes_only_its_setting() {
    assert_eq!(Api::ShopConfig.audience(&environment()), None);
    let configured = environment()
        .with_shop_config(
            "https://shops.example.com",
            "https://shops.example.com/audience",
        )
        .unwrap();
    assert_eq!(
        Api::ShopConfig
            .audience(&configured)
            .map(|audience| audience.to_string()),
        Some("https://shops.example.com/audience".to_owned())
    );
}
