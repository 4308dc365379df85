//! `psi_runtime::Pattern` (regex-lite, within a shared subset of ECMAScript's
//! syntax) against an ECMAScript engine (regress), for every `pattern` in
//! `openapi/`: the generated types must accept and refuse exactly what the
//! documents' patterns mean. A new document whose pattern leaves the shared
//! subset fails here with the construct named.

use psi_runtime::Pattern;

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
/// classes (so some probes match), of every length up to 40, plus a few by hand.
fn probes() -> Vec<String> {
    const ALPHABETS: [&str; 5] = [
        "0123456789abcdef",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "#0123456789abcdefABCDEF",
        "#0123456789abcdefgABCDEFGZz-_ .\n\r\té€",
        "aA0#",
    ];
    let mut rng = fastrand::Rng::with_seed(12);
    let mut probes: Vec<String> = ["", "\n", "DE\n", "\nDE", "#fff\n", "ÄB", "𝔸B"]
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
        let ours = Pattern::new(&pattern)
            .unwrap_or_else(|e| panic!("{document}: {e} (write it in the shared subset)"));
        let ecmascript = regress::Regex::new(&pattern).unwrap();
        let mut matched = 0;
        for probe in &probes {
            let expected = ecmascript.find(probe).is_some();
            assert_eq!(
                ours.find(probe).is_some(),
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
