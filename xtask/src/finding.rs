//! What a check reports: one broken rule at one JSON pointer of a document.
//! `lint` collects findings from its own rules, from `audience_table` and
//! from `examples`; all three take the type and the pointer escaping from
//! here, so none of them imports another's.

/// One rule broken at one place.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub document: String,
    pub pointer: String,
    pub rule: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}#{}: {}", self.document, self.pointer, self.rule)
    }
}

/// JSON pointer escaping of one reference token.
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
