//! A request checked against its operation: the body's media type (415),
//! then path and query parameters and the JSON body (400), each refusal a
//! decline naming the field (the parameter's name, or the body's JSON path)
//! and the rule, never the value.

use super::accepts::{Explode, In, Kind, Parameter};
use super::compile::Operation;
use super::media::states;
use super::schema::refusals;
use crate::refusals::decline;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use jsonschema::Validator;
use percent_encoding::percent_decode_str;
use serde_json::Value;

// A parameter's check sits with the request's other checks; what it is
// checked against is compiled in `accepts.rs`.
impl Parameter {
    /// The refusals of the values sent (decoded), `[]` when absent.
    fn check(&self, values: &[String]) -> Vec<(String, String)> {
        if values.is_empty() {
            return if self.required {
                vec![(self.name.clone(), "is required".to_owned())]
            } else {
                Vec::new()
            };
        }
        let read = match self.array {
            None => read(self.kind, &values[0]),
            Some(explode) => {
                let items: Vec<&str> = match explode {
                    Explode::Repeated => values.iter().map(String::as_str).collect(),
                    Explode::Commas => values[0].split(',').collect(),
                };
                items
                    .into_iter()
                    .map(|item| read(self.kind, item))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array)
            }
        };
        match read {
            Err(rule) => vec![(self.name.clone(), rule.to_owned())],
            Ok(value) => refusals(&self.validator, &value)
                .into_iter()
                .map(|(path, rule)| (path.replacen('$', &self.name, 1), rule))
                .collect(),
        }
    }
}

/// A parameter's text as the JSON value its schema types.
fn read(kind: Kind, text: &str) -> Result<Value, &'static str> {
    match kind {
        Kind::String => Ok(Value::String(text.to_owned())),
        Kind::Integer => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| "must be an integer"),
        Kind::Number => match serde_json::from_str::<Value>(text) {
            Ok(number @ Value::Number(_)) => Ok(number),
            _ => Err("must be a number"),
        },
        Kind::Boolean => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err("must be true or false"),
        },
    }
}

/// Checks the request; `Err` is the refusal to answer.
pub fn check(
    operation: &Operation,
    headers: &HeaderMap,
    path_values: &[(String, String)],
    query: &str,
    body: &[u8],
) -> Result<(), Response> {
    let validator = body_validator(operation, headers, body)?;
    let mut refused = Vec::new();
    for parameter in &operation.parameters {
        let values: Vec<String> = match parameter.place {
            In::Path => path_values
                .iter()
                .filter(|(name, _)| *name == parameter.name)
                .map(|(_, value)| decode(value, false))
                .collect(),
            In::Query => query_pairs(query)
                .filter(|(name, _)| *name == parameter.name)
                .map(|(_, value)| value)
                .collect(),
        };
        refused.extend(parameter.check(&values));
    }
    if !refused.is_empty() {
        let in_path = refused.iter().any(|(field, _)| {
            let name = field.split(['[', '.']).next().unwrap_or_default();
            operation.parameters.iter().any(|p| p.is_path(name))
        });
        let reason = if in_path {
            "INVALID_PATH_PARAMETER"
        } else {
            "INVALID_QUERY_PARAMETER"
        };
        return Err(decline(StatusCode::BAD_REQUEST, &[reason], refused));
    }
    let Some(validator) = validator else {
        return Ok(());
    };
    let document: Value = serde_json::from_slice(body).map_err(|_| {
        let problem = ("$".to_owned(), "the body is not JSON".to_owned());
        decline(StatusCode::BAD_REQUEST, &["INVALID_FIELD"], vec![problem])
    })?;
    let refused = refusals(validator, &document);
    if refused.is_empty() {
        Ok(())
    } else {
        Err(decline(
            StatusCode::BAD_REQUEST,
            &["INVALID_FIELD"],
            refused,
        ))
    }
}

/// The media type check (415), a missing required body (400), and the
/// validator of the body sent when it is to be checked as JSON.
fn body_validator<'a>(
    operation: &'a Operation,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Option<&'a Validator>, Response> {
    let Some(documented) = &operation.body else {
        return Ok(None);
    };
    let sent = headers
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("?"));
    if sent.is_none() && body.is_empty() {
        if documented.required {
            let problem = ("$".to_owned(), "a body is required".to_owned());
            return Err(decline(
                StatusCode::BAD_REQUEST,
                &["INVALID_FIELD"],
                vec![problem],
            ));
        }
        return Ok(None);
    }
    let stated = sent.and_then(|sent| {
        documented
            .media_types
            .iter()
            .find(|(media_type, _)| states(sent, media_type))
    });
    match stated {
        Some(_) if body.is_empty() && documented.required => {
            let problem = ("$".to_owned(), "a body is required".to_owned());
            Err(decline(
                StatusCode::BAD_REQUEST,
                &["INVALID_FIELD"],
                vec![problem],
            ))
        }
        Some(_) if body.is_empty() => Ok(None),
        Some((_, validator)) => Ok(validator.as_ref()),
        None => {
            let expected: Vec<&str> = documented
                .media_types
                .iter()
                .map(|(m, _)| m.as_str())
                .collect();
            let problem = (
                "Content-Type".to_owned(),
                format!("Content-Type must be {}", expected.join(" or ")),
            );
            Err(decline(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                &["UNSUPPORTED_MEDIA_TYPE"],
                vec![problem],
            ))
        }
    }
}

/// The decoded `name=value` pairs of a query (`+` is a space).
fn query_pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(name, true), decode(value, true))
        })
}

fn decode(text: &str, plus_is_space: bool) -> String {
    let text = if plus_is_space {
        text.replace('+', " ")
    } else {
        text.to_owned()
    };
    percent_decode_str(&text).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_decoded() {
        let pairs: Vec<_> = query_pairs("a=1&b=x+y&c=%C3%BC&flag").collect();
        assert_eq!(
            pairs,
            [("a", "1"), ("b", "x y"), ("c", "ü"), ("flag", "")]
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
    }
}
