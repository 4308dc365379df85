//! `POST /__proxy/notifications/sessions` and `.../invoices`: a webhook
//! of the service, its signature verified, its payload checked, then
//! forwarded unchanged to `--forward-webhooks-to` + `/sessions` or
//! `/invoices`, answering the receiver's status and body.
//!
//! The signature schemes are the service's (docs/service-notes.md,
//! "Webhooks"), written again here as `auth/signature.rs` signs them:
//! a session notification's `X-Signature` is `t=<unix seconds>,v1=<base64
//! of HMAC-SHA256 over "<t>.<raw body>">` (several `v1` tried); an invoice
//! notification's is the hex of HMAC-SHA512 over the raw body or its
//! compact JSON form. Compared in constant time (`Mac::verify_slice`). The
//! timestamp's age is the receiver's to judge: the proxy checks only that
//! the signature is the secret's.

use super::forward::{content_type, end_to_end, error_chain, too_large};
use super::record::Exchange;
use super::{own_answer, Shared};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use base64::{engine::general_purpose::STANDARD, Engine as _};
use hmac::{Hmac, Mac};
use psi_drift::{Direction, Kind, Note, INVOICE_NOTIFICATION, SESSION_NOTIFICATION};
use serde_json::json;
use sha2::{Sha256, Sha512};
use std::sync::Arc;

/// The header both kinds are signed in.
const SIGNATURE_HEADER: &str = "x-signature";

pub(crate) async fn sessions(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    receive(&shared, Notice::Session, request).await
}

pub(crate) async fn invoices(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    receive(&shared, Notice::Invoice, request).await
}

#[derive(Clone, Copy)]
enum Notice {
    Session,
    Invoice,
}

impl Notice {
    fn operation_id(self) -> &'static str {
        match self {
            Notice::Session => SESSION_NOTIFICATION,
            Notice::Invoice => INVOICE_NOTIFICATION,
        }
    }

    fn path(self) -> &'static str {
        match self {
            Notice::Session => "/sessions",
            Notice::Invoice => "/invoices",
        }
    }
}

async fn receive(shared: &Shared, kind: Notice, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let operation_id = kind.operation_id();
    let Some(bytes) = axum::body::to_bytes(body, shared.max_body).await.ok() else {
        // A notification is small; one over the limit is not read further.
        too_large(shared, Some(operation_id), Direction::Notification, None);
        return own_answer(
            StatusCode::PAYLOAD_TOO_LARGE,
            json!({"error": format!("the notification is larger than --max-body ({} bytes)", shared.max_body)}),
        );
    };
    let signature = parts
        .headers
        .get(SIGNATURE_HEADER)
        .and_then(|v| v.to_str().ok());
    let secret = match kind {
        Notice::Session => shared.session_webhook_secret.as_deref(),
        Notice::Invoice => shared.invoice_webhook_secret.as_deref(),
    };
    if let Some(secret) = secret {
        let verified = signature.is_some_and(|signature| match kind {
            Notice::Session => verify_session(secret.as_bytes(), signature, &bytes),
            Notice::Invoice => verify_invoice(secret.as_bytes(), signature, &bytes),
        });
        if !verified {
            shared.drift.note(Note {
                operation_id: Some(operation_id),
                direction: Direction::Notification,
                kind: Kind::Signature,
                pointer: "",
                status: None,
                expected: Some(match kind {
                    Notice::Session => "X-Signature t=<seconds>,v1=<HMAC-SHA256> of the configured --session-webhook-secret".to_owned(),
                    Notice::Invoice => "X-Signature hex HMAC-SHA512 of the configured --invoice-webhook-secret".to_owned(),
                }),
                // The header is never shown: only whether there was one.
                example: Some(if signature.is_some() { "\"<signature>\"" } else { "none" }.to_owned()),
            });
        }
    }
    shared
        .drift
        .notification(operation_id, content_type(&parts.headers), &bytes);

    let headers = end_to_end(&parts.headers, &[header::HOST, header::CONTENT_LENGTH]);
    let mut exchange = Exchange::notification(parts.uri.path(), operation_id);
    exchange.request_headers(&headers);
    exchange.request_body(content_type(&parts.headers), &bytes);
    let response = forward(shared, kind, headers, bytes, &mut exchange).await;
    if let Some(recorder) = &shared.recorder {
        recorder.write(exchange);
    }
    response
}

async fn forward(
    shared: &Shared,
    kind: Notice,
    headers: HeaderMap,
    bytes: Bytes,
    exchange: &mut Exchange,
) -> Response {
    let Some(receiver) = &shared.forward_webhooks_to else {
        return own_answer(
            StatusCode::BAD_GATEWAY,
            json!({
                "error": "no receiver: start the proxy with --forward-webhooks-to",
                "flag": "--forward-webhooks-to",
            }),
        );
    };
    let url = format!("{receiver}{}", kind.path());
    let answer = match shared
        .http
        .post(&url)
        .headers(headers)
        .body(bytes)
        .send()
        .await
    {
        Ok(answer) => answer,
        Err(error) => {
            let error = error.without_url();
            tracing::warn!(receiver = %url, error = %error_chain(&error), "webhook receiver unreachable");
            return own_answer(
                StatusCode::BAD_GATEWAY,
                json!({"error": "upstream unreachable", "upstream": url}),
            );
        }
    };
    let status = answer.status();
    let answer_headers = end_to_end(answer.headers(), &[]);
    exchange.answer_headers(status.as_u16(), &answer_headers);
    let body = match answer.bytes().await {
        Ok(body) => body,
        Err(_) => {
            return own_answer(
                StatusCode::BAD_GATEWAY,
                json!({"error": "upstream unreachable", "upstream": url}),
            )
        }
    };
    exchange.answer_body(content_type(&answer_headers), &body);
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = answer_headers;
    response
}

/// `t=<seconds>,v1=<base64>[,v1=...]`: any `v1` the HMAC-SHA256 of
/// `<t>.<body>` under `secret`.
pub fn verify_session(secret: &[u8], header: &str, body: &[u8]) -> bool {
    let mut timestamp = None;
    let mut candidates = Vec::new();
    for part in header.split(',').map(str::trim) {
        match part.split_once('=') {
            Some(("t", value)) => timestamp = Some(value),
            Some(("v1", value)) => candidates.push(value),
            _ => {}
        }
    }
    let Some(timestamp) = timestamp else {
        return false;
    };
    // Every candidate is tried, so the time taken does not say which matched.
    candidates.iter().fold(false, |matched, candidate| {
        let Ok(signature) = STANDARD.decode(candidate) else {
            return matched;
        };
        let mut mac =
            Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
        mac.update(timestamp.as_bytes());
        mac.update(b".");
        mac.update(body);
        mac.verify_slice(&signature).is_ok() | matched
    })
}

/// 128 hex digits: the HMAC-SHA512 of the raw body, or of its compact JSON
/// form, under `secret`.
pub fn verify_invoice(secret: &[u8], header: &str, body: &[u8]) -> bool {
    let Some(signature) = hex(header.trim()) else {
        return false;
    };
    let verify = |bytes: &[u8]| {
        let mut mac =
            Hmac::<Sha512>::new_from_slice(secret).expect("HMAC takes a key of any length");
        mac.update(bytes);
        mac.verify_slice(&signature).is_ok()
    };
    // Both forms are always tried.
    verify(body) | verify(&compact_json(body))
}

fn hex(text: &str) -> Option<Vec<u8>> {
    if text.len() != 128 {
        return None;
    }
    text.as_bytes()
        .chunks_exact(2)
        .map(|pair| {
            let high = char::from(pair[0]).to_digit(16)?;
            let low = char::from(pair[1]).to_digit(16)?;
            u8::try_from(high << 4 | low).ok()
        })
        .collect()
}

/// `body` without JSON whitespace outside string literals (key order,
/// escapes and number text as received): the string the service signs.
fn compact_json(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let (mut in_string, mut escaped) = (false, false);
    for &byte in body {
        if in_string {
            out.push(byte);
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
        } else if !matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            out.push(byte);
            in_string = byte == b'"';
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::{sign, sign_invoice};

    #[test]
    fn the_signatures_the_sandbox_makes_verify_and_others_do_not() {
        let body = br#"{"key": "value"}"#;
        let header = sign(b"secret", 1_700_000_000, body);
        assert!(verify_session(b"secret", &header, body));
        assert!(!verify_session(b"other", &header, body));
        assert!(!verify_session(b"secret", &header, b"{}"));
        assert!(!verify_session(b"secret", "v1=abc", body));
        let invoice = sign_invoice(b"abc123", br#"{"key":"value"}"#);
        assert!(verify_invoice(b"abc123", &invoice, br#"{"key":"value"}"#));
        // indented: verifies through its compact form
        assert!(verify_invoice(
            b"abc123",
            &invoice,
            b"{\n  \"key\": \"value\"\n}"
        ));
        assert!(!verify_invoice(b"abc124", &invoice, br#"{"key":"value"}"#));
        assert!(!verify_invoice(
            b"abc123",
            &invoice.to_uppercase()[..127],
            b"{}"
        ));
    }
}
