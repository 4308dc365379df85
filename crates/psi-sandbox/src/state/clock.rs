//! The sandbox clock: real time plus an offset the control API can advance,
//! so token expiry, the pay later withdrawal period and webhook timestamps
//! can be tested without waiting.
//!
//! The clock never leaves [`EARLIEST`, `LATEST`] (1970 to the end of 9999):
//! an advance that would move it out is refused and changes nothing. Inside
//! that range every date computation of the sandbox (a due date 150 days
//! ahead, a token expiry, a session lifetime) stays far from chrono's own
//! limits (year 262143), so none of them can overflow; [`Clock::now`] still
//! uses checked arithmetic, saturating at the bounds.
//!
//! Each tenant has its own clock ([`super::tenants`]): advancing it moves
//! that tenant's token expiry, sessions and deliveries alone. With a state
//! file, [`Clock::advance`] writes the new offset before it answers, so a
//! restarted sandbox shows the same time.

use crate::state::store::Store;
use chrono::{DateTime, Duration, FixedOffset, Utc};
use std::sync::{Arc, Mutex};

/// The earliest time the clock can show: the Unix epoch.
pub const EARLIEST: DateTime<Utc> = DateTime::UNIX_EPOCH;

/// The latest time the clock can show: 9999-12-31T23:59:59Z (the last
/// second a four-digit year, as RFC 3339 writes it, can name).
pub const LATEST: DateTime<Utc> = match DateTime::from_timestamp(253_402_300_799, 0) {
    Some(latest) => latest,
    None => DateTime::UNIX_EPOCH,
};

/// Why an advance was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfRange {
    /// The seconds asked for.
    pub seconds: i64,
}

impl OutOfRange {
    /// The limit, in words, for the error body.
    pub fn limit() -> String {
        format!(
            "the clock must stay between {} and {}",
            EARLIEST.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            LATEST.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        )
    }
}

impl std::fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "seconds: advancing by {} seconds is refused: {}",
            self.seconds,
            Self::limit()
        )
    }
}

impl std::error::Error for OutOfRange {}

#[derive(Default)]
pub struct Clock {
    offset: Mutex<Duration>,
    /// Where the offset is kept, with `--state`: the file and the tenant
    /// whose clock this is.
    store: Option<(Arc<Store>, String)>,
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock")
            .field("offset", &self.offset())
            .field("saved", &self.store.is_some())
            .finish()
    }
}

impl Clock {
    /// A clock `offset` from real time, kept in memory only.
    pub fn ahead_by(offset: Duration) -> Self {
        Self {
            offset: Mutex::new(offset),
            store: None,
        }
    }

    /// The clock of `tenant` in a state file: its saved `offset`, each
    /// advance saved.
    pub fn saved(offset: Duration, store: Arc<Store>, tenant: String) -> Self {
        Self {
            offset: Mutex::new(offset),
            store: Some((store, tenant)),
        }
    }

    /// The offset from real time, in whole seconds (as it is saved).
    pub fn offset_seconds(&self) -> i64 {
        self.offset().num_seconds()
    }

    /// Real time plus the offset, clamped to [`EARLIEST`, `LATEST`] (real
    /// time keeps running after an advance to the very end).
    pub fn now(&self) -> DateTime<Utc> {
        shifted(Utc::now(), self.offset()).clamp(EARLIEST, LATEST)
    }

    /// Now, in the offset the provider's examples use (+01:00).
    pub fn now_local(&self) -> DateTime<FixedOffset> {
        self.now()
            .with_timezone(&FixedOffset::east_opt(3600).expect("a valid offset"))
    }

    /// Moves the clock by `seconds` (negative: back) and returns the new
    /// time, or refuses, unchanged, when the clock would leave its range or
    /// the seconds do not fit a duration at all.
    pub fn advance(&self, seconds: i64) -> Result<DateTime<Utc>, OutOfRange> {
        let refused = OutOfRange { seconds };
        let by = Duration::try_seconds(seconds).ok_or_else(|| refused.clone())?;
        let mut offset = self.offset.lock().unwrap_or_else(|p| p.into_inner());
        let moved = offset.checked_add(&by).ok_or_else(|| refused.clone())?;
        let then = Utc::now()
            .checked_add_signed(moved)
            .filter(|then| (EARLIEST..=LATEST).contains(then))
            .ok_or(refused)?;
        // Saved under the offset's lock: two advances are written in the
        // order they are applied. Advances are whole seconds, so is the offset.
        // Handed to the writer under the offset's lock; the request's save
        // step waits for it.
        if let Some((store, tenant)) = &self.store {
            drop(store.save_clock_offset(tenant, moved.num_seconds()));
        }
        *offset = moved;
        Ok(then)
    }

    fn offset(&self) -> Duration {
        *self.offset.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `at + offset`, saturating at chrono's own limits instead of panicking.
fn shifted(at: DateTime<Utc>, offset: Duration) -> DateTime<Utc> {
    at.checked_add_signed(offset)
        .unwrap_or(if offset < Duration::zero() {
            DateTime::<Utc>::MIN_UTC
        } else {
            DateTime::<Utc>::MAX_UTC
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflowing_advances_are_refused_and_change_nothing() {
        let clock = Clock::default();
        let before = clock.now();
        for seconds in [
            i64::MAX,
            i64::MIN,
            9_000_000_000_000,
            -9_000_000_000_000,
            // one past the end of 9999 and one before 1970, from today
            (LATEST - Utc::now()).num_seconds() + 10,
            -(Utc::now() - EARLIEST).num_seconds() - 10,
        ] {
            assert_eq!(clock.advance(seconds), Err(OutOfRange { seconds }));
        }
        let after = clock.now();
        assert!(after >= before && after - before < Duration::minutes(1));
    }

    #[test]
    fn the_clock_reaches_its_bounds_and_comes_back() {
        let clock = Clock::default();
        let to_end = (LATEST - clock.now()).num_seconds() - 60;
        let moved = clock.advance(to_end).expect("inside the range");
        assert!(moved <= LATEST && LATEST - moved <= Duration::minutes(2));
        // one more day is refused, the clock stays where it was
        assert!(clock.advance(86_400).is_err());
        assert!(LATEST - clock.now() <= Duration::minutes(2));
        clock.advance(-to_end).expect("back to today");
        assert!((clock.now() - Utc::now()).num_seconds().abs() < 60);
    }

    #[test]
    fn now_saturates_instead_of_panicking() {
        assert_eq!(shifted(Utc::now(), Duration::MAX), DateTime::<Utc>::MAX_UTC);
        assert_eq!(shifted(Utc::now(), Duration::MIN), DateTime::<Utc>::MIN_UTC);
        assert_eq!(LATEST.to_rfc3339(), "9999-12-31T23:59:59+00:00");
    }
}
