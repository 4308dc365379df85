//! The answer of an operation served from its document: a documented
//! example, the way Prism answers.
//!
//! - The status: the lowest documented 2xx (`2XX` and `default` answer
//!   200), or the one a `Prefer: code=NNN` request header asks for (an
//!   exact status first, then its `NXX` range, then `default`).
//! - The media type: the first of the response that the `Accept` header
//!   takes (the first documented one without `Accept`).
//! - The body: the first entry of the media type's `examples`, or the
//!   `example`, or an example built from the schema (its own `example`,
//!   `default` or first `enum` value, else its properties' examples, else a
//!   placeholder of its type); `Prefer: example=NAME` picks the entry NAME
//!   of `examples`. A response without content has no body.
//!
//! A `Prefer` asking for a status or example the operation does not
//! document is refused with 400 naming `Prefer` and what is documented.

use super::compile::Operation;
use super::documented::{Documented, Key, Media};
use super::media::is_json;
use crate::refusals::decline;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// What the `Prefer` header asks for.
#[derive(Default)]
struct Preference {
    code: Option<u16>,
    example: Option<String>,
}

fn preference(headers: &HeaderMap) -> Result<Preference, String> {
    let mut preference = Preference::default();
    for value in headers.get_all("prefer") {
        let text = value.to_str().map_err(|_| "is not text".to_owned())?;
        for token in text
            .split([',', ';'])
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            let (name, value) = token.split_once('=').unwrap_or((token, ""));
            let value = value.trim().trim_matches('"');
            match name.trim().to_ascii_lowercase().as_str() {
                "code" => {
                    let code = value
                        .parse::<u16>()
                        .ok()
                        .filter(|c| (100..=599).contains(c));
                    preference.code =
                        Some(code.ok_or_else(|| format!("code={value} is not an HTTP status"))?);
                }
                "example" => preference.example = Some(value.to_owned()),
                // Other preferences (`dynamic`, `respond-async`, ...) are
                // not served and not refused.
                _ => {}
            }
        }
    }
    Ok(preference)
}

/// The answer to a request that passed its checks.
pub fn answer(operation: &Operation, headers: &HeaderMap) -> Response {
    let refuse = |rule: String| {
        decline(
            StatusCode::BAD_REQUEST,
            &["INVALID_PREFER"],
            vec![("Prefer".to_owned(), rule)],
        )
    };
    let preference = match preference(headers) {
        Ok(preference) => preference,
        Err(rule) => return refuse(rule),
    };
    let chosen = match preference.code {
        Some(code) => preferred(operation, code).map(|documented| (code, documented)),
        None => default_success(operation),
    };
    let Some((status, documented)) = chosen else {
        return refuse(format!(
            "{} documents the statuses {} only",
            operation.operation_id,
            statuses(operation)
        ));
    };
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    let Some(media) = media(documented, headers) else {
        return status.into_response();
    };
    let example = match &preference.example {
        Some(name) => media
            .examples
            .iter()
            .find(|(n, _)| n.as_deref() == Some(name.as_str())),
        None => media.examples.first(),
    };
    let Some((_, example)) = example else {
        if let Some(name) = &preference.example {
            let names: Vec<&str> = media
                .examples
                .iter()
                .filter_map(|(n, _)| n.as_deref())
                .collect();
            return refuse(format!(
                "example={name} is not an example of {} {status} (documented: {})",
                operation.operation_id,
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        }
        return status.into_response();
    };
    let body = match example {
        Value::String(text) if !is_json(&media.media_type) => text.clone().into_bytes(),
        value => value.to_string().into_bytes(),
    };
    let content_type = HeaderValue::from_str(&media.media_type)
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// The response documented for `code`: exactly, by range, or `default`.
fn preferred(operation: &Operation, code: u16) -> Option<&Documented> {
    [Key::Status(code), Key::Range(code / 100), Key::Default]
        .into_iter()
        .find_map(|key| operation.responses.iter().find(|r| r.key == key))
}

/// The lowest documented 2xx; else `2XX` or `default` as 200.
fn default_success(operation: &Operation) -> Option<(u16, &Documented)> {
    let exact = operation
        .responses
        .iter()
        .filter_map(|r| match r.key {
            Key::Status(status @ 200..=299) => Some((status, r)),
            _ => None,
        })
        .min_by_key(|(status, _)| *status);
    exact.or_else(|| {
        [Key::Range(2), Key::Default]
            .into_iter()
            .find_map(|key| operation.responses.iter().find(|r| r.key == key))
            .map(|r| (200, r))
    })
}

fn statuses(operation: &Operation) -> String {
    let keys: Vec<String> = operation
        .responses
        .iter()
        .map(|r| match r.key {
            Key::Status(status) => status.to_string(),
            Key::Range(class) => format!("{class}XX"),
            Key::Default => "default".to_owned(),
        })
        .collect();
    keys.join(", ")
}

/// The first documented media type the request's `Accept` takes.
fn media<'a>(documented: &'a Documented, headers: &HeaderMap) -> Option<&'a Media> {
    let accepted: Vec<String> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    let takes = |media_type: &str| {
        let essence = media_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        accepted.iter().any(|a| {
            a == "*/*"
                || *a == essence
                || a.strip_suffix("/*")
                    .is_some_and(|kind| essence.starts_with(&format!("{kind}/")))
        })
    };
    documented
        .media
        .iter()
        .find(|m| takes(&m.media_type))
        .or(documented.media.first())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefer_reads_code_and_example() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "prefer",
            HeaderValue::from_static("code=404, example=\"gone\""),
        );
        let preference = preference(&headers).unwrap();
        assert_eq!(preference.code, Some(404));
        assert_eq!(preference.example.as_deref(), Some("gone"));
        headers.insert("prefer", HeaderValue::from_static("code=abc"));
        assert!(preference_err(&headers).contains("code=abc"));
    }

    fn preference_err(headers: &HeaderMap) -> String {
        match preference(headers) {
            Ok(_) => String::new(),
            Err(rule) => rule,
        }
    }
}
