//! Advice: consistency findings that the specification does not state as
//! rules, for callers who want them. They never refuse a send (that is
//! [`crate::preflight`], which holds only the stated rules); call these
//! yourself, before sending or on what the service returned.
//!
//! Each function returns every finding at once, each with the JSON path of
//! the field and what looks wrong; an empty list means nothing to report.
//!
//! ```
//! # #[cfg(feature = "payment-page")] {
//! let request = psi::payment_page::types::SessionRequest::default();
//! for finding in psi::advice::session_request(&request) {
//!     eprintln!("advice: {finding}");
//! }
//! # }
//! ```
//!
//! Every function of this module is `#[inline]`, for the build rather than
//! for speed: an `#[inline]` function is compiled into the crate that calls
//! it, not into psi, so an application that never asks for advice does not
//! compile it, and one that does compiles it once.

#[cfg(feature = "bank-accounts")]
mod bank_account;
#[cfg(feature = "payment-page")]
mod basket;
#[cfg(feature = "payment-page")]
mod session;
#[cfg(feature = "shop-config")]
mod shop_config;

#[cfg(feature = "bank-accounts")]
pub use bank_account::bank_account;
#[cfg(feature = "payment-page")]
pub use basket::session_request;
#[cfg(feature = "payment-page")]
pub use session::session_required_members;
#[cfg(feature = "shop-config")]
pub use shop_config::shop_configuration;

pub use crate::Finding;

/// Pay later offers whose postponement is outside 14..=150 days or whose
/// `new_due_date` is not `current_due_date` + `delta_due_date`.
#[cfg(feature = "pay-later")]
#[inline]
pub fn pay_later_offers(response: &psi_pay_later::types::PayLaterOffersResponse) -> Vec<Finding> {
    crate::preflight::check_offers(response).map_or_else(findings, |()| Vec::new())
}

/// A pay later booking whose postponement is outside 14..=150 days or whose
/// `new_due_date` is not `original_due_date` + `delta_due_date`.
#[cfg(feature = "pay-later")]
#[inline]
pub fn pay_later_booking(response: &psi_pay_later::types::PayLaterBookingResponse) -> Vec<Finding> {
    crate::preflight::check_booking(response).map_or_else(findings, |()| Vec::new())
}

/// Violations reported as advice (the response checks reuse the rules).
#[cfg(feature = "pay-later")]
#[inline]
fn findings(found: crate::preflight::Violations) -> Vec<Finding> {
    found
        .0
        .into_iter()
        .map(|violation| Finding::new(violation.path, violation.message))
        .collect()
}
