//! Request bodies into the generated types, the sandbox's own way.
//!
//! A body is parsed straight from its text into its type. Every number a
//! declared field takes is a `psi_runtime::Decimal`, which reads the
//! number's own text and refuses one no decimal holds (more digits than it
//! has, or beyond its range) naming the limit, never rounding it; fields the
//! type does not know are not the sandbox's business. Paths are JSON paths
//! (`$.order_data.shop_baskets[0].gross_amount`) and never name serde_json's
//! private keys.

use serde::de::DeserializeOwned;

/// A body the type cannot take: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `$.order_data.currency`, or `$` for the whole body.
    pub json_path: String,
    pub rule: String,
}

/// Parses `text` as `T`; see the module documentation.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, Refusal> {
    if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        return Err(Refusal {
            json_path: "$".to_owned(),
            rule: format!("is not a JSON document: {error}"),
        });
    }
    let deserializer = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let segments: Vec<Segment> = error.path().iter().filter_map(Segment::of).collect();
        let error = error.into_inner();
        let message = error.to_string();
        // A number no decimal holds: the decimal's words name the limit; the
        // path says where, so serde_json's line and column go.
        let position = format!(" at line {} column {}", error.line(), error.column());
        let rule = match message.strip_suffix(&position) {
            Some(rule) if rule.ends_with("refused rather than rounded") => rule.to_owned(),
            _ => public_rule(&message),
        };
        Refusal {
            json_path: render(&segments),
            rule,
        }
    })
}

/// The start of the keys serde_json hands a number's text under (its raw
/// value, or with `arbitrary_precision` its number): never shown to a caller.
const SERDE_JSON_PRIVATE_KEY: &str = "$serde_json::private::";

/// A parser's message with serde_json's private number key taken out (seen
/// only when a build turns `arbitrary_precision` on).
fn public_rule(rule: &str) -> String {
    rule.replace("$serde_json::private::Number", "number")
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
            S::Map { key } if key.starts_with(SERDE_JSON_PRIVATE_KEY) => None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use psi_runtime::Decimal;

    #[derive(serde::Deserialize, Debug)]
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
        let lines: Basket = parse(r#"{"lines": [1, 2.50]}"#).unwrap();
        assert_eq!(lines.lines[1].to_string(), "2.50");
        let refused = parse::<Basket>(r#"{"lines": [1, 1e30]}"#).unwrap_err();
        assert_eq!(refused.json_path, "$.lines[1]");
        assert!(refused.rule.contains("range"), "{}", refused.rule);
        let refused = parse::<Basket>(r#"{"gross_amount": 1e-30}"#).unwrap_err();
        assert_eq!(refused.json_path, "$.gross_amount");
        assert!(!refused.rule.contains("serde_json"));
        assert!(
            refused.rule.contains("28 digits after the decimal point"),
            "{}",
            refused.rule
        );
        let exact: Basket = parse(r#"{"gross_amount": 12345678901234567.89}"#).unwrap();
        assert_eq!(
            exact.gross_amount.unwrap().to_string(),
            "12345678901234567.89"
        );
    }
}
