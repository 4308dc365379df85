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
//! | POST | /__sandbox/sessions/{id}/notify | the session notification of the session as it is now, again |
//! | POST | /__sandbox/transactions/{id}/notify-invoice | the invoice notification of a transaction, to every subscription |
//! | GET | /__sandbox/webhooks | every notification (session and invoice) with its number and attempts |
//! | POST | /__sandbox/webhooks/{number}/resend | a logged notification again, as a new delivery |
//!
//! A session lives CREATED -> IN_PROGRESS (landing page) -> COMPLETED,
//! CANCELED, ERROR, EXPIRED or FRAUD_CANCELLATION_REQUESTED (the page or the
//! control API, both through [`buyer::end`]; each notified to
//! `url_data.webhook_url` when the request has one; a session without it is
//! not notified).
//! A session still open 30 minutes after its creation reads as EXPIRED
//! (checked whenever it is touched, by the sandbox clock).
//!
//! The session, its state machine and the checks of a request are models
//! ([`crate::models::payment_page`]); what the page remembers is state
//! ([`crate::state::payment_page`]); the page's HTML is drawn by
//! [`crate::render::payment_page`]. Here are the routes and handlers.

mod buyer;
mod operations;
mod page;
mod webhooks;

/// The session's order checks, for the control API's stored transactions.
pub use crate::models::payment_page::validation::check_order_data;
pub use webhooks::schedule as schedule_notifications;

use crate::auth::Tokens;
use crate::http::operation::declare;
use crate::outbox::Outbox;
use crate::settings::Limits;
use axum::extract::FromRef;
use axum::routing::{get, post};
use axum::Router;

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
    Limits: FromRef<S>,
    Outbox: FromRef<S>,
{
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
        .route(
            "/__sandbox/sessions/{session_id}/notify",
            post(webhooks::notify_session),
        )
        .route(
            "/__sandbox/transactions/{transaction_id}/notify-invoice",
            post(webhooks::notify_transaction_invoice),
        )
        .route("/__sandbox/sessions", get(buyer::list_sessions))
        .route("/__sandbox/webhooks", get(webhooks::list))
        .route(
            "/__sandbox/webhooks/{number}/resend",
            post(webhooks::resend),
        )
}
