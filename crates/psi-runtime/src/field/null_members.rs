//! `{"items": null}` rewritten as `{}`, at any depth, on the text.
//!
//! Through a `serde_json::Value` a number would become an `f64` (psi does
//! not turn serde_json's `arbitrary_precision` on), so the document is
//! walked as raw values and every number keeps its text.
//!
//! `#[inline]` for the build, not for speed: the walk is compiled only into
//! the crates that call [`crate::parse_json_ignoring_nulls`], not into every
//! application's copy of psi-runtime.

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// `json` without the object members whose value is `null`. Array elements
/// stay: a `null` element is a value, not an absent field.
#[inline]
pub(super) fn without_null_members(json: &str) -> Result<String, serde_json::Error> {
    let raw: &RawValue = serde_json::from_str(json)?;
    let mut out = String::with_capacity(json.len());
    write(raw, &mut out)?;
    Ok(out)
}

#[inline]
fn write(raw: &RawValue, out: &mut String) -> Result<(), serde_json::Error> {
    let text = raw.get().trim();
    match text.as_bytes().first() {
        Some(b'{') => {
            let Members(members) = serde_json::from_str(text)?;
            out.push('{');
            let mut first = true;
            for (key, value) in members
                .into_iter()
                .filter(|(_, v)| v.get().trim() != "null")
            {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&serde_json::to_string(&key)?);
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
        _ => out.push_str(text),
    }
    Ok(())
}

/// An object's members in the order written, values as raw text.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_members_go_and_numbers_keep_their_text() {
        let json = r#"{"a": null, "b": [null, {"c": null, "d": 12345678901234567.89}], "e": "x\"y", "f": 43.80}"#;
        assert_eq!(
            without_null_members(json).unwrap(),
            r#"{"b":[null,{"d":12345678901234567.89}],"e":"x\"y","f":43.80}"#
        );
        assert!(without_null_members("{").is_err());
    }
}
