//! Bank account management's HTTP floor: one bank account per buyer,
//! stored, read and deleted under `{api_url}/shop/consumer/v1`. The buyer,
//! the partner profile convention and the field rules are in
//! [`crate::models::bank_accounts`]; a foreign partner profile answers 401.
//!
//! An IBAN is personal data: no answer or message of this module contains
//! one, except the account itself read back by its owner.

// The `Err` of the checks below is the HTTP answer itself, built at most once
// per request and returned straight away: boxing it would buy nothing.
#![allow(clippy::result_large_err)]

use crate::auth::Tokens;
use crate::http::extract::{BankAccounts, Bearer};
use crate::http::operation::declare;
use crate::media_type::{self, Expected};
use crate::models::bank_accounts::{self, Buyer, InvalidField};
use crate::refusals::{decline, decline_with, unsupported_media_type};
use axum::body::Bytes;
use axum::extract::FromRef;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use psi_bank_accounts::types::{
    BankAccount, BankAccountList, BankAccountReadResponse, BankAccountStoreRequest,
    BankAccountStoreResponse,
};
use uuid::Uuid;

const BUYER_ACCOUNTS: &str =
    "/shop/consumer/v1/partners/{partner_profile_id}/consumer/{shop_buyer_id}/bank-accounts";
const BUYER_ACCOUNT: &str =
    "/shop/consumer/v1/partners/{partner_profile_id}/consumer/{shop_buyer_id}/bank-accounts/{bank_account_reference}";
const ACCOUNT_BY_REFERENCE: &str =
    "/shop/consumer/v1/partners/{partner_profile_id}/shop-buyers/{shop_buyer_id}/bank-accounts/{bank_account_reference}";

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
{
    Router::new()
        .route(
            BUYER_ACCOUNTS,
            declare("getBankAccount", get(get_bank_account)),
        )
        .route(
            BUYER_ACCOUNTS,
            declare("storeBankAccount", post(store_bank_account)),
        )
        .route(
            BUYER_ACCOUNT,
            declare("deleteBankAccount", delete(delete_bank_account)),
        )
        .route(
            ACCOUNT_BY_REFERENCE,
            declare(
                "getBankAccountByReference",
                get(get_bank_account_by_reference),
            ),
        )
}

// ---------------------------------------------------------------- handlers

async fn store_bank_account(
    Path(buyer): Path<(String, String)>,
    Bearer { tenant, .. }: Bearer<BankAccounts>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let buyer = Buyer::from(buyer);
    if let Err(refusal) = admit(&buyer) {
        return refusal;
    }
    if let Err(expected) = media_type::check(&headers, &body, Expected::Json) {
        return unsupported_media_type(expected);
    }
    let request = match parse_store_request(&body) {
        Ok(request) => request,
        Err(response) => return response,
    };
    if let Err(response) = validate(&request) {
        return response;
    }
    let reference = Uuid::new_v4();
    let account = BankAccount {
        bank_account_reference: Some(reference),
        owner: request.owner,
        iban: request.iban,
        bic: request.bic,
    };
    // One account per buyer: the new one replaces the old, reference and all.
    tenant.data().bank_accounts.accounts.insert(buyer, account);
    let response = BankAccountStoreResponse {
        bank_account_reference: Some(reference),
    };
    (StatusCode::CREATED, Json(response)).into_response()
}

/// The buyer's account as a list of one (the shape the specification
/// describes), or 404.
async fn get_bank_account(
    Path(buyer): Path<(String, String)>,
    Bearer { tenant, .. }: Bearer<BankAccounts>,
) -> Response {
    let buyer = Buyer::from(buyer);
    if let Err(refusal) = admit(&buyer) {
        return refusal;
    }
    let account = tenant.data().bank_accounts.accounts.get(&buyer).cloned();
    match account {
        Some(account) => {
            let list = BankAccountReadResponse::from(BankAccountList(vec![account]));
            (StatusCode::OK, Json(list)).into_response()
        }
        None => account_not_found(),
    }
}

/// The account with this reference as a single object (the published
/// sample's shape), or 404. The document declares no 400 here, so a
/// reference that is not a UUID is simply unknown.
async fn get_bank_account_by_reference(
    Path((partner_profile_id, shop_buyer_id, reference)): Path<(String, String, String)>,
    Bearer { tenant, .. }: Bearer<BankAccounts>,
) -> Response {
    let buyer = Buyer {
        partner_profile_id,
        shop_buyer_id,
    };
    if let Err(refusal) = admit(&buyer) {
        return refusal;
    }
    let Ok(reference) = Uuid::parse_str(&reference) else {
        return account_not_found();
    };
    let account = tenant.data().bank_accounts.accounts.get(&buyer).cloned();
    match account.filter(|account| account.bank_account_reference == Some(reference)) {
        Some(account) => {
            (StatusCode::OK, Json(BankAccountReadResponse::from(account))).into_response()
        }
        None => account_not_found(),
    }
}

/// 204 when the buyer's account has this reference; 400 for a reference
/// that is not a UUID; 404 otherwise.
async fn delete_bank_account(
    Path((partner_profile_id, shop_buyer_id, reference)): Path<(String, String, String)>,
    Bearer { tenant, .. }: Bearer<BankAccounts>,
) -> Response {
    let buyer = Buyer {
        partner_profile_id,
        shop_buyer_id,
    };
    if let Err(refusal) = admit(&buyer) {
        return refusal;
    }
    let Ok(reference) = Uuid::parse_str(&reference) else {
        return decline(
            StatusCode::BAD_REQUEST,
            &["INVALID_BANK_ACCOUNT_REFERENCE"],
            Vec::new(),
        );
    };
    let mut data = tenant.data();
    let accounts = &mut data.bank_accounts.accounts;
    let matches = accounts
        .get(&buyer)
        .is_some_and(|a| a.bank_account_reference == Some(reference));
    if !matches {
        return account_not_found();
    }
    accounts.remove(&buyer);
    StatusCode::NO_CONTENT.into_response()
}

// ------------------------------------------------------------------ checks

/// The partner profile, after the bearer token: 401 for a profile that
/// does not belong to the caller.
fn admit(buyer: &Buyer) -> Result<(), Response> {
    if buyer.is_foreign() {
        return Err(decline(
            StatusCode::UNAUTHORIZED,
            &["PARTNER_PROFILE_NOT_OWNED"],
            Vec::new(),
        ));
    }
    Ok(())
}

/// The body as the generated type: a field out of bounds or of the wrong
/// type is a 400 naming it; the IBAN is never quoted.
fn parse_store_request(body: &[u8]) -> Result<BankAccountStoreRequest, Response> {
    crate::refusals::parse_body_redacting(
        body,
        &[("$.iban", "must be a string of 0 to 50 characters")],
    )
}

/// 422 naming every field that breaks its rule; the IBAN is never quoted.
fn validate(request: &BankAccountStoreRequest) -> Result<(), Response> {
    bank_accounts::validate(request).map_err(|invalid| {
        let invalid = invalid
            .into_iter()
            .map(|field| match field {
                InvalidField::Iban => ("$.iban".to_owned(), "invalid IBAN".to_owned()),
                InvalidField::Bic => ("$.bic".to_owned(), "invalid BIC".to_owned()),
            })
            .collect();
        decline_with(
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("PAYMENT_ATTRIBUTE"),
            &["INVALID_FIELD"],
            invalid,
        )
    })
}

/// 404: the buyer has no account, or none with this reference.
fn account_not_found() -> Response {
    decline(
        StatusCode::NOT_FOUND,
        &["BANK_ACCOUNT_NOT_FOUND"],
        Vec::new(),
    )
}
