//! The serde form of [`Decimal`]: the exact JSON number text.
//!
//! serde_json (with its `raw_value` feature, which changes nothing for
//! anybody else) hands a value's own text to a type that asks for serde_json's
//! raw-value token, and writes text given under that token as-is. Decimal uses
//! the token directly rather than `Box<RawValue>` so that a deserializer which
//! does not know it (serde's buffering inside an untagged enum, a query
//! string) falls back to the ordinary number and string visitors.

use super::{exact::exact, Decimal, ParseDecimalError};
use serde::de::{self, Deserializer, MapAccess, Unexpected, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use std::fmt;

/// serde_json's token for a value's raw text (`serde_json::value::RawValue`).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";
/// The key serde_json's `arbitrary_precision` feature buffers a number's text
/// under (seen here only when that feature is on, in untagged enums).
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// The words every refusal of an inexact number ends with.
pub(crate) const REFUSED: &str = "it is refused rather than rounded";

impl serde::Serialize for Decimal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = self.0.to_string();
        if writes_json::<S>() {
            let mut raw = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
            raw.serialize_field(RAW_VALUE_TOKEN, text.as_str())?;
            raw.end()
        } else {
            serializer.serialize_str(&text)
        }
    }
}

/// Whether `S` is serde_json's writer or its `Value` builder, the two that
/// understand the raw-value token. Any other serializer would show the token
/// as a struct (a YAML snapshot, a query string), so it gets a string. serde
/// offers no other way to ask a serializer what it is.
fn writes_json<S>() -> bool {
    let name = std::any::type_name::<S>();
    let name = name.strip_prefix("&mut ").unwrap_or(name);
    name.starts_with("serde_json::ser::Serializer<") || name == "serde_json::value::ser::Serializer"
}

impl<'de> serde::Deserialize<'de> for Decimal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Decimal, D::Error> {
        deserializer.deserialize_newtype_struct(RAW_VALUE_TOKEN, DecimalVisitor)
    }
}

struct DecimalVisitor;

impl DecimalVisitor {
    fn number<E: de::Error>(text: &str) -> Result<Decimal, E> {
        exact(text).map(Decimal).map_err(|limit| match limit {
            ParseDecimalError::Syntax => {
                E::invalid_value(Unexpected::Str(text), &"a decimal number")
            }
            limit => E::custom(format_args!(
                "{text} cannot be held exactly by a decimal ({limit}); {REFUSED}"
            )),
        })
    }

    /// A value's raw JSON text: a number, or a decimal sent as a string.
    fn raw<E: de::Error>(text: &str) -> Result<Decimal, E> {
        let unexpected = match text.as_bytes().first() {
            Some(b'"') => {
                let unquoted: String = serde_json::from_str(text).map_err(E::custom)?;
                return Self::number(&unquoted);
            }
            Some(b'-' | b'0'..=b'9') => return Self::number(text),
            Some(b'{') => Unexpected::Map,
            Some(b'[') => Unexpected::Seq,
            Some(b't') => Unexpected::Bool(true),
            Some(b'f') => Unexpected::Bool(false),
            _ => Unexpected::Unit,
        };
        Err(E::invalid_type(unexpected, &Self))
    }
}

impl<'de> Visitor<'de> for DecimalVisitor {
    type Value = Decimal;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a decimal number")
    }

    /// A deserializer that does not know the raw-value token.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, inner: D) -> Result<Decimal, D::Error> {
        inner.deserialize_any(self)
    }

    /// serde_json's raw value (or, with `arbitrary_precision`, its buffered
    /// number): one entry whose value is the text.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Decimal, A::Error> {
        let key: Option<String> = map.next_key()?;
        match key.as_deref() {
            Some(RAW_VALUE_TOKEN) => {
                let text: String = map.next_value()?;
                Self::raw(&text)
            }
            Some(NUMBER_TOKEN) => {
                let text: String = map.next_value()?;
                Self::number(&text)
            }
            _ => Err(de::Error::invalid_type(Unexpected::Map, &self)),
        }
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Decimal, E> {
        Self::number(text)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Decimal, E> {
        Ok(Decimal::from(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Decimal, E> {
        Ok(Decimal::from(value))
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Decimal, E> {
        Self::number(&value.to_string())
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Decimal, E> {
        Self::number(&value.to_string())
    }

    /// A number serde_json already read as `f64` (see [`Decimal`]'s
    /// trade-off): its shortest text, which is the text sent for up to 15
    /// significant digits.
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Decimal, E> {
        if !value.is_finite() {
            return Err(E::invalid_value(Unexpected::Float(value), &self));
        }
        Self::number(&value.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    const TEXTS: [&str; 5] = ["0.1", "43.80", "12345678901234567.89", "-1.55", "0"];

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Line {
        amount: Decimal,
        note: Option<Decimal>,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(untagged)]
    enum Either {
        Line(Line),
        Text(String),
    }

    #[test]
    fn json_text_round_trips_exactly() {
        for text in TEXTS {
            let json = format!(r#"{{"amount":{text},"note":null}}"#);
            let line: Line = serde_json::from_str(&json).unwrap();
            assert_eq!(line.amount.to_string(), text);
            assert_eq!(serde_json::to_string(&line).unwrap(), json);
            let from_bytes: Line = serde_json::from_reader(json.as_bytes()).unwrap();
            assert_eq!(from_bytes.amount.to_string(), text);
        }
    }

    #[test]
    fn strings_and_exponents_are_read_exactly() {
        let line: Line = serde_json::from_str(r#"{"amount":"43.80","note":4.38e1}"#).unwrap();
        assert_eq!(line.amount.to_string(), "43.80");
        assert_eq!(line.note.unwrap().to_string(), "43.8");
    }

    #[test]
    fn inexact_numbers_are_refused_not_rounded() {
        for text in ["1.23456789012345678901234567891", "1e400", "1e-30"] {
            let error = serde_json::from_str::<Line>(&format!(r#"{{"amount":{text}}}"#))
                .unwrap_err()
                .to_string();
            assert!(error.contains(REFUSED), "{error}");
            assert!(error.contains(text), "{error}");
        }
        for json in [
            r#"{"amount":"ten"}"#,
            r#"{"amount":true}"#,
            r#"{"amount":{}}"#,
        ] {
            let error = serde_json::from_str::<Line>(json).unwrap_err().to_string();
            assert!(error.contains("expected a decimal number"), "{error}");
        }
    }

    #[test]
    fn untagged_enums_take_numbers_through_the_fallback() {
        let either: Either = serde_json::from_str(r#"{"amount":43.80,"note":7}"#).unwrap();
        let Either::Line(line) = either else {
            panic!("not a line: {either:?}")
        };
        assert_eq!(line.amount, Decimal::new(438, 1));
        assert_eq!(line.note, Some(Decimal::from(7)));
        assert_eq!(
            serde_json::to_string(&Either::Line(line)).unwrap(),
            // Serialising has no buffering: the decimal's text is written.
            if cfg!(feature = "arbitrary-precision") {
                r#"{"amount":43.80,"note":7}"#
            } else {
                r#"{"amount":43.8,"note":7}"#
            }
        );
    }

    #[test]
    fn values_hold_what_serde_json_numbers_hold() {
        for text in TEXTS {
            let decimal: Decimal = text.parse().unwrap();
            let value = serde_json::to_value(decimal).unwrap();
            let back: Decimal = serde_json::from_value(value.clone()).unwrap();
            if cfg!(feature = "arbitrary-precision") {
                assert_eq!(value.to_string(), text);
                assert_eq!(back.to_string(), text);
            } else if text.len() <= 16 {
                assert_eq!(back, decimal, "{text}");
            } else {
                // 12345678901234567.89 is beyond an f64's 15 digits.
                assert_ne!(back, decimal, "{text}");
            }
        }
    }

    #[test]
    fn only_serde_json_gets_the_raw_token() {
        assert!(writes_json::<&mut serde_json::Serializer<Vec<u8>>>());
        assert!(writes_json::<serde_json::value::Serializer>());
        // A map key is a string in JSON: serde_json's key serializer is not
        // its writer, so the decimal arrives as a string.
        let keyed = std::collections::BTreeMap::from([(Decimal::new(4380, 2), 1)]);
        assert_eq!(serde_json::to_string(&keyed).unwrap(), r#"{"43.80":1}"#);
        let back: std::collections::BTreeMap<Decimal, i32> =
            serde_json::from_str(r#"{"43.80":1}"#).unwrap();
        assert_eq!(back.keys().next().unwrap().to_string(), "43.80");
    }
}
