//! The pay later bookings kept by the sandbox.

use super::store::tables;
use super::table::Table;
use crate::models::pay_later::Booking;

/// Pay later bookings by transaction id: at most one per transaction, kept
/// after a withdrawal (a withdrawn booking cannot be booked again).
#[derive(Debug, Default)]
pub struct PayLaterState {
    pub(crate) bookings: Table<String, Booking>,
}

persisted_as_table!(PayLaterState, bookings, tables::PAY_LATER_BOOKINGS);
