//! The `pattern` check of the generated types (OpenAPI patterns are
//! ECMAScript regular expressions; regress implements that syntax).
//!
//! Generated code names `psi_runtime::Pattern` where typify wrote
//! `regress::Regex` (`xtask/src/generate/patterns.rs`). The wrapper's
//! methods are not generic and not inlined, so regress's generic matcher is
//! compiled here once instead of in every API crate that has a pattern.

/// A compiled pattern.
#[derive(Debug)]
pub struct Pattern(regress::Regex);

impl Pattern {
    /// Compiles `pattern` (ECMAScript syntax), as `regress::Regex::new`.
    #[inline(never)]
    pub fn new(pattern: &str) -> Result<Self, regress::Error> {
        regress::Regex::new(pattern).map(Self)
    }

    /// The first match in `text`, as `regress::Regex::find`.
    #[inline(never)]
    pub fn find(&self, text: &str) -> Option<regress::Match> {
        self.0.find(text)
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    #[test]
    fn matches_as_regress_does() {
        let colour = Pattern::new("^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$").unwrap();
        assert!(colour.find("#a1B").is_some());
        assert!(colour.find("#a1B2c3").is_some());
        assert!(colour.find("#a1B2").is_none());
        assert!(colour.find("a1B").is_none());
        let country = Pattern::new("^[A-Z]{2}$").unwrap();
        assert!(country.find("DE").is_some());
        assert!(country.find("de").is_none());
        assert!(Pattern::new("(").is_err());
    }
}
