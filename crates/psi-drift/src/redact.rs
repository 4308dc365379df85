//! Example values as a report shows them: never a secret, a token, a
//! signature or a whole IBAN, and never long.

use serde_json::Value;

/// Member names whose value is never shown (compared in lower case, as parts).
const SECRET_NAMES: &[&str] = &[
    "secret",
    "token",
    "password",
    "signature",
    "authorization",
    "assertion",
    "cookie",
];

/// Characters an example keeps before it is cut.
const MAX_CHARS: usize = 64;

/// The value as a report shows it; `member` is the name it was found under.
pub fn example(value: &Value, member: Option<&str>) -> String {
    let member = member.map(str::to_ascii_lowercase).unwrap_or_default();
    match value {
        Value::String(text) => {
            if SECRET_NAMES.iter().any(|name| member.contains(name)) {
                return "\"<redacted>\"".to_owned();
            }
            if member.contains("iban") || looks_like_iban(text) {
                return format!("\"{}\"", last_four(text));
            }
            let mut shown: String = text.chars().take(MAX_CHARS).collect();
            if shown.len() < text.len() {
                shown.push('…');
            }
            Value::String(shown).to_string()
        }
        Value::Number(_) | Value::Bool(_) | Value::Null => value.to_string(),
        Value::Array(items) => format!("array of {}", items.len()),
        Value::Object(members) => {
            let names: Vec<String> = members
                .keys()
                .take(8)
                .map(|name| Value::String(name.chars().take(32).collect()).to_string())
                .collect();
            let more = if members.len() > 8 { ", …" } else { "" };
            format!("object {{{}{more}}}", names.join(", "))
        }
    }
}

/// An IBAN's shape (two letters, two digits, 11 to 30 letters or digits;
/// spaces ignored): shown only by its last four characters.
pub fn looks_like_iban(text: &str) -> bool {
    let compact: Vec<u8> = text.bytes().filter(|b| *b != b' ').collect();
    (15..=34).contains(&compact.len())
        && compact[..2].iter().all(u8::is_ascii_alphabetic)
        && compact[2..4].iter().all(u8::is_ascii_digit)
        && compact[4..].iter().all(u8::is_ascii_alphanumeric)
}

/// `****1234`: all but the last four characters replaced.
pub fn last_four(text: &str) -> String {
    let compact: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    let keep = compact.len().min(4);
    let hidden = compact.len() - keep;
    let mut shown = "*".repeat(hidden.min(30));
    shown.extend(&compact[hidden..]);
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_and_ibans_are_never_shown() {
        assert_eq!(
            example(&json!("s3cr3t"), Some("client_secret")),
            "\"<redacted>\""
        );
        assert_eq!(
            example(&json!("eyJ.abc.def"), Some("access_token")),
            "\"<redacted>\""
        );
        assert_eq!(
            example(&json!("DE02120300000000202051"), Some("note")),
            "\"******************2051\""
        );
        assert_eq!(
            example(&json!("DE02 1203 0000 0000 2020 51"), Some("iban")),
            "\"******************2051\""
        );
        assert_eq!(example(&json!("OPEN"), Some("status")), "\"OPEN\"");
        assert_eq!(example(&json!(4.95), None), "4.95");
        assert_eq!(
            example(&json!({"a": 1, "b": 2}), None),
            "object {\"a\", \"b\"}"
        );
        let long = "x".repeat(100);
        assert_eq!(example(&json!(long), None).chars().count(), MAX_CHARS + 3);
    }
}
