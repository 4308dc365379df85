//! The pay later bookings kept by the sandbox.

use super::store::{tables, Batch, Loader};
use super::table::Table;
use super::Persisted;
use crate::models::pay_later::Booking;

/// Pay later bookings by transaction id: at most one per transaction, kept
/// after a withdrawal (a withdrawn booking cannot be booked again).
#[derive(Debug, Default)]
pub struct PayLaterState {
    pub(crate) bookings: Table<String, Booking>,
}

impl Persisted for PayLaterState {
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
