//! The exact decimal a JSON number's text spells, or the limit it breaks:
//! the sandbox's own reading, written from the rule (a decimal is a 96-bit
//! mantissa with 0 to 28 places; a number is taken only when one equals it
//! exactly, never rounded) and checked against known answers computed with
//! Python's `decimal` module (`tests/known-answers/decimals.py`), like
//! psi's reading, which it shares no code with.
//!
//! [`normalize`] rewrites a number written in another form than the plain
//! decimal it equals (an exponent, a `-0`) in the body's text before any
//! handler reads it, so what the sandbox stores and echoes is plain.
//! Numbers in fields no document declares, and numbers no decimal holds,
//! are left as written: a declared field refuses the latter when its
//! generated type reads it ([`crate::typed`]). The work is done on the
//! text: a `serde_json::Value` would hold a number as an `f64` and round it.
//! (Public, hidden, only for that known-answer test; not part of the API.)

use rust_decimal::Decimal;

/// Decimal's largest mantissa, 2^96 - 1 (29 digits).
const MAX_MANTISSA: u128 = (1 << 96) - 1;
/// Decimal's largest scale (digits after the decimal point).
const MAX_SCALE: u32 = 28;

/// The limit a number no decimal holds breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Beyond the largest decimal, whatever its places (`1e30`).
    OutOfRange,
    /// More significant digits than the mantissa holds.
    TooManyDigits,
    /// A step finer than 28 places although the digits would fit (`1e-30`).
    TooSmallAStep,
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Limit::OutOfRange => {
                "out of the range of a decimal (at most 79228162514264337593543950335 in magnitude)"
            }
            Limit::TooManyDigits => {
                "at most 28 significant digits: the value cannot be held exactly"
            }
            Limit::TooSmallAStep => {
                "at most 28 digits after the decimal point: the value cannot be held exactly"
            }
        })
    }
}

/// The exact decimal a JSON number's text spells, or the limit it breaks.
pub fn exact(text: &str) -> Result<Decimal, Limit> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa_text, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => {
            let exponent = unsigned[at + 1..].trim_start_matches('+');
            // An exponent beyond i64 is beyond any decimal (or zero, below).
            let exponent = exponent
                .parse::<i64>()
                .unwrap_or(if exponent.starts_with('-') {
                    i64::MIN / 2
                } else {
                    i64::MAX / 2
                });
            (&unsigned[..at], exponent)
        }
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa_text.split_once('.').unwrap_or((mantissa_text, ""));
    let digits: String = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        // Zero, with the places it was written with (0.00) where they fit.
        let places = (fraction.len() as i64).saturating_sub(exponent);
        return Ok(Decimal::new(
            0,
            places.clamp(0, i64::from(MAX_SCALE)) as u32,
        ));
    }
    // value = digits * 10^power
    let power = exponent.saturating_sub(fraction.len() as i64);
    let (digits, scale) = if power >= 0 {
        // An integer: the digits and `power` zeros must fit the mantissa.
        if digits.len() as i64 + power > 29 {
            return Err(Limit::OutOfRange);
        }
        (format!("{digits}{}", "0".repeat(power as usize)), 0)
    } else {
        (digits.to_owned(), power.unsigned_abs())
    };
    // Trailing zeros after the point are kept when they fit (2.50 stays
    // 2.50) and dropped while they are what breaks a limit.
    let mut digits = digits;
    let mut scale = scale;
    while scale > 0 && digits.ends_with('0') && mantissa(&digits, scale).is_none() {
        digits.pop();
        scale -= 1;
    }
    let mantissa =
        mantissa(&digits, scale).ok_or(if scale == 0 || beyond_range(&digits, scale) {
            Limit::OutOfRange
        } else if scale > u64::from(MAX_SCALE) && digits.len() <= MAX_SCALE as usize {
            // 1e-30: few digits, but a step finer than a decimal's.
            Limit::TooSmallAStep
        } else {
            Limit::TooManyDigits
        })?;
    let scale = scale as u32;
    let magnitude = Decimal::from_i128_with_scale(mantissa as i128, scale);
    Ok(if negative { -magnitude } else { magnitude })
}

/// Whether `digits` × 10^-`scale` (no leading zeros; when places remain,
/// the last digit is not zero) exceeds the largest decimal, whatever its
/// places: its whole part does, or equals it with places after it.
fn beyond_range(digits: &str, scale: u64) -> bool {
    let whole = digits
        .len()
        .saturating_sub(usize::try_from(scale).unwrap_or(usize::MAX));
    let (whole, places) = digits.split_at(whole);
    match whole.parse::<u128>() {
        Ok(whole) => whole > MAX_MANTISSA || (whole == MAX_MANTISSA && !places.is_empty()),
        // Empty (below one), or more digits than a u128 holds (beyond).
        Err(_) => !whole.is_empty(),
    }
}

/// The digits as a Decimal mantissa with `scale`, if both fit.
fn mantissa(digits: &str, scale: u64) -> Option<u128> {
    if scale > u64::from(MAX_SCALE) || digits.len() > 29 {
        return None;
    }
    digits.parse::<u128>().ok().filter(|m| *m <= MAX_MANTISSA)
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
            Err(Limit::TooManyDigits)
        );
        assert_eq!(exact("1e-30"), Err(Limit::TooSmallAStep));
        assert_eq!(exact("1e30"), Err(Limit::OutOfRange));
    }

    /// The decimal fuzz target's finding in psi-runtime's parser, which this
    /// one shares: a value beyond the largest decimal with places after the
    /// point was refused as `TooManyDigits`.
    #[test]
    fn a_value_beyond_the_range_is_out_of_range_whatever_its_places() {
        for text in [
            "-7777777777777777777777776777777.77777777",
            "123456789012345678901234567890.5",
            "79228162514264337593543950335.5",
            "1234567890123456789012345678901234567890123.1",
        ] {
            assert_eq!(exact(text), Err(Limit::OutOfRange), "{text}");
        }
        assert_eq!(
            exact("79228162514264337593543950334.5"),
            Err(Limit::TooManyDigits)
        );
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
