//! The order of an object's keys as the document writes them.
//!
//! serde_json's `Value` keeps object keys sorted (the workspace does not
//! turn on `preserve_order`, which would change every crate's maps), but
//! "the first entry of `examples`" means the first one written. So the
//! document is read a second time into this skeleton, which keeps only the
//! keys, in order.

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// The key skeleton of a JSON document.
pub enum Keys {
    Object(Vec<(String, Keys)>),
    Array(Vec<Keys>),
    Scalar,
}

impl Keys {
    pub fn of(json: &str) -> Result<Self, String> {
        serde_json::from_str(json).map_err(|error| format!("not JSON: {error}"))
    }

    /// The keys, in document order, of the object at the JSON `pointer`.
    pub fn at(&self, pointer: &str) -> Option<Vec<&str>> {
        let mut node = self;
        for token in pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            node = match node {
                Keys::Object(entries) => &entries.iter().find(|(key, _)| *key == token)?.1,
                Keys::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                Keys::Scalar => return None,
            };
        }
        match node {
            Keys::Object(entries) => Some(entries.iter().map(|(key, _)| key.as_str()).collect()),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KeysVisitor)
    }
}

struct KeysVisitor;

impl<'de> Visitor<'de> for KeysVisitor {
    type Value = Keys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value::<Keys>()?));
        }
        Ok(Keys::Object(entries))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Keys, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Keys>()? {
            items.push(item);
        }
        Ok(Keys::Array(items))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Keys, E> {
        Ok(Keys::Scalar)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Keys, E> {
        Ok(Keys::Scalar)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Keys, E> {
        Ok(Keys::Scalar)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Keys, E> {
        Ok(Keys::Scalar)
    }
    fn visit_str<E>(self, _: &str) -> Result<Keys, E> {
        Ok(Keys::Scalar)
    }
    fn visit_unit<E>(self) -> Result<Keys, E> {
        Ok(Keys::Scalar)
    }
    fn visit_none<E>(self) -> Result<Keys, E> {
        Ok(Keys::Scalar)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Keys, D::Error> {
        IgnoredAny::deserialize(deserializer).map(|_| Keys::Scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::Keys;

    #[test]
    fn keys_keep_the_written_order() {
        let keys = Keys::of(r#"{"a": {"z": 1, "m": [{"y~/": 2, "b": null}], "c": "x"}}"#).unwrap();
        assert_eq!(keys.at("/a"), Some(vec!["z", "m", "c"]));
        assert_eq!(keys.at("/a/m/0"), Some(vec!["y~/", "b"]));
        assert_eq!(keys.at("/a/z"), None);
        assert_eq!(keys.at("/nothing"), None);
    }
}
