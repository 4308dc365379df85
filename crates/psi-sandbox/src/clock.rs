//! The sandbox clock: real time plus an offset the control API can advance,
//! so token expiry, the pay later withdrawal period and webhook timestamps
//! can be tested without waiting.

use chrono::{DateTime, Duration, FixedOffset, Utc};
use std::sync::Mutex;

#[derive(Debug, Default)]
pub struct Clock {
    offset: Mutex<Duration>,
}

impl Clock {
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + *self.offset.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Now, in the offset the provider's examples use (+01:00).
    pub fn now_local(&self) -> DateTime<FixedOffset> {
        self.now()
            .with_timezone(&FixedOffset::east_opt(3600).expect("a valid offset"))
    }

    pub fn advance(&self, by: Duration) {
        *self.offset.lock().unwrap_or_else(|p| p.into_inner()) += by;
    }
}
