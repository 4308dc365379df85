//! The IBAN of a bank account to store: the service answers 422 for an
//! invalid one; this finds it first.
//!
//! An IBAN is personal data: no rule text here contains it, not even in
//! part, and the parser's errors are never formatted (its `InvalidBban` and
//! `UnknownCountry` variants carry the IBAN in their Debug output).

use iban::{Iban, ParseBaseIbanError, ParseIbanError};
use psi_bank_accounts::types::BankAccountStoreRequest;

use super::{Violation, Violations};

/// Checks the IBAN of a store request: country, length and BBAN format of
/// that country, and the check digits. Spaces are allowed anywhere, as the
/// specification says ("spaces allowed, not necessary").
pub fn check_bank_account(request: &BankAccountStoreRequest) -> Result<(), Violations> {
    let found = iban_problem(&request.iban).map(|rule| Violation::new("$.iban", rule));
    Violations(found.into_iter().collect()).into_result()
}

/// Why `text` is not a valid IBAN, in words that do not repeat it.
fn iban_problem(text: &str) -> Option<&'static str> {
    // The parser takes the electronic form or groups of exactly four; the
    // specification allows spaces anywhere, so they are dropped first.
    let compact: String = text.chars().filter(|c| *c != ' ').collect();
    let rule = match compact.parse::<Iban>() {
        Ok(_) => return None,
        Err(ParseIbanError::InvalidBaseIban {
            source: ParseBaseIbanError::InvalidChecksum,
        }) => "is not a valid IBAN: the check digits do not match",
        Err(ParseIbanError::InvalidBaseIban {
            source: ParseBaseIbanError::InvalidFormat,
        }) => "is not a valid IBAN: expected a country code, two check digits and up to 30 letters or digits",
        Err(ParseIbanError::UnknownCountry(_)) => {
            "is not a valid IBAN: the country code does not issue IBANs"
        }
        Err(ParseIbanError::InvalidBban(_)) => {
            "is not a valid IBAN: the account part does not fit the format of its country"
        }
    };
    Some(rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(iban: &str) -> BankAccountStoreRequest {
        BankAccountStoreRequest {
            bic: None,
            iban: iban.parse().expect("at most 50 characters"),
            owner: "Erika Mustermann".parse().expect("at most 1000 characters"),
        }
    }

    fn rule_for(iban: &str) -> String {
        let found = check_bank_account(&request(iban)).unwrap_err();
        assert_eq!(found.paths(), ["$.iban"]);
        let shown = format!("{found} {found:?}");
        let digits: String = iban.chars().filter(char::is_ascii_digit).collect();
        for secret in [iban, digits.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
        {
            assert!(!shown.contains(secret), "the IBAN leaked: {shown}");
        }
        found.0[0].rule.clone()
    }

    #[test]
    fn valid_ibans_pass_grouped_or_not() {
        for valid in [
            "DE89 3704 0044 0532 0130 00",
            "DE89370400440532013000",
            "DE89 37040044 0532013000",
            "GB82 WEST 1234 5698 7654 32",
        ] {
            assert_eq!(check_bank_account(&request(valid)), Ok(()), "{valid}");
        }
    }

    #[test]
    fn a_wrong_check_digit_is_named() {
        assert_eq!(
            rule_for("DE88 3704 0044 0532 0130 00"),
            "is not a valid IBAN: the check digits do not match"
        );
    }

    #[test]
    fn garbage_is_rejected_without_being_echoed() {
        assert!(rule_for("not an iban at all 12345").contains("not a valid IBAN"));
        assert!(rule_for("").contains("not a valid IBAN"));
    }

    #[test]
    fn a_wrong_length_for_the_country_is_rejected() {
        // Valid check digits (recomputed) but one digit short for Germany.
        assert_eq!(
            rule_for("DE5137040044053201300"),
            "is not a valid IBAN: the account part does not fit the format of its country"
        );
    }
}
