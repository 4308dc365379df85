//! Due-date arithmetic of pay later, for merchants who want to assert what
//! the service returns: a postponement is 14 to 150 days, and the new due
//! date is the old one plus that many days.
//!
//! The client sees a postponement only in responses (a booking request
//! carries just the offer_id), so nothing here refuses a send: these are
//! response checks a caller may run ([`crate::advice::pay_later_offers`]
//! returns the same as a list), and no call fails by them.
//!
//! Paths use the wire names, including the capital L of `pay_Later_offers`.
//!
//! `#[inline]` for the build, as the advice (see [`crate::advice`]): these
//! are compiled only into the applications that call them.

use chrono::{NaiveDate, TimeDelta};
use psi_pay_later::types::{PayLaterBookingResponse, PayLaterOffersResponse};

use super::{Rule, Violation, Violations};

/// Shortest postponement the service offers, in days.
pub const MIN_DELTA_DAYS: i64 = 14;
/// Longest postponement the service offers, in days.
pub const MAX_DELTA_DAYS: i64 = 150;

/// `original` postponed by `delta_days`, which must be 14 to 150.
#[inline]
pub fn new_due_date(original: NaiveDate, delta_days: i64) -> Result<NaiveDate, Violation> {
    if let Some(rule) = delta_problem(delta_days) {
        return Err(Violation::new(Rule::DueDate, "$.delta_due_date", rule));
    }
    add_days(original, delta_days).ok_or_else(|| {
        Violation::new(
            Rule::DueDate,
            "$.new_due_date",
            "lies beyond the last representable date",
        )
    })
}

/// Each offer: `delta_due_date` in 14..=150 and
/// `new_due_date` = `current_due_date` + `delta_due_date`.
#[inline]
pub fn check_offers(response: &PayLaterOffersResponse) -> Result<(), Violations> {
    let mut found = Vec::new();
    for (index, offer) in response.pay_later_offers.iter().enumerate() {
        check_postponement(
            &format!("$.pay_Later_offers[{index}]"),
            ("current_due_date", response.current_due_date),
            offer.delta_due_date,
            offer.new_due_date,
            &mut found,
        );
    }
    Violations(found).into_result()
}

/// `delta_due_date` in 14..=150 and
/// `new_due_date` = `original_due_date` + `delta_due_date`.
#[inline]
pub fn check_booking(response: &PayLaterBookingResponse) -> Result<(), Violations> {
    let mut found = Vec::new();
    check_postponement(
        "$",
        ("original_due_date", response.original_due_date),
        response.delta_due_date,
        response.new_due_date,
        &mut found,
    );
    Violations(found).into_result()
}

/// Checks what is present: the range needs the delta, the date needs all three.
#[inline]
fn check_postponement(
    path: &str,
    (base_name, base): (&str, Option<NaiveDate>),
    delta: Option<i32>,
    new_date: Option<NaiveDate>,
    found: &mut Vec<Violation>,
) {
    let Some(delta) = delta.map(i64::from) else {
        return;
    };
    if let Some(rule) = delta_problem(delta) {
        found.push(Violation::new(
            Rule::DueDate,
            format!("{path}.delta_due_date"),
            rule,
        ));
    }
    let (Some(base), Some(new_date)) = (base, new_date) else {
        return;
    };
    let expected = add_days(base, delta);
    if expected != Some(new_date) {
        let expected = expected.map_or("a date beyond the calendar".to_owned(), |d| d.to_string());
        let rule = format!(
            "must equal {base_name} + delta_due_date = {base} + {delta} days = {expected}, but is {new_date}"
        );
        found.push(Violation::new(
            Rule::DueDate,
            format!("{path}.new_due_date"),
            rule,
        ));
    }
}

#[inline]
fn delta_problem(delta_days: i64) -> Option<String> {
    let allowed = MIN_DELTA_DAYS..=MAX_DELTA_DAYS;
    (!allowed.contains(&delta_days)).then(|| {
        format!("must be between {MIN_DELTA_DAYS} and {MAX_DELTA_DAYS} days, but is {delta_days}")
    })
}

/// Works for negative deltas too, so a wrong sign still gets a date to compare.
#[inline]
fn add_days(date: NaiveDate, days: i64) -> Option<NaiveDate> {
    date.checked_add_signed(TimeDelta::try_days(days)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use psi_pay_later::types::PayLaterOfferDto;

    fn date(text: &str) -> NaiveDate {
        text.parse().expect("a YYYY-MM-DD literal")
    }

    fn offer(delta: i32, new_due_date: &str) -> PayLaterOfferDto {
        PayLaterOfferDto {
            offer_id: Some(format!("payl-{delta}")),
            delta_due_date: Some(delta),
            new_due_date: Some(date(new_due_date)),
            ..Default::default()
        }
    }

    #[test]
    fn new_due_date_adds_days_within_the_allowed_range() {
        assert_eq!(new_due_date(date("2020-03-13"), 14), Ok(date("2020-03-27")));
        assert_eq!(new_due_date(date("2020-01-31"), 30), Ok(date("2020-03-01")));
        assert_eq!(
            new_due_date(date("2020-03-13"), 150),
            Ok(date("2020-08-10"))
        );
        for outside in [13, 151, 0, -14] {
            let violation = new_due_date(date("2020-03-13"), outside).unwrap_err();
            assert_eq!(violation.path, "$.delta_due_date");
            assert_eq!(
                violation.message,
                format!("must be between 14 and 150 days, but is {outside}")
            );
        }
    }

    #[test]
    fn consistent_offers_pass() {
        let response = PayLaterOffersResponse {
            current_due_date: Some(date("2020-03-13")),
            pay_later_offers: vec![offer(14, "2020-03-27"), offer(30, "2020-04-12")],
            ..Default::default()
        };
        assert_eq!(check_offers(&response), Ok(()));
    }

    #[test]
    fn every_inconsistent_offer_is_reported() {
        let response = PayLaterOffersResponse {
            current_due_date: Some(date("2020-03-13")),
            pay_later_offers: vec![
                offer(14, "2020-03-27"),
                offer(30, "2020-04-13"),
                offer(7, "2020-03-20"),
            ],
            ..Default::default()
        };
        let found = check_offers(&response).unwrap_err();
        assert_eq!(
            found.paths(),
            [
                "$.pay_Later_offers[1].new_due_date",
                "$.pay_Later_offers[2].delta_due_date"
            ]
        );
        assert_eq!(
            found.0[0].message,
            "must equal current_due_date + delta_due_date = 2020-03-13 + 30 days = 2020-04-12, \
             but is 2020-04-13"
        );
    }

    #[test]
    fn a_booking_is_checked_against_its_original_due_date() {
        let mut booking = PayLaterBookingResponse {
            delta_due_date: Some(30),
            original_due_date: Some(date("2020-03-13")),
            new_due_date: Some(date("2020-04-12")),
            ..Default::default()
        };
        assert_eq!(check_booking(&booking), Ok(()));

        booking.delta_due_date = Some(200);
        let found = check_booking(&booking).unwrap_err();
        assert_eq!(found.paths(), ["$.delta_due_date", "$.new_due_date"]);

        booking.new_due_date = None;
        assert_eq!(
            check_booking(&booking).unwrap_err().paths(),
            ["$.delta_due_date"]
        );
    }
}
