//! The one basket rule the service states (docs/service-notes.md, "Basket check"), per
//! shop basket:
//!
//! ```text
//! computed amount    = sum over items and special items of
//!                      round((gross_unit_price + gross_unit_discount) x quantity)
//! allowed difference = (sum of all quantities) x 0.02
//! ```
//!
//! `gross_amount` may differ from the computed amount by at most the
//! allowed difference, either way; outside that the service declines with a
//! 422 `SUM_OF_ITEM_AMOUNTS_NOT_MATCHING_TRANSACTION_AMOUNT`. The discount
//! is negative (a special item carries none; an absent one counts as none),
//! each line is rounded to cents (half away from zero) before the sum, and
//! `gross_total_price` is no input: a basket whose line totals disagree with
//! its unit prices is judged by its unit prices, as the service judges it.
//!
//! The check runs only when the basket carries `gross_amount` and every
//! line carries `gross_unit_price` and `quantity`: the specification states
//! none of them as required, and a sum over some of the lines is not the
//! sum the service computes, so such a basket is sent (advice names the
//! line). An absent quantity adds nothing to the allowed difference;
//! quantities count by their magnitude, so a negative one never narrows it.
//!
//! Nothing else about the amounts refuses a send: line totals, VAT lines and
//! their sum are [`crate::advice::session_request`].

use psi_payment_page::types::{SessionRequest, ShopBasket};
use psi_runtime::{Decimal, RoundingStrategy};

use super::{Rule, Violation, Violations};

/// Allowed difference per unit of quantity.
pub const TOLERANCE_PER_UNIT: Decimal = Decimal::from_parts(2, 0, 0, false, 2);

/// Checks the computed amount of every shop basket of a session request.
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

/// Why `gross_amount` does not match the computed amount, or `None` when it
/// does or nothing can be compared (no `gross_amount`, no lines, or a line
/// without `gross_unit_price` or `quantity`).
fn item_sum_problem(basket: &ShopBasket) -> Option<String> {
    let gross_amount = basket.gross_amount?;
    if line_count(basket) == 0 {
        return None;
    }
    // A sum or tolerance beyond the decimal range cannot be compared; the
    // service decides, and advice reports it.
    let computed = computed_amount(basket)?;
    let tolerance = basket_tolerance(basket)?;
    let difference = gross_amount.checked_sub(computed)?;
    (difference.abs() > tolerance).then(|| {
        format!(
            "must equal the amount the service computes, the sum over all items and special \
             items of round((gross_unit_price + gross_unit_discount) x quantity) = {computed} \
             (allowed difference {tolerance} = sum of quantities x {TOLERANCE_PER_UNIT}), \
             but is {gross_amount}"
        )
    })
}

/// The amount the service computes for each line, items first: `None` for
/// a line without `gross_unit_price` or `quantity`, or beyond the decimal
/// range.
pub(crate) fn line_amounts(basket: &ShopBasket) -> impl Iterator<Item = Option<Decimal>> + '_ {
    let items = basket.items.iter().map(|item| {
        line_amount(
            item.gross_unit_price,
            item.gross_unit_discount,
            item.quantity,
        )
    });
    let special = basket
        .special_items
        .iter()
        .map(|item| line_amount(item.gross_unit_price, None, item.quantity));
    items.chain(special)
}

/// round((unit price + discount) x quantity), to cents, half away from zero.
fn line_amount(
    unit_price: Option<Decimal>,
    discount: Option<Decimal>,
    quantity: Option<Decimal>,
) -> Option<Decimal> {
    let unit = unit_price?.checked_add(discount.unwrap_or(Decimal::ZERO))?;
    let amount = unit.checked_mul(quantity?)?;
    Some(amount.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero))
}

/// The sum of [`line_amounts`]; `None` when a line has none.
pub(crate) fn computed_amount(basket: &ShopBasket) -> Option<Decimal> {
    checked_sum(line_amounts(basket).collect::<Option<Vec<_>>>()?)
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
                extra_members: Default::default(),
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
            "$.order_data.shop_baskets[0].gross_amount: must equal the amount the service \
             computes, the sum over all items and special items of round((gross_unit_price + \
             gross_unit_discount) x quantity) = 43.80 (allowed difference 0.06 = sum of \
             quantities x 0.02), but is 44"
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
    fn arithmetic_beyond_the_computed_amount_never_refuses() {
        // Wrong line totals, wrong VAT, VAT lines far from the gross amount:
        // the computed amount still matches, so the request is sent.
        let mut basket = example_basket();
        basket.items[0].net_total_price = amount("99");
        basket.items[0].gross_total_price = amount("1");
        basket.special_items[0].gross_total_price = None;
        basket.vats[0].tax_amount = amount("0.01");
        basket.vats.push(Vat::default());
        assert_eq!(check_session_request(&session(vec![basket])), Ok(()));
    }

    #[test]
    fn the_providers_counterexample_is_sent() {
        // Quantity 2 x (18.45 - 1.55) + 10 = 43.80; gross_total_price 36.9
        // (the undiscounted total) is no input to the service's rule.
        let mut basket = example_basket();
        basket.items[0].gross_total_price = amount("36.9");
        assert_eq!(check_session_request(&session(vec![basket])), Ok(()));
    }

    #[test]
    fn the_unit_prices_decide_not_the_line_totals() {
        // Line totals that add up to gross_amount do not save unit prices
        // that do not: 2 x 18.45 + 10 = 46.90, off by 3.10.
        let mut basket = example_basket();
        basket.items[0].gross_unit_discount = None;
        assert_eq!(
            paths(&session(vec![basket])),
            ["$.order_data.shop_baskets[0].gross_amount"]
        );
    }

    #[test]
    fn each_line_is_rounded_to_cents_before_the_sum() {
        // 3 x 0.335 = 1.005 rounds to 1.01 (half away from zero), three
        // times: 3.03. Quantities 9: allowed difference 0.18.
        let line = BasketItem {
            quantity: amount("3"),
            gross_unit_price: amount("0.335"),
            ..Default::default()
        };
        let basket = |gross: &str| ShopBasket {
            gross_amount: amount(gross),
            items: vec![line.clone(), line.clone(), line.clone()],
            ..Default::default()
        };
        assert_eq!(computed_amount(&basket("0")), amount("3.03"));
        assert_eq!(paths(&session(vec![basket("3.21")])), Vec::<String>::new());
        assert_eq!(paths(&session(vec![basket("2.85")])), Vec::<String>::new());
        assert_eq!(
            paths(&session(vec![basket("3.22")])),
            ["$.order_data.shop_baskets[0].gross_amount"]
        );
    }

    /// A line without a unit price: the sum of the other lines is not the
    /// amount the service computes, so neither a match nor a mismatch of
    /// that partial sum refuses the send.
    pub(crate) fn untotalled_basket() -> ShopBasket {
        let mut basket = example_basket();
        basket.gross_amount = amount("48.8");
        basket.items.push(BasketItem {
            quantity: amount("1"),
            gross_total_price: amount("5"),
            ..Default::default()
        });
        basket
    }

    #[test]
    fn a_basket_with_a_line_without_unit_price_or_quantity_is_sent() {
        // The priced lines add up to 43.8, far from 48.8: still sent.
        assert_eq!(
            check_session_request(&session(vec![untotalled_basket()])),
            Ok(())
        );
        let mut partial_match = untotalled_basket();
        partial_match.gross_amount = amount("43.8");
        assert_eq!(check_session_request(&session(vec![partial_match])), Ok(()));
        let mut no_quantity = example_basket();
        no_quantity.special_items[0].quantity = None;
        no_quantity.gross_amount = amount("99");
        assert_eq!(check_session_request(&session(vec![no_quantity])), Ok(()));
        // Every line priced again: the rule applies.
        let mut priced = untotalled_basket();
        priced.items[1].gross_unit_price = amount("4");
        assert_eq!(
            paths(&session(vec![priced])),
            ["$.order_data.shop_baskets[0].gross_amount"]
        );
    }

    #[test]
    fn nothing_to_compare_is_sent() {
        let mut nothing_to_compare = example_basket();
        nothing_to_compare.items[0].gross_unit_price = None;
        nothing_to_compare.special_items[0].gross_unit_price = None;
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
        basket.items[0].gross_unit_price = amount("70000000000000000000000000000");
        basket.items[0].gross_unit_discount = None;
        basket.special_items[0].gross_unit_price = amount("70000000000000000000000000000");
        assert_eq!(check_session_request(&session(vec![basket])), Ok(()));
    }
}
