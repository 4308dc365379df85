//! The one basket rule the service states (docs/service-notes.md, "Basket check"): the
//! sum of the item amounts is compared with the basket's `gross_amount`,
//! with a tolerance of (sum of all quantities) x 0.02; a mismatch is declined
//! with a 422 `SUM_OF_ITEM_AMOUNTS_NOT_MATCHING_TRANSACTION_AMOUNT`.
//!
//! What "item amounts" sums, as decided here: the `gross_total_price` of
//! every item and every special item (the provider's consistent example (docs/service-notes.md):
//! 33.8 + 10 = 43.8). The check runs only when every line carries
//! `gross_total_price` and the basket carries `gross_amount`: the
//! specification states neither as required, and a sum over some of the
//! lines is not the sum the service compares, so a basket with an
//! untotalled line is sent (advice names the line). An absent quantity adds
//! nothing to the tolerance; quantities count by their magnitude, so a
//! negative one never narrows it.
//!
//! Nothing else about the amounts refuses a send: line totals, VAT lines and
//! their sum are [`crate::advice::session_request`].

use psi_payment_page::types::{SessionRequest, ShopBasket};
use psi_runtime::Decimal;

use super::{Rule, Violation, Violations};

/// Allowed difference per unit of quantity.
pub const TOLERANCE_PER_UNIT: Decimal = Decimal::from_parts(2, 0, 0, false, 2);

/// Checks the item sum of every shop basket of a session request.
pub fn check_session_request(request: &SessionRequest) -> Result<(), Violations> {
    let mut found = Vec::new();
    for (index, basket) in baskets(request).enumerate() {
        let path = format!("$.order_data.shop_baskets[{index}].gross_amount");
        if let Some(rule) = item_sum_problem(basket) {
            found.push(Violation::new(Rule::BasketTotal, path, rule));
        }
    }
    Violations(found).into_result()
}

pub(crate) fn baskets(request: &SessionRequest) -> impl Iterator<Item = &ShopBasket> {
    request
        .order_data
        .iter()
        .flat_map(|order| order.shop_baskets.iter())
}

/// Why `gross_amount` does not match the item sum, or `None` when it does
/// or nothing can be compared (no `gross_amount`, no lines, or a line
/// without `gross_total_price`).
fn item_sum_problem(basket: &ShopBasket) -> Option<String> {
    let gross_amount = basket.gross_amount?;
    let totals: Vec<Decimal> = line_totals(basket).collect();
    if totals.is_empty() || totals.len() < line_count(basket) {
        return None;
    }
    // A sum or tolerance beyond the decimal range cannot be compared; the
    // service decides, and advice reports it.
    let item_sum = checked_sum(totals)?;
    let tolerance = basket_tolerance(basket)?;
    let difference = gross_amount.checked_sub(item_sum)?;
    (difference.abs() > tolerance).then(|| {
        format!(
            "must equal the sum of gross_total_price over all items and special items \
             = {item_sum} (tolerance {tolerance} = sum of quantities x {TOLERANCE_PER_UNIT}), \
             but is {gross_amount}"
        )
    })
}

/// The `gross_total_price` of every line that has one.
pub(crate) fn line_totals(basket: &ShopBasket) -> impl Iterator<Item = Decimal> + '_ {
    let items = basket.items.iter().map(|item| item.gross_total_price);
    let special = basket
        .special_items
        .iter()
        .map(|item| item.gross_total_price);
    items.chain(special).flatten()
}

/// How many lines (items and special items) the basket has.
fn line_count(basket: &ShopBasket) -> usize {
    basket.items.len() + basket.special_items.len()
}

/// (sum of all quantities) x 0.02.
pub(crate) fn basket_tolerance(basket: &ShopBasket) -> Option<Decimal> {
    let items = basket.items.iter().map(|item| item.quantity);
    let special = basket.special_items.iter().map(|item| item.quantity);
    let quantities = items.chain(special).flatten().map(|q| q.abs());
    checked_sum(quantities)?.checked_mul(TOLERANCE_PER_UNIT)
}

/// `None` when the sum leaves the decimal range.
pub(crate) fn checked_sum(terms: impl IntoIterator<Item = Decimal>) -> Option<Decimal> {
    terms
        .into_iter()
        .try_fold(Decimal::ZERO, Decimal::checked_add)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use psi_payment_page::types::{BasketItem, OrderData, SpecialItem, Vat};

    pub(crate) fn amount(text: &str) -> Option<Decimal> {
        Some(text.parse().expect("a decimal literal"))
    }

    /// The consistent example basket of the provider's public documentation (docs/service-notes.md).
    pub(crate) fn example_basket() -> ShopBasket {
        ShopBasket {
            gross_amount: amount("43.8"),
            items: vec![BasketItem {
                quantity: amount("2"),
                tax_rate: amount("19"),
                gross_unit_price: amount("18.45"),
                gross_unit_discount: amount("-1.55"),
                gross_total_price: amount("33.8"),
                net_unit_price: amount("15.5"),
                net_unit_discount: amount("-1.3"),
                net_total_price: amount("28.4"),
                ..Default::default()
            }],
            special_items: vec![SpecialItem {
                category: Some("shipping".to_owned()),
                quantity: amount("1"),
                tax_rate: amount("19"),
                gross_unit_price: amount("10"),
                gross_total_price: amount("10"),
                net_unit_price: amount("8.4"),
                net_total_price: amount("8.4"),
                ..Default::default()
            }],
            vats: vec![Vat {
                tax_rate: amount("19"),
                net_amount: amount("36.8"),
                tax_amount: amount("7"),
            }],
            ..Default::default()
        }
    }

    pub(crate) fn session(baskets: Vec<ShopBasket>) -> SessionRequest {
        SessionRequest {
            order_data: Some(OrderData {
                shop_baskets: baskets,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn paths(request: &SessionRequest) -> Vec<String> {
        match check_session_request(request) {
            Ok(()) => Vec::new(),
            Err(found) => found.iter().map(|v| v.path.clone()).collect(),
        }
    }

    #[test]
    fn the_example_basket_passes() {
        assert_eq!(
            check_session_request(&session(vec![example_basket()])),
            Ok(())
        );
    }

    #[test]
    fn the_rule_states_the_sum_the_tolerance_and_the_amount() {
        let mut basket = example_basket();
        basket.gross_amount = amount("44");
        let found = check_session_request(&session(vec![basket])).unwrap_err();
        assert_eq!(
            found.to_string(),
            "$.order_data.shop_baskets[0].gross_amount: must equal the sum of gross_total_price \
             over all items and special items = 43.8 (tolerance 0.06 = sum of quantities x 0.02), \
             but is 44"
        );
    }

    #[test]
    fn the_tolerance_is_two_cents_per_unit_of_quantity_both_ways() {
        // Quantities 2 + 1: the basket may be off by 0.06.
        for inside in ["43.86", "43.74"] {
            let mut basket = example_basket();
            basket.gross_amount = amount(inside);
            assert_eq!(
                paths(&session(vec![basket])),
                Vec::<String>::new(),
                "{inside}"
            );
        }
        for outside in ["43.87", "43.73"] {
            let mut basket = example_basket();
            basket.gross_amount = amount(outside);
            assert_eq!(
                paths(&session(vec![basket])),
                ["$.order_data.shop_baskets[0].gross_amount"],
                "{outside}"
            );
        }
    }

    #[test]
    fn every_wrong_basket_is_named() {
        let mut second = example_basket();
        second.gross_amount = amount("50");
        let mut third = example_basket();
        third.special_items.clear();
        assert_eq!(
            paths(&session(vec![example_basket(), second, third])),
            [
                "$.order_data.shop_baskets[1].gross_amount",
                "$.order_data.shop_baskets[2].gross_amount"
            ]
        );
    }

    #[test]
    fn arithmetic_beyond_the_item_sum_never_refuses() {
        // Wrong line totals, wrong VAT, VAT lines far from the gross amount:
        // the item sum still matches, so the request is sent.
        let mut basket = example_basket();
        basket.items[0].net_total_price = amount("99");
        basket.items[0].gross_unit_price = amount("1");
        basket.vats[0].tax_amount = amount("0.01");
        basket.vats.push(Vat::default());
        assert_eq!(check_session_request(&session(vec![basket])), Ok(()));
    }

    /// A line the merchant did not total: the sum of the other lines is not
    /// the sum the service compares, so neither a match nor a mismatch of
    /// that partial sum refuses the send.
    pub(crate) fn untotalled_basket() -> ShopBasket {
        let mut basket = example_basket();
        basket.gross_amount = amount("48.8");
        basket.items.push(BasketItem {
            quantity: amount("1"),
            gross_unit_price: amount("5"),
            ..Default::default()
        });
        basket
    }

    #[test]
    fn a_basket_with_an_untotalled_line_is_sent() {
        // The totalled lines add up to 43.8, far from 48.8: still sent.
        assert_eq!(
            check_session_request(&session(vec![untotalled_basket()])),
            Ok(())
        );
        let mut partial_match = untotalled_basket();
        partial_match.gross_amount = amount("43.8");
        assert_eq!(check_session_request(&session(vec![partial_match])), Ok(()));
        // Every line totalled again: the rule applies.
        let mut totalled = untotalled_basket();
        totalled.items[1].gross_total_price = amount("4");
        assert_eq!(
            paths(&session(vec![totalled])),
            ["$.order_data.shop_baskets[0].gross_amount"]
        );
    }

    #[test]
    fn nothing_to_compare_is_sent() {
        let mut nothing_to_compare = example_basket();
        nothing_to_compare.items[0].gross_total_price = None;
        nothing_to_compare.special_items[0].gross_total_price = None;
        assert_eq!(
            check_session_request(&session(vec![nothing_to_compare])),
            Ok(())
        );
        let mut no_gross = example_basket();
        no_gross.gross_amount = None;
        assert_eq!(check_session_request(&session(vec![no_gross])), Ok(()));
        assert_eq!(check_session_request(&SessionRequest::default()), Ok(()));
    }

    #[test]
    fn sums_beyond_the_decimal_range_are_not_refused() {
        let mut basket = example_basket();
        basket.items[0].gross_total_price = amount("70000000000000000000000000000");
        basket.special_items[0].gross_total_price = amount("70000000000000000000000000000");
        assert_eq!(check_session_request(&session(vec![basket])), Ok(()));
    }
}
