//! The documents' `pattern`s as the generated types check them: compiled
//! into DFA tables by `cargo xtask generate` (within a subset of ECMAScript's
//! syntax) and walked by `psi_runtime::Pattern`, against an ECMAScript engine
//! (regress), for every `pattern` in `openapi/`: the generated types must
//! accept and refuse exactly what the documents' patterns mean. A new
//! document whose pattern leaves the subset fails here with the construct
//! named.

use psi_runtime::Pattern;
use xtask::generate::patterns::{compile, Tables};

/// The runtime's pattern over the tables the generator writes for `pattern`.
fn compiled(pattern: &str) -> Result<Pattern, String> {
    let Tables {
        start,
        offsets,
        ranges,
        matched,
        matched_at_end,
    } = compile(pattern)?;
    // The generated code's tables are `'static`; so are these, for the test.
    let keep = |values: Vec<u16>| -> &'static [u16] { values.leak() };
    Ok(Pattern::from_tables(
        String::from(pattern).leak(),
        start,
        keep(offsets),
        ranges.leak(),
        keep(matched),
        keep(matched_at_end),
    ))
}

/// Every string value of a `pattern` key in every document.
fn document_patterns() -> Vec<(String, String)> {
    fn collect(value: &serde_yaml::Value, document: &str, found: &mut Vec<(String, String)>) {
        match value {
            serde_yaml::Value::Mapping(map) => {
                for (key, value) in map {
                    match (key.as_str(), value.as_str()) {
                        (Some("pattern"), Some(pattern)) => {
                            found.push((document.to_owned(), pattern.to_owned()))
                        }
                        _ => collect(value, document, found),
                    }
                }
            }
            serde_yaml::Value::Sequence(items) => {
                items.iter().for_each(|item| collect(item, document, found))
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    let folder = crate::workspace_root().join("openapi");
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).unwrap();
            let document: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
            collect(&document, &path.display().to_string(), &mut found);
        }
    }
    found
}

/// Probe strings: random strings over alphabets that hit the documents'
/// classes (so some probes match), of every length up to 40, plus a few by
/// hand (among them transaction ids, `12-` and 17 digits, which no random
/// string is).
fn probes() -> Vec<String> {
    const ALPHABETS: [&str; 5] = [
        "0123456789abcdef",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "#0123456789abcdefABCDEF",
        "#0123456789abcdefgABCDEFGZz-_ .\n\r\té€",
        "aA0#",
    ];
    let mut rng = fastrand::Rng::with_seed(12);
    let mut probes: Vec<String> = [
        "",
        "\n",
        "DE\n",
        "\nDE",
        "#fff\n",
        "ÄB",
        "𝔸B",
        "12-34567890123456789",
        "12-3456789012345678",
        "12-34567890123456789\n",
    ]
    .map(String::from)
    .to_vec();
    for alphabet in ALPHABETS {
        let chars: Vec<char> = alphabet.chars().collect();
        for length in 0..=40 {
            for _ in 0..40 {
                probes.push(
                    (0..length)
                        .map(|_| chars[rng.usize(..chars.len())])
                        .collect(),
                );
            }
        }
    }
    probes
}

#[test]
fn every_document_pattern_matches_as_ecmascript_does() {
    let patterns = document_patterns();
    assert!(patterns.len() >= 5, "found only {patterns:?}");
    let probes = probes();
    for (document, pattern) in patterns {
        let ours = compiled(&pattern)
            .unwrap_or_else(|e| panic!("{document}: {e} (write it in the subset)"));
        let ecmascript = regress::Regex::new(&pattern).unwrap();
        let mut matched = 0;
        for probe in &probes {
            let expected = ecmascript.find(probe).is_some();
            assert_eq!(
                ours.is_match(probe),
                expected,
                "{document}: pattern {pattern:?} on {probe:?}"
            );
            matched += usize::from(expected);
        }
        // Both answers occur, so a disagreement either way would show.
        assert!(
            matched > 0 && matched < probes.len(),
            "{pattern}: {matched} of {} probes match",
            probes.len()
        );
    }
}

/// Every construct of the subset, translated into Rust's syntax by the
/// generator, against regress on probes over an alphabet that exercises them
/// (the documents use few of them today; a new document may use any).
#[test]
fn every_construct_of_the_subset_matches_as_ecmascript_does() {
    const ALPHABET: &str = "ab09_ -.]\\\n\r\t<>#é";
    let chars: Vec<char> = ALPHABET.chars().collect();
    let mut rng = fastrand::Rng::with_seed(7);
    let probes: Vec<String> = (0..4000)
        .map(|i| {
            (0..i % 9)
                .map(|_| chars[rng.usize(..chars.len())])
                .collect()
        })
        .collect();
    for pattern in [
        r"^\d+$",
        r"\D",
        r"^\w*$",
        r"\W",
        r"\ba",
        r"a\b",
        r"\Ba",
        r"^[\d_]{2,3}$",
        r"^[^\w]$",
        r"[\D]",
        r"[\W]",
        r"^(?:ab|b)+?0{1,}$",
        r"^[^\]\-a-b]{1,3}\.$",
        r"\<a\>",
        r"\n|\r|\t",
        r"é",
        r"a|$",
        r"^$",
        "]",
    ] {
        let ours = compiled(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        let ecmascript = regress::Regex::new(pattern).unwrap();
        for probe in &probes {
            assert_eq!(
                ours.is_match(probe),
                ecmascript.find(probe).is_some(),
                "pattern {pattern:?} on {probe:?}"
            );
        }
    }
}
