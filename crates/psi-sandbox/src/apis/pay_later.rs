//! Pay later: the status, the offers and the booking of a due-date
//! postponement for an open-invoice transaction, and (test control) the
//! withdrawal that the provider's back office would record.
//!
//! The document shows no transitions; the sandbox plays these, per
//! transaction (the status is derived from the transaction and its booking,
//! so it can never disagree with them):
//!
//! | status | when | next |
//! |---|---|---|
//! | AVAILABLE | an OPEN_INVOICE transaction without a booking | booking -> ALREADY_BOOKED |
//! | NOT_AVAILABLE | any other payment option | none |
//! | ALREADY_BOOKED | booked | withdrawal within 14 days of booking -> ALREADY_WITHDRAWN |
//! | ALREADY_WITHDRAWN | booked, then withdrawn | none |
//!
//! Booking moves the transaction's `due_date` by the offer's days; a
//! withdrawal cancels the postponement, so the due date goes back to the
//! original one (the booking keeps both dates for the status response).

// The `Err` of the checks below is the HTTP answer itself, built at most once
// per request and returned straight away: boxing it would buy nothing.
#![allow(clippy::result_large_err)]

use crate::errors::{decline, parse_body, unsupported_media_type};
use crate::http::extract::{Bearer, PayLater};
use crate::http::operation::declare;
use crate::media_type::{self, Expected};
use crate::state::{tables, Batch, Data, Loader, Persisted, Table, Transaction};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{Path, State as Shared};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{DateTime, Days, FixedOffset, NaiveDate, SubsecRound, TimeDelta};
use psi_pay_later::types::{
    CurrencyCode, PayLaterBooking, PayLaterBookingRequest, PayLaterBookingResponse,
    PayLaterOfferAvailability, PayLaterOfferDto, PayLaterOffersResponse, PayLaterStatus,
    PayLaterStatusResponse,
};
use psi_runtime::Decimal;
use psi_runtime::RoundingStrategy;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The postponements offered, in days and in offer order: `payl-1` is the
/// first (14 days), `payl-5` the last (150 days, the longest allowed).
const OFFER_DELTAS: [u32; 5] = [14, 30, 60, 90, 150];
/// A withdrawal is accepted up to this long after the booking.
const WITHDRAWAL_PERIOD_DAYS: i64 = 14;
/// The media type of every successful pay later answer.
const JSON_UTF8: &str = "application/json;charset=UTF-8";
/// Only an open-invoice transaction has a due date that can be postponed.
const BOOKABLE_PAYMENT_OPTION: &str = "OPEN_INVOICE";

/// Pay later bookings by transaction id: at most one per transaction, kept
/// after a withdrawal (a withdrawn booking cannot be booked again).
#[derive(Debug, Default)]
pub struct State {
    bookings: Table<String, Booking>,
}

impl Persisted for State {
    fn has_changes(&self) -> bool {
        self.bookings.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        batch.table(tables::PAY_LATER_BOOKINGS, &mut self.bookings)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        Ok(Self {
            bookings: loader.table(tables::PAY_LATER_BOOKINGS)?,
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Booking {
    offer: Offer,
    currency: Option<CurrencyCode>,
    original_due_date: NaiveDate,
    updated_due_date: NaiveDate,
    booked_at: DateTime<FixedOffset>,
    withdrawal_date: Option<NaiveDate>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Offer {
    /// 1-based position in [`OFFER_DELTAS`]; the offer id is `payl-<number>`.
    number: usize,
    delta_days: u32,
    price: Decimal,
}

impl Offer {
    fn id(&self) -> String {
        format!("payl-{}", self.number)
    }
}

pub fn routes() -> Router<AppState> {
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
    Shared(state): Shared<AppState>,
    Path(transaction_id): Path<String>,
    _: Bearer<PayLater>,
) -> Response {
    let data = state.data();
    let Some(transaction) = data.transactions.get(&transaction_id) else {
        return transaction_not_found();
    };
    let booking = data.pay_later.bookings.get(&transaction_id);
    let response = PayLaterStatusResponse {
        transaction_id: Some(transaction_id.clone()),
        pay_later_status: Some(status_of(transaction, booking)),
        booking: booking.map(booking_view),
    };
    json_utf8(StatusCode::OK, &response)
}

async fn get_offers(
    Shared(state): Shared<AppState>,
    Path(transaction_id): Path<String>,
    _: Bearer<PayLater>,
) -> Response {
    // Under the lock, only what the answer reads: the due date, whether
    // the offers can be booked, and the stored order (shared by reference
    // count, not copied).
    let (due_date, bookable, request) = {
        let data = state.data();
        let Some(transaction) = data.transactions.get(&transaction_id) else {
            return transaction_not_found();
        };
        let status = status_of(transaction, data.pay_later.bookings.get(&transaction_id));
        (
            transaction.due_date,
            status == PayLaterStatus::Available,
            transaction.request.clone(),
        )
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
            .map(|offer| offer_view(due_date, offer, currency.clone(), bookable))
            .collect(),
    };
    json_utf8(StatusCode::OK, &response)
}

async fn book_offer(
    Shared(state): Shared<AppState>,
    Path(transaction_id): Path<String>,
    _: Bearer<PayLater>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    // The document states the charset: plain application/json is refused.
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
    let now = state.clock.now_local();
    // Check and set under one lock: of concurrent bookings exactly one wins.
    let booked = book_locked(&mut state.data(), &transaction_id, number, now);
    match booked {
        Ok(booking) => json_utf8(StatusCode::OK, &booking_response(&booking)),
        Err(response) => response,
    }
}

/// Test control: the buyer withdraws the booking through the provider's
/// other channels. 404 for an unknown transaction; 409 without a booking,
/// after a withdrawal or once the withdrawal period has ended.
async fn withdraw(Shared(state): Shared<AppState>, Path(transaction_id): Path<String>) -> Response {
    let now = state.clock.now_local();
    let mut guard = state.data();
    let data = &mut *guard;
    let Some(transaction) = data.transactions.get_mut(&transaction_id) else {
        return control_error(StatusCode::NOT_FOUND, "unknown transaction");
    };
    let Some(booking) = data.pay_later.bookings.get_mut(&transaction_id) else {
        return control_error(
            StatusCode::CONFLICT,
            "pay later is not booked for this transaction",
        );
    };
    if booking.withdrawal_date.is_some() {
        return control_error(StatusCode::CONFLICT, "the booking is already withdrawn");
    }
    if now > booking.booked_at + TimeDelta::days(WITHDRAWAL_PERIOD_DAYS) {
        return control_error(
            StatusCode::CONFLICT,
            "the withdrawal period of 14 days after the booking has ended",
        );
    }
    booking.withdrawal_date = Some(now.date_naive());
    transaction.due_date = booking.original_due_date;
    let answer = json!({
        "transaction_id": transaction_id,
        "pay_later_status": PayLaterStatus::AlreadyWithdrawn.as_str(),
        "withdrawal_date": now.date_naive(),
        "due_date": transaction.due_date,
    });
    (StatusCode::OK, Json(answer)).into_response()
}

// ------------------------------------------------------------ state machine

/// The status of a transaction, derived from its payment option and booking.
fn status_of(transaction: &Transaction, booking: Option<&Booking>) -> PayLaterStatus {
    match booking {
        Some(booking) if booking.withdrawal_date.is_some() => PayLaterStatus::AlreadyWithdrawn,
        Some(_) => PayLaterStatus::AlreadyBooked,
        None if transaction.payment_option == BOOKABLE_PAYMENT_OPTION => PayLaterStatus::Available,
        None => PayLaterStatus::NotAvailable,
    }
}

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
    let status = status_of(transaction, data.pay_later.bookings.get(transaction_id));
    if status != PayLaterStatus::Available {
        return Err(not_bookable(&status));
    }
    let order = transaction.request.order();
    let offer = offers_for(order.gross_total().into())[number - 1];
    let Some(updated_due_date) = postponed(transaction.due_date, offer.delta_days) else {
        return Err(not_bookable(&PayLaterStatus::NotAvailable));
    };
    let booking = Booking {
        offer,
        currency: CurrencyCode::try_from(order.currency().as_ref()).ok(),
        original_due_date: transaction.due_date,
        updated_due_date,
        // The booking timestamp carries microseconds, as the provider's does.
        booked_at: now.trunc_subsecs(6),
        withdrawal_date: None,
    };
    transaction.due_date = updated_due_date;
    data.pay_later
        .bookings
        .insert(transaction_id.to_owned(), booking.clone());
    Ok(booking)
}

// ------------------------------------------------------------------ offers

/// The offers of a transaction whose order amounts to `amount` (gross,
/// every basket), one per entry of [`OFFER_DELTAS`].
fn offers_for(amount: Decimal) -> Vec<Offer> {
    OFFER_DELTAS
        .iter()
        .enumerate()
        .map(|(index, &delta_days)| Offer {
            number: index + 1,
            delta_days,
            price: price(amount, delta_days),
        })
        .collect()
}

/// The sandbox's fee (the provider's is not published): a fixed 1.00 plus
/// 0.1 % of the order amount per day of postponement, rounded half away from
/// zero to the cent. It grows with the days and with the order amount; for
/// the 43.80 example order: 14 days 1.61, 30 days 2.31, 150 days 7.57.
fn price(order_amount: Decimal, delta_days: u32) -> Decimal {
    let per_day = Decimal::new(1, 3); // 0.001
    let fee = crate::amounts::add(
        Decimal::ONE,
        crate::amounts::mul(
            crate::amounts::mul(order_amount, per_day),
            Decimal::from(delta_days),
        ),
    );
    fee.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// `payl-<n>` with n in 1..=5, or nothing.
fn offer_number(offer_id: &str) -> Option<usize> {
    let number: usize = offer_id.strip_prefix("payl-")?.parse().ok()?;
    let canonical = format!("payl-{number}") == offer_id;
    (canonical && (1..=OFFER_DELTAS.len()).contains(&number)).then_some(number)
}

fn postponed(due_date: NaiveDate, delta_days: u32) -> Option<NaiveDate> {
    due_date.checked_add_days(Days::new(u64::from(delta_days)))
}

// ------------------------------------------------------------ wire shapes

/// `currency`: the order's, when the answer's `CurrencyCode` takes it.
fn offer_view(
    due_date: NaiveDate,
    offer: &Offer,
    currency: Option<CurrencyCode>,
    bookable: bool,
) -> PayLaterOfferDto {
    PayLaterOfferDto {
        offer_id: Some(offer.id()),
        price: Some(offer.price),
        currency,
        delta_due_date: Some(offer.delta_days as i32),
        new_due_date: postponed(due_date, offer.delta_days),
        available: Some(if bookable {
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

fn not_bookable(status: &PayLaterStatus) -> Response {
    let reason = match status {
        PayLaterStatus::AlreadyBooked => "PAY_LATER_ALREADY_BOOKED",
        PayLaterStatus::AlreadyWithdrawn => "PAY_LATER_ALREADY_WITHDRAWN",
        _ => "PAY_LATER_NOT_AVAILABLE",
    };
    decline(StatusCode::CONFLICT, &[reason], Vec::new())
}

/// Control routes answer plain JSON errors, like the rest of `/__sandbox`.
fn control_error(status: StatusCode, error: &str) -> Response {
    (status, Json(json!({ "error": error }))).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fee_grows_with_days_and_amount() {
        let amount = Decimal::new(4380, 2);
        assert_eq!(price(amount, 14), Decimal::new(161, 2));
        assert_eq!(price(amount, 30), Decimal::new(231, 2));
        assert_eq!(price(amount, 150), Decimal::new(757, 2));
        assert!(price(amount * Decimal::TWO, 14) > price(amount, 14));
        assert_eq!(price(Decimal::ZERO, 90), Decimal::ONE);
    }

    #[test]
    fn only_canonical_offer_ids_are_known() {
        assert_eq!(offer_number("payl-1"), Some(1));
        assert_eq!(offer_number("payl-5"), Some(5));
        for unknown in [
            "payl-0", "payl-6", "payl-01", "payl-+1", "PAYL-1", "", "payl-",
        ] {
            assert_eq!(offer_number(unknown), None, "{unknown}");
        }
    }
}
