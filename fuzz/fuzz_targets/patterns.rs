//! Every document `pattern`, as compiled into a DFA table at generation
//! time and checked by the generated type that carries it, against the
//! `regex` crate on arbitrary strings.
//!
//! The tables are private statics of the generated crates: they are reached
//! through the types' own checks (`FromStr`, strict `Deserialize`), which
//! test a value's length (in characters) before the pattern. So a probe of
//! the right length answers exactly as the pattern does, and one of another
//! length is refused for its length whatever the pattern says.
//!
//! The reference is `regex::bytes` with Unicode off, on the probe's UTF-8
//! bytes: the ECMAScript meaning (without flags) of the subset psi allows
//! (`xtask/src/generate/patterns.rs`): `^`/`$` anchor the whole text only
//! (no multi-line, and Rust's `$`, like ECMAScript's, does not match before
//! a final line feed), classes and `\d \w \b` are ASCII, and a match
//! anywhere counts (`RegExp.prototype.test`). Without `.` or negated
//! classes in the documents, a byte and a UTF-16 code unit answer alike.
//!
//! Also: inside `psi_runtime::leniency::lenient` every string decodes and
//! keeps its text; the list below is every pattern of the bundled
//! documents (checked on the first run, so a new pattern fails here until
//! it is listed).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeSet;
use std::str::FromStr;
use std::sync::OnceLock;

/// A generated type with a pattern: its pattern, its length bounds in
/// characters, its `FromStr` and strict and lenient JSON decoding.
struct Constrained {
    name: &'static str,
    pattern: &'static str,
    length: (usize, usize),
    parse: fn(&str) -> Result<(), String>,
    decode: fn(serde_json::Value) -> Result<String, String>,
}

macro_rules! constrained {
    ($type:ty, $pattern:literal, $length:expr) => {
        Constrained {
            name: stringify!($type),
            pattern: $pattern,
            length: $length,
            parse: |text| <$type>::from_str(text).map(drop).map_err(|e| e.to_string()),
            decode: |value| {
                serde_json::from_value::<$type>(value)
                    .map(String::from)
                    .map_err(|e| e.to_string())
            },
        }
    };
}

const UNBOUNDED: (usize, usize) = (0, usize::MAX);

fn types() -> [Constrained; 5] {
    [
        constrained!(psi_common::CountryCode, "^[A-Z]{2}$", (2, 2)),
        constrained!(psi_common::CurrencyCode, "^[A-Z]{3}$", (3, 3)),
        constrained!(
            psi_shop_config::types::HexColor,
            "^#?([0-9A-Fa-f]{3}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$",
            UNBOUNDED
        ),
        constrained!(psi_storefront::types::OrderId, "^[0-9a-f]{32}$", (32, 32)),
        constrained!(psi_storefront::types::TaxId, "^[0-9a-f]{32}$", (32, 32)),
    ]
}

struct Checked {
    types: [Constrained; 5],
    references: Vec<regex::bytes::Regex>,
}

fn checked() -> &'static Checked {
    static CHECKED: OnceLock<Checked> = OnceLock::new();
    CHECKED.get_or_init(|| {
        let types = types();
        let listed: BTreeSet<&str> = types.iter().map(|t| t.pattern).collect();
        assert_eq!(
            listed,
            document_patterns(),
            "list every pattern of the documents here, with a type that carries it"
        );
        let references = types
            .iter()
            .map(|t| {
                regex::bytes::RegexBuilder::new(t.pattern)
                    .unicode(false)
                    .build()
                    .unwrap()
            })
            .collect();
        Checked { types, references }
    })
}

/// Every `pattern` of the bundled documents.
fn document_patterns() -> BTreeSet<&'static str> {
    fn collect(value: &'static serde_json::Value, found: &mut BTreeSet<&'static str>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    match value {
                        serde_json::Value::String(pattern) if key == "pattern" => {
                            found.insert(pattern);
                        }
                        value => collect(value, found),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|i| collect(i, found)),
            _ => {}
        }
    }
    let mut found = BTreeSet::new();
    for text in psi_fuzz_documents() {
        let document: &'static serde_json::Value =
            Box::leak(Box::new(serde_json::from_str(text).unwrap()));
        collect(document, &mut found);
    }
    found
}

fn psi_fuzz_documents() -> [&'static str; 8] {
    [
        include_str!("../../crates/psi-drift/documents/bank-accounts.json"),
        include_str!("../../crates/psi-drift/documents/order-status.json"),
        include_str!("../../crates/psi-drift/documents/pay-later.json"),
        include_str!("../../crates/psi-drift/documents/payment-page.json"),
        include_str!("../../crates/psi-drift/documents/shop-config.json"),
        include_str!("../../crates/psi-drift/documents/storefront.json"),
        include_str!("../../crates/psi-drift/documents/token.json"),
        include_str!("../../crates/psi-drift/documents/transaction-status.json"),
    ]
}

/// The characters the patterns' classes are made of, and their neighbours.
const ALPHABET: &[char] = &[
    '0', '1', '9', 'a', 'f', 'g', 'z', 'A', 'F', 'G', 'Z', '#', '\n', '\r', ' ', '-', '@', '[',
    '`', '{', '/', ':', 'é', 'Ａ', '\u{0}',
];

#[derive(Debug, Arbitrary)]
enum Probe {
    Raw(String),
    /// Characters from [`ALPHABET`], each byte read modulo its length.
    Alphabet(Vec<u8>),
    /// A probe of a type's exact length: its index and the alphabet's.
    Sized(u8, Vec<u8>),
}

fn text(probe: &Probe) -> String {
    let from = |bytes: &[u8]| -> String {
        bytes
            .iter()
            .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()])
            .collect()
    };
    match probe {
        Probe::Raw(text) => text.clone(),
        Probe::Alphabet(bytes) => from(bytes),
        Probe::Sized(which, bytes) => {
            let lengths = [2, 3, 4, 7, 9, 32];
            let length = lengths[usize::from(*which) % lengths.len()];
            from(
                &bytes
                    .iter()
                    .copied()
                    .cycle()
                    .take(length)
                    .collect::<Vec<_>>(),
            )
        }
    }
}

/// A run's input: arbitrary probes, or a seed of the checked-in corpus
/// (the four bytes `ff ff ff ff` choose it) whose lines are the probes
/// (fuzz/seeds.py: the documents' examples of the constrained values).
#[derive(Debug, Arbitrary)]
enum Case {
    Fuzzed(Vec<Probe>),
    Seed(String),
}

fuzz_target!(|case: Case| {
    let texts: Vec<String> = match case {
        Case::Fuzzed(probes) => probes.iter().map(text).collect(),
        Case::Seed(lines) => lines.lines().map(str::to_owned).collect(),
    };
    let checked = checked();
    for text in texts {
        let length = text.chars().count();
        for (constrained, reference) in checked.types.iter().zip(&checked.references) {
            let matches = reference.is_match(text.as_bytes());
            let fits = (constrained.length.0..=constrained.length.1).contains(&length);
            let parsed = (constrained.parse)(&text);
            assert_eq!(
                parsed.is_ok(),
                fits && matches,
                "{} {:?} on {text:?}: {parsed:?}",
                constrained.name,
                constrained.pattern
            );
            if fits && !matches {
                assert!(
                    parsed.as_ref().is_err_and(|e| e.contains("pattern")),
                    "{}: {parsed:?}",
                    constrained.name
                );
            }
            let strict = (constrained.decode)(serde_json::Value::String(text.clone()));
            assert_eq!(
                strict.is_ok(),
                parsed.is_ok(),
                "{}: {text:?}",
                constrained.name
            );
            let lenient = psi_runtime::leniency::lenient(|| {
                (constrained.decode)(serde_json::Value::String(text.clone()))
            });
            assert_eq!(
                lenient.as_deref(),
                Ok(text.as_str()),
                "{}",
                constrained.name
            );
        }
    }
});
