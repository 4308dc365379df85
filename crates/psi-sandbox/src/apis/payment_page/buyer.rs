//! The buyer's side of a session: the visit of the landing page and the
//! transitions that end a session. The hosted page ([`super::page`]) and the
//! control API (`/__sandbox/sessions/{id}/...`) both call [`visit`] and
//! [`end`], so a choice on the page moves a session exactly as the control
//! API does: the same status, transaction, decline and notification.

use super::{webhooks, Session};
use crate::state::{Data, Transaction, TransactionId};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::{DateTime, Days, FixedOffset};
use psi_payment_page::types::{Decline, DeclineCategory, SessionStatus};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::json;

/// The categories a declined session can carry: the 422 categories of the
/// provider's error bodies (docs/service-notes.md).
pub(super) const DECLINE_CATEGORIES: [DeclineCategory; 7] = [
    DeclineCategory::BuyerData,
    DeclineCategory::BuyerIdentity,
    DeclineCategory::Contract,
    DeclineCategory::PaymentAttribute,
    DeclineCategory::RiskDecision,
    DeclineCategory::TransactionRisk,
    DeclineCategory::UnprocessableOperation,
];

/// How the buyer pays, as stored on the transaction.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Choice {
    pub payment_option: Option<String>,
    pub transfer_type: Option<String>,
}

/// How a session ends.
pub(super) enum Ending {
    /// COMPLETED: a transaction is created.
    Complete(Choice),
    /// CANCELED by the buyer.
    Cancel,
    /// ERROR with decline_reasons of this category.
    Fail(DeclineCategory),
    /// EXPIRED now, as if the buyer had left the page for 30 minutes.
    Expire,
    /// FRAUD_CANCELLATION_REQUESTED.
    FraudCancel,
}

/// Why a session could not be ended.
#[derive(Debug)]
pub(super) enum Refused {
    Unknown,
    /// The session is no longer open; it keeps this status.
    NotOpen(SessionStatus),
}

/// The buyer opens the landing page: a new session moves to IN_PROGRESS.
/// Answers the session as it is now (expired ones read as EXPIRED), or
/// `None` for an unknown id.
pub(super) fn visit(state: &AppState, session_id: &str) -> Option<Session> {
    let now = state.clock.now_local();
    let mut data = state.data();
    let sessions = &mut data.payment_page.sessions;
    // Touched (and so written to a state file) only when it changes: a
    // page visit is mostly a read.
    let current = sessions.get(session_id)?;
    if current.is_due(now) || current.status == SessionStatus::Created {
        let session = sessions.get_mut(session_id)?;
        session.expire_if_due(now);
        if session.status == SessionStatus::Created {
            session.status = SessionStatus::InProgress;
            session.updated = now;
        }
    }
    sessions
        .get(session_id)
        .map(|session| Session::clone(session))
}

/// Ends an open session, then notifies the merchant (the session
/// notification, and the invoice notification of a new transaction).
pub(super) fn end(state: &AppState, session_id: &str, ending: Ending) -> Result<Session, Refused> {
    let now = state.clock.now_local();
    let session = apply_ending(&mut state.data(), session_id, ending, now)?;
    if let Some(url) = &session.webhook_url {
        webhooks::notify(state, &session.record(), url);
    }
    if let Some(transaction_id) = &session.transaction_id {
        webhooks::notify_invoice(state, &session.id, transaction_id);
    }
    Ok(session)
}

/// The transition itself, under the lock.
fn apply_ending(
    data: &mut Data,
    session_id: &str,
    ending: Ending,
    now: DateTime<FixedOffset>,
) -> Result<Session, Refused> {
    let Some(session) = data.payment_page.sessions.get_mut(session_id) else {
        return Err(Refused::Unknown);
    };
    session.expire_if_due(now);
    if !session.is_open() {
        return Err(Refused::NotOpen(session.status.clone()));
    }
    session.updated = now;
    match ending {
        Ending::Complete(choice) => {
            let transaction = new_transaction(session, choice, now);
            session.status = SessionStatus::Completed;
            session.transaction_id = Some(transaction.id.to_string());
            data.transactions.insert(transaction);
        }
        Ending::Cancel => session.status = SessionStatus::Canceled,
        Ending::Fail(category) => {
            session.status = SessionStatus::Error;
            session.decline_reasons = Some(decline(category));
        }
        Ending::Expire => session.status = SessionStatus::Expired,
        Ending::FraudCancel => session.status = SessionStatus::FraudCancellationRequested,
    }
    Ok(Session::clone(session))
}

fn new_transaction(session: &Session, choice: Choice, now: DateTime<FixedOffset>) -> Transaction {
    Transaction {
        id: TransactionId::random(),
        session_id: session
            .id
            .parse()
            .expect("the sandbox's session ids are UUIDs"),
        created: now,
        request: crate::state::StoredRequest::new(&session.request),
        payment_option: crate::state::label(
            choice
                .payment_option
                .unwrap_or_else(|| "OPEN_INVOICE".to_owned()),
        ),
        transfer_type: crate::state::label(
            choice
                .transfer_type
                .unwrap_or_else(|| "BANK_TRANSFER".to_owned()),
        ),
        correspondence_id: uuid::Uuid::new_v4(),
        due_date: now.date_naive() + Days::new(crate::state::PAYMENT_TERM_DAYS),
    }
}

/// Why a declined session was declined. The reason texts are the
/// sandbox's own: the provider documents the categories, not the reasons.
fn decline(category: DeclineCategory) -> Decline {
    let reason = match category {
        DeclineCategory::BuyerData => "BUYER_DATA_INVALID",
        DeclineCategory::BuyerIdentity => "BUYER_IDENTITY_NOT_CONFIRMED",
        DeclineCategory::Contract => "CONTRACT_NOT_ACTIVE",
        DeclineCategory::PaymentAttribute => "PAYMENT_ATTRIBUTE_INVALID",
        DeclineCategory::TransactionRisk => "TRANSACTION_RISK_TOO_HIGH",
        DeclineCategory::UnprocessableOperation => "OPERATION_NOT_PROCESSABLE",
        _ => "RISK_CHECK_DECLINED",
    };
    Decline {
        category: Some(category),
        reasons: vec![reason.to_owned()],
        invalid_fields: Vec::new(),
    }
}

/// A decline category the sandbox can end a session with, from its wire
/// value; `None` for any other text.
pub(super) fn decline_category(text: &str) -> Option<DeclineCategory> {
    DECLINE_CATEGORIES
        .into_iter()
        .find(|category| category.as_str() == text)
}

/// `POST /__sandbox/sessions/{id}/complete`, body `{"payment_option"?, "transfer_type"?}` (or none).
pub(super) async fn complete(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    body: Bytes,
) -> Response {
    match optional_body::<Choice>(&body) {
        Ok(choice) => control_end(
            &state,
            &session_id,
            Ending::Complete(choice.unwrap_or_default()),
        ),
        Err(refused) => refused,
    }
}

/// `POST /__sandbox/sessions/{id}/cancel`.
pub(super) async fn cancel(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Response {
    control_end(&state, &session_id, Ending::Cancel)
}

/// The body of `fail`: the decline category, RISK_DECISION when absent.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FailBody {
    category: Option<String>,
}

/// `POST /__sandbox/sessions/{id}/fail`, body `{"category"?}` (or none).
pub(super) async fn fail(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    body: Bytes,
) -> Response {
    let requested = match optional_body::<FailBody>(&body) {
        Ok(body) => body.and_then(|body| body.category),
        Err(refused) => return refused,
    };
    let category = match requested {
        None => DeclineCategory::RiskDecision,
        Some(text) => match decline_category(&text) {
            Some(category) => category,
            None => {
                let known: Vec<_> = DECLINE_CATEGORIES.iter().map(|c| c.as_str()).collect();
                return control_error(
                    StatusCode::BAD_REQUEST,
                    format!("category must be one of {}, not {text:?}", known.join(", ")),
                );
            }
        },
    };
    control_end(&state, &session_id, Ending::Fail(category))
}

/// `POST /__sandbox/sessions/{id}/expire`: EXPIRED now.
pub(super) async fn expire(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Response {
    control_end(&state, &session_id, Ending::Expire)
}

/// `POST /__sandbox/sessions/{id}/fraud-cancel`: FRAUD_CANCELLATION_REQUESTED.
pub(super) async fn fraud_cancel(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Response {
    control_end(&state, &session_id, Ending::FraudCancel)
}

/// A JSON body that may be absent (empty or only whitespace).
fn optional_body<T: DeserializeOwned>(body: &Bytes) -> Result<Option<T>, Response> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    serde_json::from_slice(body)
        .map(Some)
        .map_err(|error| control_error(StatusCode::BAD_REQUEST, format!("invalid body: {error}")))
}

/// Ends the session for the control API: a completion answers
/// `{"transaction_id", "session_id"}`, any other ending the session record.
fn control_end(state: &AppState, session_id: &str, ending: Ending) -> Response {
    match end(state, session_id, ending) {
        Ok(session) => {
            let answer = match &session.transaction_id {
                Some(transaction_id) => {
                    json!({"transaction_id": transaction_id, "session_id": session.id})
                }
                None => json!(session.record()),
            };
            Json(answer).into_response()
        }
        Err(Refused::Unknown) => {
            control_error(StatusCode::NOT_FOUND, format!("no session {session_id}"))
        }
        Err(Refused::NotOpen(status)) => control_error(
            StatusCode::CONFLICT,
            format!(
                "session {session_id} is {}; only CREATED or IN_PROGRESS can end",
                status.as_str()
            ),
        ),
    }
}

/// `GET /__sandbox/sessions`: every session's record (expired ones read as
/// EXPIRED), oldest first.
pub(super) async fn list_sessions(State(state): State<AppState>) -> Response {
    let now = state.clock.now_local();
    let mut records: Vec<_> = {
        let mut data = state.data();
        data.payment_page.expire_due(now, |_| true);
        data.payment_page
            .sessions
            .values()
            .map(|session| session.record())
            .collect()
    };
    records.sort_by_key(|record| record.created_date);
    Json(records).into_response()
}

/// Errors of the control API (not a document's schema): `{"error": "..."}`.
fn control_error(status: StatusCode, message: String) -> Response {
    (status, Json(json!({"error": message}))).into_response()
}
