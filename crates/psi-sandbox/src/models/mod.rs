//! Each API's data, state machine and the specification's rules, free of
//! HTTP and of storage: the state layer keeps these types and the APIs
//! answer with them.

pub mod bank_accounts;
pub mod pay_later;
pub mod shop_config;
pub mod storefront;
pub mod webhook_subscriptions;
