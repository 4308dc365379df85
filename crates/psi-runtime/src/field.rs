//! Input validation that names the field and the rule.
//!
//! Generated newtypes (`CurrencyCode`, `IdempotencyKey`, `OrderId`, ...)
//! validate on construction, but their error only states the rule. These
//! helpers add the field, so a merchant's engineer sees
//! `order_data.currency: doesn't match pattern "^[A-Z]{3}$"` before any
//! request leaves the process.

use rust_decimal::Decimal;
use serde_json::Value;
use std::fmt;

/// A value that breaks a rule of the specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field, as a dotted path (`order_data.currency`, `items[0].quantity`;
    /// `$` for the whole document).
    pub field: String,
    /// The rule it breaks, as stated by the generated type.
    pub rule: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.rule)
    }
}

impl std::error::Error for FieldError {}

/// Builds a constrained value from user input, naming `field` on failure.
///
/// ```
/// # #[derive(Debug)] struct Short(String);
/// # impl TryFrom<&str> for Short {
/// #     type Error = String;
/// #     fn try_from(v: &str) -> Result<Self, String> {
/// #         if v.len() <= 3 { Ok(Short(v.into())) } else { Err("longer than 3 characters".into()) }
/// #     }
/// # }
/// let err = psi_runtime::field::<Short, _>("order_data.currency", "EURO").unwrap_err();
/// assert_eq!(err.to_string(), "order_data.currency: longer than 3 characters");
/// ```
pub fn field<T, V>(field: &str, value: V) -> Result<T, FieldError>
where
    V: TryInto<T>,
    V::Error: fmt::Display,
{
    value.try_into().map_err(|error| FieldError {
        field: field.to_owned(),
        rule: error.to_string(),
    })
}

/// Parses a JSON document into a typed request or response; on failure the
/// error names the path of the offending field.
///
/// Every number must be one a [`Decimal`] holds exactly (at most 28 decimal
/// places, magnitude at most [`Decimal::MAX`]): money is refused rather than
/// silently rounded, which the decimal parser would otherwise do to a 30-digit
/// amount.
pub fn parse_json<T: serde::de::DeserializeOwned + serde::Serialize>(
    json: &str,
) -> Result<T, FieldError> {
    parse(json, Nulls::Keep)
}

/// [`parse_json`] where an object member whose value is `null` counts as
/// absent: `{"items": null}` reads like `{}`, so an optional list defaults to
/// empty and a required field is reported missing (not "invalid type: null").
pub fn parse_json_ignoring_nulls<T: serde::de::DeserializeOwned + serde::Serialize>(
    json: &str,
) -> Result<T, FieldError> {
    parse(json, Nulls::Absent)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Nulls {
    Keep,
    Absent,
}

fn parse<T: serde::de::DeserializeOwned + serde::Serialize>(
    json: &str,
    nulls: Nulls,
) -> Result<T, FieldError> {
    let Ok(mut value) = serde_json::from_str::<Value>(json) else {
        return Err(syntax_error::<T>(json));
    };
    let text = if nulls == Nulls::Absent {
        drop_null_members(&mut value);
        std::borrow::Cow::Owned(value.to_string())
    } else {
        std::borrow::Cow::Borrowed(json)
    };
    // From the text, not from the `Value`: a `Value` hands a large integer
    // to the type as a `u128`, which `Decimal` does not take, while the text
    // keeps serde_json's exact number form.
    let deserializer = &mut serde_json::Deserializer::from_str(&text);
    let typed: T = serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let field = display_path(error.path());
        // A number the type could not take because no decimal holds it:
        // say that, with the limit, rather than the decimal library's words.
        let rule = match number_at(&value, error.path()) {
            Some(number) if exact_decimal(&number).is_none() => inexact_rule(&number),
            _ => error.into_inner().to_string(),
        };
        FieldError { field, rule }
    })?;
    // Only the fields the type declares are its business: a number it took
    // must be the one sent, not a rounded one. A document whose numbers a
    // decimal all holds (every body the client itself serialised) cannot
    // have been rounded, so only the rare other one is compared.
    if has_inexact_number(&value) {
        let held = serde_json::to_value(&typed).map_err(|error| FieldError {
            field: "$".to_owned(),
            rule: error.to_string(),
        })?;
        let mut path = Vec::new();
        first_rounded(&value, &held, &mut path)?;
    }
    Ok(typed)
}

/// Whether any number in `value` is one no decimal holds exactly.
fn has_inexact_number(value: &Value) -> bool {
    match value {
        Value::Number(number) => exact_decimal(&number.to_string()).is_none(),
        Value::Array(items) => items.iter().any(has_inexact_number),
        Value::Object(members) => members.values().any(has_inexact_number),
        Value::Null | Value::Bool(_) | Value::String(_) => false,
    }
}

/// The text of the number at `path` in `value`, if there is one.
fn number_at(value: &Value, path: &serde_path_to_error::Path) -> Option<String> {
    use serde_path_to_error::Segment;
    let mut at = value;
    for segment in path.iter() {
        at = match segment {
            Segment::Seq { index } => at.get(index)?,
            Segment::Map { key } if key == NUMBER_TOKEN => at,
            Segment::Map { key } | Segment::Enum { variant: key } => at.get(key)?,
            Segment::Unknown => return None,
        };
    }
    match at {
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

fn inexact_rule(text: &str) -> String {
    format!(
        "{text} cannot be held exactly by a decimal (at most 28 decimal places and a \
         magnitude of at most {}); it is refused rather than rounded",
        Decimal::MAX
    )
}

/// The first number the type took (`held`) that is not exactly the one sent
/// (`sent`): rounded by the decimal type, or beyond any decimal.
fn first_rounded<'a>(
    sent: &'a Value,
    held: &'a Value,
    path: &mut Vec<Step<'a>>,
) -> Result<(), FieldError> {
    match (sent, held) {
        (Value::Number(sent_number), Value::Number(held_number)) => {
            let text = sent_number.to_string();
            let exact = exact_decimal(&text);
            if exact.is_none() || exact != exact_decimal(&held_number.to_string()) {
                return Err(FieldError {
                    field: steps_to_path(path),
                    rule: inexact_rule(&text),
                });
            }
        }
        (Value::Object(sent_members), Value::Object(held_members)) => {
            for (key, held_member) in held_members {
                if let Some(sent_member) = sent_members.get(key) {
                    path.push(Step::Key(key));
                    first_rounded(sent_member, held_member, path)?;
                    path.pop();
                }
            }
        }
        (Value::Array(sent_items), Value::Array(held_items)) => {
            for (index, (sent_item, held_item)) in sent_items.iter().zip(held_items).enumerate() {
                path.push(Step::Index(index));
                first_rounded(sent_item, held_item, path)?;
                path.pop();
            }
        }
        _ => {}
    }
    Ok(())
}

/// The document is not JSON: parsing the text straight into `T` names the
/// field where it broke off (and serde's line and column).
fn syntax_error<T: serde::de::DeserializeOwned>(json: &str) -> FieldError {
    let deserializer = &mut serde_json::Deserializer::from_str(json);
    match serde_path_to_error::deserialize::<_, T>(deserializer) {
        Err(error) => FieldError {
            field: display_path(error.path()),
            rule: error.into_inner().to_string(),
        },
        // Unreachable in practice: the text was not valid JSON.
        Ok(_) => FieldError {
            field: "$".to_owned(),
            rule: "is not a JSON document".to_owned(),
        },
    }
}

/// The key under which serde_json's `arbitrary_precision` feature hands a
/// number's text to a deserializer: an implementation detail that must
/// never show up in a path a merchant reads.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// `order_data.shop_baskets[0].gross_amount`, or `$` for the document itself.
fn display_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let steps: Vec<Step<'_>> = path
        .iter()
        .filter_map(|segment| match segment {
            Segment::Seq { index } => Some(Step::Index(*index)),
            Segment::Map { key } if key == NUMBER_TOKEN => None,
            Segment::Map { key } | Segment::Enum { variant: key } => Some(Step::Key(key)),
            Segment::Unknown => Some(Step::Key("?")),
        })
        .collect();
    steps_to_path(&steps)
}

/// One step of the path while walking a [`Value`].
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn steps_to_path(steps: &[Step<'_>]) -> String {
    let mut text = String::new();
    for step in steps {
        match step {
            Step::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Step::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    if text.is_empty() {
        "$".to_owned()
    } else {
        text
    }
}

/// The exact value of a JSON number's text, or `None` when a [`Decimal`]
/// would have to round it or cannot reach it (`1e400`, 30 significant
/// digits, `1e-29`). Trailing zeros are not significant: `1.000…0` with 40
/// zeros is exactly 1.
fn exact_decimal(text: &str) -> Option<Decimal> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], unsigned[at + 1..].parse::<i64>().ok()?),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = whole.chars().chain(fraction.chars()).collect();
    // value = digits x 10^power
    let mut power = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
    let significant = digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    power = power.checked_add(i64::try_from(significant.len() - trimmed.len()).ok()?)?;
    if trimmed.is_empty() {
        return Some(Decimal::ZERO);
    }
    // Beyond these bounds no Decimal exists, whatever the digits: 29 digits
    // before the point at most, 28 after it at most.
    if !(-28..=29).contains(&power) {
        return None;
    }
    let plain = if power >= 0 {
        format!("{trimmed}{}", "0".repeat(usize::try_from(power).ok()?))
    } else {
        let scale = usize::try_from(-power).ok()?;
        if trimmed.len() > scale {
            let (int, frac) = trimmed.split_at(trimmed.len() - scale);
            format!("{int}.{frac}")
        } else {
            format!("0.{}{trimmed}", "0".repeat(scale - trimmed.len()))
        }
    };
    let magnitude = Decimal::from_str_exact(&plain).ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

/// Removes every object member whose value is `null`, at any depth.
/// Array elements stay: a `null` element is a value, not an absent field.
fn drop_null_members(value: &mut Value) {
    match value {
        Value::Object(members) => {
            members.retain(|_, member| !member.is_null());
            members.values_mut().for_each(drop_null_members);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_members),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, serde::Serialize)]
    #[allow(dead_code)]
    struct Line {
        amount: Option<Decimal>,
        #[serde(default)]
        parts: Vec<Decimal>,
    }

    #[derive(Debug, serde::Deserialize, serde::Serialize)]
    #[allow(dead_code)]
    struct Basket {
        name: String,
        #[serde(default)]
        lines: Vec<Line>,
    }

    #[test]
    fn exact_decimals_are_recognised_and_inexact_ones_refused() {
        let exact = [
            ("43.8", "43.8"),
            ("-1.55", "-1.55"),
            ("1.5e3", "1500"),
            ("1.000000000000000000000000000000000000", "1"),
            (
                "0.0000000000000000000000000001",
                "0.0000000000000000000000000001",
            ),
            (
                "79228162514264337593543950335",
                "79228162514264337593543950335",
            ),
            (
                "7.9228162514264337593543950335E28",
                "79228162514264337593543950335",
            ),
            ("0e400", "0"),
        ];
        for (text, expected) in exact {
            assert_eq!(
                exact_decimal(text).map(|d| d.to_string()),
                Some(expected.to_owned()),
                "{text}"
            );
        }
        let inexact = [
            "1e400",
            "1e-40",
            "0.00000000000000000000000000001",
            "79228162514264337593543950336",
            "123456789012345678901234567890",
            "1.23456789012345678901234567891",
        ];
        for text in inexact {
            assert_eq!(exact_decimal(text), None, "{text}");
        }
    }

    #[test]
    fn a_thirty_digit_amount_is_refused_with_its_path_not_rounded() {
        let error = parse_json::<Basket>(
            r#"{"name":"b","lines":[{"amount":1},{"amount":1.23456789012345678901234567891}]}"#,
        )
        .unwrap_err();
        assert_eq!(error.field, "lines[1].amount");
        assert!(
            error.rule.contains("refused rather than rounded"),
            "{error}"
        );
        assert!(error.rule.contains("28 decimal places"), "{error}");
    }

    #[test]
    fn an_amount_beyond_the_range_is_refused_with_its_path() {
        for huge in ["1e400", "123456789012345678901234567890"] {
            let error = parse_json::<Basket>(&format!(
                r#"{{"name":"b","lines":[{{"parts":[1,{huge}]}}]}}"#
            ))
            .unwrap_err();
            assert_eq!(error.field, "lines[0].parts[1]", "{huge}");
            assert!(error.rule.contains(&Decimal::MAX.to_string()), "{error}");
        }
    }

    #[test]
    fn paths_never_show_the_serializer_internals() {
        // A string where a number belongs, and a number where a string
        // belongs: neither path may end in the private number token.
        for json in [
            r#"{"name":"b","lines":[{"amount":"ten"}]}"#,
            r#"{"name":1.5,"lines":[]}"#,
            r#"{"name":"b","lines":[{"amount":{"nested":1}}]}"#,
        ] {
            let error = parse_json::<Basket>(json).unwrap_err();
            assert!(!error.field.contains("serde_json"), "{error}");
            assert!(!error.field.contains('$') || error.field == "$", "{error}");
        }
        let error = parse_json::<Basket>(r#"{"name":"b","lines":[{"amount":"ten"}]}"#).unwrap_err();
        assert_eq!(error.field, "lines[0].amount");
    }

    #[test]
    fn the_root_and_broken_documents_are_named() {
        assert_eq!(parse_json::<Basket>("[]").unwrap_err().field, "$");
        let error = parse_json::<Basket>(r#"{"name":"b","lines":[{"amount":1"#).unwrap_err();
        assert!(error.field.starts_with("lines[0]"), "{error}");
    }

    #[test]
    fn null_members_are_absent_only_when_asked() {
        let json = r#"{"name":"b","lines":null}"#;
        assert!(parse_json::<Basket>(json).is_err());
        let basket = parse_json_ignoring_nulls::<Basket>(json).unwrap();
        assert!(basket.lines.is_empty());

        let error = parse_json_ignoring_nulls::<Basket>(r#"{"name":null}"#).unwrap_err();
        assert_eq!(error.field, "$");
        assert!(error.rule.contains("missing field `name`"), "{error}");
    }

    #[test]
    fn numbers_in_fields_the_type_does_not_declare_are_not_its_business() {
        let basket: Basket =
            parse_json(r#"{"name": "b", "future": {"id": 1e400}, "lines": [{"amount": 43.8}]}"#)
                .unwrap();
        assert_eq!(basket.lines[0].amount.unwrap().to_string(), "43.8");
        let error = parse_json::<Basket>(
            r#"{"name": "b", "lines": [{"amount": 43.80000000000000000000000000000001}]}"#,
        )
        .unwrap_err();
        assert_eq!(error.field, "lines[0].amount");
        assert!(
            error.rule.contains("refused rather than rounded"),
            "{}",
            error.rule
        );
    }
}
