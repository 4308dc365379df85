//! The hosted payment page (`openapi/payment-page.yaml`, server `{base_url}`).
//!
//! | method | path | does |
//! |---|---|---|
//! | POST | /pps/api/v1/session | createSession: checks, remembers the Idempotency-Key, 201 |
//! | GET | /pps/api/v1/session-record/{session_id} | getSessionRecord |
//! | GET | /pps/api/v1/session-record?createdDate= | listSessionRecords of one day (+01:00) |
//! | GET | /pps/landing/{session_id} | the hosted checkout page ([`page`]); the buyer arrives (IN_PROGRESS) |
//! | POST | /pps/landing/{session_id} | the tester's outcome from the page: 303 to the shop's address |
//! | POST | /__sandbox/sessions/{id}/complete | COMPLETED, creates the transaction |
//! | POST | /__sandbox/sessions/{id}/cancel | CANCELED |
//! | POST | /__sandbox/sessions/{id}/fail | ERROR with decline_reasons (`{"category"?}`, default RISK_DECISION) |
//! | POST | /__sandbox/sessions/{id}/expire | EXPIRED now |
//! | POST | /__sandbox/sessions/{id}/fraud-cancel | FRAUD_CANCELLATION_REQUESTED |
//! | GET | /__sandbox/sessions | every session's record, oldest first |
//! | GET | /__sandbox/webhooks | every notification (session and invoice) with its attempts |
//!
//! A session lives CREATED -> IN_PROGRESS (landing page) -> COMPLETED,
//! CANCELED, ERROR, EXPIRED or FRAUD_CANCELLATION_REQUESTED (the page or the
//! control API, both through [`buyer::end`]; each notified to
//! `url_data.webhook_url` when the request has one; a session without it is
//! not notified).
//! A session still open 30 minutes after its creation reads as EXPIRED
//! (checked whenever it is touched, by the sandbox clock).

mod buyer;
mod canonical;
mod operations;
mod page;
mod validation;
mod webhooks;

pub use validation::check_order_data;
pub use webhooks::{resume as resume_notifications, WebhookDelivery};

use crate::http::operation::declare;
use crate::state::{tables, Batch, Loader, Log, Persisted, Table};
use crate::AppState;
use axum::routing::{get, post};
use axum::Router;
use chrono::{DateTime, Duration, FixedOffset};
use psi_payment_page::types::{Decline, SessionRecord, SessionRequest, SessionStatus};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, VecDeque};

/// No buyer action within this time expires a session (docs/service-notes.md).
const SESSION_LIFETIME: Duration = Duration::minutes(30);

/// What the hosted payment page remembers.
#[derive(Debug, Default)]
pub struct State {
    /// By session id.
    /// Boxed: a `Session` is about 1 KB, and the table moves every row
    /// when it grows; with the rows inline, growing past 229,376 sessions
    /// copied about 230 MB under the data lock and stalled every request
    /// for hundreds of milliseconds (BENCHMARKS.md, "Current figures"),
    /// and each empty slot of the grown table held a Session's worth of
    /// bytes.
    pub sessions: Table<String, Box<Session>>,
    /// Session and invoice notifications in the order they were queued.
    pub webhooks: Log<WebhookDelivery>,
    /// How many notifications were dropped from the log's front since the
    /// start: a delivery's number (its position when queued plus this at
    /// that time) finds it after a drop ([`webhooks`]).
    webhooks_dropped: usize,
    /// By (token subject, Idempotency-Key): a key belongs to one merchant.
    idempotency_keys: Table<(String, String), RememberedCall>,
    /// Session ids, oldest first: whom [`State::insert_session`] forgets
    /// beyond the cap. Not stored: rebuilt from the sessions' creation.
    order: VecDeque<String>,
    /// The remembered keys by when they were remembered, so that expired
    /// ones are pruned from the front without a scan of every key.
    key_expiry: BTreeSet<(DateTime<FixedOffset>, (String, String))>,
}

/// How many of the oldest sessions are searched for a finished one to
/// forget before the oldest is forgotten whatever its state.
const EVICTION_WINDOW: usize = 64;

impl Persisted for State {
    fn has_changes(&self) -> bool {
        self.sessions.has_changes()
            || self.webhooks.has_changes()
            || self.idempotency_keys.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        batch.table(tables::SESSIONS, &mut self.sessions)?;
        batch.log(tables::WEBHOOK_DELIVERIES, &mut self.webhooks)?;
        batch.table(tables::IDEMPOTENCY_KEYS, &mut self.idempotency_keys)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        let sessions: Table<String, Box<Session>> = loader.table(tables::SESSIONS)?;
        let idempotency_keys: Table<(String, String), RememberedCall> =
            loader.table(tables::IDEMPOTENCY_KEYS)?;
        let mut by_creation: Vec<(DateTime<FixedOffset>, &String)> = sessions
            .iter()
            .map(|(id, session)| (session.created, id))
            .collect();
        by_creation.sort();
        let order = by_creation.into_iter().map(|(_, id)| id.clone()).collect();
        let key_expiry = idempotency_keys
            .iter()
            .map(|(key, call)| (call.remembered_at, key.clone()))
            .collect();
        Ok(Self {
            sessions,
            webhooks: loader.log(tables::WEBHOOK_DELIVERIES)?,
            idempotency_keys,
            order,
            key_expiry,
            webhooks_dropped: 0,
        })
    }
}

/// A session creation made with an Idempotency-Key.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct RememberedCall {
    /// The digest of the request body's canonical text ([`canonical`]): a
    /// repeat is the same call when it has the same digest.
    #[serde(default)]
    digest: String,
    /// The body itself, as state files of earlier sandboxes kept it: read
    /// only to take its digest, never written.
    #[serde(default, skip_serializing)]
    body: Option<serde_json::Value>,
    session_id: String,
    remembered_at: DateTime<FixedOffset>,
}

/// One payment session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    pub id: String,
    pub status: SessionStatus,
    pub created: DateTime<FixedOffset>,
    pub updated: DateTime<FixedOffset>,
    /// Kept to create the transaction when the buyer completes.
    pub request: SessionRequest,
    /// Where the session's notifications go; none are sent without it.
    pub webhook_url: Option<String>,
    /// The session request has no buyer id, so this stays `None`.
    pub shop_buyer_id: Option<String>,
    pub transaction_id: Option<String>,
    pub decline_reasons: Option<Decline>,
}

impl Session {
    fn new(id: String, request: SessionRequest, now: DateTime<FixedOffset>) -> Self {
        let webhook_url = request
            .url_data
            .as_ref()
            .and_then(|urls| urls.webhook_url.clone());
        Self {
            id,
            status: SessionStatus::Created,
            created: now,
            updated: now,
            request,
            webhook_url,
            shop_buyer_id: None,
            transaction_id: None,
            decline_reasons: None,
        }
    }

    pub fn partner_transaction_id(&self) -> Option<String> {
        self.request
            .order_data
            .as_ref()
            .and_then(|order| order.partner_transaction_id.clone())
    }

    /// The record as read back and as notified.
    pub fn record(&self) -> SessionRecord {
        SessionRecord {
            session_id: Some(self.id.clone()),
            transaction_id: self.transaction_id.clone(),
            partner_transaction_id: self.partner_transaction_id(),
            shop_buyer_id: self.shop_buyer_id.clone(),
            session_status: Some(self.status.clone()),
            decline_reasons: self.decline_reasons.clone(),
            created_date: Some(self.created),
            updated_date: Some(self.updated),
        }
    }

    /// The buyer can still act: the session is neither finished nor expired.
    fn is_open(&self) -> bool {
        matches!(
            self.status,
            SessionStatus::Created | SessionStatus::InProgress
        )
    }

    /// Still open more than 30 minutes after its creation.
    fn is_due(&self, now: DateTime<FixedOffset>) -> bool {
        self.is_open() && now > self.created + SESSION_LIFETIME
    }

    /// A session still open more than 30 minutes after its creation has
    /// expired; it is updated at the moment it expired, not when noticed.
    fn expire_if_due(&mut self, now: DateTime<FixedOffset>) {
        if self.is_due(now) {
            self.status = SessionStatus::Expired;
            self.updated = self.created + SESSION_LIFETIME;
        }
    }
}

impl State {
    /// Stores `session`, first forgetting sessions while `max_sessions`
    /// are kept: the oldest finished (or due) one among the
    /// [`EVICTION_WINDOW`] oldest, else the oldest. A forgotten session
    /// answers 404 as an unknown one.
    fn insert_session(
        &mut self,
        session: Session,
        max_sessions: usize,
        now: DateTime<FixedOffset>,
    ) {
        while self.sessions.len() >= max_sessions.max(1) {
            if !self.forget_one(now) {
                break;
            }
        }
        self.order.push_back(session.id.clone());
        self.sessions.insert(session.id.clone(), Box::new(session));
    }

    fn forget_one(&mut self, now: DateTime<FixedOffset>) -> bool {
        let finished = self.order.iter().take(EVICTION_WINDOW).position(|id| {
            self.sessions
                .get(id)
                .is_some_and(|session| !session.is_open() || session.is_due(now))
        });
        match self.order.remove(finished.unwrap_or(0)) {
            Some(id) => {
                self.sessions.remove(&id);
                true
            }
            None => false,
        }
    }

    /// Forgets the keys remembered `lifetime` or more before `now`
    /// (sandbox time), oldest first, touching no other key.
    fn forget_expired_keys(&mut self, now: DateTime<FixedOffset>, lifetime: Duration) {
        let cutoff = now - lifetime;
        while self
            .key_expiry
            .first()
            .is_some_and(|(remembered_at, _)| *remembered_at <= cutoff)
        {
            if let Some((_, expired)) = self.key_expiry.pop_first() {
                self.idempotency_keys.remove(&expired);
            }
        }
    }

    /// Remembers `call` under `key`, first forgetting the oldest keys while
    /// `max` are kept (a key only replays a session, and no more sessions
    /// than that are kept).
    fn remember(&mut self, key: (String, String), call: RememberedCall, max: usize) {
        while self.idempotency_keys.len() >= max.max(1) {
            match self.key_expiry.pop_first() {
                Some((_, oldest)) => {
                    self.idempotency_keys.remove(&oldest);
                }
                None => break,
            }
        }
        self.key_expiry.insert((call.remembered_at, key.clone()));
        self.idempotency_keys.insert(key, call);
    }

    /// Expires the due sessions among those `among` selects. Only those
    /// are touched, so reading sessions writes nothing to a state file
    /// unless one of them expired.
    fn expire_due(&mut self, now: DateTime<FixedOffset>, among: impl Fn(&Session) -> bool) {
        let due: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, session)| among(session) && session.is_due(now))
            .map(|(id, _)| id.clone())
            .collect();
        for id in due {
            if let Some(session) = self.sessions.get_mut(&id) {
                session.expire_if_due(now);
            }
        }
    }
}

/// The address the merchant redirects the buyer to.
fn landing_page(sandbox_url: &str, session_id: &str) -> String {
    format!(
        "{}/pps/landing/{session_id}",
        sandbox_url.trim_end_matches('/')
    )
}

pub fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/pps/api/v1/session",
            declare("createSession", post(operations::create_session)),
        )
        .route(
            "/pps/api/v1/session-record",
            declare("listSessionRecords", get(operations::list_session_records)),
        )
        .route(
            "/pps/api/v1/session-record/{session_id}",
            declare("getSessionRecord", get(operations::get_session_record)),
        )
        .route(
            "/pps/landing/{session_id}",
            get(page::show).post(page::submit),
        )
        .route(
            "/__sandbox/sessions/{session_id}/complete",
            post(buyer::complete),
        )
        .route(
            "/__sandbox/sessions/{session_id}/cancel",
            post(buyer::cancel),
        )
        .route("/__sandbox/sessions/{session_id}/fail", post(buyer::fail))
        .route(
            "/__sandbox/sessions/{session_id}/expire",
            post(buyer::expire),
        )
        .route(
            "/__sandbox/sessions/{session_id}/fraud-cancel",
            post(buyer::fraud_cancel),
        )
        .route("/__sandbox/sessions", get(buyer::list_sessions))
        .route("/__sandbox/webhooks", get(webhooks::list))
}
