//! The exact decimal a JSON number's text spells, or the limit it breaks.
//!
//! Amounts are `psi_runtime::Decimal`, which reads a number's own text and
//! refuses one no decimal holds exactly (more than 28 significant digits,
//! finer than 28 places, beyond its range), naming the limit: a declared
//! field is never rounded ([`crate::typed`]). [`normalize`] rewrites a number
//! written in another form than the plain decimal it equals (an exponent, a
//! `-0`) in the body's text before any handler reads it, so what the sandbox
//! stores and echoes is plain. Numbers in fields no document declares, and
//! numbers no decimal holds, are left as written: they are not the sandbox's
//! business. The work is done on the text: a `serde_json::Value` would hold a
//! number as an `f64` and round it.

use psi_runtime::{Decimal, ParseDecimalError};

/// The exact decimal a JSON number's text spells, or the limit it breaks.
pub fn exact(text: &str) -> Result<Decimal, ParseDecimalError> {
    text.parse()
}

/// `json` with every number whose text is not the plain decimal it equals
/// rewritten (`4.38e1` -> `43.8`), or `None` when nothing changed. `json`
/// must be a JSON document (strings are skipped, escapes included).
pub fn normalize(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let mut out = String::new();
    // Everything before `copied` is in `out` already (when something changed).
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = after_string(bytes, at),
            b'-' | b'0'..=b'9' => {
                let end = at
                    + bytes[at..]
                        .iter()
                        .take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                        .count();
                let text = &json[at..end];
                if let Ok(decimal) = exact(text) {
                    let plain = decimal.to_string();
                    if plain != text {
                        out.push_str(&json[copied..at]);
                        out.push_str(&plain);
                        copied = end;
                    }
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&json[copied..]);
    Some(out)
}

/// The index after the string that opens at `start`.
fn after_string(bytes: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values_keep_their_scale_and_inexact_ones_name_their_limit() {
        assert_eq!(exact("2.50").unwrap().to_string(), "2.50");
        assert_eq!(
            exact("12345678901234567.89").unwrap().to_string(),
            "12345678901234567.89"
        );
        assert_eq!(
            exact("43.80000000000000000000000000000001"),
            Err(ParseDecimalError::TooManyDigits)
        );
        assert_eq!(exact("1e-30"), Err(ParseDecimalError::TooSmallAStep));
        assert_eq!(exact("1e30"), Err(ParseDecimalError::OutOfRange));
    }

    #[test]
    fn normalize_rewrites_exponents_and_leaves_what_no_decimal_holds() {
        let body = r#"{"order_data": {"shop_baskets": [{"gross_amount": 4.38e1, "vats": [{"tax_amount": 7, "n": -0}]}]}, "note": "1e2 \" 5e1"}"#;
        let rewritten = normalize(body).unwrap();
        assert_eq!(
            rewritten,
            r#"{"order_data": {"shop_baskets": [{"gross_amount": 43.8, "vats": [{"tax_amount": 7, "n": 0}]}]}, "note": "1e2 \" 5e1"}"#
        );
        assert_eq!(normalize(&rewritten), None, "plain numbers stay as sent");
        let exact_text = r#"{"a":12345678901234567.89,"b":43.80}"#;
        assert_eq!(normalize(exact_text), None);
        let beyond = r#"{"tax_amount":1e-30,"odd key":1e30}"#;
        assert_eq!(normalize(beyond), None);
    }
}
