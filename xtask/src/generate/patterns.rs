//! A `pattern` compiled at generation time.
//!
//! typify checks a `pattern` with a static `regress::Regex` built on first
//! use and `PATTERN.find(value).is_none()`, written into every type that has
//! one. The generated code carries the pattern already compiled instead: a
//! minimized DFA built here by regex-automata, written out once per distinct
//! pattern as a `psi_runtime::Pattern` static of the `types` module (two
//! types with the same pattern share it), so a user's build compiles no regular
//! expression engine at all and a value is checked in one pass over its
//! bytes.
//!
//! OpenAPI patterns are ECMAScript regular expressions, and regex-automata
//! reads Rust's syntax. [`ecmascript_subset`] first checks that the pattern
//! keeps to the part of ECMAScript that [`translated`] can say exactly in
//! Rust's syntax, and refuses anything else with the construct named, so a
//! document's pattern never silently means something else.
//! `tests/suite/patterns.rs` compares the compiled tables' answers with
//! regress (an ECMAScript engine) for every pattern in `openapi/`.

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::{primitives::StateID, start, syntax};
use regex_automata::Anchored;
use std::collections::HashMap;

/// A pattern's DFA as the generated code writes it (and
/// `psi_runtime::Pattern::from_tables` reads it). State 0 is the dead state:
/// no match can follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tables {
    /// The state before the first byte.
    pub start: u16,
    /// State `s`'s transitions are `ranges[offsets[s]..offsets[s + 1]]`.
    pub offsets: Vec<u16>,
    /// `(first byte, last byte, next state)`, ascending; a byte in no range
    /// leads to the dead state.
    pub ranges: Vec<(u8, u8, u16)>,
    /// States entered just after a match ended (the DFA reports a match one
    /// byte late): reaching one settles the answer.
    pub matched: Vec<u16>,
    /// States in which the end of the text completes a match.
    pub matched_at_end: Vec<u16>,
}

/// Compiles `pattern` (ECMAScript syntax, within [`ecmascript_subset`]) into
/// the tables of an unanchored search, as JSON Schema's `pattern` means.
pub fn compile(pattern: &str) -> Result<Tables, String> {
    ecmascript_subset(pattern)?;
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Unanchored)
                .minimize(true),
        )
        .syntax(syntax::Config::new().unicode(true).utf8(true))
        .build(&translated(pattern))
        .map_err(|e| e.to_string())?;
    let start = dfa
        .start_state(&start::Config::new().anchored(Anchored::No))
        .map_err(|e| e.to_string())?;

    // Number the states reachable from the start, breadth first; the dead
    // state is 0.
    let mut number: HashMap<StateID, u16> = HashMap::new();
    let mut order: Vec<StateID> = Vec::new();
    let mut numbered = |id: StateID, order: &mut Vec<StateID>| -> Result<u16, String> {
        if dfa.is_dead_state(id) {
            return Ok(0);
        }
        if dfa.is_quit_state(id) {
            return Err("the DFA gives up on some input (a Unicode word boundary?)".into());
        }
        if let Some(&n) = number.get(&id) {
            return Ok(n);
        }
        let n = u16::try_from(order.len() + 1).map_err(|_| "more than 65,535 DFA states")?;
        number.insert(id, n);
        order.push(id);
        Ok(n)
    };
    let start = numbered(start, &mut order)?;
    let mut tables = Tables {
        start,
        offsets: vec![0, 0],
        ranges: Vec::new(),
        matched: Vec::new(),
        matched_at_end: Vec::new(),
    };
    let mut at = 0;
    while at < order.len() {
        let id = order[at];
        let state = u16::try_from(at + 1).expect("numbered above");
        if dfa.is_match_state(id) {
            tables.matched.push(state);
        }
        if dfa.is_match_state(dfa.next_eoi_state(id)) {
            tables.matched_at_end.push(state);
        }
        let next: Vec<u16> = (0..=255u8)
            .map(|byte| numbered(dfa.next_state(id, byte), &mut order))
            .collect::<Result<_, _>>()?;
        // Runs of bytes with the same next state, but the dead one.
        let mut first = 0;
        for run in next.chunk_by(|a, b| a == b) {
            let last = first + run.len() - 1;
            if run[0] != 0 {
                tables.ranges.push((first as u8, last as u8, run[0]));
            }
            first = last + 1;
        }
        let end = u16::try_from(tables.ranges.len()).map_err(|_| "more than 65,535 ranges")?;
        tables.offsets.push(end);
        at += 1;
    }
    Ok(tables)
}

/// `pattern` (within [`ecmascript_subset`]) in Rust's regex syntax, with the
/// same meaning: ECMAScript's `\d \w \b` are ASCII where Rust's are Unicode,
/// and its `\<` and `\>` are the characters where Rust's are word boundaries.
pub fn translated(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut in_class = false;
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let escaped = chars
                    .next()
                    .expect("ecmascript_subset refuses a trailing `\\`");
                out.push_str(match (escaped, in_class) {
                    ('d', false) => "[0-9]",
                    ('d', true) => "0-9",
                    ('w', false) => "[0-9A-Za-z_]",
                    ('w', true) => "0-9A-Za-z_",
                    ('D', _) => "[^0-9]",
                    ('W', _) => "[^0-9A-Za-z_]",
                    ('b', _) => r"(?-u:\b)",
                    ('B', _) => r"(?-u:\B)",
                    ('<', _) => "<",
                    ('>', _) => ">",
                    _ => {
                        out.push('\\');
                        out.push(escaped);
                        continue;
                    }
                });
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().expect("peeked"));
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Checks that `pattern` uses only ECMAScript constructs that [`translated`]
/// says exactly: literals, the classes `[...]` and `[^...]` of characters
/// and ranges, `\d \D \w \W \b \B` (ASCII in ECMAScript), escaped
/// punctuation, `\n \r \t`, groups `(...)` and `(?:...)`, alternation, the
/// quantifiers `* + ? {n} {n,} {n,m}` (lazy or not) and the anchors `^ $`.
///
/// Refused, with the reason: `.` (ECMAScript's also excludes `\r`, U+2028
/// and U+2029), `\s` (ECMAScript's includes Unicode spaces), other escapes
/// (backreferences, `\p{..}`, `\u`, `\x`, `\c`), look-around, named groups
/// and inline flags, a `{` that is not a quantifier (a literal in
/// ECMAScript), and inside a class: `[` (a nested class in Rust's syntax),
/// `]` first (an empty class in ECMAScript) and `&&`, `--`, `~~` (set
/// operations in Rust's syntax).
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
                    "`{c}{c}` inside the class at {at} (a set operation in Rust's syntax)"
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

/// typify's check, as the token text of the generated code shows it.
const STATIC_HEAD: &str =
    "static PATTERN : :: std :: sync :: LazyLock < :: regress :: Regex > = :: std :: sync :: LazyLock :: new (| | { :: regress :: Regex :: new (";
const STATIC_TAIL: &str = ") . unwrap () }) ;";
const CHECK: &str = "PATTERN . find (value) . is_none ()";

/// Replaces every pattern typify compiles on first use with its tables,
/// compiled here once per distinct pattern as a static of the `types`
/// module (`PATTERN_0`, ...) that the check names, and its check with
/// `psi_runtime::Pattern::is_match`; an error naming the pattern when it
/// leaves the subset, and an error when regress shows up in another shape
/// (typify's output changed).
pub fn compiled_at_generation(file: &mut syn::File) -> Result<(), String> {
    use quote::ToTokens;
    let text = file.to_token_stream().to_string();
    if !text.contains(":: regress ::") {
        return Ok(());
    }
    let mut patterns: Vec<String> = Vec::new();
    let mut rewritten = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(STATIC_HEAD) {
        rewritten.push_str(&rest[..at]);
        let after = &rest[at + STATIC_HEAD.len()..];
        let end = after
            .find(STATIC_TAIL)
            .ok_or("typify's pattern static has another shape")?;
        let literal: syn::LitStr = syn::parse_str(&after[..end])
            .map_err(|e| format!("typify's pattern is not a string literal: {e}"))?;
        let pattern = literal.value();
        let index = match patterns.iter().position(|known| *known == pattern) {
            Some(index) => index,
            None => {
                patterns.push(pattern);
                patterns.len() - 1
            }
        };
        // The check sits in a function of the `types` module: `self` is it.
        rewritten.push_str(&format!("use self :: PATTERN_{index} as PATTERN ;"));
        rest = &after[end + STATIC_TAIL.len()..];
    }
    rewritten.push_str(rest);
    let rewritten = rewritten.replace(CHECK, "! PATTERN . is_match (value)");
    if rewritten.contains(":: regress ::") || rewritten.contains("PATTERN . find") {
        return Err(
            "the generated code uses regress in a shape xtask/src/generate/patterns.rs \
             does not know: check it and psi_runtime::Pattern"
                .into(),
        );
    }
    *file =
        syn::parse_str(&rewritten).map_err(|e| format!("pattern rewrite does not parse: {e}"))?;
    let types = super::items::module_items(&mut file.items, "types")
        .ok_or("patterns outside a `types` module")?;
    for (index, pattern) in patterns.iter().enumerate() {
        let tables = compile(pattern).map_err(|e| format!("pattern {pattern:?}: {e}"))?;
        types
            .push(syn::parse2(pattern_static(index, pattern, &tables)).map_err(|e| e.to_string())?);
    }
    Ok(())
}

/// `static PATTERN_<index>: ::psi_runtime::Pattern = ...;` with `tables`.
fn pattern_static(index: usize, pattern: &str, tables: &Tables) -> proc_macro2::TokenStream {
    let Tables {
        start,
        offsets,
        ranges,
        matched,
        matched_at_end,
    } = tables;
    use proc_macro2::Literal;
    // Printable bytes as `b'A'`, the rest as numbers; no type suffixes.
    let byte = |b: u8| match b {
        b'!'..=b'~' if b != b'\'' && b != b'\\' => Literal::byte_character(b),
        _ => Literal::u8_unsuffixed(b),
    };
    let number = |n: &u16| Literal::u16_unsuffixed(*n);
    let (start, offsets, matched, matched_at_end) = (
        number(start),
        offsets.iter().map(number),
        matched.iter().map(number),
        matched_at_end.iter().map(number),
    );
    let ranges = ranges.iter().map(|&(first, last, next)| {
        let (first, last, next) = (byte(first), byte(last), number(&next));
        quote::quote!((#first, #last, #next))
    });
    let name = quote::format_ident!("PATTERN_{index}");
    let doc = format!(" `{pattern}`, compiled by `cargo xtask generate`.");
    quote::quote! {
        #[doc = #doc]
        static #name: ::psi_runtime::Pattern = ::psi_runtime::Pattern::from_tables(
            #pattern,
            #start,
            &[#(#offsets),*],
            &[#(#ranges),*],
            &[#(#matched),*],
            &[#(#matched_at_end),*],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{compile, ecmascript_subset, translated};

    #[test]
    fn translates_what_rust_reads_differently() {
        assert_eq!(
            translated(r"^\d\w[\d\w]$"),
            "^[0-9][0-9A-Za-z_][0-90-9A-Za-z_]$"
        );
        assert_eq!(
            translated(r"\D[\W]\b\B"),
            r"[^0-9][[^0-9A-Za-z_]](?-u:\b)(?-u:\B)"
        );
        assert_eq!(translated(r"\<\>\.\-\n"), r"<>\.\-\n");
        assert_eq!(translated("^[^a-z]{2}$"), "^[^a-z]{2}$");
    }

    #[test]
    fn takes_the_shared_constructs() {
        for pattern in [
            r"^[A-Z]{2}$",
            r"^(?:ab|c)+?\d{2,}\w*\b$",
            r"^[^\]\-a-z]{1,3}\.\/$",
            r"^[-a]\D\W\B\n\r\t$",
            r"a\<b\>",
        ] {
            assert_eq!(ecmascript_subset(pattern), Ok(()), "{pattern}");
            assert!(
                compile(pattern).is_ok(),
                "{pattern}: {:?}",
                compile(pattern)
            );
        }
    }

    #[test]
    fn refuses_what_rust_reads_differently_naming_it() {
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
            let error = compile(pattern).unwrap_err();
            assert!(
                error.contains(named),
                "{pattern}: {error} does not name {named}"
            );
        }
        assert!(compile("(").is_err());
    }

    #[test]
    fn tables_of_a_two_letter_code() {
        let tables = compile("^[A-Z]{2}$").unwrap();
        // start -(A-Z)-> one letter -(A-Z)-> two letters -(end)-> match
        assert_eq!(tables.start, 1);
        assert_eq!(tables.ranges[0], (b'A', b'Z', 2));
        assert_eq!(tables.ranges.len(), 2);
        assert_eq!(tables.offsets, vec![0, 0, 1, 2, 2]);
        assert!(tables.matched.is_empty());
        assert_eq!(tables.matched_at_end, vec![3]);
    }
}
