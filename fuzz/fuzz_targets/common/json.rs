//! Structure-aware JSON for the targets that decode bodies: a tree built
//! from `arbitrary` bytes, with member names and strings mostly from the
//! documents' own words, numbers as text, written out without serde_json's
//! number handling. Shared by `lenient_decode` and `sandbox_requests`.

use arbitrary::{Arbitrary, Unstructured};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The bundled documents (what the sandbox serves and psi-drift checks).
pub const DOCUMENTS: [(&str, &str); 8] = [
    (
        "bank-accounts",
        include_str!("../../../crates/psi-drift/documents/bank-accounts.json"),
    ),
    (
        "order-status",
        include_str!("../../../crates/psi-drift/documents/order-status.json"),
    ),
    (
        "pay-later",
        include_str!("../../../crates/psi-drift/documents/pay-later.json"),
    ),
    (
        "payment-page",
        include_str!("../../../crates/psi-drift/documents/payment-page.json"),
    ),
    (
        "shop-config",
        include_str!("../../../crates/psi-drift/documents/shop-config.json"),
    ),
    (
        "storefront",
        include_str!("../../../crates/psi-drift/documents/storefront.json"),
    ),
    (
        "token",
        include_str!("../../../crates/psi-drift/documents/token.json"),
    ),
    (
        "transaction-status",
        include_str!("../../../crates/psi-drift/documents/transaction-status.json"),
    ),
];

/// The documents' words: every property name, and every string anywhere
/// (enum values, examples, formats).
pub struct Words {
    pub names: Vec<String>,
    pub strings: Vec<String>,
}

impl Words {
    pub fn of_documents() -> Self {
        let (mut names, mut strings) = (BTreeSet::new(), BTreeSet::new());
        for (_, text) in DOCUMENTS {
            let document: serde_json::Value = serde_json::from_str(text).unwrap();
            collect(&document, &mut names, &mut strings);
        }
        Words {
            names: names.into_iter().collect(),
            strings: strings.into_iter().collect(),
        }
    }
}

fn collect(
    value: &serde_json::Value,
    names: &mut BTreeSet<String>,
    strings: &mut BTreeSet<String>,
) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, value) in map {
                if key == "properties" {
                    if let Some(properties) = value.as_object() {
                        names.extend(properties.keys().cloned());
                    }
                }
                collect(value, names, strings);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|i| collect(i, names, strings)),
        serde_json::Value::String(text) => {
            strings.insert(text.clone());
        }
        _ => {}
    }
}

/// A JSON tree; numbers are text, so a number no `f64` or decimal holds
/// exactly reaches the decoder as written.
#[derive(Debug, Clone)]
pub enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// One of `words` mostly, any string sometimes.
pub fn word(u: &mut Unstructured, words: &[String]) -> arbitrary::Result<String> {
    Ok(if words.is_empty() || u.ratio(1, 8)? {
        String::arbitrary(u)?
    } else {
        words[usize::from(u16::arbitrary(u)?) % words.len()].clone()
    })
}

/// A number's text in JSON's syntax, up to 32 digits before and after the
/// point and an exponent of up to four digits.
pub fn number(u: &mut Unstructured) -> arbitrary::Result<String> {
    let digits = |u: &mut Unstructured, most: usize| -> arbitrary::Result<String> {
        let count = u.int_in_range(1..=most)?;
        (0..count)
            .map(|_| Ok(char::from(b'0' + u.int_in_range(0..=9)?)))
            .collect()
    };
    let mut text = String::new();
    if bool::arbitrary(u)? {
        text.push('-');
    }
    text.push_str(&digits(u, 32)?);
    if bool::arbitrary(u)? {
        text.push('.');
        text.push_str(&digits(u, 32)?);
    }
    if u.ratio(1, 4)? {
        text.push(*u.choose(&['e', 'E'])?);
        text.push_str(u.choose(&["", "+", "-"])?);
        text.push_str(&digits(u, 4)?);
    }
    Ok(text)
}

/// A tree `depth` levels down; scalars only below eight levels.
pub fn tree(u: &mut Unstructured, words: &Words, depth: u32) -> arbitrary::Result<Json> {
    let most = if depth > 8 { 3 } else { 5 };
    Ok(match u.int_in_range(0..=most)? {
        0 => Json::Null,
        1 => Json::Bool(bool::arbitrary(u)?),
        2 => Json::Number(number(u)?),
        3 => Json::String(word(u, &words.strings)?),
        4 => {
            let mut items = Vec::new();
            while items.len() < 8 && u.arbitrary()? {
                items.push(tree(u, words, depth + 1)?);
            }
            Json::Array(items)
        }
        _ => object(u, words, depth)?,
    })
}

/// An object of up to 24 members named from the documents.
pub fn object(u: &mut Unstructured, words: &Words, depth: u32) -> arbitrary::Result<Json> {
    let mut members = Vec::new();
    while members.len() < 24 && u.arbitrary()? {
        members.push((word(u, &words.names)?, tree(u, words, depth + 1)?));
    }
    Ok(Json::Object(members))
}

impl Json {
    /// The tree from a parsed value (numbers keep serde_json's text).
    pub fn from_value(value: &serde_json::Value) -> Json {
        match value {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(value) => Json::Bool(*value),
            serde_json::Value::Number(number) => Json::Number(number.to_string()),
            serde_json::Value::String(text) => Json::String(text.clone()),
            serde_json::Value::Array(items) => {
                Json::Array(items.iter().map(Json::from_value).collect())
            }
            serde_json::Value::Object(map) => Json::Object(
                map.iter()
                    .map(|(name, value)| (name.clone(), Json::from_value(value)))
                    .collect(),
            ),
        }
    }

    /// The tree with one change somewhere: a member's or an item's value
    /// replaced by another tree, a member dropped, or one added.
    pub fn mutate(&mut self, u: &mut Unstructured, words: &Words) -> arbitrary::Result<()> {
        match self {
            Json::Object(members) if !members.is_empty() && u.ratio(3, 4)? => {
                let at = u.choose_index(members.len())?;
                match u.int_in_range(0..=3)? {
                    0 => {
                        members.remove(at);
                    }
                    1 => members[at].1 = tree(u, words, 1)?,
                    2 => members.push((word(u, &words.names)?, tree(u, words, 1)?)),
                    _ => members[at].1.mutate(u, words)?,
                }
            }
            Json::Array(items) if !items.is_empty() && u.ratio(3, 4)? => {
                let at = u.choose_index(items.len())?;
                items[at].mutate(u, words)?;
            }
            other => *other = tree(u, words, 1)?,
        }
        Ok(())
    }

    /// The text of the tree.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(value) => write!(out, "{value}").unwrap(),
            Json::Number(text) => out.push_str(text),
            Json::String(text) => out.push_str(&serde_json::to_string(text).unwrap()),
            Json::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                out.push('{');
                for (index, (name, value)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(name).unwrap());
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}
