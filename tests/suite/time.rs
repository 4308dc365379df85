//! Dates are `NaiveDate`; date-times keep their offset.

use chrono::{FixedOffset, NaiveDate};
use psi_pay_later::types::{PayLaterBookingResponse, PayLaterOfferDto};

#[test]
fn booking_timestamp_keeps_microseconds_and_offset() {
    let json = r#"{"booking_timestamp":"2020-03-13T16:42:59.974067+01:00"}"#;
    let booking: PayLaterBookingResponse = serde_json::from_str(json).unwrap();
    let timestamp = booking.booking_timestamp.unwrap();
    assert_eq!(timestamp.offset(), &FixedOffset::east_opt(3600).unwrap());
    assert_eq!(timestamp.timestamp_subsec_micros(), 974_067);
    assert_eq!(serde_json::to_string(&booking).unwrap(), json);
}

#[test]
fn dates_are_calendar_dates() {
    let offer: PayLaterOfferDto =
        serde_json::from_str(r#"{"delta_due_date":30,"new_due_date":"2020-04-26"}"#).unwrap();
    let date: NaiveDate = offer.new_due_date.unwrap();
    assert_eq!(date, NaiveDate::from_ymd_opt(2020, 4, 26).unwrap());
    assert!(serde_json::from_str::<PayLaterOfferDto>(r#"{"new_due_date":"2020-02-30"}"#).is_err());
}
