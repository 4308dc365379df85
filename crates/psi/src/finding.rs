//! One finding about a request or response: the JSON path of the field and
//! the rule, shared by [`crate::preflight`] (rules that block a send) and
//! [`crate::advice`] (arithmetic a caller may want to know about).

use std::fmt;

/// One broken rule, at one field.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// JSON path of the field, such as `$.legal.tax_number`.
    pub path: String,
    /// The rule, with the expected and actual values where that helps.
    pub rule: String,
}

impl Finding {
    /// A finding of `rule` at `path`.
    pub fn new(path: impl Into<String>, rule: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            rule: rule.into(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.rule)
    }
}

impl std::error::Error for Finding {}
