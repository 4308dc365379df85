//! Basket arithmetic beyond the one rule the service states: each line's
//! total against its unit price x quantity (gross and net), each VAT line's
//! tax against net x rate rounded to cents, and the VAT lines adding up to
//! the gross amount. Real baskets legitimately break these (VAT worked out
//! per line and summed, rates with no VAT line), so they are findings for a
//! caller who wants them, never a reason to refuse a send.
//!
//! A line without `gross_unit_price` or `quantity` in a basket with
//! `gross_amount` is a finding too: the service computes the amount it
//! compares `gross_amount` with from them, and pre-flight checks that
//! amount only when every line carries both.
//!
//! The tolerances: 0.02 per unit of quantity on a line (a line total is a
//! rounded product too), one cent on a VAT line's tax, and the basket's
//! (sum of all quantities) x 0.02 for the VAT sum. A comparison runs only
//! when all its inputs are present; an absent discount counts as none.

use psi_payment_page::types::{BasketItem, SessionRequest, ShopBasket, SpecialItem, Vat};
use psi_runtime::Decimal;
use psi_runtime::RoundingStrategy;

use crate::preflight::basket::{
    basket_tolerance, baskets, checked_sum, computed_amount, TOLERANCE_PER_UNIT,
};
use crate::Finding;

/// Allowed difference between a VAT line's tax and its rounded computation.
const TAX_TOLERANCE: Decimal = Decimal::from_parts(1, 0, 0, false, 2);

/// Every arithmetic finding of every shop basket of a session request.
#[inline]
pub fn session_request(request: &SessionRequest) -> Vec<Finding> {
    let mut found = Vec::new();
    for (index, basket) in baskets(request).enumerate() {
        let path = format!("$.order_data.shop_baskets[{index}]");
        check_basket(&path, basket, &mut found);
    }
    found
}

#[inline]
fn check_basket(path: &str, basket: &ShopBasket, found: &mut Vec<Finding>) {
    for (index, item) in basket.items.iter().enumerate() {
        check_item(&format!("{path}.items[{index}]"), item, found);
    }
    for (index, item) in basket.special_items.iter().enumerate() {
        check_special_item(&format!("{path}.special_items[{index}]"), item, found);
    }
    for (index, vat) in basket.vats.iter().enumerate() {
        check_vat_line(&format!("{path}.vats[{index}]"), vat, found);
    }
    let Some(gross_amount) = basket.gross_amount else {
        return;
    };
    let unpriced_items = basket
        .items
        .iter()
        .enumerate()
        .filter(|(_, item)| item.gross_unit_price.is_none() || item.quantity.is_none())
        .map(|(index, _)| format!("{path}.items[{index}]"));
    let unpriced_special_items = basket
        .special_items
        .iter()
        .enumerate()
        .filter(|(_, item)| item.gross_unit_price.is_none() || item.quantity.is_none())
        .map(|(index, _)| format!("{path}.special_items[{index}]"));
    let mut any_unpriced = false;
    for line in unpriced_items.chain(unpriced_special_items) {
        any_unpriced = true;
        let rule = "has no gross_unit_price or no quantity: the service compares gross_amount \
                    with the sum of round((gross_unit_price + gross_unit_discount) x quantity) \
                    over every line, which cannot be checked before sending";
        found.push(Finding::new(line, rule));
    }
    let tolerance = basket_tolerance(basket);
    // The computed amount itself is a pre-flight rule; only when it cannot
    // be computed from lines that are all priced (the decimal range) is
    // there something more to say here.
    if !any_unpriced && (computed_amount(basket).is_none() || tolerance.is_none()) {
        Comparison {
            subject: None,
            reference: "the sum of round((gross_unit_price + gross_unit_discount) x quantity) \
                        over all items and special items",
            expected: None,
            tolerance,
        }
        .check(format!("{path}.gross_amount"), Some(gross_amount), found);
    }
    let vat_lines = basket
        .vats
        .iter()
        .map(|vat| Some([vat.net_amount?, vat.tax_amount?]));
    let vat_lines = vat_lines.collect::<Option<Vec<_>>>();
    if let Some(lines) = vat_lines.filter(|lines| !lines.is_empty()) {
        Comparison {
            subject: Some("the sum of net_amount + tax_amount over all vat lines"),
            reference: "gross_amount",
            expected: Some(gross_amount),
            tolerance,
        }
        .check(format!("{path}.vats"), checked_sum(lines.concat()), found);
    }
}

#[inline]
fn check_item(path: &str, item: &BasketItem, found: &mut Vec<Finding>) {
    let Some(quantity) = item.quantity else {
        return;
    };
    let prices = [
        (
            "gross",
            item.gross_unit_price,
            item.gross_unit_discount,
            item.gross_total_price,
        ),
        (
            "net",
            item.net_unit_price,
            item.net_unit_discount,
            item.net_total_price,
        ),
    ];
    for (kind, unit_price, discount, total) in prices {
        let (Some(unit_price), Some(total)) = (unit_price, total) else {
            continue;
        };
        let discounted = unit_price.checked_add(discount.unwrap_or_default());
        Comparison {
            subject: None,
            reference: &format!("({kind}_unit_price + {kind}_unit_discount) x quantity"),
            expected: discounted.and_then(|price| price.checked_mul(quantity)),
            tolerance: line_tolerance(quantity),
        }
        .check(format!("{path}.{kind}_total_price"), Some(total), found);
    }
}

#[inline]
fn check_special_item(path: &str, item: &SpecialItem, found: &mut Vec<Finding>) {
    let Some(quantity) = item.quantity else {
        return;
    };
    let prices = [
        ("gross", item.gross_unit_price, item.gross_total_price),
        ("net", item.net_unit_price, item.net_total_price),
    ];
    for (kind, unit_price, total) in prices {
        let (Some(unit_price), Some(total)) = (unit_price, total) else {
            continue;
        };
        Comparison {
            subject: None,
            reference: &format!("{kind}_unit_price x quantity"),
            expected: unit_price.checked_mul(quantity),
            tolerance: line_tolerance(quantity),
        }
        .check(format!("{path}.{kind}_total_price"), Some(total), found);
    }
}

#[inline]
fn check_vat_line(path: &str, vat: &Vat, found: &mut Vec<Finding>) {
    let (Some(net), Some(rate), Some(tax)) = (vat.net_amount, vat.tax_rate, vat.tax_amount) else {
        return;
    };
    Comparison {
        subject: None,
        reference: "net_amount x tax_rate / 100 rounded to cents",
        expected: tax_of(net, rate),
        tolerance: Some(TAX_TOLERANCE),
    }
    .check(format!("{path}.tax_amount"), Some(tax), found);
}

/// `net x rate / 100`, rounded commercially (half away from zero) to cents.
#[inline]
fn tax_of(net: Decimal, rate: Decimal) -> Option<Decimal> {
    let tax = net.checked_mul(rate)?.checked_div(Decimal::ONE_HUNDRED)?;
    Some(tax.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero))
}

#[inline]
fn line_tolerance(quantity: Decimal) -> Option<Decimal> {
    quantity.abs().checked_mul(TOLERANCE_PER_UNIT)
}

/// "`subject` must equal `reference` = `expected` within `tolerance`".
///
/// Amounts come from user input, so every computation is checked: `None`
/// means it left the decimal range (about 7.9e28), which is reported rather
/// than a panic.
struct Comparison<'a> {
    /// What is compared, when it is not the field at the path itself.
    subject: Option<&'a str>,
    reference: &'a str,
    expected: Option<Decimal>,
    tolerance: Option<Decimal>,
}

impl Comparison<'_> {
    #[inline]
    fn check(self, path: String, actual: Option<Decimal>, found: &mut Vec<Finding>) {
        let subject = self
            .subject
            .map(|subject| format!("{subject} "))
            .unwrap_or_default();
        let (Some(actual), Some(expected), Some(tolerance)) =
            (actual, self.expected, self.tolerance)
        else {
            let rule = format!(
                "{subject}cannot be compared with {}: the amounts leave the decimal range",
                self.reference
            );
            found.push(Finding::new(path, rule));
            return;
        };
        let within = actual
            .checked_sub(expected)
            .is_some_and(|difference| difference.abs() <= tolerance);
        if !within {
            let rule = format!(
                "{subject}must equal {} = {expected} (tolerance {tolerance}), but is {actual}",
                self.reference
            );
            found.push(Finding::new(path, rule));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preflight::basket::tests::{amount, example_basket, session, untotalled_basket};
    use crate::preflight::check_session_request;

    fn paths(request: &SessionRequest) -> Vec<String> {
        session_request(request)
            .into_iter()
            .map(|finding| finding.path)
            .collect()
    }

    /// Three articles at 9.99 gross, 19 %, VAT worked out per line (net
    /// 8.39, tax 1.60 each) and summed: the provider accepts it.
    pub(crate) fn vat_per_line_basket() -> ShopBasket {
        let article = BasketItem {
            quantity: amount("1"),
            tax_rate: amount("19"),
            gross_unit_price: amount("9.99"),
            gross_total_price: amount("9.99"),
            net_unit_price: amount("8.39"),
            net_total_price: amount("8.39"),
            ..Default::default()
        };
        ShopBasket {
            gross_amount: amount("29.97"),
            items: vec![article.clone(), article.clone(), article],
            vats: vec![Vat {
                tax_rate: amount("19"),
                net_amount: amount("25.17"),
                tax_amount: amount("4.80"),
                extra_members: Default::default(),
            }],
            ..Default::default()
        }
    }

    /// A 19 % article and a 0 % one, with a VAT line for 19 % only.
    pub(crate) fn zero_rate_basket() -> ShopBasket {
        ShopBasket {
            gross_amount: amount("16.90"),
            items: vec![
                BasketItem {
                    quantity: amount("1"),
                    tax_rate: amount("19"),
                    gross_unit_price: amount("11.90"),
                    gross_total_price: amount("11.90"),
                    net_unit_price: amount("10"),
                    net_total_price: amount("10"),
                    ..Default::default()
                },
                BasketItem {
                    quantity: amount("1"),
                    tax_rate: amount("0"),
                    gross_unit_price: amount("5"),
                    gross_total_price: amount("5"),
                    net_unit_price: amount("5"),
                    net_total_price: amount("5"),
                    ..Default::default()
                },
            ],
            vats: vec![Vat {
                tax_rate: amount("19"),
                net_amount: amount("10"),
                tax_amount: amount("1.90"),
                extra_members: Default::default(),
            }],
            ..Default::default()
        }
    }

    #[test]
    fn the_example_basket_gets_no_advice() {
        assert_eq!(session_request(&session(vec![example_basket()])), []);
    }

    #[test]
    fn vat_worked_out_per_line_is_advice_not_a_refusal() {
        let request = session(vec![vat_per_line_basket()]);
        assert_eq!(check_session_request(&request), Ok(()));
        let found = session_request(&request);
        assert_eq!(
            found,
            [Finding::new(
                "$.order_data.shop_baskets[0].vats[0].tax_amount",
                "must equal net_amount x tax_rate / 100 rounded to cents = 4.78 \
                 (tolerance 0.01), but is 4.80"
            )]
        );
    }

    #[test]
    fn a_rate_without_a_vat_line_is_advice_not_a_refusal() {
        let request = session(vec![zero_rate_basket()]);
        assert_eq!(check_session_request(&request), Ok(()));
        let found = session_request(&request);
        assert_eq!(
            found,
            [Finding::new(
                "$.order_data.shop_baskets[0].vats",
                "the sum of net_amount + tax_amount over all vat lines must equal gross_amount \
                 = 16.90 (tolerance 0.04), but is 11.90"
            )]
        );
    }

    #[test]
    fn three_findings_with_their_paths() {
        let mut first = example_basket();
        first.items[0].net_total_price = amount("28.9");
        first.vats[0].tax_rate = amount("7");
        let mut second = example_basket();
        second.special_items[0].gross_total_price = amount("10.03");
        second.gross_amount = amount("43.83");
        assert_eq!(
            paths(&session(vec![first, second])),
            [
                "$.order_data.shop_baskets[0].items[0].net_total_price",
                "$.order_data.shop_baskets[0].vats[0].tax_amount",
                "$.order_data.shop_baskets[1].special_items[0].gross_total_price",
            ]
        );
    }

    #[test]
    fn the_line_tolerance_is_two_cents_per_unit_of_the_line() {
        let mut basket = example_basket();
        basket.items[0].gross_total_price = amount("33.84");
        basket.gross_amount = amount("43.84");
        assert_eq!(paths(&session(vec![basket])), Vec::<String>::new());
        let mut basket = example_basket();
        basket.items[0].gross_total_price = amount("33.85");
        basket.gross_amount = amount("43.85");
        assert_eq!(
            paths(&session(vec![basket])),
            ["$.order_data.shop_baskets[0].items[0].gross_total_price"]
        );
    }

    #[test]
    fn comparisons_with_absent_inputs_are_skipped() {
        let mut basket = example_basket();
        basket.items[0].gross_total_price = None;
        basket.items[0].net_unit_price = None;
        basket.special_items[0].net_total_price = None;
        basket.vats[0].net_amount = None;
        assert_eq!(paths(&session(vec![basket])), Vec::<String>::new());
        assert_eq!(session_request(&SessionRequest::default()), []);
    }

    #[test]
    fn an_untotalled_line_is_advice_not_a_refusal() {
        let mut basket = untotalled_basket();
        basket.vats.push(Vat {
            tax_rate: amount("0"),
            net_amount: amount("5"),
            tax_amount: amount("0"),
            extra_members: Default::default(),
        });
        let request = session(vec![basket]);
        assert_eq!(check_session_request(&request), Ok(()));
        assert_eq!(paths(&request), ["$.order_data.shop_baskets[0].items[1]"]);
        let mut no_gross_amount = untotalled_basket();
        no_gross_amount.gross_amount = None;
        assert_eq!(paths(&session(vec![no_gross_amount])), Vec::<String>::new());
    }

    #[test]
    fn amounts_beyond_the_decimal_range_are_reported_not_panicked_on() {
        let mut basket = example_basket();
        basket.special_items[0].gross_unit_price = amount("70000000000000000000000000000");
        basket.special_items[0].quantity = amount("2");
        basket.items[0].gross_total_price = amount("70000000000000000000000000000");
        basket.special_items[0].gross_total_price = amount("70000000000000000000000000000");
        let found = session_request(&session(vec![basket]));
        let paths: Vec<&str> = found.iter().map(|f| f.path.as_str()).collect();
        assert!(paths.contains(&"$.order_data.shop_baskets[0].special_items[0].gross_total_price"));
        assert!(paths.contains(&"$.order_data.shop_baskets[0].gross_amount"));
        assert!(found
            .iter()
            .all(|f| f.rule.contains("decimal range") || f.rule.contains("must equal")));
    }
}
