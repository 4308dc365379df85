//! Pre-flight checks: rules of the specification that the generated request
//! types cannot express (sums, cross-field conditions, check digits, real
//! country codes), run before a request is sent.
//!
//! Every check reports all violations at once, each with the JSON path of
//! the field (`$.order_data.shop_baskets[0].items[1].gross_total_price`) and
//! the rule it breaks, so a merchant fixes a request in one round.

use std::fmt;

#[cfg(feature = "payment-page")]
pub mod basket;
#[cfg(feature = "bank-accounts")]
pub mod iban;
#[cfg(feature = "pay-later")]
pub mod pay_later;
#[cfg(feature = "shop-config")]
pub mod shop_config;

#[cfg(feature = "payment-page")]
pub use basket::check_session_request;
#[cfg(feature = "bank-accounts")]
pub use iban::check_bank_account;
#[cfg(feature = "pay-later")]
pub use pay_later::{check_booking, check_offers, new_due_date};
#[cfg(feature = "shop-config")]
pub use shop_config::check_shop_configuration;

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON path of the field, such as `$.legal.tax_number`.
    pub path: String,
    /// The rule, with the expected and actual values where that helps.
    pub rule: String,
}

impl Violation {
    pub fn new(path: impl Into<String>, rule: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            rule: rule.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.rule)
    }
}

impl std::error::Error for Violation {}

/// Every rule a request breaks; never empty when returned as an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violations(pub Vec<Violation>);

impl Violations {
    /// `Ok` when nothing was found, so checks can end with `found.into_result()`.
    pub fn into_result(self) -> Result<(), Violations> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Violation> {
        self.0.iter()
    }

    /// The paths, in the order found; handy in tests and logs.
    pub fn paths(&self) -> Vec<&str> {
        self.0
            .iter()
            .map(|violation| violation.path.as_str())
            .collect()
    }
}

impl From<Violation> for Violations {
    fn from(violation: Violation) -> Self {
        Self(vec![violation])
    }
}

impl<'a> IntoIterator for &'a Violations {
    type Item = &'a Violation;
    type IntoIter = std::slice::Iter<'a, Violation>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// One violation per line.
impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, violation) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{violation}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Violations {}

/// Checks the JSON body of an operation before it is sent: the body is
/// parsed into the operation's request type (a parse failure is a violation
/// at the offending path) and the matching check runs. Operations without a
/// check pass.
///
/// `operation_id` may be spelled as in the OpenAPI documents
/// (`createSession`) or as progenitor reports it to request hooks
/// (`create_session`).
pub fn check_request(operation_id: &str, body: &[u8]) -> Result<(), Violations> {
    #[cfg(not(any(
        feature = "payment-page",
        feature = "bank-accounts",
        feature = "shop-config"
    )))]
    let _ = body;
    match operation_id {
        #[cfg(feature = "payment-page")]
        "createSession" | "create_session" => {
            parsed(body).and_then(|request| basket::check_session_request(&request))
        }
        #[cfg(feature = "bank-accounts")]
        "storeBankAccount" | "store_bank_account" => {
            parsed(body).and_then(|request| iban::check_bank_account(&request))
        }
        #[cfg(feature = "shop-config")]
        "updateShopConfiguration" | "update_shop_configuration" => parsed(body)
            .and_then(|configuration| shop_config::check_shop_configuration(&configuration)),
        _ => Ok(()),
    }
}

/// Parses a request body, naming the path of the first field that does not
/// fit the type. serde's messages state types and lengths, never the
/// string values, so no IBAN ends up in the rule.
#[cfg(any(
    feature = "payment-page",
    feature = "bank-accounts",
    feature = "shop-config"
))]
fn parsed<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Violations> {
    let text =
        std::str::from_utf8(body).map_err(|_| Violation::new("$", "the body is not UTF-8 text"))?;
    psi_runtime::parse_json(text)
        .map_err(|error| Violation::new(json_path(&error.field), error.rule).into())
}

#[cfg(any(
    feature = "payment-page",
    feature = "bank-accounts",
    feature = "shop-config"
))]
/// Turns a path from [`psi_runtime::parse_json`] (`order_data.items[0]`,
/// `$` for the root) into a JSON path (`$.order_data.items[0]`).
pub(crate) fn json_path(field: &str) -> String {
    match field {
        "" | "$" | "." => "$".to_owned(),
        indexed if indexed.starts_with('[') => format!("${indexed}"),
        named => format!("$.{named}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violations_list_one_per_line() {
        let found = Violations(vec![
            Violation::new("$.name", "must not be blank"),
            Violation::new("$.legal", "needs vat_id_number or tax_number"),
        ]);
        assert_eq!(
            found.to_string(),
            "$.name: must not be blank\n$.legal: needs vat_id_number or tax_number"
        );
        assert_eq!(found.clone().into_result(), Err(found));
        assert_eq!(Violations(Vec::new()).into_result(), Ok(()));
    }

    #[cfg(any(
        feature = "payment-page",
        feature = "bank-accounts",
        feature = "shop-config"
    ))]
    #[test]
    fn parse_paths_become_json_paths() {
        assert_eq!(json_path("$"), "$");
        assert_eq!(json_path("[2].id"), "$[2].id");
        assert_eq!(
            json_path("order_data.shop_baskets[0]"),
            "$.order_data.shop_baskets[0]"
        );
    }

    #[test]
    fn operations_without_a_check_pass_any_body() {
        assert_eq!(check_request("getPayLaterStatus", b"not json"), Ok(()));
    }

    #[cfg(feature = "payment-page")]
    #[test]
    fn a_session_body_is_parsed_and_checked() {
        let good = br#"{"order_data":{"shop_baskets":[{"gross_amount":10,"items":[{"quantity":1,"gross_unit_price":10,"gross_total_price":10}]}]}}"#;
        assert_eq!(check_request("createSession", good), Ok(()));
        assert_eq!(check_request("create_session", good), Ok(()));

        let wrong_sum = br#"{"order_data":{"shop_baskets":[{"gross_amount":12,"items":[{"quantity":1,"gross_unit_price":10,"gross_total_price":10}]}]}}"#;
        let found = check_request("createSession", wrong_sum).unwrap_err();
        assert_eq!(found.paths(), ["$.order_data.shop_baskets[0].gross_amount"]);

        let bad_type = br#"{"order_data":{"shop_baskets":[{"items":[{"quantity":"two"}]}]}}"#;
        let found = check_request("createSession", bad_type).unwrap_err();
        assert_eq!(
            found.paths(),
            ["$.order_data.shop_baskets[0].items[0].quantity"]
        );

        let found = check_request("createSession", b"\xff").unwrap_err();
        assert_eq!(found.paths(), ["$"]);
    }

    #[cfg(feature = "bank-accounts")]
    #[test]
    fn a_bank_account_body_never_echoes_the_iban() {
        let iban = "DE89370400440532013001";
        let body = format!(r#"{{"owner":"Erika Mustermann","iban":"{iban}"}}"#);
        let found = check_request("storeBankAccount", body.as_bytes()).unwrap_err();
        assert_eq!(found.paths(), ["$.iban"]);
        assert!(!found.to_string().contains(iban));

        let overlong = "DE89 3704 0044 0532 0130 00 DE89 3704 0044 0532 0130 00";
        let body = format!(r#"{{"owner":"Erika Mustermann","iban":"{overlong}"}}"#);
        let found = check_request("store_bank_account", body.as_bytes()).unwrap_err();
        assert_eq!(found.paths(), ["$.iban"]);
        assert!(!found.to_string().contains("3704"), "{found}");
    }

    #[cfg(feature = "shop-config")]
    #[test]
    fn a_shop_configuration_body_is_parsed_and_checked() {
        let body = br#"{"name":" ","address":{"street":"S","city":"C","postal_code":"1","country_code":"XX"},"legal":{"name":"N","legal_form":"GmbH","commercial_register_number":"HRB 1","registration_office":"AG","tax_number":"1"}}"#;
        let found = check_request("updateShopConfiguration", body).unwrap_err();
        assert_eq!(found.paths(), ["$.name", "$.address.country_code"]);
    }
}
