//! `psi_runtime::Decimal` against `bigdecimal`: parsing, the wire text and
//! the arithmetic psi and its sandbox use (a basket line's
//! `(unit_price + discount) × quantity` rounded to cents, the sum of the
//! lines, tax as `net × rate ÷ 100`, `rescale(2)` for display).
//!
//! Parsing. psi reads JSON's number syntax (`-?digits(.digits)?([eE][+-]?digits)?`;
//! leading zeros, which JSON forbids, are read as bigdecimal reads them) and
//! bigdecimal reads more (`+1`, `.5`, `1.`): a text outside that syntax is
//! a `Syntax` refusal by design, whatever bigdecimal says. Within it,
//! bigdecimal gives the exact value `v`, and "the same refusal" means psi
//! refuses exactly the values no decimal holds, naming the limit `v` breaks:
//!
//! - `OutOfRange` when `|v|` exceeds 79228162514264337593543950335;
//! - otherwise, with `v` written without trailing zeros as `m × 10^-s`:
//!   `TooSmallAStep` when `s > 28` and `m` has at most 28 digits,
//!   `TooManyDigits` when `s > 28` with more digits, or when `m` (times
//!   `10^-s` for an integer) exceeds 2^96 - 1.
//!
//! An accepted text keeps the places it was written with (`2.50`, `1.5e1`
//! as `15`, `1.50e1` as `15.0`), dropping trailing zeros only while they
//! break a limit; its text is bigdecimal's plain text at that scale. An
//! exponent too large for bigdecimal to compare quickly (beyond ±10^4,
//! with a text of at most a few thousand bytes) is decided without it: any
//! non-zero value is then far beyond either limit.
//!
//! The serde form: JSON text reads as `FromStr` (numbers and strings), and
//! what is written reads back to the same value and scale.
//!
//! Arithmetic. An exact result a decimal holds is the answer, with the
//! natural scale where that fits (the larger scale for sums, the sum of
//! scales for products; with a zero operand rust_decimal answers the other
//! operand as it is, or 0 for a product, whose scale is not asserted); a result none holds is either refused (`None`,
//! only when its magnitude exceeds the largest decimal) or rounded within
//! one unit of its last place.
#![no_main]

use arbitrary::Arbitrary;
use bigdecimal::{BigDecimal, RoundingMode};
use libfuzzer_sys::fuzz_target;
use psi_runtime::{Decimal, ParseDecimalError, RoundingStrategy};
use std::str::FromStr;
use std::sync::OnceLock;

const MAX_SCALE: i64 = 28;

fn max_decimal() -> &'static BigDecimal {
    static MAX: OnceLock<BigDecimal> = OnceLock::new();
    MAX.get_or_init(|| BigDecimal::from_str("79228162514264337593543950335").unwrap())
}

fn max_mantissa() -> &'static bigdecimal::num_bigint::BigInt {
    static MAX: OnceLock<bigdecimal::num_bigint::BigInt> = OnceLock::new();
    MAX.get_or_init(|| (bigdecimal::num_bigint::BigInt::from(1u8) << 96u32) - 1u8)
}

fn syntax() -> &'static regex::Regex {
    static SYNTAX: OnceLock<regex::Regex> = OnceLock::new();
    SYNTAX.get_or_init(|| regex::Regex::new(r"\A-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?\z").unwrap())
}

/// Digits as bytes, each read modulo 10.
#[derive(Debug, Arbitrary)]
struct Digits(Vec<u8>);

impl Digits {
    fn text(&self) -> String {
        self.0.iter().map(|d| char::from(b'0' + d % 10)).collect()
    }
}

#[derive(Debug, Arbitrary)]
enum Text {
    /// A number in JSON's syntax (or near it: empty digit runs).
    Number {
        negative: bool,
        whole: Digits,
        fraction: Option<Digits>,
        /// Its letter's case, its sign (`None`, `+`, `-`) and digits.
        exponent: Option<(bool, Option<bool>, Digits)>,
    },
    /// Any text at all.
    Raw(String),
}

impl Text {
    fn text(&self) -> String {
        match self {
            Text::Raw(text) => text.clone(),
            Text::Number {
                negative,
                whole,
                fraction,
                exponent,
            } => {
                let mut text = String::new();
                if *negative {
                    text.push('-');
                }
                text.push_str(&whole.text());
                if let Some(fraction) = fraction {
                    text.push('.');
                    text.push_str(&fraction.text());
                }
                if let Some((upper, sign, digits)) = exponent {
                    text.push(if *upper { 'E' } else { 'e' });
                    match sign {
                        Some(true) => text.push('+'),
                        Some(false) => text.push('-'),
                        None => {}
                    }
                    text.push_str(&digits.text());
                }
                text
            }
        }
    }
}

/// A decimal from its parts, over the whole range.
#[derive(Debug, Arbitrary)]
struct Parts {
    lo: u32,
    mid: u32,
    hi: u32,
    negative: bool,
    scale: u8,
}

impl Parts {
    fn decimal(&self) -> Decimal {
        Decimal::from_parts(
            self.lo,
            self.mid,
            self.hi,
            self.negative,
            u32::from(self.scale) % 29,
        )
    }
}

#[derive(Debug, Arbitrary)]
struct Input {
    texts: Vec<Text>,
    operands: (Parts, Parts),
    /// A basket's lines: unit price, discount, quantity.
    lines: Vec<(Parts, Option<Parts>, Parts)>,
}

/// A run's input: arbitrary, or a seed of the checked-in corpus (the four
/// bytes `ff ff ff ff` choose it): number texts separated by white space,
/// each parsed, and each accepted pair computed with (fuzz/seeds.py).
#[derive(Debug, Arbitrary)]
enum Case {
    Fuzzed(Input),
    Seed(String),
}

fuzz_target!(|case: Case| {
    match case {
        Case::Fuzzed(input) => {
            for text in &input.texts {
                parsing(&text.text());
            }
            let (a, b) = (input.operands.0.decimal(), input.operands.1.decimal());
            arithmetic(a, b);
            basket(&input.lines);
        }
        Case::Seed(text) => {
            let mut accepted = Vec::new();
            for word in text.split_whitespace() {
                parsing(word);
                accepted.extend(Decimal::from_str(word).ok());
            }
            for pair in accepted.windows(2) {
                arithmetic(pair[0], pair[1]);
            }
        }
    }
});

fn big(decimal: Decimal) -> BigDecimal {
    BigDecimal::from_str(&decimal.to_string()).expect("a decimal's text is a number")
}

/// What a decimal makes of the exact value `value`: the scale it would
/// carry at most (`None` when none holds it), or the limit it breaks.
fn holds(value: &BigDecimal) -> Result<i64, ParseDecimalError> {
    if value.abs() > *max_decimal() {
        return Err(ParseDecimalError::OutOfRange);
    }
    let (mantissa, scale) = value.normalized().as_bigint_and_exponent();
    let magnitude = mantissa.magnitude().clone();
    let digits = magnitude.to_string().len();
    if scale > MAX_SCALE {
        return Err(if digits <= MAX_SCALE as usize {
            ParseDecimalError::TooSmallAStep
        } else {
            ParseDecimalError::TooManyDigits
        });
    }
    if scale <= 0 {
        // An integer within range: held at scale 0.
        return Ok(0);
    }
    if bigdecimal::num_bigint::BigInt::from(magnitude) > *max_mantissa() {
        return Err(ParseDecimalError::TooManyDigits);
    }
    Ok(scale)
}

/// The largest scale up to `wanted` (and at least `least`) at which `value`
/// fits a decimal's mantissa.
fn widest_scale(value: &BigDecimal, least: i64, wanted: i64) -> i64 {
    let mut scale = wanted.clamp(least, MAX_SCALE);
    while scale > least {
        let (mantissa, _) = value.with_scale(scale).as_bigint_and_exponent();
        if mantissa.magnitude() <= max_mantissa().magnitude() {
            break;
        }
        scale -= 1;
    }
    scale
}

fn parsing(text: &str) {
    let ours = Decimal::from_str(text);
    if !syntax().is_match(text) {
        assert_eq!(ours, Err(ParseDecimalError::Syntax), "{text:?}");
        return;
    }
    let (mantissa_text, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let fraction_len = mantissa_text.split_once('.').map_or(0, |(_, f)| f.len()) as i64;
    let zero = mantissa_text
        .bytes()
        .all(|b| matches!(b, b'0' | b'.' | b'-'));
    let exponent_digits = exponent
        .map(|e| e.trim_start_matches(['+', '-']).trim_start_matches('0'))
        .unwrap_or("");
    let exponent_negative = exponent.is_some_and(|e| e.starts_with('-'));
    if exponent_digits.len() > 4 {
        // Beyond ±10^4 (see the module's documentation).
        assert!(text.len() < 9_000);
        match ours {
            Ok(held) if zero => {
                assert!(held.is_zero(), "{text}");
                let places = if exponent_negative { MAX_SCALE } else { 0 };
                assert_eq!(i64::from(held.scale()), places, "{text}");
            }
            Err(ParseDecimalError::OutOfRange) => assert!(!zero && !exponent_negative, "{text}"),
            Err(ParseDecimalError::TooSmallAStep | ParseDecimalError::TooManyDigits) => {
                assert!(!zero && exponent_negative, "{text}")
            }
            other => panic!("{text}: {other:?}"),
        }
        return;
    }
    let exponent: i64 = exponent
        .map(|e| e.strip_prefix('+').unwrap_or(e).parse().unwrap())
        .unwrap_or(0);
    let value = BigDecimal::from_str(text).expect("bigdecimal reads JSON's number syntax");
    let written_scale = fraction_len - exponent;
    match (holds(&value), ours) {
        (Ok(least), Ok(held)) => {
            let scale = if zero {
                written_scale.clamp(0, MAX_SCALE)
            } else {
                widest_scale(&value, least, written_scale)
            };
            assert_eq!(i64::from(held.scale()), scale, "{text}: {held}");
            assert_eq!(
                held.to_string(),
                value.with_scale(scale).to_plain_string(),
                "{text}"
            );
            assert_eq!(big(held), value, "{text}");
            wire_text(text, held);
        }
        (Err(limit), Err(refused)) => assert_eq!(refused, limit, "{text}"),
        (expected, ours) => panic!("{text}: expected {expected:?}, psi answers {ours:?}"),
    }
}

/// The serde form of an accepted text.
fn wire_text(text: &str, held: Decimal) {
    // JSON forbids leading zeros (`01`, `-00.5`); serde_json refuses them first.
    let digits = text.trim_start_matches('-');
    if !(digits.starts_with('0') && digits.len() > 1 && !digits[1..].starts_with(['.', 'e', 'E'])) {
        let read: Decimal = serde_json::from_str(text).expect("JSON text reads");
        assert_eq!(read.scale(), held.scale(), "{text}");
        assert_eq!(read, held, "{text}");
    }
    let quoted: Decimal = serde_json::from_str(&format!("\"{text}\"")).expect("a JSON string");
    assert_eq!(quoted.to_string(), held.to_string(), "{text}");
    let written = serde_json::to_string(&held).unwrap();
    assert_eq!(written, held.to_string());
    let back: Decimal = serde_json::from_str(&written).unwrap();
    assert_eq!(back.to_string(), written);
}

/// An operation's answer against the exact result `exact`, with the scale
/// the answer takes when the exact result fits it (`natural`).
fn check(what: &str, answer: Option<Decimal>, exact: &BigDecimal, natural: Option<i64>) {
    match (holds(exact), answer) {
        (Ok(least), Some(answer)) => {
            assert_eq!(big(answer), *exact, "{what}");
            if let Some(natural) = natural.filter(|&n| n <= MAX_SCALE && n >= least) {
                if widest_scale(exact, least, natural) == natural {
                    assert_eq!(i64::from(answer.scale()), natural, "{what} = {answer}");
                }
            }
        }
        (Ok(_), None) => panic!("{what}: refused, but {exact} is a decimal"),
        (Err(_), None) => assert!(exact.abs() > *max_decimal(), "{what}: refused {exact}"),
        (Err(_), Some(answer)) => {
            let unit = BigDecimal::new(1.into(), i64::from(answer.scale()));
            assert!(
                (big(answer) - exact).abs() <= unit,
                "{what} = {answer}, exactly {exact}"
            );
        }
    }
}

fn arithmetic(a: Decimal, b: Decimal) {
    let (x, y) = (big(a), big(b));
    let (sa, sb) = (i64::from(a.scale()), i64::from(b.scale()));
    // With a zero operand rust_decimal answers the other operand as it is
    // (a sum) or 0 (a product): the same value, its scale not asserted.
    let nonzero = !a.is_zero() && !b.is_zero();
    let sum_scale = nonzero.then_some(sa.max(sb));
    check(
        &format!("{a} + {b}"),
        a.checked_add(b),
        &(&x + &y),
        sum_scale,
    );
    check(
        &format!("{a} - {b}"),
        a.checked_sub(b),
        &(&x - &y),
        sum_scale,
    );
    let product_scale = nonzero.then_some(sa + sb);
    check(
        &format!("{a} × {b}"),
        a.checked_mul(b),
        &(&x * &y),
        product_scale,
    );
    if !b.is_zero() {
        // bigdecimal divides to 100 digits: far finer than a decimal's step.
        let quotient = &x / &y;
        let what = format!("{a} ÷ {b}");
        match (a.checked_div(b), holds(&quotient)) {
            (None, _) => assert!(quotient.abs() > *max_decimal(), "{what}: refused"),
            (Some(answer), held) => {
                let unit = BigDecimal::new(1.into(), i64::from(answer.scale()));
                assert!(
                    (big(answer) - &quotient).abs() <= unit,
                    "{what} = {answer}, about {quotient}"
                );
                if held.is_ok() && quotient.digits() < 60 {
                    assert_eq!(big(answer), quotient, "{what}");
                }
            }
        }
    } else {
        assert_eq!(a.checked_div(b), None);
    }
    rounding(a);
}

/// Rounding to cents, away from zero at the midpoint (`round_dp_with_strategy`),
/// and `rescale(2)` as the sandbox's pages show an amount.
fn rounding(a: Decimal) {
    let exact = big(a);
    let rounded = a.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    assert_eq!(rounded.scale(), a.scale().min(2), "{a}");
    assert_eq!(
        big(rounded),
        exact.with_scale_round(2, RoundingMode::HalfUp),
        "{a} rounded"
    );

    let mut rescaled = a;
    rescaled.rescale(2);
    let expected = exact.with_scale_round(2, RoundingMode::HalfUp);
    if holds(&expected.with_scale(2)).is_ok() && widest_scale(&expected, 0, 2) == 2 {
        assert_eq!(rescaled.scale(), 2, "{a} rescaled: {rescaled}");
        assert_eq!(big(rescaled), expected, "{a} rescaled");
    } else {
        // Too large for two places: rust_decimal keeps the widest scale that fits.
        assert_eq!(
            big(rescaled),
            exact.with_scale_round(i64::from(rescaled.scale()), RoundingMode::HalfUp),
            "{a} rescaled"
        );
    }
}

/// A basket: each line `(unit_price + discount) × quantity` rounded to cents,
/// and the lines' sum, as `psi::preflight` and the sandbox's validation
/// compute them; each step against its exact value.
fn basket(lines: &[(Parts, Option<Parts>, Parts)]) {
    let mut total = Some(Decimal::ZERO);
    for (unit_price, discount, quantity) in lines.iter().take(8) {
        let (unit_price, quantity) = (unit_price.decimal(), quantity.decimal());
        let discount = discount.as_ref().map_or(Decimal::ZERO, Parts::decimal);
        let unit = unit_price.checked_add(discount);
        check(
            &format!("{unit_price} + {discount}"),
            unit,
            &(big(unit_price) + big(discount)),
            None,
        );
        let Some(unit) = unit else { return };
        let amount = unit.checked_mul(quantity);
        check(
            &format!("{unit} × {quantity}"),
            amount,
            &(big(unit) * big(quantity)),
            None,
        );
        let Some(amount) = amount else { return };
        let line = amount.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
        let Some(previous) = total else { return };
        total = previous.checked_add(line);
        check(
            &format!("{previous} + {line}"),
            total,
            &(big(previous) + big(line)),
            None,
        );
    }
}
