//! The media type rules of a served document: which media types are JSON
//! (a body checked against its schema, an example sent as JSON), and
//! whether a request's Content-Type states a documented media type.

use axum::http::{header, HeaderMap};

/// `application/json`, `application/problem+json`, with any parameters.
pub fn is_json(media_type: &str) -> bool {
    let essence = essence(media_type);
    essence == "application/json" || essence.ends_with("+json")
}

fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Does the Content-Type `sent` state the documented `media_type`? The
/// type compares case-insensitively; a charset, when sent, must be UTF-8
/// (the emulated APIs' rule, [`crate::media_type`]).
pub fn states(sent: &str, media_type: &str) -> bool {
    if essence(media_type) == "application/json" {
        let expected = if media_type.to_ascii_lowercase().contains("charset") {
            crate::media_type::Expected::JsonUtf8
        } else {
            crate::media_type::Expected::Json
        };
        let mut headers = HeaderMap::new();
        let Ok(value) = sent.parse() else {
            return false;
        };
        headers.insert(header::CONTENT_TYPE, value);
        return crate::media_type::check(&headers, b"-", expected).is_ok();
    }
    let (documented, sent) = (essence(media_type), essence(sent));
    match documented.split_once('/') {
        Some(("*", "*")) => true,
        Some((kind, "*")) => sent.split_once('/').is_some_and(|(k, _)| k == kind),
        _ => documented == sent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_media_types_match_as_the_emulated_apis_do() {
        assert!(states("application/json", "application/json"));
        assert!(states(
            "application/json; charset=utf-8",
            "application/json"
        ));
        assert!(states("application/json", "application/json;charset=UTF-8"));
        assert!(!states(
            "application/json;charset=ISO-8859-1",
            "application/json;charset=UTF-8"
        ));
        assert!(states("text/csv", "text/*"));
        assert!(!states("text/plain", "application/json"));
    }
}
