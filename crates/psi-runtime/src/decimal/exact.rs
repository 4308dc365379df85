//! The exact decimal a number's text spells, or the limit it breaks.
//!
//! A `rust_decimal::Decimal` is a 96-bit integer with 0 to 28 digits after
//! the decimal point. Its own parser rounds a 30-digit amount silently; this
//! one decides from the text whether a decimal holds the number exactly and
//! refuses it otherwise, naming the limit.

use std::fmt;

/// Decimal's largest mantissa, 2^96 - 1 (29 digits).
const MAX_MANTISSA: u128 = (1 << 96) - 1;
/// Decimal's largest scale (digits after the decimal point).
const MAX_SCALE: u32 = 28;

/// Why a text is not a decimal held exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseDecimalError {
    /// Not a number in JSON's syntax (`-12.5e3`, `0.10`).
    Syntax,
    /// Beyond a decimal's magnitude (`1e30`).
    OutOfRange,
    /// More significant digits than a decimal holds (30 digits, or 29 above
    /// the mantissa's limit).
    TooManyDigits,
    /// A step finer than a decimal's smallest (`1e-30`).
    TooSmallAStep,
}

impl fmt::Display for ParseDecimalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Syntax => "not a number (expected JSON number syntax such as -12.50)",
            Self::OutOfRange => {
                "out of the range of a decimal (at most 79228162514264337593543950335 in magnitude)"
            }
            Self::TooManyDigits => {
                "at most 28 significant digits: the value cannot be held exactly"
            }
            Self::TooSmallAStep => {
                "at most 28 digits after the decimal point: the value cannot be held exactly"
            }
        })
    }
}

impl std::error::Error for ParseDecimalError {}

/// The exact decimal `text` spells, with the scale it was written with
/// (`2.50` stays `2.50`). Trailing zeros after the point are dropped only
/// while they are what breaks a limit (`1.000…0` with 40 zeros is 1).
pub(crate) fn exact(text: &str) -> Result<rust_decimal::Decimal, ParseDecimalError> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa_text, exponent_text) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = match mantissa_text.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa_text, None),
    };
    let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let exponent_ok =
        exponent_text.is_none_or(|e| all_digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    if !all_digits(whole) || !fraction.is_none_or(all_digits) || !exponent_ok {
        return Err(ParseDecimalError::Syntax);
    }
    let fraction = fraction.unwrap_or("");
    let exponent = match exponent_text {
        None => 0,
        Some(exponent) => {
            let exponent = exponent.strip_prefix('+').unwrap_or(exponent);
            // An exponent beyond i64 is beyond any decimal (or zero, below).
            exponent
                .parse::<i64>()
                .unwrap_or(if exponent.starts_with('-') {
                    i64::MIN / 2
                } else {
                    i64::MAX / 2
                })
        }
    };
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        // Zero, with the places it was written with (0.00) where they fit.
        let places = (fraction.len() as i64).saturating_sub(exponent);
        return Ok(rust_decimal::Decimal::new(
            0,
            places.clamp(0, i64::from(MAX_SCALE)) as u32,
        ));
    }
    // value = digits * 10^power
    let power = exponent.saturating_sub(fraction.len() as i64);
    let (mut digits, mut scale) = if power >= 0 {
        // An integer: the digits and `power` zeros must fit the mantissa.
        if digits.len() as i64 + power > 29 {
            return Err(ParseDecimalError::OutOfRange);
        }
        (format!("{digits}{}", "0".repeat(power as usize)), 0)
    } else {
        (digits.to_owned(), power.unsigned_abs())
    };
    while scale > 0 && digits.ends_with('0') && mantissa(&digits, scale).is_none() {
        digits.pop();
        scale -= 1;
    }
    let mantissa =
        mantissa(&digits, scale).ok_or(if scale == 0 || beyond_range(&digits, scale) {
            ParseDecimalError::OutOfRange
        } else if scale > u64::from(MAX_SCALE) && digits.len() <= MAX_SCALE as usize {
            // 1e-30: few digits, but a step finer than a decimal's.
            ParseDecimalError::TooSmallAStep
        } else {
            ParseDecimalError::TooManyDigits
        })?;
    let magnitude = rust_decimal::Decimal::from_i128_with_scale(mantissa as i128, scale as u32);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn exact_values_are_held_with_their_scale() {
        for (text, expected) in [
            ("43.8", "43.8"),
            ("43.80", "43.80"),
            ("2.50", "2.50"),
            ("-1.55", "-1.55"),
            ("0", "0"),
            ("0.00", "0.00"),
            ("-0", "0"),
            ("0e999999999999999999999", "0"),
            ("1e2", "100"),
            ("1.5E+1", "15"),
            ("12.5e-1", "1.25"),
            ("12345678901234567.89", "12345678901234567.89"),
            (
                "79228162514264337593543950335",
                "79228162514264337593543950335",
            ),
            (
                "7.9228162514264337593543950335E28",
                "79228162514264337593543950335",
            ),
            (
                "0.0000000000000000000000000001",
                "0.0000000000000000000000000001",
            ),
            (
                "43.800000000000000000000000000000",
                "43.800000000000000000000000000",
            ),
        ] {
            let held = exact(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(held, rust_decimal::Decimal::from_str(expected).unwrap());
            assert_eq!(held.to_string(), expected, "{text}");
        }
    }

    #[test]
    fn inexact_values_name_their_limit() {
        use ParseDecimalError::*;
        for (text, limit) in [
            ("43.80000000000000000000000000000001", TooManyDigits),
            ("1.23456789012345678901234567891", TooManyDigits),
            ("7922816251426433759354395033.51", TooManyDigits),
            ("1e-30", TooSmallAStep),
            ("1e-400", TooSmallAStep),
            ("1e30", OutOfRange),
            ("1e400", OutOfRange),
            ("-1e400", OutOfRange),
            ("123456789012345678901234567890", OutOfRange),
            ("79228162514264337593543950336", OutOfRange),
        ] {
            assert_eq!(exact(text), Err(limit), "{text}");
        }
    }

    /// Found by the `decimal` fuzz target: a value beyond the largest
    /// decimal with places after the point was refused as `TooManyDigits`.
    #[test]
    fn a_value_beyond_the_range_is_out_of_range_whatever_its_places() {
        for text in [
            "-7777777777777777777777776777777.77777777",
            "123456789012345678901234567890.5",
            "79228162514264337593543950335.5",
            "79228162514264337593543950336.0001",
            "1234567890123456789012345678901234567890123.1",
        ] {
            assert_eq!(exact(text), Err(ParseDecimalError::OutOfRange), "{text}");
        }
        // Within the range, too many digits is still what is wrong.
        assert_eq!(
            exact("79228162514264337593543950334.5"),
            Err(ParseDecimalError::TooManyDigits)
        );
    }

    #[test]
    fn only_number_syntax_is_read() {
        for text in [
            "", "-", "1.", ".5", "1e", "1e+", "1e+-5", "+1", "1_000", "ten", "1.2.3", " 1", "0x10",
        ] {
            assert_eq!(exact(text), Err(ParseDecimalError::Syntax), "{text:?}");
        }
    }
}
