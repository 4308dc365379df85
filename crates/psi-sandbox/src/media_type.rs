//! The request media type each document states, enforced with 415.
//!
//! Every request body of the interface is `application/json`, except the
//! pay later booking, whose document states `application/json;charset=UTF-8`.
//! The booking is also taken as plain `application/json`, the header of the
//! provider's own example (docs/service-notes.md, Pay later): the two
//! differ only in the type a 415 names. A charset, when given, must be
//! UTF-8. The type and subtype compare case-insensitively, so does the
//! charset parameter's value; whitespace around `;` and `=` is tolerated. A
//! request that carries neither a body nor a Content-Type is not checked:
//! the handler's own "body missing" answer applies.

use axum::http::{header, HeaderMap};

/// The media type an operation's request body must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// `application/json`, with or without `charset=UTF-8`.
    Json,
    /// `application/json;charset=UTF-8` as the document states it; taken
    /// without the charset too (the provider's example sends none).
    JsonUtf8,
}

impl Expected {
    /// The type as the document writes it, for the 415 answer.
    pub fn as_str(self) -> &'static str {
        match self {
            Expected::Json => "application/json",
            Expected::JsonUtf8 => "application/json;charset=UTF-8",
        }
    }

    /// The message of a 415 answer naming the expected type.
    pub fn message(self) -> String {
        format!("Content-Type must be {}", self.as_str())
    }
}

/// `Err(expected)` when the request has a body (or a Content-Type) of
/// another media type than `expected`.
pub fn check(headers: &HeaderMap, body: &[u8], expected: Expected) -> Result<(), Expected> {
    let content_type = headers.get(header::CONTENT_TYPE);
    if content_type.is_none() && body.is_empty() {
        return Ok(());
    }
    let matches = content_type
        .and_then(|value| value.to_str().ok())
        .is_some_and(is_json);
    if matches {
        Ok(())
    } else {
        Err(expected)
    }
}

/// Does the Content-Type header value `value` state JSON (with no
/// parameter but a UTF-8 charset)? Both [`Expected`] types take it; the
/// expected type only names the type in the refusal.
fn is_json(value: &str) -> bool {
    let mut parts = value.split(';').map(str::trim);
    let essence_ok = parts
        .next()
        .is_some_and(|essence| essence.eq_ignore_ascii_case("application/json"));
    let mut charset = None;
    for parameter in parts.filter(|p| !p.is_empty()) {
        let Some((name, value)) = parameter.split_once('=') else {
            return false;
        };
        if !name.trim().eq_ignore_ascii_case("charset") {
            return false;
        }
        charset = Some(value.trim().trim_matches('"').to_owned());
    }
    let charset_ok = charset.is_none_or(|charset| charset.eq_ignore_ascii_case("utf-8"));
    essence_ok && charset_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn json_bodies_accept_json_with_or_without_utf8() {
        for value in [
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            "application/json ; CHARSET = \"UTF-8\"",
        ] {
            assert_eq!(
                check(&headers(value), b"{}", Expected::Json),
                Ok(()),
                "{value}"
            );
        }
    }

    #[test]
    fn the_booking_takes_json_with_or_without_the_utf8_charset() {
        for value in [
            "application/json;charset=UTF-8",
            "application/json; charset=utf-8",
            "APPLICATION/json ;  Charset=Utf-8 ",
            "application/json",
            "Application/JSON ;",
        ] {
            assert_eq!(
                check(&headers(value), b"{}", Expected::JsonUtf8),
                Ok(()),
                "{value}"
            );
        }
    }

    #[test]
    fn other_types_and_charsets_are_refused() {
        for expected in [Expected::Json, Expected::JsonUtf8] {
            for value in [
                "text/plain",
                "application/xml",
                "application/json;charset=ISO-8859-1",
                "application/jsonx",
                "application/json; version=2",
                "application/json; charset",
            ] {
                assert_eq!(
                    check(&headers(value), b"{}", expected),
                    Err(expected),
                    "{value}"
                );
            }
            assert_eq!(check(&HeaderMap::new(), b"{}", expected), Err(expected));
        }
    }

    #[test]
    fn a_request_without_body_and_type_is_not_checked() {
        assert_eq!(check(&HeaderMap::new(), b"", Expected::JsonUtf8), Ok(()));
        assert_eq!(
            check(&headers("text/plain"), b"", Expected::Json),
            Err(Expected::Json)
        );
    }
}
