//! An IBAN against the IBAN registry (the `iban_validate` crate's edition):
//! whether the country issues IBANs and whether the account part has its
//! country's length and format. The registry grows; a client refusing an
//! IBAN its copy does not know would be guessing, so this is advice.
//!
//! An IBAN is personal data: no finding contains it, not even in part, and
//! the parser's errors are never formatted (its `InvalidBban` and
//! `UnknownCountry` variants carry the IBAN in their Debug output).

use iban::{Iban, ParseIbanError};
use psi_bank_accounts::types::BankAccountStoreRequest;

use crate::preflight::bank_account::iban_problem;
use crate::Finding;

/// Registry findings for the IBAN of a store request. An IBAN that fails the
/// pre-flight rule (format, check digits) gets no advice: the refusal says it.
#[inline]
pub fn bank_account(request: &BankAccountStoreRequest) -> Vec<Finding> {
    if iban_problem(&request.iban).is_some() {
        return Vec::new();
    }
    let compact: String = request
        .iban
        .chars()
        .filter(|c| *c != ' ')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let rule = match compact.parse::<Iban>() {
        Ok(_) => return Vec::new(),
        Err(ParseIbanError::UnknownCountry(_)) => {
            "the IBAN's country code is not in the IBAN registry this client knows"
        }
        Err(ParseIbanError::InvalidBban(_)) => {
            "the IBAN's account part does not have its country's registered length and format"
        }
        Err(ParseIbanError::InvalidBaseIban { .. }) => {
            "the IBAN does not fit the registry's general IBAN format"
        }
    };
    vec![Finding::new("$.iban", rule)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(iban: &str) -> BankAccountStoreRequest {
        BankAccountStoreRequest {
            bic: None,
            iban: iban.parse().expect("at most 50 characters"),
            owner: "Erika Mustermann".parse().expect("at most 1000 characters"),
            extra_members: Default::default(),
        }
    }

    #[test]
    fn registered_ibans_get_no_advice() {
        assert_eq!(bank_account(&request("DE89 3704 0044 0532 0130 00")), []);
        assert_eq!(bank_account(&request("de89370400440532013000")), []);
    }

    #[test]
    fn a_length_off_the_registry_is_advice_without_the_iban() {
        // Valid check digits, one digit short for Germany.
        let iban = "DE5137040044053201300";
        let found = bank_account(&request(iban));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "$.iban");
        assert!(found[0].rule.contains("length"), "{}", found[0]);
        let shown = format!("{found:?}");
        assert!(!shown.contains("3704"), "{shown}");
    }

    #[test]
    fn a_refused_iban_gets_no_advice() {
        assert_eq!(bank_account(&request("DE88 3704 0044 0532 0130 00")), []);
    }
}
