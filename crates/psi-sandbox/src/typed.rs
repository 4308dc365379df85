//! Request bodies into the generated types, the sandbox's own way.
//!
//! A body is parsed into its type, and every number the type took (a
//! declared field: fields the type does not know are not the sandbox's
//! business) must be held exactly: written with more digits than a
//! `Decimal` has, or beyond its range, it is refused naming the field and
//! the limit, never rounded ([`crate::numbers`] has the rule). Paths are JSON
//! paths (`$.order_data.shop_baskets[0].gross_amount`) and never name
//! serde_json's private number key.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// A body the type cannot take: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `$.order_data.currency`, or `$` for the whole body.
    pub json_path: String,
    pub rule: String,
}

/// Parses `text` as `T`; see the module documentation.
pub fn parse<T: DeserializeOwned + Serialize>(text: &str) -> Result<T, Refusal> {
    let original: Value = serde_json::from_str(text).map_err(|error| Refusal {
        json_path: "$".to_owned(),
        rule: format!("is not a JSON document: {error}"),
    })?;
    let deserializer = &mut serde_json::Deserializer::from_str(text);
    let typed: T = serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let segments: Vec<Segment> = error.path().iter().filter_map(Segment::of).collect();
        let json_path = render(&segments);
        // A number the type could not take because no decimal holds it:
        // say that, not the decimal library's words.
        let rule = match lookup(&original, &segments) {
            Some(Value::Number(number)) => match crate::numbers::exact(&number.to_string()) {
                Err(limit) => limit.to_owned(),
                Ok(_) => crate::errors::public_rule(&error.into_inner().to_string()),
            },
            _ => crate::errors::public_rule(&error.into_inner().to_string()),
        };
        Refusal { json_path, rule }
    })?;
    let taken = serde_json::to_value(&typed).map_err(|error| Refusal {
        json_path: "$".to_owned(),
        rule: error.to_string(),
    })?;
    let mut path = Vec::new();
    rounded(&original, &taken, &mut path)?;
    Ok(typed)
}

/// One step of a JSON path.
#[derive(Debug, Clone)]
enum Segment {
    Key(String),
    Index(usize),
}

impl Segment {
    fn of(segment: &serde_path_to_error::Segment) -> Option<Segment> {
        use serde_path_to_error::Segment as S;
        match segment {
            S::Seq { index } => Some(Segment::Index(*index)),
            S::Map { key } if key == crate::errors::SERDE_JSON_NUMBER_KEY => None,
            S::Map { key } | S::Enum { variant: key } => Some(Segment::Key(key.clone())),
            S::Unknown => None,
        }
    }
}

fn render(segments: &[Segment]) -> String {
    let mut path = String::from("$");
    for segment in segments {
        match segment {
            Segment::Key(key) => {
                path.push('.');
                path.push_str(key);
            }
            Segment::Index(index) => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

fn lookup<'v>(value: &'v Value, segments: &[Segment]) -> Option<&'v Value> {
    segments
        .iter()
        .try_fold(value, |value, segment| match segment {
            Segment::Key(key) => value.get(key),
            Segment::Index(index) => value.get(index),
        })
}

/// The first number the type took whose original text it does not hold
/// exactly (rounded by the decimal type, or beyond it).
fn rounded(original: &Value, taken: &Value, path: &mut Vec<Segment>) -> Result<(), Refusal> {
    match (original, taken) {
        (Value::Number(sent), Value::Number(held)) => {
            let refusal = |rule: String| Refusal {
                json_path: render(path),
                rule,
            };
            let sent =
                crate::numbers::exact(&sent.to_string()).map_err(|l| refusal(l.to_owned()))?;
            let held =
                crate::numbers::exact(&held.to_string()).map_err(|l| refusal(l.to_owned()))?;
            if sent != held {
                return Err(refusal(crate::numbers::TOO_MANY_DIGITS.to_owned()));
            }
        }
        (Value::Object(sent), Value::Object(held)) => {
            for (key, held) in held {
                if let Some(sent) = sent.get(key) {
                    path.push(Segment::Key(key.clone()));
                    rounded(sent, held, path)?;
                    path.pop();
                }
            }
        }
        (Value::Array(sent), Value::Array(held)) => {
            for (index, (sent, held)) in sent.iter().zip(held).enumerate() {
                path.push(Segment::Index(index));
                rounded(sent, held, path)?;
                path.pop();
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    #[derive(serde::Deserialize, serde::Serialize, Debug)]
    struct Basket {
        gross_amount: Option<Decimal>,
        #[serde(default)]
        lines: Vec<Decimal>,
    }

    #[test]
    fn declared_numbers_are_exact_or_refused_and_others_are_ignored() {
        let basket: Basket = parse(r#"{"gross_amount": 43.8, "extra": 1e400}"#).unwrap();
        assert_eq!(basket.gross_amount.unwrap().to_string(), "43.8");
        let refused = parse::<Basket>(r#"{"gross_amount": 43.80000000000000000000000000000001}"#)
            .unwrap_err();
        assert_eq!(refused.json_path, "$.gross_amount");
        let refused = parse::<Basket>(r#"{"lines": [1, 1e30]}"#).unwrap_err();
        assert_eq!(refused.json_path, "$.lines[1]");
        assert!(refused.rule.contains("range"), "{}", refused.rule);
        let refused = parse::<Basket>(r#"{"gross_amount": 1e-30}"#).unwrap_err();
        assert_eq!(refused.json_path, "$.gross_amount");
        assert!(!refused.rule.contains("serde_json"));
    }
}
