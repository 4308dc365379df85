//! The hosted payment page: a real checkout in the browser, with a box in
//! which the tester picks the outcome.
//!
//! | method | path | does |
//! |---|---|---|
//! | GET | /pps/landing/{session_id}?lang= | the checkout page; a new session moves to IN_PROGRESS |
//! | POST | /pps/landing/{session_id}?lang= | the chosen outcome (`application/x-www-form-urlencoded`) |
//!
//! The page ([`crate::render::payment_page`]) shows every shop basket
//! (items, special items, discounts, VAT, net and gross totals, currency;
//! amounts from the request's exact decimals), the billing address, the
//! delivery in each of the document's five shapes and the payment methods
//! the session allows ([`crate::models::payment_page::methods`]). It is
//! written in the buyer's `language` (`de` German, else English;
//! `?lang=en|de` overrides). HTML5 with inline CSS: no script, no external
//! asset, every field labelled, every text from the request escaped.
//!
//! The form posts `action` (the pressed button), `method`, `iban`,
//! `account_holder` and `category`. Each outcome ends the session through
//! [`super::buyer::end`], the function the control API calls, so the
//! status, the transaction, the decline and the signed notification are the
//! control API's:
//!
//! | action | session becomes | the browser goes to (303) |
//! |---|---|---|
//! | pay | COMPLETED, transaction with the method's payment_option and transfer_type | `url_data.success_url` |
//! | decline + category | ERROR, decline_reasons of that 422 category | `url_data.failure_url` |
//! | cancel | CANCELED | `url_data.cancel_url` |
//! | expire | EXPIRED now (see below) | `url_data.failure_url` |
//! | fraud_cancel | FRAUD_CANCELLATION_REQUESTED | `url_data.failure_url` |
//!
//! - **The redirect carries nothing.** The `Location` is the shop's address
//!   exactly as the session request gave it, its own query string intact;
//!   the sandbox appends no parameter (the specification shows none). A
//!   shop that needs to know the session puts its own reference into the
//!   address, and reads the outcome from the notification or the record.
//! - **No address given** (no `url_data`, or that field null): the page
//!   answers 200 with the result (status and session id) instead of a
//!   redirect. So does an address that is not a valid header value.
//! - **Direct debit with a missing or invalid IBAN** answers **422** with
//!   the page again, the entries kept and a message next to the IBAN
//!   field; the session stays open. The IBAN is checked, never stored.
//! - **Expire** ends the session as EXPIRED with `updated_date` now, as if
//!   the 30 minutes of this one session had run out; the sandbox clock and
//!   other sessions are untouched. Because the page changed the status on
//!   purpose, the EXPIRED notification is sent like any other ending. (A
//!   session that expires because the clock passed its 30 minutes is
//!   noticed when next read and is not notified.)
//! - OTP_PENDING is not offered: the sandbox has no one-time-password step
//!   that could take a session out of it again.
//! - A session that is no longer open (ended, expired) shows a page saying
//!   so with a link to the shop's matching address (200 on GET, 409 on a
//!   POST); an unknown session is 404.
//! - A form the page never produces (unknown action, method not offered,
//!   category not one of the seven) is 400 with the field and the rule.

mod outcome;

use super::buyer;
use crate::html::escape;
use crate::http::extract::Current;
use crate::models::payment_page::methods::{Method, Offer};
use crate::models::payment_page::session::{CannotEnd, Choice, Ending, Session};
use crate::outbox::Outbox;
use crate::render::payment_page::form::Entered;
use crate::render::payment_page::pages;
use crate::render::payment_page::text::Lang;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Form;
use outcome::{Invalid, Outcome, Posted};
use serde::Deserialize;

/// `?lang=en|de`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct LangQuery {
    lang: Option<String>,
}

/// `GET /pps/landing/{session_id}`.
pub(super) async fn show(
    Current(tenant): Current,
    Path(session_id): Path<String>,
    Query(query): Query<LangQuery>,
) -> Response {
    let Some(session) = buyer::visit(&tenant, &session_id) else {
        return unknown(&query);
    };
    let lang = Lang::of(&session, query.lang.as_deref());
    if !session.is_open() {
        return Html(pages::closed(&session, lang)).into_response();
    }
    Html(pages::checkout(&session, lang, &Entered::default())).into_response()
}

/// `POST /pps/landing/{session_id}`: the tester's choice.
pub(super) async fn submit(
    State(outbox): State<Outbox>,
    Current(tenant): Current,
    Path(session_id): Path<String>,
    Query(query): Query<LangQuery>,
    Form(posted): Form<Posted>,
) -> Response {
    let Some(session) = buyer::visit(&tenant, &session_id) else {
        return unknown(&query);
    };
    let lang = Lang::of(&session, query.lang.as_deref());
    if !session.is_open() {
        return closed(&session, lang);
    }
    let offer = offer_of(&session);
    let ending = match posted.outcome(&offer.methods) {
        Ok(outcome) => ending(outcome),
        Err(Invalid::Iban) => {
            let entered = Entered {
                method: Some(Method::DirectDebit),
                iban: posted.iban.unwrap_or_default(),
                account_holder: posted.account_holder.unwrap_or_default(),
                iban_invalid: true,
            };
            let page = pages::checkout(&session, lang, &entered);
            return (StatusCode::UNPROCESSABLE_ENTITY, Html(page)).into_response();
        }
        Err(Invalid::Form(rule)) => {
            let body = format!("<p><code>{}</code></p>", escape(&rule));
            let page = pages::message_page(lang, "400 Bad Request", &body);
            return (StatusCode::BAD_REQUEST, Html(page)).into_response();
        }
    };
    match buyer::end(&outbox, &tenant, &session_id, ending) {
        Ok(ended) => go_back(&ended, lang),
        // Ended or expired between the visit above and now.
        Err(CannotEnd::NotOpen(_)) | Err(CannotEnd::Unknown) => {
            match buyer::visit(&tenant, &session_id) {
                Some(session) => closed(&session, lang),
                None => unknown(&query),
            }
        }
    }
}

fn offer_of(session: &Session) -> Offer {
    let order = session.request.order_data.as_ref();
    Offer::for_restriction(order.and_then(|order| order.payment_method.as_ref()))
}

/// The control API's ending for the tester's outcome.
fn ending(outcome: Outcome) -> Ending {
    match outcome {
        Outcome::Pay(method) => Ending::Complete(Choice {
            payment_option: Some(method.payment_option().to_owned()),
            transfer_type: Some(method.transfer_type().to_owned()),
        }),
        Outcome::Decline(category) => Ending::Fail(category),
        Outcome::Cancel => Ending::Cancel,
        Outcome::Expire => Ending::Expire,
        Outcome::FraudCancel => Ending::FraudCancel,
    }
}

/// 303 to the shop's address for the session's new status, unchanged; the
/// result page when there is none.
fn go_back(session: &Session, lang: Lang) -> Response {
    let location = session
        .return_address()
        .1
        .and_then(|url| HeaderValue::from_str(url).ok());
    match location {
        Some(location) => (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response(),
        None => Html(pages::done(session, lang)).into_response(),
    }
}

fn closed(session: &Session, lang: Lang) -> Response {
    (StatusCode::CONFLICT, Html(pages::closed(session, lang))).into_response()
}

fn unknown(query: &LangQuery) -> Response {
    let lang = query
        .lang
        .as_deref()
        .map(Lang::from_code)
        .unwrap_or(Lang::En);
    let page = pages::message_page(lang, "404 Not Found", "<p>Unknown payment session.</p>");
    (StatusCode::NOT_FOUND, Html(page)).into_response()
}
