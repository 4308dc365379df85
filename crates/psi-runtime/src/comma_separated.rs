//! A list sent as one comma-joined value.
//!
//! progenitor always explodes query arrays (`include=a&include=b`), but the
//! order status API wants `include=basket,payment_status`. The generator
//! replaces the `include` schema with this type, whose serialized form is the
//! joined string.

use std::fmt;
use std::str::FromStr;

/// A list whose wire form is its items joined by commas.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CommaSeparated<T>(pub Vec<T>);

impl<T> CommaSeparated<T> {
    /// The items, in order.
    pub fn items(&self) -> &[T] {
        &self.0
    }
}

impl<T> From<Vec<T>> for CommaSeparated<T> {
    fn from(items: Vec<T>) -> Self {
        Self(items)
    }
}

impl<T, const N: usize> From<[T; N]> for CommaSeparated<T> {
    fn from(items: [T; N]) -> Self {
        Self(items.into())
    }
}

impl<T> FromIterator<T> for CommaSeparated<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}

impl<T: fmt::Display> fmt::Display for CommaSeparated<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, item) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str(",")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

impl<T> FromStr for CommaSeparated<T>
where
    T: FromStr,
    T::Err: fmt::Display,
{
    type Err = String;

    fn from_str(joined: &str) -> Result<Self, Self::Err> {
        joined
            .split(',')
            .filter(|part| !part.is_empty())
            .map(|part| T::from_str(part.trim()).map_err(|e| format!("{part:?}: {e}")))
            .collect()
    }
}

impl<T: fmt::Display> serde::Serialize for CommaSeparated<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de, T> serde::Deserialize<'de> for CommaSeparated<T>
where
    T: FromStr,
    T::Err: fmt::Display,
{
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let joined = String::deserialize(deserializer)?;
        joined.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "schemars")]
impl<T> schemars::JsonSchema for CommaSeparated<T> {
    fn schema_name() -> String {
        "CommaSeparated".to_owned()
    }

    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        schemars::schema::SchemaObject {
            instance_type: Some(schemars::schema::InstanceType::String.into()),
            ..Default::default()
        }
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_splits() {
        let list: CommaSeparated<String> =
            ["basket".to_owned(), "payment_status".to_owned()].into();
        assert_eq!(
            serde_json::to_string(&list).unwrap(),
            "\"basket,payment_status\""
        );
        let back: CommaSeparated<String> = "basket,payment_status".parse().unwrap();
        assert_eq!(back, list);
    }
}
