//! The `pattern` check of the generated types.
//!
//! OpenAPI patterns are ECMAScript regular expressions. `cargo xtask
//! generate` compiles each one into a minimized DFA (with regex-automata,
//! after checking that the pattern keeps to the part of ECMAScript whose
//! meaning it can state exactly: `xtask/src/generate/patterns.rs`) and writes
//! its tables into the generated code. A [`Pattern`] walks those tables: no
//! regular expression engine is compiled into a user's build, and a value is
//! checked in one pass over its bytes. `tests/suite/patterns.rs` compares the
//! answers with an ECMAScript engine for every pattern in `openapi/`.

use std::fmt;

/// The dead state: no match can follow.
const DEAD: u16 = 0;

/// A pattern compiled at generation time (see the module's documentation).
pub struct Pattern {
    source: &'static str,
    start: u16,
    offsets: &'static [u16],
    ranges: &'static [(u8, u8, u16)],
    matched: &'static [u16],
    matched_at_end: &'static [u16],
}

impl Pattern {
    /// A pattern from the tables the generator wrote: the state before the
    /// first byte; per state `s`, its transitions
    /// `ranges[offsets[s]..offsets[s + 1]]` as `(first byte, last byte, next
    /// state)` (any other byte leads to state 0, the dead state); the states
    /// entered just after a match ended; and the states in which the end of
    /// the text completes a match.
    #[doc(hidden)]
    pub const fn from_tables(
        source: &'static str,
        start: u16,
        offsets: &'static [u16],
        ranges: &'static [(u8, u8, u16)],
        matched: &'static [u16],
        matched_at_end: &'static [u16],
    ) -> Self {
        Self {
            source,
            start,
            offsets,
            ranges,
            matched,
            matched_at_end,
        }
    }

    /// The pattern as the document writes it.
    pub fn as_str(&self) -> &'static str {
        self.source
    }

    /// Whether the pattern matches somewhere in `text`, as ECMAScript's
    /// `RegExp.prototype.test` (and JSON Schema's `pattern`) means.
    pub fn is_match(&self, text: &str) -> bool {
        let mut state = self.start;
        for &byte in text.as_bytes() {
            if state == DEAD {
                return false;
            }
            state = self.next(state, byte);
            if self.matched.contains(&state) {
                return true;
            }
        }
        self.matched_at_end.contains(&state)
    }

    fn next(&self, state: u16, byte: u8) -> u16 {
        let state = usize::from(state);
        let (from, to) = (self.offsets[state], self.offsets[state + 1]);
        self.ranges[usize::from(from)..usize::from(to)]
            .iter()
            .find(|&&(first, last, _)| (first..=last).contains(&byte))
            .map_or(DEAD, |&(_, _, next)| next)
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    /// `^[A-Z]{2}$`, as `cargo xtask generate` writes it
    /// (`xtask/src/generate/patterns.rs` checks the same tables).
    static TWO_LETTERS: Pattern = Pattern::from_tables(
        "^[A-Z]{2}$",
        1,
        &[0, 0, 1, 2, 2],
        &[(b'A', b'Z', 2), (b'A', b'Z', 3)],
        &[],
        &[3],
    );

    #[test]
    fn walks_the_tables() {
        assert!(TWO_LETTERS.is_match("DE"));
        for refused in ["", "D", "de", "DEU", "DE\n", " DE", "Ä"] {
            assert!(!TWO_LETTERS.is_match(refused), "{refused:?}");
        }
        assert_eq!(format!("{TWO_LETTERS:?}"), r#"Pattern("^[A-Z]{2}$")"#);
        assert_eq!(TWO_LETTERS.as_str(), "^[A-Z]{2}$");
    }
}
