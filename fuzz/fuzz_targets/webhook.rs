//! The webhook verifier, both schemes (`psi::webhook`): header and body
//! bytes in.
//!
//! - Any header and body: verifying and parsing never panic, and a parse
//!   fails whenever the verification does.
//! - Session notifications: the header `sign` computes always verifies,
//!   subject only to the tolerance (checked against the exact distance);
//!   with one bit of the body flipped it is a signature mismatch; with one
//!   bit of the header flipped it never verifies (and is never reported as
//!   authentic but stale). `sign` of a negative timestamp (before 1970) is
//!   refused as `BadTimestamp`: `t` is read as ASCII digits, the service
//!   signs the current time.
//! - Invoice notifications: the header `sign_invoice` computes over the body,
//!   or over its compact form, verifies; in either case, with one bit of the
//!   body flipped it verifies exactly when the flipped body, or its compact
//!   form, is what was signed (a flip from one JSON whitespace byte to
//!   another outside strings keeps the compact form: by design); with one
//!   bit of the header flipped it verifies exactly when the flip only
//!   changed the case of a hexadecimal letter (upper-case digits are read,
//!   by design).
//! - `compact_json` is idempotent, and a body that is JSON compacts to the
//!   same JSON value.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use psi::webhook::{
    compact_json, sign, sign_invoice, FixedClock, HeaderProblem, WebhookError, WebhookVerifier,
};
use psi_runtime::Secret;
use std::sync::Arc;
use std::time::Duration;

/// chrono's range is about ±262,000 years: a verifier's clock within it.
const CLOCK_RANGE: i64 = 8_000_000_000_000;

#[derive(Debug, Arbitrary)]
struct Input {
    secret: String,
    body: Vec<u8>,
    /// A header as it may arrive, for the never-a-panic checks.
    header: String,
    timestamp: i64,
    clock: i64,
    tolerance: u64,
    /// Which bit to flip (modulo the length in bits).
    flip: u32,
    compact_signed: bool,
}

/// A run's input: arbitrary, or a seed of the checked-in corpus (the four
/// bytes `ff ff ff ff` choose it) whose text is a known answer's JSON,
/// `{"secret", "timestamp", "body", "header"}` (fuzz/seeds.py).
#[derive(Debug, Arbitrary)]
enum Case {
    Fuzzed(Input),
    Seed(String),
}

fuzz_target!(|case: Case| {
    match case {
        Case::Fuzzed(input) => run(&input),
        Case::Seed(text) => {
            let Ok(seed) = serde_json::from_str::<serde_json::Value>(&text) else {
                return;
            };
            let text = |name: &str| seed[name].as_str().unwrap_or_default().to_owned();
            let timestamp = seed["timestamp"].as_i64().unwrap_or(0);
            for compact_signed in [false, true] {
                run(&Input {
                    secret: text("secret"),
                    body: text("body").into_bytes(),
                    header: text("header"),
                    timestamp,
                    clock: timestamp,
                    tolerance: 300,
                    flip: 9,
                    compact_signed,
                });
            }
        }
    }
});

fn run(input: &Input) {
    let secret = Secret::new(input.secret.clone());
    let now = input.clock % CLOCK_RANGE;
    let clock = FixedClock::at_unix(now).expect("within chrono's range");
    let tolerance = Duration::from_secs(input.tolerance);
    let verifier = WebhookVerifier::new(secret.clone())
        .with_clock(Arc::new(clock))
        .with_tolerance(tolerance);

    arbitrary_bytes_never_panic(&verifier, &input.header, &input.body);
    session_scheme(&verifier, &secret, input, now);
    invoice_scheme(&verifier, &secret, input);
    compact_form(&input.body);
}

fn arbitrary_bytes_never_panic(verifier: &WebhookVerifier, header: &str, body: &[u8]) {
    let verified = verifier.verify(header, body);
    let parsed = verifier.parse_session_notification(header, body);
    if verified.is_err() {
        assert_eq!(parsed.err(), verified.err());
    }
    let verified = verifier.verify_invoice(header, body);
    let parsed = verifier.parse_invoice_notification(header, body);
    if verified.is_err() {
        assert_eq!(parsed.err(), verified.err());
    }
}

fn session_scheme(verifier: &WebhookVerifier, secret: &Secret, input: &Input, now: i64) {
    let header = sign(secret, input.timestamp, &input.body);
    let verified = verifier.verify(&header, &input.body);
    if input.timestamp < 0 {
        assert_eq!(
            verified,
            Err(WebhookError::MalformedHeader(HeaderProblem::BadTimestamp)),
            "{header}"
        );
        return;
    }
    // The exact distance between the clock and `t`, saturated at 2^63 s as
    // an i64 difference is.
    let difference = i128::from(now) - i128::from(input.timestamp);
    let distance = Duration::from_secs(difference.unsigned_abs().min(1 << 63) as u64);
    match verified {
        Ok(()) => assert!(distance <= tolerance_of(input), "{header}"),
        Err(WebhookError::StaleTimestamp { age, tolerance }) => {
            assert!(
                difference > 0 && age == distance && age > tolerance,
                "{header}"
            )
        }
        Err(WebhookError::FutureTimestamp { ahead, tolerance }) => {
            assert!(
                difference < 0 && ahead == distance && ahead > tolerance,
                "{header}"
            )
        }
        Err(other) => panic!("its own signature {header} is refused: {other}"),
    }

    if let Some(body) = flipped(&input.body, input.flip) {
        assert_eq!(
            verifier.verify(&header, &body),
            Err(WebhookError::SignatureMismatch),
            "a flipped bit of the body verifies"
        );
    }
    if let Some(flipped) = flipped(header.as_bytes(), input.flip) {
        if let Ok(flipped) = String::from_utf8(flipped) {
            match verifier.verify(&flipped, &input.body) {
                Err(WebhookError::SignatureMismatch | WebhookError::MalformedHeader(_)) => {}
                other => panic!("{header} with a flipped bit, {flipped:?}, answers {other:?}"),
            }
        }
    }
}

fn tolerance_of(input: &Input) -> Duration {
    Duration::from_secs(input.tolerance)
}

fn invoice_scheme(verifier: &WebhookVerifier, secret: &Secret, input: &Input) {
    let signed = if input.compact_signed {
        compact_json(&input.body)
    } else {
        input.body.clone()
    };
    let header = sign_invoice(secret, &signed);
    assert_eq!(header.len(), 128);
    assert!(header
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    assert_eq!(verifier.verify_invoice(&header, &input.body), Ok(()));
    assert_eq!(
        verifier.verify_invoice(&header.to_ascii_uppercase(), &input.body),
        Ok(())
    );

    if let Some(body) = flipped(&input.body, input.flip) {
        let expected = body == signed || compact_json(&body) == signed;
        assert_eq!(
            verifier.verify_invoice(&header, &body).is_ok(),
            expected,
            "a flipped bit of the body: {body:?}"
        );
    }
    if let Some(flipped) = flipped(header.as_bytes(), input.flip) {
        if let Ok(flipped) = String::from_utf8(flipped) {
            let same_digits = flipped.to_ascii_lowercase() == header;
            match verifier.verify_invoice(&flipped, &input.body) {
                Ok(()) => assert!(same_digits, "{flipped:?} verifies"),
                Err(WebhookError::SignatureMismatch | WebhookError::MalformedHeader(_)) => {
                    assert!(!same_digits, "{flipped:?} is refused")
                }
                Err(other) => panic!("{flipped:?}: {other:?}"),
            }
        }
    }
}

fn compact_form(body: &[u8]) {
    let compact = compact_json(body);
    assert_eq!(
        compact_json(&compact),
        compact,
        "compact_json is idempotent"
    );
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) {
        let again: serde_json::Value =
            serde_json::from_slice(&compact).expect("the compact form of JSON is JSON");
        assert_eq!(again, value);
    }
}

/// `bytes` with one bit flipped, `None` when there is none to flip.
fn flipped(bytes: &[u8], bit: u32) -> Option<Vec<u8>> {
    if bytes.is_empty() {
        return None;
    }
    let bit = bit as usize % (bytes.len() * 8);
    let mut flipped = bytes.to_vec();
    flipped[bit / 8] ^= 1 << (bit % 8);
    Some(flipped)
}
