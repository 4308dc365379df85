//! Pre-flight checks: the rules the specification (or the provider's
//! documentation of its 422 answers) states and the generated request types
//! cannot express, run before a request is sent. Only these refuse a send:
//!
//! - session creation: the basket sum (sum of `gross_total_price` of items
//!   and special items against `gross_amount`, tolerance (sum of all
//!   quantities) x 0.02), see [`basket`];
//! - bank account storage: IBAN check digits (ISO 13616, mod 97) and the BIC
//!   format (ISO 9362:2014), see [`bank_account`];
//! - shop configuration: a real ISO 3166-1 alpha-2 country code, vat_id_number
//!   or tax_number, designation_of_management with managing_directors, see
//!   [`shop_config`] (required fields, the hex colour and the enumerations
//!   are enforced by the generated types themselves).
//!
//! Every other consistency check (line totals, VAT per rate, the VAT lines
//! adding up to the gross amount, blank strings, email shapes) is advice:
//! [`crate::advice`] reports it, and it never stops a request.
//!
//! Every check reports all violations at once, each with the JSON path of
//! the field (`$.order_data.shop_baskets[0].gross_amount`) and the rule it
//! breaks, so a merchant fixes a request in one round. The checks read the
//! generated request types (the value a call is about to send, never its
//! JSON parsed back): what a schema states (types, required fields,
//! patterns, lengths, enumerations, amounts a decimal holds exactly) those
//! types enforce when they are built or parsed, where a `null` member reads
//! like an absent one.

use std::any::Any;
use std::fmt;

#[cfg(feature = "bank-accounts")]
pub mod bank_account;
#[cfg(feature = "payment-page")]
pub mod basket;
#[cfg(feature = "shop-config")]
mod country_codes;
#[cfg(feature = "pay-later")]
pub mod pay_later;
#[cfg(feature = "shop-config")]
pub mod shop_config;

#[cfg(feature = "bank-accounts")]
pub use bank_account::check_bank_account;
#[cfg(feature = "payment-page")]
pub use basket::check_session_request;
#[cfg(feature = "pay-later")]
pub use pay_later::{check_booking, check_offers, new_due_date};
#[cfg(feature = "shop-config")]
pub use shop_config::check_shop_configuration;

/// One broken rule that refuses a send: the field, which rule, and the
/// rule in words (with the expected and actual values where that helps,
/// never an IBAN or a secret).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violation {
    /// JSON path of the field, such as `$.order_data.shop_baskets[0].gross_amount`.
    pub path: String,
    /// Which rule.
    pub rule: Rule,
    /// The rule in words.
    pub message: String,
}

/// The rules pre-flight enforces: each one the specification (or the
/// provider's documentation of its 422 answers) states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// The body does not fit the document's schema: a body of another type
    /// than the operation's (the generated types refuse the rest, a type, a
    /// required field, a pattern, a length, a bound, an enumeration, a
    /// number no decimal holds exactly, when they are built or parsed).
    Schema,
    /// A shop basket's item sum differs from its `gross_amount` by more
    /// than (sum of all quantities) x 0.02.
    BasketTotal,
    /// The IBAN's ISO 13616 check digits (mod 97) or shape.
    IbanCheckDigits,
    /// The BIC's ISO 9362:2014 format.
    BicFormat,
    /// A real ISO 3166-1 alpha-2 country code.
    CountryCode,
    /// `vat_id_number` or `tax_number` must be given.
    TaxIdentification,
    /// `designation_of_management` must be given with `managing_directors`.
    ManagementDesignation,
    /// A pay later postponement: 14 to 150 days, and the new due date it implies.
    DueDate,
}

impl Violation {
    /// A violation of `rule` at `path`.
    pub fn new(rule: Rule, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
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

    /// The violations, in the order found.
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

/// Checks the request body of an operation before it is sent. `body` is
/// the operation's generated request type, exactly as the client is about to
/// serialize it: `psi::payment_page::types::SessionRequest` for
/// `createSession`, `psi::bank_accounts::types::BankAccountStoreRequest` for
/// `storeBankAccount`, `psi::shop_config::types::ShopConfiguration` for
/// `updateShopConfiguration`. Operations without a check pass.
///
/// Nothing is parsed here: the generated types already hold only what
/// their schema allows (required fields, patterns, lengths, enumerations,
/// amounts a decimal holds exactly; `null` read as absent), so what is left
/// are the rules across fields. A body of another type than the
/// operation's is refused (a [`Rule::Schema`] violation at `$`).
///
/// `operation_id` may be spelled as in the OpenAPI documents
/// (`createSession`, what the runtime passes) or as the generated method
/// is named (`create_session`).
pub fn check_request(operation_id: &str, body: &dyn Any) -> Result<(), Violations> {
    #[cfg(not(any(
        feature = "payment-page",
        feature = "bank-accounts",
        feature = "shop-config"
    )))]
    let _ = body;
    match operation_id {
        #[cfg(feature = "payment-page")]
        "createSession" | "create_session" => {
            typed(operation_id, body).and_then(basket::check_session_request)
        }
        #[cfg(feature = "bank-accounts")]
        "storeBankAccount" | "store_bank_account" => {
            typed(operation_id, body).and_then(bank_account::check_bank_account)
        }
        #[cfg(feature = "shop-config")]
        "updateShopConfiguration" | "update_shop_configuration" => {
            typed(operation_id, body).and_then(shop_config::check_shop_configuration)
        }
        _ => Ok(()),
    }
}

/// `body` as the operation's request type `T`.
#[cfg(any(
    feature = "payment-page",
    feature = "bank-accounts",
    feature = "shop-config"
))]
fn typed<'a, T: Any>(operation_id: &str, body: &'a dyn Any) -> Result<&'a T, Violations> {
    body.downcast_ref::<T>().ok_or_else(|| {
        Violation::new(
            Rule::Schema,
            "$",
            format!(
                "the body of {operation_id} must be a {}",
                std::any::type_name::<T>()
            ),
        )
        .into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violations_list_one_per_line() {
        let found = Violations(vec![
            Violation::new(Rule::Schema, "$.name", "must not be blank"),
            Violation::new(
                Rule::TaxIdentification,
                "$.legal",
                "needs vat_id_number or tax_number",
            ),
        ]);
        assert_eq!(
            found.to_string(),
            "$.name: must not be blank\n$.legal: needs vat_id_number or tax_number"
        );
        assert_eq!(found.clone().into_result(), Err(found));
        assert_eq!(Violations(Vec::new()).into_result(), Ok(()));
    }

    #[test]
    fn operations_without_a_check_pass_any_body() {
        assert_eq!(check_request("getPayLaterStatus", &"not a request"), Ok(()));
    }

    /// A generated request type read from JSON as a caller might build it
    /// (the generated types read `null` members as absent).
    #[cfg(any(
        feature = "payment-page",
        feature = "bank-accounts",
        feature = "shop-config"
    ))]
    fn typed<T: serde::de::DeserializeOwned>(json: &str) -> T {
        serde_json::from_str(json).unwrap_or_else(|error| panic!("{error}: {json}"))
    }

    #[cfg(feature = "payment-page")]
    #[test]
    fn a_session_request_is_checked() {
        use psi_payment_page::types::SessionRequest;
        let good: SessionRequest = typed(
            r#"{"order_data":{"shop_baskets":[{"gross_amount":10,"items":[{"quantity":1,"gross_unit_price":10,"gross_total_price":10}]}]}}"#,
        );
        assert_eq!(check_request("createSession", &good), Ok(()));
        assert_eq!(check_request("create_session", &good), Ok(()));

        let wrong_sum: SessionRequest = typed(
            r#"{"order_data":{"shop_baskets":[{"gross_amount":12,"items":[{"quantity":1,"gross_unit_price":10,"gross_total_price":10}]}]}}"#,
        );
        let found = check_request("createSession", &wrong_sum).unwrap_err();
        assert_eq!(found.paths(), ["$.order_data.shop_baskets[0].gross_amount"]);
        assert_eq!(found.0[0].rule, Rule::BasketTotal);
    }

    #[cfg(all(feature = "payment-page", feature = "bank-accounts"))]
    #[test]
    fn a_body_of_another_type_than_the_operations_is_refused() {
        let account: psi_bank_accounts::types::BankAccountStoreRequest =
            typed(r#"{"owner":"Erika Mustermann","iban":"DE89 3704 0044 0532 0130 00"}"#);
        let found = check_request("createSession", &account).unwrap_err();
        assert_eq!(found.paths(), ["$"]);
        assert_eq!(found.0[0].rule, Rule::Schema);
        assert!(found.to_string().contains("SessionRequest"), "{found}");
        assert_eq!(check_request("storeBankAccount", &account), Ok(()));
    }

    #[cfg(feature = "payment-page")]
    #[test]
    fn null_members_are_absent_in_a_session_request() {
        // null lists, a null total (skipped like a missing one) and a null
        // gross amount (nothing to compare): all pass.
        let request: psi_payment_page::types::SessionRequest = typed(
            r#"{"order_data":{"buyer":null,"shop_baskets":[{"gross_amount":10,"special_items":null,"vats":null,"items":[{"quantity":1,"gross_total_price":10},{"quantity":2,"gross_total_price":null}]},{"gross_amount":null,"items":[{"gross_total_price":3}]}]},"url_data":null}"#,
        );
        assert_eq!(check_request("createSession", &request), Ok(()));
    }

    /// An amount no decimal can hold never becomes a request: reading it
    /// into the generated type fails, naming the field.
    #[cfg(feature = "payment-page")]
    #[test]
    fn an_amount_a_decimal_cannot_hold_never_becomes_a_session_request() {
        for amount in [
            "1e400",
            "123456789012345678901234567890",
            "9.990000000000000000000000000001",
        ] {
            let body = format!(
                r#"{{"order_data":{{"shop_baskets":[{{"gross_amount":{amount},"items":[]}}]}}}}"#
            );
            let error = psi_runtime::parse_json::<psi_payment_page::types::SessionRequest>(&body)
                .unwrap_err();
            assert_eq!(
                error.field, "order_data.shop_baskets[0].gross_amount",
                "{amount}"
            );
            assert!(
                error.rule.contains("refused rather than rounded"),
                "{error}"
            );
        }
    }

    #[cfg(feature = "bank-accounts")]
    #[test]
    fn a_bank_account_is_checked_without_echoing_the_iban() {
        use psi_bank_accounts::types::BankAccountStoreRequest;
        let iban = "DE89370400440532013001";
        let account: BankAccountStoreRequest = typed(&format!(
            r#"{{"owner":"Erika Mustermann","iban":"{iban}"}}"#
        ));
        let found = check_request("storeBankAccount", &account).unwrap_err();
        assert_eq!(found.paths(), ["$.iban"]);
        assert!(!found.to_string().contains(iban), "{found}");

        // Too long for the generated type: refused when it is read, and the
        // rule does not echo it either.
        let overlong = "DE89 3704 0044 0532 0130 00 DE89 3704 0044 0532 0130 00";
        let error = psi_runtime::parse_json::<BankAccountStoreRequest>(&format!(
            r#"{{"owner":"Erika Mustermann","iban":"{overlong}"}}"#
        ))
        .unwrap_err();
        assert_eq!(error.field, "iban");
        assert!(!error.to_string().contains("3704"), "{error}");

        let account: BankAccountStoreRequest = typed(
            r#"{"owner":"Erika Mustermann","iban":"DE89 3704 0044 0532 0130 00","bic":null}"#,
        );
        assert_eq!(check_request("store_bank_account", &account), Ok(()));
    }

    #[cfg(feature = "shop-config")]
    #[test]
    fn a_shop_configuration_is_checked() {
        use psi_shop_config::types::ShopConfiguration;
        let configuration: ShopConfiguration = typed(
            r#"{"name":" ","address":{"street":"S","city":"C","postal_code":"1","country_code":"XX"},"legal":{"name":"N","legal_form":"GmbH","commercial_register_number":"HRB 1","registration_office":"AG","tax_number":null,"vat_id_number":null}}"#,
        );
        let found = check_request("updateShopConfiguration", &configuration).unwrap_err();
        assert_eq!(found.paths(), ["$.address.country_code", "$.legal"]);

        // A missing required member (null counts as missing) is the
        // generated type's to refuse.
        let error = psi_runtime::parse_json_ignoring_nulls::<ShopConfiguration>(
            r#"{"name":null,"address":{"street":"S","city":"C","postal_code":"1","country_code":"DE"},"legal":{"name":"N","legal_form":"GmbH","commercial_register_number":"HRB 1","registration_office":"AG","tax_number":"1"}}"#,
        )
        .unwrap_err();
        assert!(error.rule.contains("missing field `name`"), "{error}");
    }
}
