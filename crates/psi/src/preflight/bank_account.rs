//! The bank account to store: the service answers 422 for an invalid IBAN
//! or BIC (docs/service-notes.md); this refuses what certainly is one.
//!
//! - IBAN (ISO 13616): two letters, two check digits, up to 30 letters or
//!   digits, and the mod 97 check; spaces are allowed anywhere ("spaces
//!   allowed, not necessary"), and letters are compared case-insensitively.
//!   Whether the country issues IBANs and the length of its account part
//!   depend on the registry's current edition: that is advice
//!   ([`crate::advice::bank_account`]), not a reason to refuse.
//! - BIC (ISO 9362:2014): `^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$`:
//!   the party prefix (four letters or digits, since the 2014 edition; older
//!   BICs use letters only), the country code (two letters), the location
//!   suffix (two letters or digits) and the optional branch code (three
//!   letters or digits). A BIC is compared without regard to case and
//!   spaces: it is checked in its normalised form ([`normalised_bic`],
//!   spaces removed, upper case), as the sandbox checks it, and sent as
//!   given. An empty BIC (or one of spaces only) is absence: its stated
//!   bounds are 0 to 50 characters.
//!
//! An IBAN is personal data: no rule text here contains it, not even in part.

use psi_bank_accounts::types::BankAccountStoreRequest;

use super::{Rule, Violation, Violations};

/// Checks the IBAN and the BIC of a store request.
pub fn check_bank_account(request: &BankAccountStoreRequest) -> Result<(), Violations> {
    let mut found = Vec::new();
    if let Some(rule) = iban_problem(&request.iban) {
        found.push(Violation::new(Rule::IbanCheckDigits, "$.iban", rule));
    }
    let bic = request.bic.as_deref().filter(|bic| {
        let normalised = normalised_bic(bic);
        !normalised.is_empty() && !is_bic(&normalised)
    });
    if let Some(bic) = bic {
        let rule = format!(
            "\"{bic}\" is not a BIC (ISO 9362:2014: 4 letters or digits party prefix, 2 letters \
             country, 2 letters or digits location, optionally 3 letters or digits branch; \
             case and spaces ignored)"
        );
        found.push(Violation::new(Rule::BicFormat, "$.bic", rule));
    }
    Violations(found).into_result()
}

/// Why `text` is not an IBAN, in words that do not repeat it.
pub(crate) fn iban_problem(text: &str) -> Option<&'static str> {
    let compact: Vec<char> = text
        .chars()
        .filter(|c| *c != ' ')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let well_formed = (5..=34).contains(&compact.len())
        && compact[..2].iter().all(char::is_ascii_uppercase)
        && compact[2..4].iter().all(char::is_ascii_digit)
        && compact[4..].iter().all(char::is_ascii_alphanumeric);
    if !well_formed {
        return Some(
            "is not an IBAN: expected a country code (2 letters), two check digits and \
             up to 30 letters or digits (spaces allowed)",
        );
    }
    (mod_97(&compact) != 1).then_some("is not a valid IBAN: the check digits do not match")
}

/// ISO 7064 MOD 97-10 over the IBAN with its first four characters moved to
/// the end and every letter replaced by its number (A = 10 ... Z = 35).
fn mod_97(compact: &[char]) -> u32 {
    let rearranged = compact[4..].iter().chain(&compact[..4]);
    rearranged.fold(0, |remainder, c| {
        let value = c.to_digit(36).expect("checked to be alphanumeric");
        let shift = if value >= 10 { 100 } else { 10 };
        (remainder * shift + value) % 97
    })
}

/// `bic` as BICs are compared: spaces removed, letters in upper case.
pub(crate) fn normalised_bic(bic: &str) -> String {
    bic.chars()
        .filter(|c| *c != ' ')
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// ISO 9362:2014, as the pattern above, on a [`normalised_bic`].
fn is_bic(bic: &str) -> bool {
    let bytes = bic.as_bytes();
    let letters = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_uppercase);
    let alphanumeric = |range: std::ops::Range<usize>| {
        bytes[range]
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    };
    matches!(bytes.len(), 8 | 11)
        && alphanumeric(0..4)
        && letters(4..6)
        && alphanumeric(6..bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(iban: &str, bic: Option<&str>) -> BankAccountStoreRequest {
        BankAccountStoreRequest {
            bic: bic.map(|bic| bic.parse().expect("at most 50 characters")),
            iban: iban.parse().expect("at most 50 characters"),
            owner: "Erika Mustermann".parse().expect("at most 1000 characters"),
            extra_members: Default::default(),
        }
    }

    fn iban_rule(iban: &str) -> String {
        let found = check_bank_account(&request(iban, None)).unwrap_err();
        assert_eq!(found.paths(), ["$.iban"]);
        let shown = format!("{found} {found:?}");
        let digits: String = iban.chars().filter(char::is_ascii_digit).collect();
        for secret in [iban, digits.as_str()].into_iter().filter(|s| s.len() > 3) {
            assert!(!shown.contains(secret), "the IBAN leaked: {shown}");
        }
        found.0[0].message.clone()
    }

    #[test]
    fn valid_ibans_pass_grouped_or_not() {
        for valid in [
            "DE89 3704 0044 0532 0130 00",
            "DE89370400440532013000",
            "DE89 37040044 0532013000",
            " DE89 3704 0044 0532 0130 00 ",
            "de89 3704 0044 0532 0130 00",
            "GB82 WEST 1234 5698 7654 32",
            "NL91ABNA0417164300",
        ] {
            assert_eq!(check_bank_account(&request(valid, None)), Ok(()), "{valid}");
        }
    }

    #[test]
    fn a_wrong_check_digit_is_named() {
        assert_eq!(
            iban_rule("DE88 3704 0044 0532 0130 00"),
            "is not a valid IBAN: the check digits do not match"
        );
        assert_eq!(
            iban_rule("GB82 WEST 1234 5698 7654 33"),
            "is not a valid IBAN: the check digits do not match"
        );
    }

    #[test]
    fn malformed_ibans_are_refused_without_being_echoed() {
        for garbage in [
            "not an iban at all 12345",
            "",
            "DE",
            "D189370400440532013000",
            "DE89-3704",
        ] {
            assert!(
                iban_rule(garbage).starts_with("is not an IBAN"),
                "{garbage}"
            );
        }
    }

    #[test]
    fn the_country_registry_is_not_a_reason_to_refuse() {
        // Valid check digits, but one digit short for Germany's registry
        // entry: the registry is advice, the check digits are the rule.
        assert_eq!(
            check_bank_account(&request("DE5137040044053201300", None)),
            Ok(())
        );
    }

    #[test]
    fn bics_have_eight_or_eleven_characters() {
        let iban = "DE89370400440532013000";
        for good in [
            "COBADEFF",
            "COBADEFFXXX",
            "DEUTDEDB101",
            "NEDSZAJJ",
            "",
            "   ",
            "cobadeff",
            "COBA DEFF",
            " coba de ff xxx ",
        ] {
            assert_eq!(
                check_bank_account(&request(iban, Some(good))),
                Ok(()),
                "{good}"
            );
        }
        for bad in [
            "COBADEF",
            "COBADEFFX",
            "coba def",
            "COBA\tDEFF",
            "COBAD3FF",
            "C0BAD3FF",
            "COBADEFF-XX",
        ] {
            let found = check_bank_account(&request(iban, Some(bad))).unwrap_err();
            assert_eq!(found.paths(), ["$.bic"], "{bad}");
            assert!(found.to_string().contains("ISO 9362"), "{found}");
        }
    }

    #[test]
    fn iso_9362_2014_allows_digits_in_the_party_prefix() {
        let iban = "DE89370400440532013000";
        for good in ["C0BADEFF", "1234DEFF", "C0BADEFFXXX", "AB12GB2L"] {
            assert_eq!(
                check_bank_account(&request(iban, Some(good))),
                Ok(()),
                "{good}"
            );
        }
    }
}
