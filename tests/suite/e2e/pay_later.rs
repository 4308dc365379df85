//! Pay later against the sandbox: every status and transition, the offers'
//! and the booking's date arithmetic, the documented errors, the 14-day
//! withdrawal period and concurrent bookings.

use super::{completed_transaction, declined, sandbox};
use chrono::{Days, NaiveDate, Timelike};
use psi::pay_later::types::{
    DeclineCategory, DeclineResponse, PayLaterBookingOutcome, PayLaterBookingRequest,
    PayLaterOfferAvailability, PayLaterStatus,
};
use psi::pay_later::{Error, ResponseValue};
use psi_runtime::Decimal;
use psi_sandbox::Sandbox;
use serde_json::json;

const DAY: i64 = 24 * 60 * 60;

/// The due date the sandbox holds for a transaction.
async fn due_date(sandbox: &Sandbox, transaction_id: &str) -> NaiveDate {
    let stored = sandbox.control().transaction(transaction_id).await;
    stored.expect("a stored transaction").due_date
}

fn offer(offer_id: &str) -> PayLaterBookingRequest {
    PayLaterBookingRequest {
        offer_id: offer_id.to_owned(),
        extra_members: Default::default(),
    }
}

async fn book(
    client: &psi::Client,
    transaction_id: &str,
    offer_id: &str,
) -> Result<ResponseValue<PayLaterBookingOutcome>, Error<DeclineResponse>> {
    client
        .pay_later()
        .book_pay_later_offer()
        .transaction_id(transaction_id)
        .body(offer(offer_id))
        .send()
        .await
}

async fn status(
    client: &psi::Client,
    transaction_id: &str,
) -> psi::pay_later::types::PayLaterStatusResponse {
    client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(transaction_id)
        .send()
        .await
        .expect("the status is read")
        .into_inner()
}

async fn offers(
    client: &psi::Client,
    transaction_id: &str,
) -> psi::pay_later::types::PayLaterOffersResponse {
    client
        .pay_later()
        .get_pay_later_offers()
        .transaction_id(transaction_id)
        .send()
        .await
        .expect("the offers are read")
        .into_inner()
}

async fn offers_result(
    client: &psi::Client,
    transaction_id: &str,
) -> Result<ResponseValue<psi::pay_later::types::PayLaterOffersResponse>, Error<DeclineResponse>> {
    client
        .pay_later()
        .get_pay_later_offers()
        .transaction_id(transaction_id)
        .send()
        .await
}

/// The status and the decoded decline of an error answer.
fn content_type<T>(response: &ResponseValue<T>) -> &str {
    response.headers()["content-type"]
        .to_str()
        .expect("an ASCII content type")
}

#[tokio::test]
async fn an_open_invoice_transaction_is_available_until_booked() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;

    let response = client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(&transaction_id)
        .send()
        .await
        .expect("200");
    assert_eq!(content_type(&response), "application/json;charset=UTF-8");
    let status = response.into_inner();
    assert_eq!(
        status.transaction_id.as_deref(),
        Some(transaction_id.as_str())
    );
    assert_eq!(status.pay_later_status, Some(PayLaterStatus::Available));
    assert_eq!(status.booking, None, "no booking before one is made");
}

#[tokio::test]
async fn offers_postpone_the_current_due_date_by_14_to_150_days() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;

    let response = client
        .pay_later()
        .get_pay_later_offers()
        .transaction_id(&transaction_id)
        .send()
        .await
        .expect("200");
    assert_eq!(content_type(&response), "application/json;charset=UTF-8");
    let offers = response.into_inner();
    psi::preflight::check_offers(&offers)
        .expect("every new_due_date is current_due_date + delta_due_date");
    assert_eq!(
        offers.transaction_id.as_deref(),
        Some(transaction_id.as_str())
    );
    assert_eq!(
        offers.current_due_date,
        Some(due_date(&sandbox, &transaction_id).await)
    );

    let ids: Vec<_> = offers
        .pay_later_offers
        .iter()
        .map(|o| o.offer_id.clone().unwrap())
        .collect();
    assert_eq!(ids, ["payl-1", "payl-2", "payl-3", "payl-4", "payl-5"]);
    let deltas: Vec<_> = offers
        .pay_later_offers
        .iter()
        .map(|o| o.delta_due_date.unwrap())
        .collect();
    assert_eq!(deltas, [14, 30, 60, 90, 150]);
    let prices: Vec<Decimal> = offers
        .pay_later_offers
        .iter()
        .map(|o| o.price.unwrap())
        .collect();
    assert!(
        prices.windows(2).all(|pair| pair[0] < pair[1]),
        "a longer postponement costs more: {prices:?}"
    );
    // 1.00 + 0.1 % of the 43.80 order per day, to the cent.
    assert_eq!(prices[0], "1.61".parse::<Decimal>().unwrap());
    for offer in &offers.pay_later_offers {
        assert_eq!(offer.currency.as_deref().map(String::as_str), Some("EUR"));
        assert_eq!(offer.available, Some(PayLaterOfferAvailability::Available));
    }
}

#[tokio::test]
async fn booking_moves_the_due_date_and_the_status_to_already_booked() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let original = due_date(&sandbox, &transaction_id).await;
    let chosen = offers(&client, &transaction_id).await.pay_later_offers[1].clone();

    let response = book(&client, &transaction_id, "payl-2")
        .await
        .expect("the offer is booked");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(content_type(&response), "application/json;charset=UTF-8");
    let booking = response
        .into_inner()
        .0
        .expect("the sandbox answers with the booking");
    psi::preflight::check_booking(&booking)
        .expect("new_due_date is original_due_date + delta_due_date");
    assert_eq!(booking.delta_due_date, Some(30));
    assert_eq!(booking.original_due_date, Some(original));
    assert_eq!(booking.new_due_date, Some(original + Days::new(30)));
    assert_eq!(booking.fee, chosen.price, "the fee is the offer's price");
    assert_eq!(booking.currency.as_deref().map(String::as_str), Some("EUR"));
    let booked_at = booking.booking_timestamp.expect("a booking timestamp");
    assert_eq!(
        booked_at.offset().local_minus_utc(),
        3600,
        "the provider's +01:00"
    );
    assert_eq!(
        booked_at.nanosecond() % 1000,
        0,
        "microseconds, not nanoseconds"
    );
    assert_eq!(
        due_date(&sandbox, &transaction_id).await,
        original + Days::new(30),
        "the transaction moved"
    );

    let status = status(&client, &transaction_id).await;
    assert_eq!(status.pay_later_status, Some(PayLaterStatus::AlreadyBooked));
    let shown = status.booking.expect("the booking is shown once booked");
    assert_eq!(shown.fee, booking.fee);
    assert_eq!(shown.delta_due_date, Some(30));
    assert_eq!(shown.original_due_date, Some(original));
    assert_eq!(shown.updated_due_date, booking.new_due_date);
    assert_eq!(shown.booking_timestamp, Some(booked_at));
    assert_eq!(shown.withdrawal_date, None);

    // Once booked, the offers read is a conflict, as the booking is.
    let (code, decline) = declined(offers_result(&client, &transaction_id).await);
    assert_eq!(code, 409);
    assert_eq!(decline.category, Some(DeclineCategory::Conflict));
    assert_eq!(decline.reasons, ["PAY_LATER_ALREADY_BOOKED"]);
}

#[tokio::test]
async fn a_booked_transaction_cannot_be_booked_again() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    book(&client, &transaction_id, "payl-1")
        .await
        .expect("the first booking");
    let moved = due_date(&sandbox, &transaction_id).await;

    let (status, decline) = declined(book(&client, &transaction_id, "payl-3").await);
    assert_eq!(status, 409);
    assert_eq!(decline.category, Some(DeclineCategory::Conflict));
    assert_eq!(decline.reasons, ["PAY_LATER_ALREADY_BOOKED"]);
    assert_eq!(
        due_date(&sandbox, &transaction_id).await,
        moved,
        "a refused booking moves nothing"
    );
}

/// Not available: the status read answers 200 with NOT_AVAILABLE, the
/// offers read and the booking 409 (category CONFLICT), and nothing moves.
async fn assert_not_available(sandbox: &Sandbox, client: &psi::Client, transaction_id: &str) {
    let due = due_date(sandbox, transaction_id).await;
    let status = status(client, transaction_id).await;
    assert_eq!(status.pay_later_status, Some(PayLaterStatus::NotAvailable));
    assert_eq!(status.booking, None);

    let (code, decline) = declined(offers_result(client, transaction_id).await);
    assert_eq!(code, 409, "the offers read");
    assert_eq!(decline.category, Some(DeclineCategory::Conflict));
    assert_eq!(decline.reasons, ["PAY_LATER_NOT_AVAILABLE"]);

    let (code, decline) = declined(book(client, transaction_id, "payl-1").await);
    assert_eq!(code, 409, "the booking");
    assert_eq!(decline.category, Some(DeclineCategory::Conflict));
    assert_eq!(decline.reasons, ["PAY_LATER_NOT_AVAILABLE"]);
    assert_eq!(due_date(sandbox, transaction_id).await, due);
}

#[tokio::test]
async fn a_transaction_that_is_not_an_open_invoice_is_not_available() {
    let (sandbox, client) = sandbox().await;
    for payment_option in ["PREPAYMENT", "INSTALMENT"] {
        let transaction_id = completed_transaction(&sandbox, &client, payment_option).await;
        assert_not_available(&sandbox, &client, &transaction_id).await;
    }
}

/// The hosted page stores a direct debit as payment_option OPEN_INVOICE with
/// transfer_type DIRECT_DEBIT: not an open invoice, so no pay later.
#[tokio::test]
async fn a_transaction_paid_by_direct_debit_is_not_available() {
    let (sandbox, client) = sandbox().await;
    let session = client
        .payment_page()
        .create_session()
        .body(super::session_request("http://127.0.0.1:9/unused-webhook"))
        .send()
        .await
        .expect("the session is created")
        .into_inner();
    let session_id = session.session_id.expect("a session id");
    let completed = sandbox
        .control()
        .post(
            &format!("sessions/{session_id}/complete"),
            json!({"payment_option": "OPEN_INVOICE", "transfer_type": "DIRECT_DEBIT"}),
        )
        .await
        .expect("the buyer pays by direct debit");
    let transaction_id = completed["transaction_id"].as_str().unwrap().to_owned();
    let stored = sandbox
        .control()
        .transaction(&transaction_id)
        .await
        .unwrap();
    assert_eq!(
        (
            stored.payment_option.as_str(),
            stored.transfer_type.as_str()
        ),
        ("OPEN_INVOICE", "DIRECT_DEBIT")
    );

    assert_not_available(&sandbox, &client, &transaction_id).await;
}

#[tokio::test]
async fn an_unknown_transaction_is_404_everywhere() {
    let (_sandbox, client) = sandbox().await;
    let unknown = "12-00000000000000000";

    let status = client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(unknown)
        .send()
        .await;
    let offers = client
        .pay_later()
        .get_pay_later_offers()
        .transaction_id(unknown)
        .send()
        .await;
    let booking = book(&client, unknown, "payl-1").await;
    for (status, decline) in [declined(status), declined(offers), declined(booking)] {
        assert_eq!(status, 404);
        assert_eq!(decline.category, Some(DeclineCategory::ResourceNotFound));
        assert_eq!(decline.reasons, ["TRANSACTION_NOT_FOUND"]);
    }
}

#[tokio::test]
async fn an_unknown_offer_is_400_naming_the_offer_id() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;

    for unknown in ["payl-6", "payl-0", "", "offer-1"] {
        let (status, decline) = declined(book(&client, &transaction_id, unknown).await);
        assert_eq!(status, 400, "{unknown:?}");
        assert_eq!(decline.category, Some(DeclineCategory::Syntax));
        assert_eq!(
            decline.invalid_fields[0].json_path.as_deref(),
            Some("$.offer_id")
        );
    }
    assert_eq!(
        status(&client, &transaction_id).await.pay_later_status,
        Some(PayLaterStatus::Available)
    );
}

/// The typed client cannot omit `offer_id` (it is required), so the
/// missing field and a wrong media type go out through plain HTTP.
#[tokio::test]
async fn a_missing_offer_id_is_400_and_a_non_json_body_415() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let token = client.token(psi::Api::PayLater).await.expect("a token");
    let url = format!("{}/order/paylater/v1/{transaction_id}", sandbox.url());
    let http = reqwest::Client::new();
    let post = |content_type: &'static str, body: String| {
        http.post(&url)
            .bearer_auth(token.expose())
            .header("content-type", content_type)
            .body(body)
            .send()
    };

    for body in [json!({}), json!({"offer_id": null})] {
        let response = post("application/json;charset=UTF-8", body.to_string())
            .await
            .expect("an answer");
        assert_eq!(response.status().as_u16(), 400);
        let decline: DeclineResponse = response.json().await.expect("a decline body");
        let field = &decline.decline.expect("a decline").invalid_fields[0];
        assert_eq!(field.json_path.as_deref(), Some("$.offer_id"));
        assert_eq!(field.message.as_deref(), Some("must not be null"));
    }

    let response = post("text/plain", json!({"offer_id": "payl-1"}).to_string())
        .await
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 415);
    let response = post(
        "application/json;charset=UTF-8",
        json!({"offer_id": "payl-1"}).to_string(),
    )
    .await
    .expect("an answer");
    assert_eq!(
        response.status().as_u16(),
        200,
        "the documented media type books"
    );
}

#[tokio::test]
async fn a_withdrawal_within_14_days_ends_in_already_withdrawn() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let original = due_date(&sandbox, &transaction_id).await;
    let booking = book(&client, &transaction_id, "payl-2")
        .await
        .expect("booked")
        .into_inner()
        .0
        .expect("the sandbox answers with the booking");

    let moved = sandbox
        .control()
        .advance_clock(13 * DAY)
        .await
        .expect("the clock moves");
    let now = moved.now;
    let answer = sandbox
        .control()
        .withdraw_pay_later(&transaction_id)
        .await
        .expect("withdrawn in time");
    assert_eq!(answer.pay_later_status, PayLaterStatus::AlreadyWithdrawn);

    let status = status(&client, &transaction_id).await;
    assert_eq!(
        status.pay_later_status,
        Some(PayLaterStatus::AlreadyWithdrawn)
    );
    let shown = status.booking.expect("a withdrawn booking is still shown");
    assert_eq!(
        shown.withdrawal_date,
        Some(now.date_naive()),
        "the sandbox's date of the withdrawal"
    );
    assert_eq!(shown.updated_due_date, booking.new_due_date);
    assert_eq!(shown.booking_timestamp, booking.booking_timestamp);
    assert_eq!(
        due_date(&sandbox, &transaction_id).await,
        original,
        "the postponement is cancelled"
    );

    let (code, decline) = declined(book(&client, &transaction_id, "payl-1").await);
    assert_eq!(code, 409);
    assert_eq!(decline.reasons, ["PAY_LATER_ALREADY_WITHDRAWN"]);
    let (code, decline) = declined(offers_result(&client, &transaction_id).await);
    assert_eq!(code, 409, "the offers read of a withdrawn booking");
    assert_eq!(decline.category, Some(DeclineCategory::Conflict));
    assert_eq!(decline.reasons, ["PAY_LATER_ALREADY_WITHDRAWN"]);
    let again = sandbox
        .control()
        .withdraw_pay_later(&transaction_id)
        .await
        .unwrap_err();
    assert!(again.to_string().contains("409"), "{again}");
}

#[tokio::test]
async fn a_withdrawal_after_14_days_is_refused() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let booking = book(&client, &transaction_id, "payl-1")
        .await
        .expect("booked")
        .into_inner()
        .0
        .expect("the sandbox answers with the booking");

    sandbox
        .control()
        .advance_clock(14 * DAY + 60)
        .await
        .expect("the clock moves");
    let refused = sandbox
        .control()
        .withdraw_pay_later(&transaction_id)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("409"), "{refused}");
    assert!(
        refused.to_string().contains("withdrawal period"),
        "{refused}"
    );

    let status = status(&client, &transaction_id).await;
    assert_eq!(status.pay_later_status, Some(PayLaterStatus::AlreadyBooked));
    assert_eq!(status.booking.and_then(|b| b.withdrawal_date), None);
    assert_eq!(
        Some(due_date(&sandbox, &transaction_id).await),
        booking.new_due_date
    );
}

#[tokio::test]
async fn a_withdrawal_needs_a_booking_of_a_known_transaction() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;

    let not_booked = sandbox
        .control()
        .withdraw_pay_later(&transaction_id)
        .await
        .unwrap_err();
    assert!(not_booked.to_string().contains("409"), "{not_booked}");
    let unknown = sandbox
        .control()
        .withdraw_pay_later("12-00000000000000000")
        .await
        .unwrap_err();
    assert!(unknown.to_string().contains("404"), "{unknown}");
    assert_eq!(
        status(&client, &transaction_id).await.pay_later_status,
        Some(PayLaterStatus::Available)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_20_concurrent_bookings_exactly_one_succeeds() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let original = due_date(&sandbox, &transaction_id).await;
    client
        .token(psi::Api::PayLater)
        .await
        .expect("one token, fetched before the race");

    let attempts: Vec<_> = (0..20)
        .map(|index| {
            let client = client.clone();
            let transaction_id = transaction_id.clone();
            let offer_id = format!("payl-{}", index % 5 + 1);
            tokio::spawn(async move {
                match book(&client, &transaction_id, &offer_id).await {
                    Ok(response) => (response.status().as_u16(), Some(response.into_inner())),
                    Err(error) => (error.status().unwrap_or(0), None),
                }
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for attempt in attempts {
        outcomes.push(attempt.await.expect("the task finishes"));
    }

    let statuses: Vec<u16> = outcomes.iter().map(|(status, _)| *status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        19,
        "{statuses:?}"
    );
    let winner = outcomes
        .into_iter()
        .find_map(|(_, booking)| booking.and_then(|outcome| outcome.0))
        .expect("the winner's booking");
    let delta = u64::try_from(winner.delta_due_date.unwrap()).unwrap();
    assert_eq!(
        due_date(&sandbox, &transaction_id).await,
        original + Days::new(delta),
        "moved once, by the winner"
    );
}

#[tokio::test]
async fn a_call_without_a_pay_later_token_is_401() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let wrong_audience = client.token(psi::Api::BankAccounts).await.expect("a token");
    let url = format!(
        "{}/order/paylater/v1/{transaction_id}/status",
        sandbox.url()
    );

    let http = reqwest::Client::new();
    let anonymous = http.get(&url).send().await.expect("an answer");
    assert_eq!(anonymous.status().as_u16(), 401);
    let foreign = http
        .get(&url)
        .bearer_auth(wrong_audience.expose())
        .send()
        .await
        .expect("an answer");
    assert_eq!(foreign.status().as_u16(), 401);
    let decline: DeclineResponse = foreign.json().await.expect("a decline body");
    assert_eq!(decline.decline.unwrap().reasons, ["WRONG_AUDIENCE"]);
}
