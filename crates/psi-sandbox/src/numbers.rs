//! The exact decimal a JSON number's text spells, or the limit it breaks.
//!
//! Amounts are `rust_decimal::Decimal`: a 96-bit integer with 0 to 28
//! digits after the decimal point. Given `43.80000000000000000000000000000001`
//! rust_decimal rounds silently, and given `1e-30` or `1e30` its error names
//! serde_json's private number token. So [`exact`] decides, from the text,
//! whether a decimal holds a number: [`crate::typed`] refuses a declared field
//! whose number it does not (naming the field and the limit), and
//! [`normalize`] rewrites a number written in a form rust_decimal could
//! misread (an exponent, a `-0`) as the plain decimal it equals before any
//! handler parses the body. Numbers in fields no document declares are left
//! alone: they are not the sandbox's business.

use rust_decimal::Decimal;
use serde_json::{Number, Value};

/// Decimal's largest mantissa, 2^96 - 1 (29 digits).
const MAX_MANTISSA: u128 = (1 << 96) - 1;
/// Decimal's largest scale (digits after the decimal point).
const MAX_SCALE: u32 = 28;

pub const OUT_OF_RANGE: &str =
    "out of the range of a decimal (at most 79228162514264337593543950335 in magnitude)";
pub const TOO_MANY_DIGITS: &str = "at most 28 significant digits: the value cannot be held exactly";
pub const TOO_SMALL_A_STEP: &str =
    "at most 28 digits after the decimal point: the value cannot be held exactly";

/// The exact decimal a JSON number's text spells, or the limit it breaks.
pub fn exact(text: &str) -> Result<Decimal, &'static str> {
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
            return Err(OUT_OF_RANGE);
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
    let mantissa = mantissa(&digits, scale).ok_or(if scale == 0 {
        OUT_OF_RANGE
    } else if scale > u64::from(MAX_SCALE) && digits.len() <= MAX_SCALE as usize {
        // 1e-30: few digits, but a step finer than a decimal's.
        TOO_SMALL_A_STEP
    } else {
        TOO_MANY_DIGITS
    })?;
    let scale = scale as u32;
    let magnitude = Decimal::from_i128_with_scale(mantissa as i128, scale);
    Ok(if negative { -magnitude } else { magnitude })
}

/// The digits as a Decimal mantissa with `scale`, if both fit.
fn mantissa(digits: &str, scale: u64) -> Option<u128> {
    if scale > u64::from(MAX_SCALE) || digits.len() > 29 {
        return None;
    }
    digits.parse::<u128>().ok().filter(|m| *m <= MAX_MANTISSA)
}

/// Rewrites every number whose text is not the plain decimal it equals
/// (`4.38e1` -> `43.8`), so the decimal type reads it as written. A number
/// no decimal holds stays as written: only a declared field refuses it, when
/// its type takes it ([`crate::typed`]). Returns whether anything changed.
pub fn normalize(value: &mut Value) -> bool {
    match value {
        Value::Number(number) => {
            let text = number.to_string();
            let Ok(decimal) = exact(&text) else {
                return false;
            };
            let plain = decimal.to_string();
            if plain == text {
                return false;
            }
            // A Decimal's own text is a valid JSON number.
            *number = plain.parse::<Number>().expect("a decimal is a JSON number");
            true
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, item| normalize(item) | changed),
        Value::Object(fields) => fields
            .values_mut()
            .fold(false, |changed, item| normalize(item) | changed),
        Value::Null | Value::Bool(_) | Value::String(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn dec(text: &str) -> Decimal {
        Decimal::from_str(text).unwrap()
    }

    #[test]
    fn exact_values_are_held_with_their_scale() {
        for (text, expected) in [
            ("43.8", "43.8"),
            ("2.50", "2.50"),
            ("-1.55", "-1.55"),
            ("0", "0"),
            ("0.00", "0.00"),
            ("-0", "0"),
            ("0e999999999999999999999", "0"),
            ("1e2", "100"),
            ("1.5E+1", "15"),
            ("12.5e-1", "1.25"),
            (
                "79228162514264337593543950335",
                "79228162514264337593543950335",
            ),
            (
                "0.0000000000000000000000000001",
                "0.0000000000000000000000000001",
            ),
            (
                "1234567890123456789012345678",
                "1234567890123456789012345678",
            ),
            (
                "43.800000000000000000000000000000",
                "43.800000000000000000000000000",
            ),
        ] {
            assert_eq!(exact(text), Ok(dec(expected)), "{text}");
            assert_eq!(exact(text).unwrap().to_string(), expected, "{text}");
        }
    }

    #[test]
    fn inexact_values_name_their_limit() {
        for (text, rule) in [
            ("43.80000000000000000000000000000001", TOO_MANY_DIGITS),
            ("1e-30", TOO_SMALL_A_STEP),
            ("1e-400", TOO_SMALL_A_STEP),
            ("1e30", OUT_OF_RANGE),
            ("1e400", OUT_OF_RANGE),
            ("-1e400", OUT_OF_RANGE),
            ("123456789012345678901234567890", OUT_OF_RANGE),
            ("79228162514264337593543950336", OUT_OF_RANGE),
            ("7922816251426433759354395033.51", TOO_MANY_DIGITS),
        ] {
            assert_eq!(exact(text), Err(rule), "{text}");
        }
    }

    #[test]
    fn normalize_rewrites_exponents_and_leaves_what_no_decimal_holds() {
        let mut body: Value = serde_json::from_str(
            r#"{"order_data": {"shop_baskets": [{"gross_amount": 4.38e1, "vats": [{"tax_amount": 7}]}]}}"#,
        )
        .unwrap();
        assert!(normalize(&mut body));
        assert_eq!(
            body["order_data"]["shop_baskets"][0]["gross_amount"].to_string(),
            "43.8"
        );
        assert!(!normalize(&mut body), "plain numbers stay as sent");

        let text = r#"{"tax_amount":1e-30,"odd key":1e30}"#;
        let mut body: Value = serde_json::from_str(text).unwrap();
        assert!(!normalize(&mut body));
        assert_eq!(body["tax_amount"].to_string(), "1e-30");
        assert!(body["odd key"].to_string().starts_with("1e"));
    }
}
