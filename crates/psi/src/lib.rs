//! The Payment Services Interface SDK.
//!
//! Build one [`Client`] and ask it for the API you need; every client it
//! hands out fetches and caches its own tokens (one per audience, single
//! flight), retries what is safe to retry, checks requests before sending
//! them, and traces each call without ever logging a secret.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # use wiremock::{Mock, MockServer, ResponseTemplate, matchers::{method, path}};
//! # let server = MockServer::start().await;
//! # Mock::given(method("POST")).and(path("/oauth/token"))
//! #     .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!(
//! #         {"access_token": "eyJ.e30.sig", "expires_in": 1800, "token_type": "Bearer"})))
//! #     .mount(&server).await;
//! # Mock::given(method("GET")).and(path("/order/paylater/v1/12-34567890123456789/status"))
//! #     .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!(
//! #         {"transaction_id": "12-34567890123456789", "pay_later_status": "AVAILABLE"})))
//! #     .mount(&server).await;
//! # let url = server.uri();
//! use psi::{Client, Credentials, Environment};
//! use psi::pay_later::types::PayLaterStatus;
//!
//! // Or Client::from_env() with the PSI_* variables.
//! let client = Client::builder()
//!     .environment(Environment::new(&url, &url, &url)?)
//!     .credentials(Credentials::new("merchant-1", "client-secret"))
//!     .build()?;
//!
//! let status = client
//!     .pay_later()
//!     .get_pay_later_status()
//!     .transaction_id("12-34567890123456789")
//!     .send()
//!     .await?
//!     .into_inner();
//! assert_eq!(status.pay_later_status, Some(PayLaterStatus::Available));
//! # Ok(())
//! # }
//! ```
//!
//! Retries: GET, PUT and DELETE, and session creation (which always carries
//! an Idempotency-Key, the same on every attempt), are sent again after
//! connect errors, timeouts, 408, 429 and 5xx, with exponential backoff and
//! jitter, honouring `Retry-After`. Every other POST (pay later booking, bank
//! account storage, storefront operations, token requests) is sent again only
//! after a connect error, when it cannot have reached the server.

mod api;
mod client;
pub mod preflight;
mod tokens;
#[cfg(feature = "payment-page")]
pub mod webhook;

pub use api::Api;
pub use client::{Client, ClientBuilder};
pub use psi_runtime::{ConfigError, Credentials, Environment, RetryPolicy, Secret, TokenError};

/// The generated clients and types, one module per API.
#[cfg(feature = "bank-accounts")]
pub use psi_bank_accounts as bank_accounts;
#[cfg(feature = "order-status")]
pub use psi_order_status as order_status;
#[cfg(feature = "pay-later")]
pub use psi_pay_later as pay_later;
#[cfg(feature = "payment-page")]
pub use psi_payment_page as payment_page;
#[cfg(feature = "shop-config")]
pub use psi_shop_config as shop_config;
#[cfg(feature = "storefront")]
pub use psi_storefront as storefront;
/// The generated token client and its types.
pub use psi_token as token;
#[cfg(feature = "transaction-status")]
pub use psi_transaction_status as transaction_status;
