//! The buyer's side of a session: the visit of the landing page and the
//! transitions that end a session. The hosted page ([`super::page`]) and the
//! control API (`/__sandbox/sessions/{id}/...`) both call [`visit`] and
//! [`end`], so a choice on the page moves a session exactly as the control
//! API does: the same status, transaction, decline and notification.

use super::webhooks;
use crate::http::extract::Current;
use crate::models::payment_page::session::{
    decline_category, CannotEnd, Choice, Ending, Session, DECLINE_CATEGORIES,
};
use crate::outbox::Outbox;
use crate::refusals::control_error;
use crate::state::Tenant;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use psi_payment_page::types::DeclineCategory;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;

/// The buyer opens the landing page: a new session moves to IN_PROGRESS.
/// Answers the session as it is now (expired ones read as EXPIRED), or
/// `None` for an unknown id.
pub(super) fn visit(tenant: &Tenant, session_id: &str) -> Option<Session> {
    let now = tenant.clock.now_local();
    tenant.data().payment_page.visit(session_id, now)
}

/// Ends an open session, then notifies the merchant (the session
/// notification, and the invoice notification of a new transaction).
pub(super) fn end(
    outbox: &Outbox,
    tenant: &Arc<Tenant>,
    session_id: &str,
    ending: Ending,
) -> Result<Session, CannotEnd> {
    let now = tenant.clock.now_local();
    let session = {
        // One lock for both: the session and its transaction are saved
        // together.
        let mut data = tenant.data();
        let (session, transaction) = data.payment_page.end_session(session_id, ending, now)?;
        if let Some(transaction) = transaction {
            data.transactions.insert(transaction);
        }
        session
    };
    if let Some(url) = &session.webhook_url {
        webhooks::notify(outbox, tenant, &session.record(), url);
    }
    if let Some(transaction_id) = &session.transaction_id {
        webhooks::notify_invoice(outbox, tenant, &session.id, transaction_id);
    }
    Ok(session)
}

/// `POST /__sandbox/sessions/{id}/complete`, body `{"payment_option"?, "transfer_type"?}` (or none).
pub(super) async fn complete(
    State(outbox): State<Outbox>,
    Current(tenant): Current,
    Path(session_id): Path<String>,
    body: Bytes,
) -> Response {
    match optional_body::<Choice>(&body) {
        Ok(choice) => control_end(
            &outbox,
            &tenant,
            &session_id,
            Ending::Complete(choice.unwrap_or_default()),
        ),
        Err(refused) => refused,
    }
}

/// `POST /__sandbox/sessions/{id}/cancel`.
pub(super) async fn cancel(
    State(outbox): State<Outbox>,
    Current(tenant): Current,
    Path(session_id): Path<String>,
) -> Response {
    control_end(&outbox, &tenant, &session_id, Ending::Cancel)
}

/// The body of `fail`: the decline category, RISK_DECISION when absent.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FailBody {
    category: Option<String>,
}

/// `POST /__sandbox/sessions/{id}/fail`, body `{"category"?}` (or none).
pub(super) async fn fail(
    State(outbox): State<Outbox>,
    Current(tenant): Current,
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
    control_end(&outbox, &tenant, &session_id, Ending::Fail(category))
}

/// `POST /__sandbox/sessions/{id}/expire`: EXPIRED now.
pub(super) async fn expire(
    State(outbox): State<Outbox>,
    Current(tenant): Current,
    Path(session_id): Path<String>,
) -> Response {
    control_end(&outbox, &tenant, &session_id, Ending::Expire)
}

/// `POST /__sandbox/sessions/{id}/fraud-cancel`: FRAUD_CANCELLATION_REQUESTED.
pub(super) async fn fraud_cancel(
    State(outbox): State<Outbox>,
    Current(tenant): Current,
    Path(session_id): Path<String>,
) -> Response {
    control_end(&outbox, &tenant, &session_id, Ending::FraudCancel)
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
fn control_end(
    outbox: &Outbox,
    tenant: &Arc<Tenant>,
    session_id: &str,
    ending: Ending,
) -> Response {
    match end(outbox, tenant, session_id, ending) {
        Ok(session) => {
            let answer = match &session.transaction_id {
                Some(transaction_id) => {
                    json!({"transaction_id": transaction_id, "session_id": session.id})
                }
                None => json!(session.record()),
            };
            Json(answer).into_response()
        }
        Err(CannotEnd::Unknown) => {
            control_error(StatusCode::NOT_FOUND, format!("no session {session_id}"))
        }
        Err(CannotEnd::NotOpen(status)) => control_error(
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
pub(super) async fn list_sessions(tenant: Current) -> Response {
    let now = tenant.clock.now_local();
    let mut records: Vec<_> = {
        let mut data = tenant.data();
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
