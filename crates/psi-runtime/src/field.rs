//! Input validation that names the field and the rule.
//!
//! Generated newtypes (`CurrencyCode`, `IdempotencyKey`, `OrderId`, ...)
//! validate on construction, but their error only states the rule. These
//! helpers add the field, so a merchant's engineer sees
//! `order_data.currency: doesn't match pattern "^[A-Z]{3}$"` before any
//! request leaves the process.

use std::fmt;

mod null_members;

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
/// Every number a [`Decimal`](crate::Decimal) field takes must be one a decimal holds
/// exactly (at most 28 significant digits and 28 decimal places, magnitude
/// at most [`Decimal::MAX`](crate::Decimal::MAX)): money is refused rather than silently rounded.
/// Numbers in fields the type does not declare are not its business.
pub fn parse_json<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, FieldError> {
    typed(json)
}

/// [`parse_json`] where an object member whose value is `null` counts as
/// absent: `{"items": null}` reads like `{}`, so an optional list defaults to
/// empty and a required field is reported missing (not "invalid type: null").
pub fn parse_json_ignoring_nulls<T: serde::de::DeserializeOwned>(
    json: &str,
) -> Result<T, FieldError> {
    match null_members::without_null_members(json) {
        Ok(text) => typed(&text),
        // Not JSON: the typed parse names where it broke off.
        Err(_) => typed(json),
    }
}

/// The text straight into `T`: the [`Decimal`](crate::Decimal) fields read their numbers'
/// own text, so nothing passes through `f64`.
fn typed<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, FieldError> {
    let deserializer = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(deserializer).map_err(|error| FieldError {
        field: display_path(error.path()),
        rule: rule_of(&error.into_inner()),
    })
}

/// serde_json's message; for a number no decimal holds, without the line
/// and column (the field says where, and the message names the limit).
fn rule_of(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&position) {
        Some(rule) if rule.ends_with(crate::decimal::REFUSED) => rule.to_owned(),
        _ => message,
    }
}

/// Keys serde_json uses to hand a number's text to a type: implementation
/// details that must never show up in a path a merchant reads.
const PRIVATE_KEY_PREFIX: &str = "$serde_json::private::";

/// `order_data.shop_baskets[0].gross_amount`, or `$` for the document itself.
fn display_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let steps: Vec<Step<'_>> = path
        .iter()
        .filter_map(|segment| match segment {
            Segment::Seq { index } => Some(Step::Index(*index)),
            Segment::Map { key } if key.starts_with(PRIVATE_KEY_PREFIX) => None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Decimal;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Line {
        amount: Option<Decimal>,
        #[serde(default)]
        parts: Vec<Decimal>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Basket {
        name: String,
        #[serde(default)]
        lines: Vec<Line>,
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
        assert!(error.rule.contains("28 significant digits"), "{error}");
        assert!(!error.rule.contains("line 1"), "{error}");
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
