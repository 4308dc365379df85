//! The buyer's side: the hosted page stand-in and the test-control
//! transitions that end a session (complete, cancel, fail).

use super::{webhooks, Session};
use crate::state::{Data, Transaction, TransactionId};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use chrono::{DateTime, Days, FixedOffset};
use psi_payment_page::types::{Decline, DeclineCategory, SessionStatus};
use psi_runtime::Decimal;
use serde::Deserialize;
use serde_json::{json, Value};

/// Days from the transaction to the invoice's due date.
const PAYMENT_TERM_DAYS: u64 = 14;

/// `GET /pps/landing/{session_id}`: where the merchant sends the buyer. The
/// visit moves a new session to IN_PROGRESS; the buyer then finishes through
/// the control API.
pub(super) async fn landing_page(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Response {
    let now = state.clock.now_local();
    let page = {
        let mut data = state.data();
        data.payment_page
            .sessions
            .get_mut(&session_id)
            .map(|session| {
                session.expire_if_due(now);
                if session.status == SessionStatus::Created {
                    session.status = SessionStatus::InProgress;
                    session.updated = now;
                }
                render_landing_page(session)
            })
    };
    match page {
        Some(page) => Html(page).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Html("<!doctype html><title>Unknown session</title><p>Unknown session.</p>".to_owned()),
        )
            .into_response(),
    }
}

fn render_landing_page(session: &Session) -> String {
    let order = session.request.order_data.as_ref();
    let amount: Decimal = order
        .map(|order| {
            order
                .shop_baskets
                .iter()
                .filter_map(|basket| basket.gross_amount)
                .sum()
        })
        .unwrap_or_default();
    let currency = order
        .and_then(|order| order.currency.as_ref())
        .map(|c| c.to_string())
        .unwrap_or_default();
    let id = escape_html(&session.id);
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Payment</title></head><body>\n\
         <h1>Pay {amount} {currency}</h1>\n\
         <p>Session <code>{id}</code> is {status}.</p>\n\
         <p>This is the sandbox's stand-in for the hosted payment page. Complete, cancel or fail the payment \
         through the control API: <code>POST /__sandbox/sessions/{id}/complete</code>, <code>.../cancel</code> \
         or <code>.../fail</code>.</p>\n</body></html>\n",
        currency = escape_html(&currency),
        status = escape_html(session.status.as_str()),
    )
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// What the buyer chose on the hosted page.
#[derive(Debug, Default, Deserialize)]
struct Choice {
    payment_option: Option<String>,
    transfer_type: Option<String>,
}

/// How a session ends.
enum Ending {
    Complete(Choice),
    Cancel,
    Fail,
}

/// `POST /__sandbox/sessions/{id}/complete`, body `{"payment_option"?, "transfer_type"?}` (or none).
pub(super) async fn complete(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    body: Bytes,
) -> Response {
    let choice = if body.iter().all(u8::is_ascii_whitespace) {
        Choice::default()
    } else {
        match serde_json::from_slice(&body) {
            Ok(choice) => choice,
            Err(error) => {
                return control_error(StatusCode::BAD_REQUEST, format!("invalid body: {error}"))
            }
        }
    };
    end_session(&state, &session_id, Ending::Complete(choice))
}

/// `POST /__sandbox/sessions/{id}/cancel`.
pub(super) async fn cancel(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Response {
    end_session(&state, &session_id, Ending::Cancel)
}

/// `POST /__sandbox/sessions/{id}/fail`.
pub(super) async fn fail(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
) -> Response {
    end_session(&state, &session_id, Ending::Fail)
}

/// Ends an open session, then notifies the merchant.
fn end_session(state: &AppState, session_id: &str, ending: Ending) -> Response {
    let now = state.clock.now_local();
    let ended = {
        let mut data = state.data();
        apply_ending(&mut data, session_id, ending, now)
    };
    match ended {
        Ok((session, answer)) => {
            if let Some(url) = &session.webhook_url {
                webhooks::notify(state, &session.record(), url);
            }
            if let Some(transaction_id) = answer.get("transaction_id").and_then(Value::as_str) {
                webhooks::notify_invoice(state, &session_id_of(&session), transaction_id);
            }
            Json(answer).into_response()
        }
        Err((status, message)) => control_error(status, message),
    }
}

fn session_id_of(session: &Session) -> String {
    session.record().session_id.unwrap_or_default()
}

/// The transition itself, under the lock; answers the ended session and the
/// control API's answer.
fn apply_ending(
    data: &mut Data,
    session_id: &str,
    ending: Ending,
    now: DateTime<FixedOffset>,
) -> Result<(Session, Value), (StatusCode, String)> {
    let Some(session) = data.payment_page.sessions.get_mut(session_id) else {
        return Err((StatusCode::NOT_FOUND, format!("no session {session_id}")));
    };
    session.expire_if_due(now);
    if !session.is_open() {
        let status = session.status.as_str();
        return Err((
            StatusCode::CONFLICT,
            format!("session {session_id} is {status}; only CREATED or IN_PROGRESS can end"),
        ));
    }
    session.updated = now;
    let answer = match ending {
        Ending::Complete(choice) => {
            let transaction = new_transaction(session, choice, now);
            session.status = SessionStatus::Completed;
            session.transaction_id = Some(transaction.id.to_string());
            let answer = json!({"transaction_id": transaction.id, "session_id": session.id});
            data.transactions.insert(transaction);
            answer
        }
        Ending::Cancel => {
            session.status = SessionStatus::Canceled;
            json!(session.record())
        }
        Ending::Fail => {
            session.status = SessionStatus::Error;
            session.decline_reasons = Some(risk_decline());
            json!(session.record())
        }
    };
    Ok((session.clone(), answer))
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
        due_date: now.date_naive() + Days::new(PAYMENT_TERM_DAYS),
    }
}

/// Why a failed session failed: the provider's risk check said no.
fn risk_decline() -> Decline {
    Decline {
        category: Some(DeclineCategory::RiskDecision),
        reasons: vec!["RISK_CHECK_DECLINED".to_owned()],
        invalid_fields: Vec::new(),
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
            .map(Session::record)
            .collect()
    };
    records.sort_by_key(|record| record.created_date);
    Json(records).into_response()
}

/// Errors of the control API (not a document's schema): `{"error": "..."}`.
fn control_error(status: StatusCode, message: String) -> Response {
    (status, Json(json!({"error": message}))).into_response()
}
