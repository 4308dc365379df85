//! Input validation that names the field and the rule.
//!
//! Generated newtypes (`CurrencyCode`, `IdempotencyKey`, `OrderId`, ...)
//! validate on construction, but their error only states the rule. These
//! helpers add the field, so a merchant's engineer sees
//! `order_data.currency: doesn't match pattern "^[A-Z]{3}$"` before any
//! request leaves the process.

use std::fmt;

/// A value that breaks a rule of the specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field, as a dotted path (`order_data.currency`, `items[0].quantity`).
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
pub fn parse_json<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, FieldError> {
    let deserializer = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let path = error.path().to_string();
        FieldError {
            field: if path == "." { "$".to_owned() } else { path },
            rule: error.into_inner().to_string(),
        }
    })
}
