//! The checks of a well-formed session request that answer 422: what the
//! specification and the provider's public documentation (docs/service-notes.md) make checkable. Every invalid field is
//! reported at once, each with its JSON path.
//!
//! This is the service's own rule set, written independently of the SDK's
//! pre-flight checks (`psi::preflight`) so that each can catch the other's
//! mistakes.

use chrono::NaiveDate;
use psi_payment_page::types::{Buyer, OrderData, ShopBasket, UrlData};
use psi_runtime::Decimal;

const PAYMENT_ATTRIBUTE: &str = "PAYMENT_ATTRIBUTE";
const BUYER_DATA: &str = "BUYER_DATA";
const MISSING_FIELD: &str = "MISSING_FIELD";
const INVALID_FIELD: &str = "INVALID_FIELD";
const SUM_MISMATCH: &str = "SUM_OF_ITEM_AMOUNTS_NOT_MATCHING_TRANSACTION_AMOUNT";
/// Allowed difference between item sum and gross amount per unit of
/// quantity (docs/service-notes.md): 0.02.
const TOLERANCE_PER_UNIT: Decimal = Decimal::from_parts(2, 0, 0, false, 2);

/// One invalid field.
struct Invalid {
    path: String,
    message: String,
    reason: &'static str,
    category: &'static str,
}

impl Invalid {
    fn missing(path: impl Into<String>, category: &'static str) -> Self {
        Self {
            path: path.into(),
            message: "is required".to_owned(),
            reason: MISSING_FIELD,
            category,
        }
    }

    fn wrong(path: impl Into<String>, message: impl Into<String>, category: &'static str) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
            reason: INVALID_FIELD,
            category,
        }
    }
}

/// Every invalid field of a declined request; answered as one 422 decline
/// of [`Findings::category`] with [`Findings::reasons`].
pub struct Findings(Vec<Invalid>);

impl Findings {
    /// The decline's one category: the payment attributes weigh more than
    /// the buyer's data, which the buyer could fix.
    pub fn category(&self) -> &'static str {
        if self
            .0
            .iter()
            .any(|invalid| invalid.category == PAYMENT_ATTRIBUTE)
        {
            PAYMENT_ATTRIBUTE
        } else {
            BUYER_DATA
        }
    }

    /// The reasons of the findings, each once, in the order found.
    pub fn reasons(&self) -> Vec<&'static str> {
        let mut reasons: Vec<&'static str> = Vec::new();
        for invalid in &self.0 {
            if !reasons.contains(&invalid.reason) {
                reasons.push(invalid.reason);
            }
        }
        reasons
    }

    /// Every invalid field as its JSON path and the rule it breaks.
    pub fn into_fields(self) -> Vec<(String, String)> {
        self.0
            .into_iter()
            .map(|invalid| (invalid.path, invalid.message))
            .collect()
    }
}

/// `Ok` for a request the service accepts, else every invalid field.
pub fn check(
    request: &psi_payment_page::types::SessionRequest,
    today: NaiveDate,
) -> Result<(), Findings> {
    let mut found = Vec::new();
    match &request.order_data {
        Some(order) => check_order(order, today, &mut found),
        None => found.push(Invalid::missing("$.order_data", PAYMENT_ATTRIBUTE)),
    }
    // `url_data` is optional in the provider's own document: a session
    // without it has no redirects and no notifications.
    if let Some(urls) = &request.url_data {
        check_urls(urls, &mut found);
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(Findings(found))
    }
}

/// The order checks of a session, for an order stored another way (the
/// control API's transactions, so also `--seed`): every invalid field as
/// its JSON path and the rule it breaks.
pub fn check_order_data(order: &OrderData, today: NaiveDate) -> Result<(), Vec<(String, String)>> {
    let mut found = Vec::new();
    check_order(order, today, &mut found);
    if found.is_empty() {
        Ok(())
    } else {
        Err(found
            .into_iter()
            .map(|invalid| (invalid.path, invalid.message))
            .collect())
    }
}

fn check_order(order: &OrderData, today: NaiveDate, found: &mut Vec<Invalid>) {
    match &order.buyer {
        Some(buyer) => check_buyer(buyer, today, found),
        None => found.push(Invalid::missing("$.order_data.buyer", BUYER_DATA)),
    }
    if order.currency.is_none() {
        found.push(Invalid::missing("$.order_data.currency", PAYMENT_ATTRIBUTE));
    }
    if order.shop_baskets.is_empty() {
        found.push(Invalid::wrong(
            "$.order_data.shop_baskets",
            "must hold at least one shop basket",
            PAYMENT_ATTRIBUTE,
        ));
    }
    for (index, basket) in order.shop_baskets.iter().enumerate() {
        let path = format!("$.order_data.shop_baskets[{index}]");
        check_basket(&path, basket, found);
        check_rates_and_prices(&path, basket, found);
    }
    check_order_sums(order, found);
}

/// The sums the sandbox makes across the whole order (the amount due, the
/// invoice's VAT table) fit the decimal range, so that every later read of
/// the stored order is exact.
fn check_order_sums(order: &OrderData, found: &mut Vec<Invalid>) {
    let baskets = &order.shop_baskets;
    let sums: [(&str, Vec<Decimal>); 3] = [
        (
            "the baskets' gross amounts",
            baskets.iter().filter_map(|b| b.gross_amount).collect(),
        ),
        (
            "the VAT lines' net amounts",
            baskets
                .iter()
                .flat_map(|b| b.vats.iter().filter_map(|vat| vat.net_amount))
                .collect(),
        ),
        (
            "the VAT lines' tax amounts",
            baskets
                .iter()
                .flat_map(|b| b.vats.iter().filter_map(|vat| vat.tax_amount))
                .collect(),
        ),
    ];
    for (what, amounts) in sums {
        if crate::amounts::checked_sum(amounts).is_none() {
            found.push(Invalid::wrong(
                "$.order_data.shop_baskets",
                format!("{what} add up past the decimal range"),
                PAYMENT_ATTRIBUTE,
            ));
        }
    }
}

/// Tax rates are percentages from 0 to 100, and each line's unit price
/// with its discount, times its quantity, fits the decimal range.
fn check_rates_and_prices(path: &str, basket: &ShopBasket, found: &mut Vec<Invalid>) {
    let rates = basket
        .items
        .iter()
        .enumerate()
        .map(|(index, item)| (format!("{path}.items[{index}].tax_rate"), item.tax_rate))
        .chain(
            basket
                .special_items
                .iter()
                .enumerate()
                .map(|(index, item)| {
                    (
                        format!("{path}.special_items[{index}].tax_rate"),
                        item.tax_rate,
                    )
                }),
        )
        .chain(
            basket
                .vats
                .iter()
                .enumerate()
                .map(|(index, vat)| (format!("{path}.vats[{index}].tax_rate"), vat.tax_rate)),
        );
    for (rate_path, rate) in rates {
        if rate.is_some_and(|rate| rate < Decimal::ZERO || rate > Decimal::ONE_HUNDRED) {
            found.push(Invalid::wrong(
                rate_path,
                "must be a percentage from 0 to 100",
                PAYMENT_ATTRIBUTE,
            ));
        }
    }
    let lines = basket
        .items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            (
                format!("{path}.items[{index}]"),
                item.gross_unit_price,
                item.gross_unit_discount,
                item.quantity,
            )
        })
        .chain(
            basket
                .special_items
                .iter()
                .enumerate()
                .map(|(index, item)| {
                    (
                        format!("{path}.special_items[{index}]"),
                        item.gross_unit_price,
                        None,
                        item.quantity,
                    )
                }),
        );
    for (line_path, unit, discount, quantity) in lines {
        let total = unit
            .unwrap_or_default()
            .checked_add(discount.unwrap_or_default())
            .and_then(|unit| unit.checked_mul(quantity.unwrap_or(Decimal::ONE)));
        if total.is_none() {
            found.push(Invalid::wrong(
                format!("{line_path}.quantity"),
                "times the gross unit price (with its discount) is past the decimal range",
                PAYMENT_ATTRIBUTE,
            ));
        }
    }
}

fn check_buyer(buyer: &Buyer, today: NaiveDate, found: &mut Vec<Invalid>) {
    let (contact, birth_date) = match buyer {
        Buyer::CompanyBuyer(company) => (company.contact.as_ref(), None),
        Buyer::PersonBuyer(person) => (person.contact.as_ref(), person.person.date_of_birth),
    };
    if let Some(email) = contact.and_then(|contact| contact.email.as_deref()) {
        if !is_email_address(email) {
            found.push(Invalid::wrong(
                "$.order_data.buyer.contact.email",
                "must be a well-formed email address",
                BUYER_DATA,
            ));
        }
    }
    if birth_date.is_some_and(|born| born >= today) {
        found.push(Invalid::wrong(
            "$.order_data.buyer.person.date_of_birth",
            "must lie in the past",
            BUYER_DATA,
        ));
    }
}

/// `local@domain.tld` with no spaces: enough to catch a mistyped address.
fn is_email_address(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    let domain_ok =
        domain.split('.').count() >= 2 && domain.split('.').all(|label| !label.is_empty());
    !local.is_empty() && domain_ok && !domain.contains('@') && !text.contains(char::is_whitespace)
}

/// The provider's basket amount validation (docs/service-notes.md, "Basket
/// check"): each line, item or special item, counts
/// (gross unit price + gross unit discount) x quantity, rounded to cents
/// half away from zero (a special item has no discount; an absent one is
/// none); `gross_amount` may differ from the sum of those by at most
/// (sum of all quantities) x 0.02, up or down. `gross_total_price` takes no
/// part. A line without a unit price or a quantity leaves nothing to
/// compute, and nothing is refused for it: the specification requires
/// neither.
fn check_basket(path: &str, basket: &ShopBasket, found: &mut Vec<Invalid>) {
    let gross_path = format!("{path}.gross_amount");
    let Some(gross_amount) = basket.gross_amount else {
        found.push(Invalid::missing(gross_path, PAYMENT_ATTRIBUTE));
        return;
    };
    // (unit price, discount, quantity) of every line.
    let mut lines: Vec<(Option<Decimal>, Option<Decimal>, Option<Decimal>)> = Vec::new();
    for item in &basket.items {
        lines.push((
            item.gross_unit_price,
            item.gross_unit_discount,
            item.quantity,
        ));
    }
    for special in &basket.special_items {
        lines.push((special.gross_unit_price, None, special.quantity));
    }
    if lines.is_empty() {
        return;
    }
    let mut computed = Some(Decimal::ZERO);
    let mut quantities = Some(Decimal::ZERO);
    for (unit_price, discount, quantity) in lines {
        let (Some(unit_price), Some(quantity)) = (unit_price, quantity) else {
            return;
        };
        let line = unit_price
            .checked_add(discount.unwrap_or_default())
            .and_then(|unit| unit.checked_mul(quantity))
            .map(|amount| {
                amount
                    .round_dp_with_strategy(2, psi_runtime::RoundingStrategy::MidpointAwayFromZero)
            });
        computed = computed
            .zip(line)
            .and_then(|(sum, line)| sum.checked_add(line));
        quantities = quantities.and_then(|sum| sum.checked_add(quantity));
    }
    let allowed = quantities.and_then(|sum| sum.checked_mul(TOLERANCE_PER_UNIT));
    let difference = computed
        .and_then(|computed| gross_amount.checked_sub(computed))
        .map(|d| d.abs());
    match (difference, allowed) {
        (Some(difference), Some(allowed)) if difference <= allowed => {}
        (Some(_), Some(allowed)) => found.push(Invalid {
            path: gross_path,
            message: format!(
                "does not match the sum of the item amounts (allowed difference {})",
                allowed.normalize()
            ),
            reason: SUM_MISMATCH,
            category: PAYMENT_ATTRIBUTE,
        }),
        _ => found.push(Invalid::wrong(
            gross_path,
            "the basket's amounts exceed the decimal range",
            PAYMENT_ATTRIBUTE,
        )),
    }
}

fn check_urls(urls: &UrlData, found: &mut Vec<Invalid>) {
    let all = [
        ("success_url", &urls.success_url),
        ("failure_url", &urls.failure_url),
        ("cancel_url", &urls.cancel_url),
        ("webhook_url", &urls.webhook_url),
    ];
    for (name, url) in all {
        let path = format!("$.url_data.{name}");
        match url {
            Some(url) if !is_web_address(url) => found.push(Invalid::wrong(
                path,
                "must be an absolute http or https URL",
                PAYMENT_ATTRIBUTE,
            )),
            _ => {}
        }
    }
}

fn is_web_address(text: &str) -> bool {
    url::Url::parse(text)
        .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.has_host())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amount(text: &str) -> Option<Decimal> {
        Some(text.parse().unwrap())
    }

    /// A basket of items given as (quantity, gross unit price, gross unit discount).
    fn basket(gross_amount: &str, lines: &[(&str, &str, Option<&str>)]) -> ShopBasket {
        ShopBasket {
            gross_amount: amount(gross_amount),
            items: lines
                .iter()
                .map(
                    |(quantity, unit, discount)| psi_payment_page::types::BasketItem {
                        quantity: amount(quantity),
                        gross_unit_price: amount(unit),
                        gross_unit_discount: discount.and_then(amount),
                        ..Default::default()
                    },
                )
                .collect(),
            ..Default::default()
        }
    }

    fn findings(basket: &ShopBasket) -> Vec<(String, &'static str)> {
        let mut found = Vec::new();
        check_basket("$.b", basket, &mut found);
        found
            .into_iter()
            .map(|invalid| (invalid.path, invalid.reason))
            .collect()
    }

    fn shipping(basket: &mut ShopBasket, price: &str) {
        basket
            .special_items
            .push(psi_payment_page::types::SpecialItem {
                quantity: amount("1"),
                gross_unit_price: amount(price),
                ..Default::default()
            });
    }

    #[test]
    fn the_tolerance_is_two_cents_per_unit_of_all_quantities() {
        // 2 x (18.45 - 1.55) + 10 = 43.80; quantities 2 + 1 allow 0.06 either way.
        for (gross, accepted) in [
            ("43.86", true),
            ("43.74", true),
            ("43.87", false),
            ("43.73", false),
        ] {
            let mut example = basket(gross, &[("2", "18.45", Some("-1.55"))]);
            shipping(&mut example, "10");
            let expected: Vec<(String, &str)> = if accepted {
                Vec::new()
            } else {
                vec![("$.b.gross_amount".to_owned(), SUM_MISMATCH)]
            };
            assert_eq!(findings(&example), expected, "{gross}");
        }
    }

    #[test]
    fn the_line_totals_take_no_part() {
        // The provider's counterexample: gross_total_price 36.9 (undiscounted).
        let mut example = basket("43.8", &[("2", "18.45", Some("-1.55"))]);
        example.items[0].gross_total_price = amount("36.9");
        shipping(&mut example, "10");
        assert!(findings(&example).is_empty());
        // Totals that add up do not save unit prices that do not.
        let mut undiscounted = basket("43.8", &[("2", "18.45", None)]);
        undiscounted.items[0].gross_total_price = amount("33.8");
        shipping(&mut undiscounted, "10");
        assert_eq!(
            findings(&undiscounted),
            [("$.b.gross_amount".to_owned(), SUM_MISMATCH)]
        );
    }

    #[test]
    fn each_line_is_rounded_before_the_sum() {
        // 3 x 0.335 = 1.005 -> 1.01, three lines: 3.03, allowed 0.18.
        let lines = [
            ("3", "0.335", None),
            ("3", "0.335", None),
            ("3", "0.335", None),
        ];
        assert!(findings(&basket("3.21", &lines)).is_empty());
        assert_eq!(
            findings(&basket("3.22", &lines)),
            [("$.b.gross_amount".to_owned(), SUM_MISMATCH)]
        );
    }

    #[test]
    fn a_line_without_price_or_quantity_refuses_nothing() {
        let mut unpriced = basket("99", &[("2", "18.45", Some("-1.55"))]);
        unpriced.items[0].gross_unit_price = None;
        assert!(findings(&unpriced).is_empty());
        let mut no_quantity = basket("99", &[("2", "18.45", Some("-1.55"))]);
        shipping(&mut no_quantity, "10");
        no_quantity.special_items[0].quantity = None;
        assert!(findings(&no_quantity).is_empty());
        assert_eq!(
            findings(&ShopBasket::default()),
            [("$.b.gross_amount".to_owned(), MISSING_FIELD)]
        );
    }

    #[test]
    fn email_addresses_need_a_local_part_and_a_dotted_domain() {
        assert!(is_email_address("erika@example.com"));
        for wrong in [
            "erika",
            "@example.com",
            "erika@example",
            "erika@@example.com",
            "eri ka@example.com",
            "erika@example..com",
        ] {
            assert!(!is_email_address(wrong), "{wrong}");
        }
    }
}
