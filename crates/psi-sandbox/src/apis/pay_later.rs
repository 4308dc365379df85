//! Pay later's HTTP floor: the status, the offers and the booking of a
//! due-date postponement for an open-invoice transaction, and (test
//! control) the withdrawal that the provider's back office would record.
//! The status read answers 200 for every known transaction; the offers read
//! and the booking answer 409 (CONFLICT) unless the status is AVAILABLE
//! (not an open invoice, already booked, withdrawn).
//! The state machine and the offers are in [`crate::models::pay_later`].

// The `Err` of the checks below is the HTTP answer itself, built at most once
// per request and returned straight away: boxing it would buy nothing.
#![allow(clippy::result_large_err)]

use crate::auth::Tokens;
use crate::http::extract::Current;
use crate::http::extract::{Bearer, PayLater};
use crate::http::operation::declare;
use crate::media_type::{self, Expected};
use crate::models::pay_later::{
    self, offer_number, offers_for, postponed, status_of, Booking, NotBookable, NotWithdrawable,
    PaidBy, PayLaterOffer,
};
use crate::refusals::control_error;
use crate::refusals::{decline, parse_body, unsupported_media_type};
use crate::state::Data;
use crate::state::Transaction;
use axum::body::Bytes;
use axum::extract::FromRef;
use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{DateTime, FixedOffset, NaiveDate};
use psi_pay_later::types::{
    CurrencyCode, PayLaterBooking, PayLaterBookingRequest, PayLaterBookingResponse,
    PayLaterOfferAvailability, PayLaterOfferDto, PayLaterOffersResponse, PayLaterStatus,
    PayLaterStatusResponse,
};
use serde_json::json;

/// The media type of every successful pay later answer.
const JSON_UTF8: &str = "application/json;charset=UTF-8";

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
{
    Router::new()
        .route(
            "/order/paylater/v1/{transaction_id}/status",
            declare("getPayLaterStatus", get(get_status)),
        )
        .route(
            "/order/paylater/v1/{transaction_id}/offers",
            declare("getPayLaterOffers", get(get_offers)),
        )
        .route(
            "/order/paylater/v1/{transaction_id}",
            declare("bookPayLaterOffer", post(book_offer)),
        )
        .route(
            "/__sandbox/pay-later/{transaction_id}/withdraw",
            post(withdraw),
        )
}

// ---------------------------------------------------------------- handlers

async fn get_status(
    Path(transaction_id): Path<String>,
    Bearer { tenant, .. }: Bearer<PayLater>,
) -> Response {
    let data = tenant.data();
    let Some(transaction) = data.transactions.get(&transaction_id) else {
        return transaction_not_found();
    };
    let booking = data.pay_later.bookings.get(&transaction_id);
    let response = PayLaterStatusResponse {
        transaction_id: Some(transaction_id.clone()),
        pay_later_status: Some(status_of(paid_by(transaction), booking)),
        booking: booking.map(booking_view),
    };
    json_utf8(StatusCode::OK, &response)
}

async fn get_offers(
    Path(transaction_id): Path<String>,
    Bearer { tenant, .. }: Bearer<PayLater>,
) -> Response {
    // Under the lock, only what the answer reads: the due date and the
    // stored order (shared by reference count, not copied). Offers exist
    // only while pay later is AVAILABLE; any other status is a conflict.
    let (due_date, request) = {
        let data = tenant.data();
        let Some(transaction) = data.transactions.get(&transaction_id) else {
            return transaction_not_found();
        };
        let booking = data.pay_later.bookings.get(&transaction_id);
        if let Err(refusal) = pay_later::bookable(paid_by(transaction), booking) {
            return not_bookable(refusal);
        }
        (transaction.due_date, transaction.request.clone())
    };
    // After it, the order's compact part alone: its amounts and currency,
    // nothing inflated or parsed as JSON.
    let order = request.order();
    let currency = CurrencyCode::try_from(order.currency().as_ref()).ok();
    let response = PayLaterOffersResponse {
        transaction_id: Some(transaction_id.clone()),
        current_due_date: Some(due_date),
        pay_later_offers: offers_for(order.gross_total().into())
            .iter()
            .map(|offer| offer_view(due_date, offer, currency.clone()))
            .collect(),
    };
    json_utf8(StatusCode::OK, &response)
}

async fn book_offer(
    Path(transaction_id): Path<String>,
    Bearer { tenant, .. }: Bearer<PayLater>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    // The document states the charset (psi sends it); plain
    // application/json, the provider's own example header, is taken too.
    if let Err(expected) = media_type::check(&headers, &body, Expected::JsonUtf8) {
        return unsupported_media_type(expected);
    }
    let request = match parse_booking(&body) {
        Ok(request) => request,
        Err(response) => return response,
    };
    let Some(number) = offer_number(&request.offer_id) else {
        return unknown_offer();
    };
    let now = tenant.clock.now_local();
    // Check and set under one lock: of concurrent bookings exactly one wins.
    let booked = book_locked(&mut tenant.data(), &transaction_id, number, now);
    match booked {
        Ok(booking) => json_utf8(StatusCode::OK, &booking_response(&booking)),
        Err(response) => response,
    }
}

/// Test control: the buyer withdraws the booking through the provider's
/// other channels. 404 for an unknown transaction; 409 without a booking,
/// after a withdrawal or once the withdrawal period has ended.
async fn withdraw(tenant: Current, Path(transaction_id): Path<String>) -> Response {
    let now = tenant.clock.now_local();
    let mut guard = tenant.data();
    let data = &mut *guard;
    let Some(transaction) = data.transactions.get_mut(&transaction_id) else {
        return control_error(StatusCode::NOT_FOUND, "unknown transaction");
    };
    let booking = data.pay_later.bookings.get_mut(&transaction_id);
    match pay_later::withdraw(booking, now) {
        Ok(original_due_date) => transaction.due_date = original_due_date,
        Err(refusal) => return control_error(StatusCode::CONFLICT, not_withdrawable(refusal)),
    }
    let answer = json!({
        "transaction_id": transaction_id,
        "pay_later_status": PayLaterStatus::AlreadyWithdrawn.as_str(),
        "withdrawal_date": now.date_naive(),
        "due_date": transaction.due_date,
    });
    (StatusCode::OK, Json(answer)).into_response()
}

// ------------------------------------------------------------------ booking

/// Books offer `number` if the transaction's status is AVAILABLE, moving its
/// due date. Runs with the data locked.
fn book_locked(
    data: &mut Data,
    transaction_id: &str,
    number: usize,
    now: DateTime<FixedOffset>,
) -> Result<Booking, Response> {
    let Some(transaction) = data.transactions.get_mut(transaction_id) else {
        return Err(transaction_not_found());
    };
    let booking = data.pay_later.bookings.get(transaction_id);
    pay_later::bookable(paid_by(transaction), booking).map_err(not_bookable)?;
    let order = transaction.request.order();
    let currency = CurrencyCode::try_from(order.currency().as_ref()).ok();
    let booking = pay_later::book(
        number,
        transaction.due_date,
        order.gross_total().into(),
        currency,
        now,
    )
    .map_err(not_bookable)?;
    transaction.due_date = booking.updated_due_date;
    data.pay_later
        .bookings
        .insert(transaction_id.to_owned(), booking.clone());
    Ok(booking)
}

// ------------------------------------------------------------ wire shapes

/// How the transaction was paid, as pay later's rules read it.
fn paid_by(transaction: &Transaction) -> PaidBy<'_> {
    PaidBy {
        payment_option: &transaction.payment_option,
        transfer_type: &transaction.transfer_type,
    }
}

/// `currency`: the order's, when the answer's `CurrencyCode` takes it. An
/// offer whose new due date would pass the calendar's end is not available.
fn offer_view(
    due_date: NaiveDate,
    offer: &PayLaterOffer,
    currency: Option<CurrencyCode>,
) -> PayLaterOfferDto {
    let new_due_date = postponed(due_date, offer.delta_days);
    PayLaterOfferDto {
        offer_id: Some(offer.id()),
        price: Some(offer.price),
        currency,
        delta_due_date: Some(offer.delta_days as i32),
        new_due_date,
        available: Some(if new_due_date.is_some() {
            PayLaterOfferAvailability::Available
        } else {
            PayLaterOfferAvailability::NotAvailable
        }),
    }
}

fn booking_view(booking: &Booking) -> PayLaterBooking {
    PayLaterBooking {
        fee: Some(booking.offer.price),
        currency: booking.currency.clone(),
        delta_due_date: Some(booking.offer.delta_days as i32),
        original_due_date: Some(booking.original_due_date),
        updated_due_date: Some(booking.updated_due_date),
        booking_timestamp: Some(booking.booked_at),
        withdrawal_date: booking.withdrawal_date,
    }
}

fn booking_response(booking: &Booking) -> PayLaterBookingResponse {
    PayLaterBookingResponse {
        delta_due_date: Some(booking.offer.delta_days as i32),
        fee: Some(booking.offer.price),
        currency: booking.currency.clone(),
        original_due_date: Some(booking.original_due_date),
        new_due_date: Some(booking.updated_due_date),
        booking_timestamp: Some(booking.booked_at),
    }
}

/// A JSON answer with the document's media type (`axum::Json` would say
/// `application/json`).
fn json_utf8<T: serde::Serialize>(status: StatusCode, body: &T) -> Response {
    let mut response = (status, Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON_UTF8));
    response
}

// ---------------------------------------------------------------- requests

/// The booking body as the generated type. A missing or null `offer_id`
/// is named as the document's example names it.
fn parse_booking(body: &[u8]) -> Result<PayLaterBookingRequest, Response> {
    let offer_id_absent = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|value| {
            value
                .as_object()
                .map(|object| object.get("offer_id").is_none_or(|id| id.is_null()))
        });
    if offer_id_absent == Some(true) {
        return Err(decline(
            StatusCode::BAD_REQUEST,
            &["INVALID_FIELD"],
            vec![("$.offer_id".into(), "must not be null".into())],
        ));
    }
    parse_body(body)
}

// ------------------------------------------------------------------ errors

fn transaction_not_found() -> Response {
    decline(
        StatusCode::NOT_FOUND,
        &["TRANSACTION_NOT_FOUND"],
        Vec::new(),
    )
}

fn unknown_offer() -> Response {
    decline(
        StatusCode::BAD_REQUEST,
        &["INVALID_FIELD"],
        vec![(
            "$.offer_id".into(),
            "is not an offer of the offers response".into(),
        )],
    )
}

fn not_bookable(refusal: NotBookable) -> Response {
    let reason = match refusal {
        NotBookable::AlreadyBooked => "PAY_LATER_ALREADY_BOOKED",
        NotBookable::AlreadyWithdrawn => "PAY_LATER_ALREADY_WITHDRAWN",
        NotBookable::NotAvailable => "PAY_LATER_NOT_AVAILABLE",
    };
    decline(StatusCode::CONFLICT, &[reason], Vec::new())
}

fn not_withdrawable(refusal: NotWithdrawable) -> &'static str {
    match refusal {
        NotWithdrawable::NotBooked => "pay later is not booked for this transaction",
        NotWithdrawable::AlreadyWithdrawn => "the booking is already withdrawn",
        NotWithdrawable::PeriodEnded => {
            "the withdrawal period of 14 days after the booking has ended"
        }
    }
}
