//! The `pattern` check of the generated types.
//!
//! OpenAPI patterns are ECMAScript regular expressions. typify writes
//! `regress::Regex` (an ECMAScript engine); the generated code names
//! `psi_runtime::Pattern` instead (`xtask/src/generate/patterns.rs`), which
//! matches with `regex-lite`: a small engine made for short compile times
//! (regress and its `hashbrown` cost every user's release build about 6 s of
//! CPU more). The two syntaxes differ, so [`Pattern::new`] first checks that
//! the pattern keeps to the part of ECMAScript where both engines give the
//! same answer (see [`ecmascript_subset`]) and refuses anything else with the
//! construct named, rather than matching it differently.
//! `tests/suite/patterns.rs` compares the answers with regress for every
//! pattern in `openapi/`.

use std::fmt;

/// A compiled pattern.
#[derive(Debug)]
pub struct Pattern(regex_lite::Regex);

/// A pattern `Pattern` does not take: outside the shared ECMAScript subset,
/// or not a valid expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// The pattern as written in the document.
    pub pattern: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pattern {:?}: {}", self.pattern, self.reason)
    }
}

impl std::error::Error for PatternError {}

impl Pattern {
    /// Compiles `pattern` (ECMAScript syntax, within [`ecmascript_subset`]).
    #[inline(never)]
    pub fn new(pattern: &str) -> Result<Self, PatternError> {
        let refuse = |reason: String| PatternError {
            pattern: pattern.to_owned(),
            reason,
        };
        ecmascript_subset(pattern).map_err(refuse)?;
        regex_lite::Regex::new(pattern)
            .map(Self)
            .map_err(|e| refuse(e.to_string()))
    }

    /// The first match in `text`, if any.
    #[inline(never)]
    pub fn find<'t>(&self, text: &'t str) -> Option<regex_lite::Match<'t>> {
        self.0.find(text)
    }
}

/// Checks that `pattern` uses only ECMAScript constructs that regex-lite
/// reads the same way: literals, the classes `[...]` and `[^...]` of
/// characters and ranges, `\d \D \w \W \b \B` (ASCII in both), escaped
/// punctuation, `\n \r \t`, groups `(...)` and `(?:...)`, alternation, the
/// quantifiers `* + ? {n} {n,} {n,m}` (lazy or not) and the anchors `^ $`.
///
/// Refused, with the reason: `.` (ECMAScript also excludes `\r`, U+2028 and
/// U+2029), `\s` (ECMAScript's includes Unicode spaces), other escapes
/// (backreferences, `\p{..}`, `\u`, `\x`, `\c`), look-around, named groups
/// and inline flags, a `{` that is not a quantifier (a literal in
/// ECMAScript), and inside a class: `[` (a nested class in regex-lite), `]`
/// first (an empty class in ECMAScript) and `&&`, `--`, `~~` (set operations
/// in regex-lite).
pub fn ecmascript_subset(pattern: &str) -> Result<(), String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        match chars[at] {
            '\\' => at = escape(&chars, at, false)?,
            '[' => at = class(&chars, at)?,
            '.' => {
                return Err(format!(
                "`.` at {at} (ECMAScript's also excludes \\r, U+2028 and U+2029; write the class)"
            ))
            }
            '(' => {
                if chars.get(at + 1) == Some(&'?') {
                    if chars.get(at + 2) != Some(&':') {
                        return Err(format!(
                            "`(?` at {at}: only `(?:` groups (no look-around, named groups or flags)"
                        ));
                    }
                    at += 3;
                } else {
                    at += 1;
                }
            }
            '{' => at = quantifier(&chars, at)?,
            '}' => return Err(format!("`}}` at {at} without its `{{`")),
            _ => at += 1,
        }
    }
    Ok(())
}

/// The escape starting at `at` (a backslash); returns where the next token starts.
fn escape(chars: &[char], at: usize, in_class: bool) -> Result<usize, String> {
    let Some(&escaped) = chars.get(at + 1) else {
        return Err("a trailing `\\`".into());
    };
    let allowed = match escaped {
        'd' | 'D' | 'w' | 'W' | 'n' | 'r' | 't' => true,
        'b' | 'B' => !in_class, // in a class, ECMAScript's `\b` is a backspace
        c => c.is_ascii_punctuation(),
    };
    if allowed {
        Ok(at + 2)
    } else {
        Err(format!(
            "`\\{escaped}` at {at} (only \\d \\D \\w \\W \\b \\B \\n \\r \\t and escaped punctuation)"
        ))
    }
}

/// The class starting at `at` (a `[`); returns where the next token starts.
fn class(chars: &[char], at: usize) -> Result<usize, String> {
    let mut next = at + 1;
    if chars.get(next) == Some(&'^') {
        next += 1;
    }
    if chars.get(next) == Some(&']') {
        return Err(format!(
            "`]` first in the class at {at} (an empty class in ECMAScript)"
        ));
    }
    while let Some(&c) = chars.get(next) {
        match c {
            ']' => return Ok(next + 1),
            '\\' => next = escape(chars, next, true)?,
            '[' => return Err(format!("`[` inside the class at {at} (escape it)")),
            '&' | '-' | '~' if chars.get(next + 1) == Some(&c) => {
                return Err(format!(
                    "`{c}{c}` inside the class at {at} (a set operation in regex-lite)"
                ))
            }
            _ => next += 1,
        }
    }
    Err(format!("the class at {at} is not closed"))
}

/// The quantifier starting at `at` (a `{`); returns where the next token starts.
fn quantifier(chars: &[char], at: usize) -> Result<usize, String> {
    let close = chars[at..]
        .iter()
        .position(|&c| c == '}')
        .map(|offset| at + offset)
        .ok_or_else(|| format!("`{{` at {at} is not a quantifier (escape it)"))?;
    let inside: String = chars[at + 1..close].iter().collect();
    let (low, high) = inside.split_once(',').unwrap_or((&inside, "0"));
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if digits(low) && (high.is_empty() || digits(high)) {
        Ok(close + 1)
    } else {
        Err(format!(
            "`{{{inside}}}` at {at} is not a quantifier (escape the `{{`)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::{ecmascript_subset, Pattern};

    #[test]
    fn matches_the_documents_patterns() {
        let colour = Pattern::new("^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$").unwrap();
        assert!(colour.find("#a1B").is_some());
        assert!(colour.find("#a1B2c3").is_some());
        assert!(colour.find("#a1B2").is_none());
        assert!(colour.find("a1B").is_none());
        let country = Pattern::new("^[A-Z]{2}$").unwrap();
        assert!(country.find("DE").is_some());
        assert!(country.find("de").is_none());
        assert!(country.find("DE\n").is_none());
        let hex = Pattern::new(r"^[0-9a-f]{32}$").unwrap();
        assert!(hex.find(&"0a".repeat(16)).is_some());
        assert!(hex.find(&"0A".repeat(16)).is_none());
    }

    #[test]
    fn takes_the_shared_constructs() {
        for pattern in [
            r"^[A-Z]{2}$",
            r"^(?:ab|c)+?\d{2,}\w*\b$",
            r"^[^\]\-a-z]{1,3}\.\/$",
            r"^[-a]\D\W\B\n\r\t$",
        ] {
            assert_eq!(ecmascript_subset(pattern), Ok(()), "{pattern}");
            assert!(Pattern::new(pattern).is_ok(), "{pattern}");
        }
    }

    #[test]
    fn refuses_what_the_engines_read_differently_naming_it() {
        for (pattern, named) in [
            ("^a.b$", "`.`"),
            (r"^\s$", r"`\s`"),
            (r"^(a)\1$", r"`\1`"),
            (r"^\p{L}$", r"`\p`"),
            (r"^\u00e9$", r"`\u`"),
            ("^(?=a)a$", "`(?`"),
            ("^(?i)a$", "`(?`"),
            ("^(?<n>a)$", "`(?`"),
            ("^a{,2}$", "not a quantifier"),
            ("^a{x}$", "not a quantifier"),
            ("^{$", "not a quantifier"),
            ("^a}$", "`}`"),
            ("^[[a]]$", "`[` inside"),
            ("^[]a]$", "`]` first"),
            ("^[a&&b]$", "`&&`"),
            ("^[a--b]$", "`--`"),
            (r"^[\b]$", r"`\b`"),
            ("^[a$", "not closed"),
            ("^a\\", "trailing"),
        ] {
            let error = Pattern::new(pattern).unwrap_err();
            assert_eq!(error.pattern, pattern);
            assert!(
                error.reason.contains(named),
                "{pattern}: {} does not name {named}",
                error.reason
            );
        }
        assert!(Pattern::new("(").is_err());
    }
}
