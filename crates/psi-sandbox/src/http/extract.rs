//! Extractors that refuse in the error shape of the API a route belongs
//! to, so a handler starts with what it checked instead of a prologue.
//!
//! [`Bearer`] is a call's access token, valid for the API `A`: signed by
//! this sandbox, unexpired by its tenant's clock, for `A`'s audience and
//! (for the storefront platform) with scope `write`, with the tenant it
//! names. A refused token is answered 401 in `A`'s own error body
//! ([`Api::unauthorized`], [`Family::unauthorized`]). [`Current`] is the
//! request's tenant
//! ([`super::tenant`]), for routes without a token (the hosted page, the
//! control API).

use crate::audiences::Service;
use crate::auth::control_door::UnknownTenant;
use crate::auth::{Claims, Refusal, Tokens, Verified};
use crate::refusals::{control_error, Family};
use crate::state::Tenant;
use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::Response;
use std::marker::PhantomData;
use std::sync::Arc;

/// An API whose calls need a token, and how it refuses one.
pub trait Api: Send + Sync + 'static {
    /// Whose audience the token must carry.
    const SERVICE: Service;
    /// The 401 answer, `reason` naming why (`EXPIRED_TOKEN`, ...).
    fn unauthorized(reason: &'static str) -> Response;
}

/// The checked token of a call to `A` and the tenant it names (see the
/// module documentation).
pub struct Bearer<A> {
    pub claims: Arc<Claims>,
    pub tenant: Arc<Tenant>,
    api: PhantomData<A>,
}

impl<A: Api, S> FromRequestParts<S> for Bearer<A>
where
    Tokens: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Response> {
        let tenant = current(parts).map_err(|_| A::unauthorized(Refusal::Invalid.reason()))?;
        let claims = match parts.extensions.get::<Verified>() {
            Some(Verified(Ok(claims))) => claims.clone(),
            Some(Verified(Err(refusal))) => return Err(A::unauthorized(refusal.reason())),
            None => return Err(A::unauthorized(Refusal::Missing.reason())),
        };
        match Tokens::from_ref(state).check(&claims, A::SERVICE, &tenant.clock) {
            Ok(()) => Ok(Bearer {
                claims,
                tenant,
                api: PhantomData,
            }),
            Err(refusal) => Err(A::unauthorized(refusal.reason())),
        }
    }
}

/// The tenant a request belongs to ([`super::tenant`]).
pub struct Current(pub Arc<Tenant>);

impl std::ops::Deref for Current {
    type Target = Tenant;
    fn deref(&self) -> &Tenant {
        &self.0
    }
}

fn current(parts: &Parts) -> Result<Arc<Tenant>, Response> {
    if let Some(tenant) = parts.extensions.get::<Arc<Tenant>>() {
        return Ok(tenant.clone());
    }
    Err(match parts.extensions.get::<UnknownTenant>() {
        Some(UnknownTenant(name)) => {
            control_error(StatusCode::NOT_FOUND, format!("tenant: no tenant {name}"))
        }
        // Every route is behind the middleware that sets one of them.
        None => control_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the request's tenant is unknown",
        ),
    })
}

impl<S: Send + Sync> FromRequestParts<S> for Current {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Response> {
        current(parts).map(Current)
    }
}

macro_rules! api {
    ($($(#[$doc:meta])* $name:ident => $service:ident, $family:ident;)*) => {$(
        $(#[$doc])*
        pub struct $name;

        impl Api for $name {
            const SERVICE: Service = Service::$service;
            fn unauthorized(reason: &'static str) -> Response {
                Family::$family.unauthorized(reason)
            }
        }
    )*};
}

api! {
    /// The hosted payment page API.
    PaymentPage => PaymentPage, Payment;
    /// The pay later API.
    PayLater => PayLater, Payment;
    /// The bank accounts API.
    BankAccounts => BankAccounts, Payment;
    /// The order status API (and the invoice retrieval under it).
    OrderStatus => OrderStatus, Payment;
    /// The transaction status API.
    TransactionStatus => TransactionStatus, Payment;
    /// The shop configuration API: `{message, errors}`.
    ShopConfig => ShopConfig, ShopConfig;
    /// The storefront platform's order management module: `{success: false, message}`.
    Storefront => Storefront, Storefront;
}
