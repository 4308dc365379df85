//! Each API's data, its state machine and the specification's rules, with
//! no HTTP and no storage: the state keeps these values, the APIs answer
//! with them and the renderers draw them.

pub mod bank_accounts;
pub mod order_status;
pub mod pay_later;
pub mod payment_page;
pub mod shop_config;
pub mod storefront;
pub mod transaction;
pub mod webhook_subscriptions;
