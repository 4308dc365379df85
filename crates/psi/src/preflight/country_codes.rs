//! The ISO 3166-1 alpha-2 country codes, for the shop configuration's
//! `address.country_code` (the specification: "ISO 3166-1 alpha-2"; the
//! generated type only checks two capitals).
//!
//! A sorted table rather than a country crate, for the build: a crate such as
//! celes builds a perfect-hash macro and a second version of syn into every
//! user's build for this one lookup. The table is the 249 officially
//! assigned codes plus XK (Kosovo), the user-assigned code in common use; a
//! test compares it with celes (a dev-dependency) for every two-letter
//! string, so it accepts exactly what that crate accepts.

/// Sorted, upper case.
const ASSIGNED: [&str; 250] = [
    "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ",
    "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS",
    "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN",
    "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ", "DE", "DJ", "DK", "DM", "DO", "DZ", "EC", "EE",
    "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GF",
    "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS", "GT", "GU", "GW", "GY", "HK", "HM",
    "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR", "IS", "IT", "JE", "JM",
    "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN", "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC",
    "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK",
    "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA",
    "NC", "NE", "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG",
    "PH", "PK", "PL", "PM", "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW",
    "SA", "SB", "SC", "SD", "SE", "SG", "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS",
    "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF", "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO",
    "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE", "VG", "VI",
    "VN", "VU", "WF", "WS", "XK", "YE", "YT", "ZA", "ZM", "ZW",
];

/// Whether `code` is an assigned alpha-2 code, in either case (`"DE"`, `"de"`).
pub(crate) fn is_assigned_alpha2(code: &str) -> bool {
    let upper = code.to_ascii_uppercase();
    ASSIGNED.binary_search(&upper.as_str()).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_without_duplicates() {
        assert!(ASSIGNED.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn agrees_with_celes_on_every_two_letter_string() {
        let letters = ('A'..='Z').chain('a'..='z');
        let mut accepted = 0;
        for first in letters.clone() {
            for second in letters.clone() {
                let code: String = [first, second].iter().collect();
                let celes = celes::Country::from_alpha2(&code).is_ok();
                assert_eq!(is_assigned_alpha2(&code), celes, "{code}");
                accepted += usize::from(celes);
            }
        }
        // every code in its four spellings: DE, De, dE, de
        assert_eq!(accepted, 4 * ASSIGNED.len());
    }

    #[test]
    fn refuses_what_is_not_two_letters() {
        for code in ["", "D", "DEU", "D1", "ZZ", "UK", "EU"] {
            assert!(!is_assigned_alpha2(code), "{code}");
        }
    }
}
