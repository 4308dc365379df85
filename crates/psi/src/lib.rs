//! The Payment Services Interface SDK.
//!
//! Build one [`Client`] and ask it for the API you need; every client it
//! hands out fetches and caches its own tokens (one per audience, single
//! flight), retries what is safe to retry, checks requests before sending
//! them, and traces each call without ever logging a secret.
//!
//! Retries: GET, PUT and DELETE, and session creation (which always carries
//! an Idempotency-Key, the same on every attempt), are sent again after
//! connect errors, timeouts, 408, 429 and 5xx, with exponential backoff and
//! jitter, honouring `Retry-After`. Every other POST (pay later booking, bank
//! account storage, storefront operations, token requests) is sent again only
//! after a connect error, when it cannot have reached the server.
#![cfg_attr(feature = "pay-later", doc = include_str!("../README.md"))]
#![warn(missing_docs)]

pub mod advice;
mod api;
mod client;
#[cfg(feature = "drift")]
pub mod drift;
mod error;
mod finding;
pub mod preflight;
mod tls;
mod tokens;
#[cfg(feature = "payment-page")]
pub mod webhook;

pub use api::Api;
pub use client::{Client, ClientBuilder};
pub use error::{Answer, Declined, DecodeError, Error, PreflightRefusal, UnexpectedStatus};
pub use finding::Finding;
pub use psi_runtime::{
    http_client_builder, ConfigError, Credentials, Decimal, Environment, ExtraMembers,
    ParseDecimalError, RetryPolicy, Secret, TokenError, TokenErrorKind,
};

/// The types every API shares (declines, currency and country codes),
/// generated once from `openapi/common.yaml`.
pub use psi_common as common;

/// The generated clients and types, one module per API (`psi::pay_later`,
/// `psi::token` ...), generated from the x-psi blocks of `openapi/*.yaml`.
#[rustfmt::skip]
mod reexports;
pub use reexports::*;
