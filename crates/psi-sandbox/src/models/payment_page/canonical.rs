//! A session request's identity for its Idempotency-Key: the SHA-256 of
//! its canonical JSON text, in which object members are sorted by name,
//! strings are written in one escaping and numbers as the shortest plain
//! decimal of their exact value (`43.80` and `43.8` are one number,
//! `12345678901234567.89` and `12345678901234567.88` two). Whitespace, the
//! members' order and a number's spelling do not make another call; any
//! other difference does. Only the digest is remembered, not the body.

use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The hex SHA-256 of `body`'s canonical text, or `None` when it is not
/// JSON.
pub fn digest(body: &str) -> Option<String> {
    let raw: &RawValue = serde_json::from_str(body).ok()?;
    let mut canonical = String::with_capacity(body.len());
    write(raw, &mut canonical).ok()?;
    let hash = Sha256::digest(canonical.as_bytes());
    Some(hash.iter().map(|byte| format!("{byte:02x}")).collect())
}

fn write(raw: &RawValue, out: &mut String) -> serde_json::Result<()> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'{') => {
            let members: BTreeMap<String, &RawValue> = serde_json::from_str(text)?;
            out.push('{');
            for (index, (name, value)) in members.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(&name)?);
                out.push(':');
                write(value, out)?;
            }
            out.push('}');
        }
        Some(b'[') => {
            let items: Vec<&RawValue> = serde_json::from_str(text)?;
            out.push('[');
            for (index, item) in items.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write(item, out)?;
            }
            out.push(']');
        }
        Some(b'"') => {
            let string: String = serde_json::from_str(text)?;
            out.push_str(&serde_json::to_string(&string)?);
        }
        Some(b'-' | b'0'..=b'9') => out.push_str(&number(text)),
        // true, false, null
        _ => out.push_str(text),
    }
    Ok(())
}

/// A plain decimal's shortest spelling of the same value, exact at any
/// size: no leading zeros, no trailing fractional zeros, `0` for zero. A
/// number with an exponent (which the limits rewrite before a handler
/// reads the body, [`crate::numbers::normalize`], when a decimal holds it)
/// is kept as written.
fn number(text: &str) -> String {
    if text.contains(['e', 'E']) {
        return text.to_owned();
    }
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let whole = whole.trim_start_matches('0');
    let fraction = fraction.trim_end_matches('0');
    if whole.is_empty() && fraction.is_empty() {
        return "0".to_owned();
    }
    let mut out = String::with_capacity(text.len());
    if negative {
        out.push('-');
    }
    out.push_str(if whole.is_empty() { "0" } else { whole });
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(fraction);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_compared_by_exact_value() {
        assert_eq!(number("43.80"), "43.8");
        assert_eq!(number("043.8"), "43.8");
        assert_eq!(number("-0.0"), "0");
        assert_eq!(number("0.50"), "0.5");
        assert_eq!(number("100"), "100");
        assert_eq!(number("12345678901234567.89"), "12345678901234567.89");
        assert_ne!(
            digest(r#"{"a": 12345678901234567.89}"#),
            digest(r#"{"a": 12345678901234567.88}"#)
        );
        // Beyond an f64's precision and beyond a decimal's range alike.
        assert_ne!(
            digest("[123456789012345678901234567890123]"),
            digest("[123456789012345678901234567890124]")
        );
    }

    #[test]
    fn spelling_order_and_whitespace_make_no_other_call() {
        let one = digest(r#"{"b": [1, {"y": "\u00e9", "x": 43.80}], "a": null}"#);
        let other = digest("{\"a\":null,\"b\":[1.0,{\"x\":43.8,\"y\":\"é\"}]}");
        assert!(one.is_some());
        assert_eq!(one, other);
        assert_ne!(
            one,
            digest(r#"{"a": null, "b": [1, {"x": 43.8, "y": "e"}]}"#)
        );
        assert_ne!(digest("[1, 2]"), digest("[2, 1]"));
        assert_eq!(digest("not json"), None);
    }
    use proptest::prelude::*;

    /// JSON values with integer numbers (exact in serde_json's `Value`).
    fn json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            ".{0,8}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                prop::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                    .prop_map(|members| serde_json::Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Whitespace and a number's spelling make no other call; another
        /// value does.
        #[test]
        fn the_digest_ignores_layout_and_spelling_only(
            value in json(),
            integer in "(0|[1-9][0-9]{0,9})",
            fraction in "[0-9]{0,6}",
        ) {
            let compact = serde_json::to_string(&value).unwrap();
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            prop_assert_eq!(digest(&compact), digest(&pretty));

            let number = if fraction.is_empty() { integer.clone() } else { format!("{integer}.{fraction}") };
            let padded = if fraction.is_empty() { format!("{integer}.00") } else { format!("{number}0") };
            let with = |n: &str| format!(r#"{{"value": {compact}, "amount": {n}}}"#);
            prop_assert_eq!(digest(&with(&number)), digest(&with(&padded)));
            let other = format!("{integer}1");
            prop_assert_ne!(digest(&with(&number)), digest(&with(&other)));
            let changed = format!(r#"{{"value": {compact}, "amount": {number}, "x": 1}}"#);
            prop_assert_ne!(digest(&with(&number)), digest(&changed));
        }
    }
}
