//! The three operations of the document: createSession, getSessionRecord
//! and listSessionRecords.

use crate::http::extract::Current;
use crate::http::extract::{Bearer, PaymentPage};
use crate::media_type::{self, Expected};
use crate::models::payment_page::canonical;
use crate::models::payment_page::idempotency::{
    RememberedCall, IDEMPOTENCY_KEY_LIFETIME, MAX_IDEMPOTENCY_KEY_CHARS,
};
use crate::models::payment_page::session::Session;
use crate::models::payment_page::validation::{self, Findings};
use crate::outbox::Outbox;
use crate::refusals::{decline, decline_with, parse_body, unsupported_media_type};
use crate::settings::Limits;
use crate::state::payment_page::PaymentPageState;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::{DateTime, FixedOffset, NaiveDate};
use psi_payment_page::types::{SessionRecordList, SessionRequest, SessionResponse};
use std::collections::HashMap;

/// A session creation as it arrived, parsed.
struct Creation {
    /// (token subject, key) when an Idempotency-Key was sent.
    key: Option<(String, String)>,
    /// The body's canonical digest ([`canonical`]), taken only when a key
    /// was sent.
    digest: String,
    request: SessionRequest,
}

pub(super) async fn create_session(
    State(outbox): State<Outbox>,
    State(limits): State<Limits>,
    tenant: Current,
    Bearer { claims, .. }: Bearer<PaymentPage>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let key = match idempotency_key(&headers) {
        Ok(key) => key.map(|key| (claims.sub.clone(), key)),
        Err(message) => {
            let field = idempotency_key_field(message);
            return decline(StatusCode::BAD_REQUEST, &["INVALID_FIELD"], vec![field]);
        }
    };
    if let Err(expected) = media_type::check(&headers, &body, Expected::Json) {
        return unsupported_media_type(expected);
    }
    let request: SessionRequest = match parse_body(&body) {
        Ok(request) => request,
        Err(invalid) => return invalid,
    };
    let webhook_url = request
        .url_data
        .as_ref()
        .and_then(|urls| urls.webhook_url.as_deref());
    if let Some(refusal) = webhook_url.and_then(|url| outbox.refusal(url)) {
        let field = ("$.url_data.webhook_url".to_owned(), refusal);
        return decline_with(
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("PAYMENT_ATTRIBUTE"),
            &["INVALID_FIELD"],
            vec![field],
        );
    }
    // parse_body accepted the bytes, so they are JSON (and UTF-8).
    let digest = match &key {
        Some(_) => std::str::from_utf8(&body)
            .ok()
            .and_then(canonical::digest)
            .unwrap_or_default(),
        None => String::new(),
    };
    let creation = Creation {
        key,
        digest,
        request,
    };
    let now = tenant.clock.now_local();
    let max_sessions = limits.max_sessions;
    let created = create_or_replay(&mut tenant.data().payment_page, creation, now, max_sessions);
    match created {
        Ok(session_id) => {
            let response = SessionResponse {
                landing_page: Some(landing_page(&outbox.url, &session_id)),
                session_id: Some(session_id),
            };
            (StatusCode::CREATED, Json(response)).into_response()
        }
        Err(refused) => refused.into_response(),
    }
}

/// The address the merchant redirects the buyer to.
fn landing_page(sandbox_url: &str, session_id: &str) -> String {
    format!(
        "{}/pps/landing/{session_id}",
        sandbox_url.trim_end_matches('/')
    )
}

/// The Idempotency-Key header, if sent; longer than 64 characters is a 400.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, &'static str> {
    let Some(value) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let key = value.to_str().map_err(|_| "must be visible ASCII text")?;
    if key.chars().count() > MAX_IDEMPOTENCY_KEY_CHARS {
        return Err("must be at most 64 characters");
    }
    Ok(Some(key.to_owned()))
}

/// Why a session was not created.
enum CreationRefusal {
    /// The key was used before with another body.
    KeyReused,
    /// The request breaks the specification's rules: a 422.
    Invalid(Findings),
}

impl IntoResponse for CreationRefusal {
    fn into_response(self) -> Response {
        match self {
            CreationRefusal::KeyReused => decline(
                StatusCode::CONFLICT,
                &["IDEMPOTENCY_KEY_REUSED"],
                vec![idempotency_key_field(
                    "was already used with a different body",
                )],
            ),
            CreationRefusal::Invalid(findings) => declined(findings),
        }
    }
}

/// One 422 decline for all findings.
fn declined(findings: Findings) -> Response {
    let category = findings.category();
    let reasons = findings.reasons();
    decline_with(
        StatusCode::UNPROCESSABLE_ENTITY,
        Some(category),
        &reasons,
        findings.into_fields(),
    )
}

fn idempotency_key_field(message: &str) -> (String, String) {
    ("Idempotency-Key".to_owned(), message.to_owned())
}

/// Creates the session, or answers a repeat of a remembered call: the same
/// body gets the same session, another body a 409. Runs under one lock so
/// two concurrent calls with one key cannot both create a session.
///
/// Only calls that created a session are remembered: a declined call
/// created nothing, so its key may be retried (a 5xx, as the provider's public documentation (docs/service-notes.md)
/// say, and also a 4xx).
fn create_or_replay(
    pages: &mut PaymentPageState,
    creation: Creation,
    now: DateTime<FixedOffset>,
    max_sessions: usize,
) -> Result<String, CreationRefusal> {
    pages.forget_expired_keys(now, IDEMPOTENCY_KEY_LIFETIME);
    if let Some(call) = creation
        .key
        .as_ref()
        .and_then(|key| pages.remembered_call(key))
    {
        return if call.request_digest() == creation.digest {
            Ok(call.session_id.clone())
        } else {
            Err(CreationRefusal::KeyReused)
        };
    }
    validation::check(&creation.request, now.date_naive()).map_err(CreationRefusal::Invalid)?;
    let session_id = uuid::Uuid::new_v4().to_string();
    if let Some(key) = creation.key {
        let call = RememberedCall {
            digest: creation.digest,
            body: None,
            session_id: session_id.clone(),
            remembered_at: now,
        };
        pages.remember(key, call, max_sessions);
    }
    let session = Session::new(session_id.clone(), creation.request, now);
    pages.insert_session(session, max_sessions, now);
    Ok(session_id)
}

pub(super) async fn get_session_record(
    Path(session_id): Path<String>,
    Bearer { tenant, .. }: Bearer<PaymentPage>,
) -> Response {
    let now = tenant.clock.now_local();
    let record = tenant.data().payment_page.record(&session_id, now);
    match record {
        Some(record) => Json(record).into_response(),
        None => decline(StatusCode::NOT_FOUND, &["SESSION_NOT_FOUND"], Vec::new()),
    }
}

pub(super) async fn list_session_records(
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
    Bearer { tenant, .. }: Bearer<PaymentPage>,
) -> Response {
    let day = query
        .ok()
        .and_then(|Query(query)| query.get("createdDate").cloned())
        .and_then(|text| NaiveDate::parse_from_str(&text, "%Y-%m-%d").ok());
    let Some(day) = day else {
        return decline(
            StatusCode::BAD_REQUEST,
            &["INVALID_FIELD"],
            vec![(
                "createdDate".to_owned(),
                "must be a date in the format YYYY-MM-DD".to_owned(),
            )],
        );
    };
    let now = tenant.clock.now_local();
    let records = tenant.data().payment_page.records_of_day(day, now);
    Json(SessionRecordList(records)).into_response()
}
