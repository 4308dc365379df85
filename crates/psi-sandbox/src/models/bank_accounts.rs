//! Bank accounts: one per buyer, the pair (`partner_profile_id`,
//! `shop_buyer_id`). A new account replaces the buyer's old one and gets a
//! new reference, so a reference from before the overwrite is unknown
//! afterwards. The stored record is the generated `BankAccount`.
//!
//! Partner profiles (a sandbox convention): the document answers 401 when
//! "this partner profile does not belong to the caller", and the sandbox
//! has no registry of profiles. Every `partner_profile_id` belongs to the
//! demo merchant except those starting with `unknown-`, which do not, so
//! merchants can test that path.
//!
//! An IBAN is personal data: no error or Debug output of this module
//! contains one.

use psi_bank_accounts::types::BankAccountStoreRequest;
use serde::{Deserialize, Serialize};

/// Partner profiles starting with this do not belong to the caller.
const FOREIGN_PARTNER_PREFIX: &str = "unknown-";

/// (`partner_profile_id`, `shop_buyer_id`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Buyer {
    pub(crate) partner_profile_id: String,
    pub(crate) shop_buyer_id: String,
}

impl From<(String, String)> for Buyer {
    fn from((partner_profile_id, shop_buyer_id): (String, String)) -> Self {
        Self {
            partner_profile_id,
            shop_buyer_id,
        }
    }
}

impl Buyer {
    /// Whether the buyer's partner profile belongs to another merchant
    /// (see the module docs).
    pub fn is_foreign(&self) -> bool {
        self.partner_profile_id.starts_with(FOREIGN_PARTNER_PREFIX)
    }
}

/// A field of a store request that breaks its rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidField {
    /// Fails its country's format or check digits.
    Iban,
    /// Not shaped like a BIC (ISO 9362).
    Bic,
}

/// Every field of `request` that breaks its rule: an IBAN that fails its
/// country's format or check digits, a BIC that is not shaped like one
/// (compared without regard to case and spaces).
/// The parser's error is never kept (it carries the IBAN).
pub fn validate(request: &BankAccountStoreRequest) -> Result<(), Vec<InvalidField>> {
    let mut invalid = Vec::new();
    if !is_valid_iban(&request.iban) {
        invalid.push(InvalidField::Iban);
    }
    let bic = request.bic.as_deref().map(|bic| normalised_bic(bic));
    if let Some(bic) = bic.filter(|bic| !bic.is_empty()) {
        if !is_bic_shaped(&bic) {
            invalid.push(InvalidField::Bic);
        }
    }
    if invalid.is_empty() {
        return Ok(());
    }
    Err(invalid)
}

/// Spaces are allowed anywhere ("allowed, not necessary"); the parser takes
/// the compact form.
fn is_valid_iban(text: &str) -> bool {
    let compact: String = text.chars().filter(|c| *c != ' ').collect();
    compact.parse::<iban::Iban>().is_ok()
}

/// `bic` as BICs are compared, without regard to case and spaces: spaces
/// removed, letters in upper case (psi's pre-flight compares the same way).
/// The stored account keeps the BIC as sent.
pub fn normalised_bic(bic: &str) -> String {
    bic.chars()
        .filter(|c| *c != ' ')
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// ISO 9362:2014, on a [`normalised_bic`]: four letters or digits (party prefix), two letters
/// (country), two letters or digits (location), optionally three more
/// (branch).
fn is_bic_shaped(bic: &str) -> bool {
    let bytes = bic.as_bytes();
    let letters = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_alphabetic);
    let alphanumerics =
        |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_alphanumeric);
    matches!(bytes.len(), 8 | 11)
        && alphanumerics(0..4)
        && letters(4..6)
        && alphanumerics(6..bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ibans_are_checked_with_spaces_anywhere() {
        assert!(is_valid_iban("DE89 3704 0044 0532 0130 00"));
        assert!(is_valid_iban("DE89370400440532013000"));
        assert!(is_valid_iban("DE89 37040044 0532013000"));
        assert!(!is_valid_iban("DE88 3704 0044 0532 0130 00"));
        assert!(!is_valid_iban(""));
    }

    #[test]
    fn bics_have_eight_or_eleven_characters() {
        assert!(is_bic_shaped("COBADEFF"));
        assert!(is_bic_shaped("COBADEFFXXX"));
        assert!(!is_bic_shaped("COBADEF"));
        assert!(is_bic_shaped("C0BADEFFXXX"));
        assert!(!is_bic_shaped("COBAD3FFXXX"));
        assert!(!is_bic_shaped("COBADEFF-XX"));
    }

    #[test]
    fn bics_are_compared_without_regard_to_case_and_spaces() {
        assert_eq!(normalised_bic(" coba de ff xxx "), "COBADEFFXXX");
        for bic in ["cobadeff", "COBA DEFF", " coba de ff xxx "] {
            assert!(is_bic_shaped(&normalised_bic(bic)), "{bic}");
        }
        assert!(!is_bic_shaped(&normalised_bic("coba def")));
    }
}
