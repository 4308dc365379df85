//! The sandbox's own webhook signer, as the service signs (field notes,
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
