//! The sandbox's own webhook signers, as the service signs (docs/service-notes.md,
//! "Webhooks"), both in the header `X-Signature`:
//!
//! - a session notification: `t=<unix seconds>,v1=<signature>`, the
//!   signature being the standard, padded Base64 of HMAC-SHA256 keyed with
//!   the shared secret over the bytes `<t>` + `.` + `<raw body>`;
//! - an invoice notification: the lowercase hex of HMAC-SHA512 keyed with
//!   the subscription's secret over the raw body; no timestamp.
//!
//! Written here and not taken from the client, so a misreading on either
//! side fails the known answers in `tests/known-answers/` (computed with
//! Python's standard library; checked against this signer by the workspace's
//! `tests/suite/known_answers.rs`, so the published crate embeds no file
//! from outside its directory).

use base64::{engine::general_purpose::STANDARD, Engine as _};
use hmac::{Hmac, Mac};
use sha2::{Sha256, Sha512};

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

/// The `X-Signature` value of an invoice notification `body`.
pub fn sign_invoice(secret: &[u8], body: &[u8]) -> String {
    let mut mac = Hmac::<Sha512>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(body);
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_of_the_body_and_the_timestamp_is_signed() {
        let one = sign(b"secret", 1_700_000_000, b"{}");
        assert_ne!(one, sign(b"secret", 1_700_000_000, b"{} "));
        assert_ne!(one, sign(b"secret", 1_700_000_001, b"{}"));
        assert_ne!(one, sign(b"other", 1_700_000_000, b"{}"));
        assert!(one.starts_with("t=1700000000,v1="));
    }

    #[test]
    fn an_invoice_signature_is_the_lowercase_hex_of_hmac_sha512_over_the_body() {
        // The provider's published example.
        assert_eq!(
            sign_invoice(b"abc123", br#"{"key":"value"}"#),
            "4c131d60caea39b5f65625b80270e5305d5a00ebc5d15a00ecf82da9de2fcc8f\
             f45df068a11f8b336890b161eb1fdefafe452d2e452623b37e4bd3277bb348fd"
        );
        assert_ne!(
            sign_invoice(b"abc123", b"{}"),
            sign_invoice(b"abc123", b"{} ")
        );
    }
}
