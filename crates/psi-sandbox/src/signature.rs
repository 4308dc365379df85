//! The sandbox's own webhook signer, as the service signs (docs/service-notes.md,
//! "Webhooks"): header `X-Signature: t=<unix seconds>,v1=<signature>`, the
//! signature being the standard, padded Base64 of HMAC-SHA256 keyed with the
//! shared secret over the bytes `<t>` + `.` + `<raw body>`.
//!
//! Written here and not taken from the client, so a misreading on either
//! side fails the known answers in `tests/known-answers/` (computed with
//! Python's standard library).

use base64::{engine::general_purpose::STANDARD, Engine as _};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header the signature travels in.
pub const SIGNATURE_HEADER: &str = "X-Signature";

/// The `X-Signature` value of `body` sent at `timestamp` (Unix seconds).
pub fn sign(secret: &[u8], timestamp: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let signature = STANDARD.encode(mac.finalize().into_bytes());
    format!("t={timestamp},v1={signature}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Computed with Python's standard library by
    /// `tests/known-answers/webhook_signatures.py`.
    const KNOWN_ANSWERS: &str =
        include_str!("../../../tests/known-answers/webhook-signatures.json");

    #[test]
    fn the_signer_gives_the_known_answers() {
        let cases: Vec<serde_json::Value> =
            serde_json::from_str(KNOWN_ANSWERS).expect("the known answers are JSON");
        assert!(cases.len() >= 5, "at least five known answers");
        for case in &cases {
            let secret = case["secret"].as_str().unwrap();
            let t = case["t"].as_i64().unwrap();
            let body = case["body"].as_str().unwrap();
            assert_eq!(
                sign(secret.as_bytes(), t, body.as_bytes()),
                case["expected_header"].as_str().unwrap(),
                "{}",
                case["description"]
            );
        }
    }

    #[test]
    fn every_byte_of_the_body_and_the_timestamp_is_signed() {
        let one = sign(b"secret", 1_700_000_000, b"{}");
        assert_ne!(one, sign(b"secret", 1_700_000_000, b"{} "));
        assert_ne!(one, sign(b"secret", 1_700_000_001, b"{}"));
        assert_ne!(one, sign(b"other", 1_700_000_000, b"{}"));
        assert!(one.starts_with("t=1700000000,v1="));
    }
}
