//! The basket arithmetic the service checks on session creation (field
//! notes, "Basket check"): a basket whose amounts do not add up is declined
//! with a 422 `SUM_OF_ITEM_AMOUNTS_NOT_MATCHING_TRANSACTION_AMOUNT`; this
//! finds it before sending, with every wrong line at once.
//!
//! The service allows (sum of all quantities) x 0.02 between the item sum and
//! the basket's gross amount; the same 0.02 per unit is allowed on each line,
//! since a line total is also a rounded product. A comparison runs only when
//! all its inputs are present (every field of the types is optional); an
//! absent discount counts as no discount.

use psi_payment_page::types::{BasketItem, SessionRequest, ShopBasket, SpecialItem, Vat};
use rust_decimal::{Decimal, RoundingStrategy};

use super::{Violation, Violations};

/// Allowed difference per unit of quantity.
const TOLERANCE_PER_UNIT: Decimal = Decimal::from_parts(2, 0, 0, false, 2);
/// Allowed difference between a VAT line's tax and its rounded computation.
const TAX_TOLERANCE: Decimal = Decimal::from_parts(1, 0, 0, false, 2);

/// Checks the amounts of every shop basket of a session request.
pub fn check_session_request(request: &SessionRequest) -> Result<(), Violations> {
    let mut found = Vec::new();
    let baskets = request
        .order_data
        .iter()
        .flat_map(|order| order.shop_baskets.iter());
    for (index, basket) in baskets.enumerate() {
        let path = format!("$.order_data.shop_baskets[{index}]");
        check_basket(&path, basket, &mut found);
    }
    Violations(found).into_result()
}

fn check_basket(path: &str, basket: &ShopBasket, found: &mut Vec<Violation>) {
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
    let tolerance = basket_tolerance(basket);
    let item_totals = basket.items.iter().map(|item| item.gross_total_price);
    let special_totals = basket
        .special_items
        .iter()
        .map(|item| item.gross_total_price);
    if let Some(totals) = item_totals
        .chain(special_totals)
        .collect::<Option<Vec<_>>>()
    {
        Comparison {
            subject: None,
            reference: "the sum of gross_total_price over all items and special items",
            expected: checked_sum(totals),
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

fn check_item(path: &str, item: &BasketItem, found: &mut Vec<Violation>) {
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

fn check_special_item(path: &str, item: &SpecialItem, found: &mut Vec<Violation>) {
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

fn check_vat_line(path: &str, vat: &Vat, found: &mut Vec<Violation>) {
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
fn tax_of(net: Decimal, rate: Decimal) -> Option<Decimal> {
    let tax = net.checked_mul(rate)?.checked_div(Decimal::ONE_HUNDRED)?;
    Some(tax.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero))
}

fn line_tolerance(quantity: Decimal) -> Option<Decimal> {
    quantity.abs().checked_mul(TOLERANCE_PER_UNIT)
}

/// (sum of all quantities) x 0.02. An absent quantity adds nothing, which
/// can only make the check stricter, never hide a mismatch.
fn basket_tolerance(basket: &ShopBasket) -> Option<Decimal> {
    let item_quantities = basket.items.iter().map(|item| item.quantity);
    let special_quantities = basket.special_items.iter().map(|item| item.quantity);
    let quantities = item_quantities
        .chain(special_quantities)
        .flatten()
        .map(|quantity| quantity.abs());
    checked_sum(quantities).and_then(line_tolerance)
}

/// `None` when the sum leaves the decimal range.
fn checked_sum(terms: impl IntoIterator<Item = Decimal>) -> Option<Decimal> {
    terms
        .into_iter()
        .try_fold(Decimal::ZERO, Decimal::checked_add)
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
    fn check(self, path: String, actual: Option<Decimal>, found: &mut Vec<Violation>) {
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
            found.push(Violation::new(path, rule));
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
            found.push(Violation::new(path, rule));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psi_payment_page::types::OrderData;

    fn amount(text: &str) -> Option<Decimal> {
        Some(text.parse().expect("a decimal literal"))
    }

    /// The consistent example basket of the field notes.
    fn field_notes_basket() -> ShopBasket {
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

    fn session(baskets: Vec<ShopBasket>) -> SessionRequest {
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
            Err(found) => found
                .iter()
                .map(|violation| violation.path.clone())
                .collect(),
        }
    }

    #[test]
    fn the_field_notes_basket_passes() {
        assert_eq!(
            check_session_request(&session(vec![field_notes_basket()])),
            Ok(())
        );
    }

    #[test]
    fn three_errors_give_three_violations_with_their_paths() {
        let mut first = field_notes_basket();
        first.items[0].net_total_price = amount("28.9");
        first.vats[0].tax_rate = amount("7");
        let mut second = field_notes_basket();
        second.gross_amount = amount("44");
        second.vats.clear();
        assert_eq!(
            paths(&session(vec![first, second])),
            [
                "$.order_data.shop_baskets[0].items[0].net_total_price",
                "$.order_data.shop_baskets[0].vats[0].tax_amount",
                "$.order_data.shop_baskets[1].gross_amount",
            ]
        );
    }

    #[test]
    fn the_rule_states_expected_and_actual_amounts() {
        let mut basket = field_notes_basket();
        basket.special_items[0].gross_total_price = amount("10.03");
        basket.gross_amount = amount("43.83");
        let found = check_session_request(&session(vec![basket])).unwrap_err();
        assert_eq!(
            found.to_string(),
            "$.order_data.shop_baskets[0].special_items[0].gross_total_price: \
             must equal gross_unit_price x quantity = 10 (tolerance 0.02), but is 10.03"
        );
    }

    #[test]
    fn the_basket_tolerance_is_two_cents_per_unit_of_quantity() {
        // Quantities 2 + 1: the basket may be off by 0.06, both ways.
        for inside in ["43.86", "43.74"] {
            let mut basket = field_notes_basket();
            basket.gross_amount = amount(inside);
            assert_eq!(
                paths(&session(vec![basket])),
                Vec::<String>::new(),
                "{inside}"
            );
        }
        let mut basket = field_notes_basket();
        basket.gross_amount = amount("43.87");
        assert_eq!(
            paths(&session(vec![basket])),
            [
                "$.order_data.shop_baskets[0].gross_amount",
                "$.order_data.shop_baskets[0].vats"
            ]
        );
    }

    #[test]
    fn the_line_tolerance_is_two_cents_per_unit_of_the_line() {
        let mut basket = field_notes_basket();
        basket.items[0].gross_total_price = amount("33.84");
        assert_eq!(paths(&session(vec![basket])), Vec::<String>::new());
        let mut basket = field_notes_basket();
        basket.items[0].gross_total_price = amount("33.85");
        assert_eq!(
            paths(&session(vec![basket])),
            ["$.order_data.shop_baskets[0].items[0].gross_total_price"]
        );
    }

    #[test]
    fn a_vat_line_allows_one_cent_around_the_rounded_tax() {
        // 36.8 x 19 / 100 = 6.992, rounded 6.99: 7.00 is inside, 7.01 outside.
        let mut basket = field_notes_basket();
        basket.vats[0].tax_amount = amount("7.01");
        basket.vats[0].net_amount = amount("36.79");
        assert_eq!(
            paths(&session(vec![basket])),
            ["$.order_data.shop_baskets[0].vats[0].tax_amount"]
        );
    }

    #[test]
    fn comparisons_with_absent_inputs_are_skipped() {
        let mut basket = field_notes_basket();
        basket.items[0].quantity = None;
        basket.items[0].gross_total_price = amount("1");
        basket.special_items[0].gross_total_price = None;
        basket.vats[0].net_amount = None;
        assert_eq!(paths(&session(vec![basket])), Vec::<String>::new());
        assert_eq!(check_session_request(&SessionRequest::default()), Ok(()));
    }

    #[test]
    fn amounts_beyond_the_decimal_range_are_reported_not_panicked_on() {
        let mut basket = field_notes_basket();
        basket.special_items[0].gross_unit_price = amount("70000000000000000000000000000");
        basket.special_items[0].quantity = amount("2");
        let found = check_session_request(&session(vec![basket])).unwrap_err();
        assert!(found
            .paths()
            .contains(&"$.order_data.shop_baskets[0].special_items[0].gross_total_price"));
        assert!(found.to_string().contains("decimal range"), "{found}");
    }
}
