//! Arithmetic on amounts that come from requests: it never panics.
//!
//! What is stored was checked when it arrived (every sum and product the
//! sandbox makes of an order fits the decimal range, see
//! `models::payment_page::validation` and the storefront's seed), so these
//! saturate only for a state file written before those checks: a read
//! then answers with the range's end instead of breaking.

use psi_runtime::Decimal;

/// `values` added up, held at the decimal range's ends.
pub fn sum(values: impl IntoIterator<Item = Decimal>) -> Decimal {
    values.into_iter().fold(Decimal::ZERO, add)
}

/// `a + b`, held at the decimal range's ends.
pub fn add(a: Decimal, b: Decimal) -> Decimal {
    a.saturating_add(*b).into()
}

/// `a - b`, held at the decimal range's ends.
pub fn sub(a: Decimal, b: Decimal) -> Decimal {
    a.saturating_sub(*b).into()
}

/// `a * b`, held at the decimal range's ends.
pub fn mul(a: Decimal, b: Decimal) -> Decimal {
    a.saturating_mul(*b).into()
}

/// `values` added up, or `None` when the sum leaves the decimal range.
pub fn checked_sum(values: impl IntoIterator<Item = Decimal>) -> Option<Decimal> {
    values
        .into_iter()
        .try_fold(Decimal::ZERO, |total, value| total.checked_add(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_past_the_range_hold_at_its_end_instead_of_panicking() {
        let half: Decimal = "50000000000000000000000000000".parse().unwrap();
        assert_eq!(sum([half, half]), Decimal::MAX);
        assert_eq!(sum([-half, -half]), Decimal::MIN);
        assert_eq!(checked_sum([half, half]), None);
        assert_eq!(
            checked_sum([Decimal::ONE, Decimal::TWO]),
            Some(Decimal::new(3, 0))
        );
        assert_eq!(mul(half, Decimal::TWO), Decimal::MAX);
        assert_eq!(sub(-half, half), Decimal::MIN);
        assert_eq!(add(Decimal::ONE, Decimal::ONE), Decimal::TWO);
    }
}
