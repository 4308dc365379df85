//! Pay later: the postponement of an open-invoice transaction's due date,
//! its offers, its booking and its withdrawal.
//!
//! The document shows no transitions; the sandbox plays these, per
//! transaction (the status is derived from the transaction and its booking,
//! so it can never disagree with them):
//!
//! | status | when | next |
//! |---|---|---|
//! | AVAILABLE | an open-invoice transaction without a booking | booking -> ALREADY_BOOKED |
//! | NOT_AVAILABLE | any other payment method | none |
//! | ALREADY_BOOKED | booked | withdrawal within 14 days of booking -> ALREADY_WITHDRAWN |
//! | ALREADY_WITHDRAWN | booked, then withdrawn | none |
//!
//! An open invoice is `payment_option` OPEN_INVOICE paid by `transfer_type`
//! BANK_TRANSFER: the hosted page stores a direct debit as OPEN_INVOICE with
//! DIRECT_DEBIT ([`crate::models::payment_page::methods`]), and a direct
//! debit has no due date to postpone. Only AVAILABLE has offers and
//! bookings: the offers read and the booking answer any other status with
//! a conflict (409), the status read answers it with 200.
//!
//! Booking moves the transaction's `due_date` by the offer's days; a
//! withdrawal cancels the postponement, so the due date goes back to the
//! original one (the booking keeps both dates for the status response).

use chrono::{DateTime, Days, FixedOffset, NaiveDate, SubsecRound, TimeDelta};
use psi_pay_later::types::{CurrencyCode, PayLaterStatus};
use psi_runtime::Decimal;
use psi_runtime::RoundingStrategy;
use serde::{Deserialize, Serialize};

/// The postponements offered, in days and in offer order: `payl-1` is the
/// first (14 days), `payl-5` the last (150 days, the longest allowed).
const OFFER_DELTAS: [u32; 5] = [14, 30, 60, 90, 150];
/// A withdrawal is accepted up to this long after the booking.
const WITHDRAWAL_PERIOD_DAYS: i64 = 14;
/// Only an open-invoice transaction (this payment option paid by
/// [`OPEN_INVOICE_TRANSFER_TYPE`]) has a due date that can be postponed.
const OPEN_INVOICE_PAYMENT_OPTION: &str = "OPEN_INVOICE";
/// An open invoice is paid by bank transfer; OPEN_INVOICE with DIRECT_DEBIT
/// is the hosted page's direct debit.
const OPEN_INVOICE_TRANSFER_TYPE: &str = "BANK_TRANSFER";

/// A booked postponement: at most one per transaction, kept after a
/// withdrawal (a withdrawn booking cannot be booked again).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Booking {
    pub(crate) offer: PayLaterOffer,
    pub(crate) currency: Option<CurrencyCode>,
    pub(crate) original_due_date: NaiveDate,
    pub(crate) updated_due_date: NaiveDate,
    pub(crate) booked_at: DateTime<FixedOffset>,
    pub(crate) withdrawal_date: Option<NaiveDate>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct PayLaterOffer {
    /// 1-based position in [`OFFER_DELTAS`]; the offer id is `payl-<number>`.
    number: usize,
    pub(crate) delta_days: u32,
    pub(crate) price: Decimal,
}

impl PayLaterOffer {
    pub fn id(&self) -> String {
        format!("payl-{}", self.number)
    }
}

/// Why offers or a booking are refused: the transaction's status is not
/// AVAILABLE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotBookable {
    AlreadyBooked,
    AlreadyWithdrawn,
    /// Not an open-invoice transaction, or its due date cannot be moved.
    NotAvailable,
}

/// Why a withdrawal is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotWithdrawable {
    NotBooked,
    AlreadyWithdrawn,
    /// More than 14 days after the booking.
    PeriodEnded,
}

/// How a transaction was paid, as the hosted page stored it.
#[derive(Debug, Clone, Copy)]
pub struct PaidBy<'a> {
    pub payment_option: &'a str,
    pub transfer_type: &'a str,
}

impl PaidBy<'_> {
    /// Open invoice: OPEN_INVOICE paid by bank transfer (not direct debit).
    pub fn is_open_invoice(self) -> bool {
        self.payment_option == OPEN_INVOICE_PAYMENT_OPTION
            && self.transfer_type == OPEN_INVOICE_TRANSFER_TYPE
    }
}

/// The status of a transaction, derived from its payment method and booking.
pub fn status_of(paid_by: PaidBy<'_>, booking: Option<&Booking>) -> PayLaterStatus {
    match booking {
        Some(booking) if booking.withdrawal_date.is_some() => PayLaterStatus::AlreadyWithdrawn,
        Some(_) => PayLaterStatus::AlreadyBooked,
        None if paid_by.is_open_invoice() => PayLaterStatus::Available,
        None => PayLaterStatus::NotAvailable,
    }
}

/// Whether a transaction with this payment method and booking has offers
/// and can be booked: only when its status is AVAILABLE.
pub fn bookable(paid_by: PaidBy<'_>, booking: Option<&Booking>) -> Result<(), NotBookable> {
    match status_of(paid_by, booking) {
        PayLaterStatus::Available => Ok(()),
        PayLaterStatus::AlreadyBooked => Err(NotBookable::AlreadyBooked),
        PayLaterStatus::AlreadyWithdrawn => Err(NotBookable::AlreadyWithdrawn),
        _ => Err(NotBookable::NotAvailable),
    }
}

/// The booking of offer `number` (see [`offer_number`]) for a bookable
/// transaction due on `due_date` whose order amounts to `order_amount` in
/// `currency`. The caller moves the transaction's due date to the
/// booking's `updated_due_date`.
pub fn book(
    number: usize,
    due_date: NaiveDate,
    order_amount: Decimal,
    currency: Option<CurrencyCode>,
    now: DateTime<FixedOffset>,
) -> Result<Booking, NotBookable> {
    let offer = offers_for(order_amount)[number - 1];
    let updated_due_date =
        postponed(due_date, offer.delta_days).ok_or(NotBookable::NotAvailable)?;
    Ok(Booking {
        offer,
        currency,
        original_due_date: due_date,
        updated_due_date,
        // The booking timestamp carries microseconds, as the provider's does.
        booked_at: now.trunc_subsecs(6),
        withdrawal_date: None,
    })
}

/// Withdraws `booking` at `now` if it exists, is not withdrawn and is at
/// most 14 days old; answers the due date the transaction goes back to.
pub fn withdraw(
    booking: Option<&mut Booking>,
    now: DateTime<FixedOffset>,
) -> Result<NaiveDate, NotWithdrawable> {
    let booking = booking.ok_or(NotWithdrawable::NotBooked)?;
    if booking.withdrawal_date.is_some() {
        return Err(NotWithdrawable::AlreadyWithdrawn);
    }
    if now > booking.booked_at + TimeDelta::days(WITHDRAWAL_PERIOD_DAYS) {
        return Err(NotWithdrawable::PeriodEnded);
    }
    booking.withdrawal_date = Some(now.date_naive());
    Ok(booking.original_due_date)
}

/// The offers of a transaction whose order amounts to `amount` (gross,
/// every basket), one per entry of [`OFFER_DELTAS`].
pub fn offers_for(amount: Decimal) -> Vec<PayLaterOffer> {
    OFFER_DELTAS
        .iter()
        .enumerate()
        .map(|(index, &delta_days)| PayLaterOffer {
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
pub fn offer_number(offer_id: &str) -> Option<usize> {
    let number: usize = offer_id.strip_prefix("payl-")?.parse().ok()?;
    let canonical = format!("payl-{number}") == offer_id;
    (canonical && (1..=OFFER_DELTAS.len()).contains(&number)).then_some(number)
}

/// `due_date` moved by `delta_days`, or nothing past the calendar's end.
pub fn postponed(due_date: NaiveDate, delta_days: u32) -> Option<NaiveDate> {
    due_date.checked_add_days(Days::new(u64::from(delta_days)))
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
    fn only_an_open_invoice_paid_by_bank_transfer_is_available() {
        let paid_by = |payment_option, transfer_type| PaidBy {
            payment_option,
            transfer_type,
        };
        let available = paid_by("OPEN_INVOICE", "BANK_TRANSFER");
        assert_eq!(status_of(available, None), PayLaterStatus::Available);
        assert_eq!(bookable(available, None), Ok(()));
        for other in [
            paid_by("OPEN_INVOICE", "DIRECT_DEBIT"),
            paid_by("OPEN_INVOICE", "SEPA_DIRECT_DEBIT"),
            paid_by("PREPAYMENT", "BANK_TRANSFER"),
            paid_by("INSTALMENT", "BANK_TRANSFER"),
        ] {
            assert_eq!(
                status_of(other, None),
                PayLaterStatus::NotAvailable,
                "{other:?}"
            );
            assert_eq!(bookable(other, None), Err(NotBookable::NotAvailable));
        }
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
