//! One module per API; each owns its state (`State`), its routes and its
//! test-control routes (under `/__sandbox`).

pub mod bank_accounts;
pub mod from_examples;
pub mod order_status;
pub mod pay_later;
pub mod payment_page;
pub mod shop_config;
pub mod storefront;
pub mod token;
pub mod transaction_status;
pub mod webhook_subscriptions;

use crate::auth::Tokens;
use crate::examples::Served;
use crate::outbox::Outbox;
use crate::settings::Limits;
use axum::extract::FromRef;
use axum::Router;
use std::sync::Arc;

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
    Limits: FromRef<S>,
    Outbox: FromRef<S>,
    Arc<Served>: FromRef<S>,
{
    Router::new()
        .merge(token::routes())
        .merge(payment_page::routes())
        .merge(pay_later::routes())
        .merge(bank_accounts::routes())
        .merge(order_status::routes())
        .merge(transaction_status::routes())
        .merge(shop_config::routes())
        .merge(storefront::routes())
        .merge(webhook_subscriptions::routes())
}
