//! Members a request carries that its document does not declare (yet).
//!
//! When the provider adds a request field before psi's documents do, a
//! merchant need not wait for a release: every object type of a request
//! body has an `extra_members` field (added by `cargo xtask generate`,
//! `xtask/src/generate/extra_members.rs`) whose members are written after
//! the declared ones, as given (in the order of their names) and never
//! checked. A name the document
//! declares is refused when the body is written, before anything is sent:
//! a declared member is set through its own field, so one name never
//! appears twice.
//!
//! ```
//! use psi_runtime::ExtraMembers;
//!
//! let extra = ExtraMembers::new().with("loyalty_card", "LC-4711").unwrap();
//! assert_eq!(extra.get("loyalty_card"), Some(&serde_json::json!("LC-4711")));
//! ```
//!
//! Reading JSON into a request type keeps its declared members only:
//! `extra_members` is written, never read (reading it would make serde
//! buffer every member of the object, and amounts would lose their exact
//! text on the way).

use serde::ser::{Error as _, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// Undeclared members of one JSON object of a request, kept and written
/// in the order of their names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtraMembers(Map<String, Value>);

impl ExtraMembers {
    /// No members.
    pub fn new() -> Self {
        Self::default()
    }

    /// These members, with `name` set to `value` serialised as JSON (a
    /// member of that name before is replaced). An error when `value`
    /// cannot be written as JSON.
    pub fn with(
        mut self,
        name: impl Into<String>,
        value: impl serde::Serialize,
    ) -> Result<Self, serde_json::Error> {
        self.insert(name, value)?;
        Ok(self)
    }

    /// Sets `name` to `value` serialised as JSON.
    pub fn insert(
        &mut self,
        name: impl Into<String>,
        value: impl serde::Serialize,
    ) -> Result<(), serde_json::Error> {
        self.0.insert(name.into(), serde_json::to_value(value)?);
        Ok(())
    }

    /// The member `name`, if set.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    /// Removes the member `name`, answering its value.
    pub fn remove(&mut self, name: &str) -> Option<Value> {
        self.0.remove(name)
    }

    /// Whether no member is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many members are set.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The members, in the order of their names.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter()
    }

    /// Writes the members into the object being serialised, after its
    /// declared members (`declared`): the generated types call it through
    /// `#[serde(flatten, serialize_with = ...)]`. A member named like a
    /// declared one is an error naming it.
    pub fn serialize_beside<S: Serializer>(
        &self,
        declared: &[&str],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        if let Some(name) = self.0.keys().find(|name| declared.contains(&name.as_str())) {
            return Err(S::Error::custom(format!(
                "extra member `{name}` is declared by the document: set it through its own field"
            )));
        }
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl From<Map<String, Value>> for ExtraMembers {
    fn from(members: Map<String, Value>) -> Self {
        Self(members)
    }
}

impl FromIterator<(String, Value)> for ExtraMembers {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(members: I) -> Self {
        Self(members.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Order {
        currency: &'static str,
        #[serde(flatten, serialize_with = "order_extra_members")]
        extra_members: ExtraMembers,
    }

    fn order_extra_members<S: Serializer>(
        members: &ExtraMembers,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        members.serialize_beside(&["currency"], serializer)
    }

    #[test]
    fn members_follow_the_declared_ones_as_given() {
        let extra = ExtraMembers::new()
            .with("loyalty", serde_json::json!({"card": "LC-1", "points": 12}))
            .unwrap()
            .with("gift", true)
            .unwrap();
        let order = Order {
            currency: "EUR",
            extra_members: extra,
        };
        assert_eq!(
            serde_json::to_string(&order).unwrap(),
            r#"{"currency":"EUR","gift":true,"loyalty":{"card":"LC-1","points":12}}"#
        );
        let none = Order {
            currency: "EUR",
            extra_members: ExtraMembers::new(),
        };
        assert_eq!(
            serde_json::to_string(&none).unwrap(),
            r#"{"currency":"EUR"}"#
        );
    }

    #[test]
    fn a_declared_name_is_refused_naming_it() {
        let order = Order {
            currency: "EUR",
            extra_members: ExtraMembers::new().with("currency", "USD").unwrap(),
        };
        let error = serde_json::to_string(&order).unwrap_err().to_string();
        assert!(
            error.contains("extra member `currency` is declared by the document"),
            "{error}"
        );
    }
}
