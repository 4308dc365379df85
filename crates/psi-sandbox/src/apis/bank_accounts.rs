//! Bank account management: one bank account per buyer, stored, read and
//! deleted under `{api_url}/shop/consumer/v1`.
//!
//! A buyer is the pair (`partner_profile_id`, `shop_buyer_id`). A store
//! call replaces the buyer's account and gives it a new reference, so a
//! reference from before the overwrite is unknown afterwards.
//!
//! Partner profiles (a sandbox convention): the document answers 401 when
//! "this partner profile does not belong to the caller", and the sandbox
//! has no registry of profiles. Every `partner_profile_id` belongs to the
//! demo merchant except those starting with `unknown-`, which answer 401 so
//! merchants can test that path.
//!
//! An IBAN is personal data: no answer, message or Debug output of this
//! module contains one, except the account itself read back by its owner.

// The `Err` of the checks below is the HTTP answer itself, built at most once
// per request and returned straight away: boxing it would buy nothing.
#![allow(clippy::result_large_err)]

use crate::errors::{decline, decline_with, unsupported_media_type};
use crate::http::extract::{BankAccounts, Bearer};
use crate::http::operation::declare;
use crate::media_type::{self, Expected};
use crate::state::{tables, Batch, Loader, Persisted, Table};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{Path, State as Shared};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use psi_bank_accounts::types::{
    BankAccount, BankAccountList, BankAccountReadResponse, BankAccountStoreRequest,
    BankAccountStoreResponse,
};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Partner profiles starting with this do not belong to the caller (401).
const FOREIGN_PARTNER_PREFIX: &str = "unknown-";

/// The stored accounts, one per buyer, each with its reference set.
#[derive(Default)]
pub struct State {
    accounts: Table<Buyer, BankAccount>,
}

impl Persisted for State {
    fn has_changes(&self) -> bool {
        self.accounts.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        batch.table(tables::BANK_ACCOUNTS, &mut self.accounts)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        Ok(Self {
            accounts: loader.table(tables::BANK_ACCOUNTS)?,
        })
    }
}

/// Never shows the accounts: they hold IBANs.
impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("accounts", &self.accounts.len())
            .finish()
    }
}

/// (`partner_profile_id`, `shop_buyer_id`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Buyer {
    partner_profile_id: String,
    shop_buyer_id: String,
}

impl From<(String, String)> for Buyer {
    fn from((partner_profile_id, shop_buyer_id): (String, String)) -> Self {
        Self {
            partner_profile_id,
            shop_buyer_id,
        }
    }
}

const BUYER_ACCOUNTS: &str =
    "/shop/consumer/v1/partners/{partner_profile_id}/consumer/{shop_buyer_id}/bank-accounts";
const BUYER_ACCOUNT: &str =
    "/shop/consumer/v1/partners/{partner_profile_id}/consumer/{shop_buyer_id}/bank-accounts/{bank_account_reference}";
const ACCOUNT_BY_REFERENCE: &str =
    "/shop/consumer/v1/partners/{partner_profile_id}/shop-buyers/{shop_buyer_id}/bank-accounts/{bank_account_reference}";

pub fn routes() -> Router<AppState> {
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
    Shared(state): Shared<AppState>,
    Path(buyer): Path<(String, String)>,
    _: Bearer<BankAccounts>,
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
    state.data().bank_accounts.accounts.insert(buyer, account);
    let response = BankAccountStoreResponse {
        bank_account_reference: Some(reference),
    };
    (StatusCode::CREATED, Json(response)).into_response()
}

/// The buyer's account as a list of one (the shape the specification
/// describes), or 404.
async fn get_bank_account(
    Shared(state): Shared<AppState>,
    Path(buyer): Path<(String, String)>,
    _: Bearer<BankAccounts>,
) -> Response {
    let buyer = Buyer::from(buyer);
    if let Err(refusal) = admit(&buyer) {
        return refusal;
    }
    let account = state.data().bank_accounts.accounts.get(&buyer).cloned();
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
    Shared(state): Shared<AppState>,
    Path((partner_profile_id, shop_buyer_id, reference)): Path<(String, String, String)>,
    _: Bearer<BankAccounts>,
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
    let account = state.data().bank_accounts.accounts.get(&buyer).cloned();
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
    Shared(state): Shared<AppState>,
    Path((partner_profile_id, shop_buyer_id, reference)): Path<(String, String, String)>,
    _: Bearer<BankAccounts>,
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
    let mut data = state.data();
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

/// The partner profile, after the bearer token (see the module docs).
fn admit(buyer: &Buyer) -> Result<(), Response> {
    if buyer.partner_profile_id.starts_with(FOREIGN_PARTNER_PREFIX) {
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
    crate::errors::parse_body_redacting(
        body,
        &[("$.iban", "must be a string of 0 to 50 characters")],
    )
}

/// 422 for an IBAN that fails its country's format or check digits, or a
/// BIC that is not shaped like one (ISO 9362). The IBAN is never quoted,
/// and the parser's error is never formatted (it carries the IBAN).
fn validate(request: &BankAccountStoreRequest) -> Result<(), Response> {
    let mut invalid = Vec::new();
    if !is_valid_iban(&request.iban) {
        invalid.push(("$.iban".to_owned(), "invalid IBAN".to_owned()));
    }
    if let Some(bic) = request.bic.as_deref().filter(|bic| !bic.is_empty()) {
        if !is_bic_shaped(bic) {
            invalid.push(("$.bic".to_owned(), "invalid BIC".to_owned()));
        }
    }
    if invalid.is_empty() {
        return Ok(());
    }
    Err(decline_with(
        StatusCode::UNPROCESSABLE_ENTITY,
        Some("PAYMENT_ATTRIBUTE"),
        &["INVALID_FIELD"],
        invalid,
    ))
}

/// Spaces are allowed anywhere ("allowed, not necessary"); the parser takes
/// the compact form.
fn is_valid_iban(text: &str) -> bool {
    let compact: String = text.chars().filter(|c| *c != ' ').collect();
    compact.parse::<iban::Iban>().is_ok()
}

/// ISO 9362:2014: four letters or digits (party prefix), two letters
/// (country), two letters or digits (location), optionally three more
/// (branch).
fn is_bic_shaped(bic: &str) -> bool {
    let bytes = bic.as_bytes();
    let letters = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_alphabetic);
    let alphanumerics =
        |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_alphanumeric);
    matches!(bytes.len(), 8 | 11)
        && alphanumerics(0..4)
        && letters(4..6)
        && alphanumerics(6..bytes.len())
}

/// The body's media type must be JSON (the document: `application/json`).
fn account_not_found() -> Response {
    decline(
        StatusCode::NOT_FOUND,
        &["BANK_ACCOUNT_NOT_FOUND"],
        Vec::new(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ibans_are_checked_with_spaces_anywhere() {
        assert!(is_valid_iban("DE89 3704 0044 0532 0130 00"));
        assert!(is_valid_iban("DE89370400440532013000"));
        assert!(is_valid_iban("DE89 37040044 0532013000"));
        assert!(!is_valid_iban("DE88 3704 0044 0532 0130 00"));
        assert!(!is_valid_iban(""));
    }

    #[test]
    fn bics_have_eight_or_eleven_characters() {
        assert!(is_bic_shaped("COBADEFF"));
        assert!(is_bic_shaped("COBADEFFXXX"));
        assert!(!is_bic_shaped("COBADEF"));
        assert!(is_bic_shaped("C0BADEFFXXX"));
        assert!(!is_bic_shaped("COBAD3FFXXX"));
        assert!(!is_bic_shaped("COBADEFF-XX"));
    }

    #[test]
    fn debug_output_never_shows_an_account() {
        let mut state = State::default();
        let account: BankAccount = serde_json::from_value(serde_json::json!({
            "owner": "Erika Mustermann", "iban": "DE89 3704 0044 0532 0130 00"
        }))
        .expect("a bank account");
        state
            .accounts
            .insert(Buyer::from(("pp".to_owned(), "b".to_owned())), account);
        let shown = format!("{state:?}");
        assert!(
            !shown.contains("3704") && !shown.contains("Erika"),
            "{shown}"
        );
    }
}
