//! Error answers in the shapes the documents declare.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// A decline body (`{"decline": {category, reasons, invalid_fields}}`) of
/// the payment APIs, with the category the provider's public documentation (docs/service-notes.md) give per status.
pub fn decline(
    status: StatusCode,
    reasons: &[&str],
    invalid_fields: Vec<(String, String)>,
) -> Response {
    let category = match status.as_u16() {
        400 => Some("SYNTAX"),
        404 => Some("RESOURCE_NOT_FOUND"),
        409 => Some("CONFLICT"),
        422 => Some("UNPROCESSABLE_OPERATION"),
        451 => Some("LEGAL"),
        _ => None,
    };
    decline_with(status, category, reasons, invalid_fields)
}

/// [`decline`] with an explicit category (422 has several).
pub fn decline_with(
    status: StatusCode,
    category: Option<&str>,
    reasons: &[&str],
    invalid_fields: Vec<(String, String)>,
) -> Response {
    (
        status,
        Json(decline_body(category, reasons, invalid_fields)),
    )
        .into_response()
}

/// The decline body itself, for answers built outside a handler.
pub fn decline_body(
    category: Option<&str>,
    reasons: &[&str],
    invalid_fields: Vec<(String, String)>,
) -> serde_json::Value {
    let invalid: Vec<_> = invalid_fields
        .into_iter()
        .map(|(json_path, message)| serde_json::json!({"json_path": json_path, "message": message}))
        .collect();
    let mut decline = serde_json::json!({"reasons": reasons, "invalid_fields": invalid});
    if let Some(category) = category {
        decline["category"] = category.into();
    }
    serde_json::json!({"decline": decline})
}

/// The 415 decline of the payment APIs, naming the expected media type.
pub fn unsupported_media_type(expected: crate::media_type::Expected) -> Response {
    decline(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        &["UNSUPPORTED_MEDIA_TYPE"],
        vec![("Content-Type".to_owned(), expected.message())],
    )
}

/// Parses a JSON body into a generated request type; a failure is a 400
/// decline naming the JSON path of the field.
pub fn parse_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Response> {
    parse_body_redacting(body, &[])
}

/// [`parse_body`], with a fixed message for the fields in `redacted`
/// (`(json path, message)`): serde's messages may quote the value, and some
/// values (an IBAN) must never be echoed.
pub fn parse_body_redacting<T: serde::de::DeserializeOwned>(
    body: &[u8],
    redacted: &[(&str, &str)],
) -> Result<T, Response> {
    let text = std::str::from_utf8(body).map_err(|_| {
        decline(
            StatusCode::BAD_REQUEST,
            &["BODY_NOT_UTF8"],
            vec![("$".into(), "not UTF-8".into())],
        )
    })?;
    crate::typed::parse(text).map_err(|refusal| {
        let path = refusal.json_path;
        let message = redacted
            .iter()
            .find(|(field, _)| *field == path)
            .map_or(refusal.rule, |(_, message)| (*message).to_owned());
        decline(
            StatusCode::BAD_REQUEST,
            &["INVALID_FIELD"],
            vec![(path, message)],
        )
    })
}
