//! The client's webhook verifier against signatures computed outside Rust
//! (`tests/known-answers/webhook_signatures.py`, Python's standard library):
//! every known answer verifies, and a changed body, timestamp or secret
//! does not. The sandbox's signer, written separately, gives every known answer.

use psi::webhook::{FixedClock, WebhookVerifier};
use std::sync::Arc;

struct Case {
    description: String,
    secret: String,
    t: i64,
    body: String,
    expected_header: String,
}

fn cases() -> Vec<Case> {
    let path = crate::workspace_root().join("tests/known-answers/webhook-signatures.json");
    let text = std::fs::read_to_string(&path).expect("the known answers are checked in");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON");
    assert!(cases.len() >= 5, "at least five known answers");
    cases
        .iter()
        .map(|case| Case {
            description: case["description"].as_str().unwrap().to_owned(),
            secret: case["secret"].as_str().unwrap().to_owned(),
            t: case["t"].as_i64().unwrap(),
            body: case["body"].as_str().unwrap().to_owned(),
            expected_header: case["expected_header"].as_str().unwrap().to_owned(),
        })
        .collect()
}

/// A verifier whose clock stands at the case's timestamp.
fn verifier(secret: &str, t: i64) -> WebhookVerifier {
    let clock = FixedClock::at_unix(t).expect("a representable instant");
    WebhookVerifier::new(secret).with_clock(Arc::new(clock))
}

#[test]
fn the_sandbox_signer_gives_every_known_answer() {
    for case in cases() {
        assert_eq!(
            psi_sandbox::signature::sign(case.secret.as_bytes(), case.t, case.body.as_bytes()),
            case.expected_header,
            "{}",
            case.description
        );
    }
}

#[test]
fn the_verifier_accepts_every_known_answer() {
    for case in cases() {
        verifier(&case.secret, case.t)
            .verify(&case.expected_header, case.body.as_bytes())
            .unwrap_or_else(|error| panic!("{}: {error}", case.description));
    }
}

#[test]
fn the_verifier_refuses_a_known_answer_changed_in_any_part() {
    for case in cases() {
        let header = &case.expected_header;
        let mut longer = case.body.clone().into_bytes();
        longer.push(b' ');
        let later = header.replacen(&format!("t={}", case.t), &format!("t={}", case.t + 1), 1);
        let checks = [
            (
                verifier(&case.secret, case.t).verify(header, &longer),
                "body",
            ),
            (
                verifier(&case.secret, case.t).verify(&later, case.body.as_bytes()),
                "t",
            ),
            (
                verifier("not-the-secret", case.t).verify(header, case.body.as_bytes()),
                "secret",
            ),
        ];
        for (result, changed) in checks {
            assert!(result.is_err(), "{}: changed {changed}", case.description);
        }
    }
}

#[test]
fn the_sandbox_and_psi_agree_with_the_known_answers_on_a_fresh_body() {
    // The sandbox signer is checked against the known answers in its own
    // unit tests; here the two sides meet on a body of neither's making.
    let body = "{\"note\":\"Grüße € 🛒\"}".as_bytes();
    let header = psi_sandbox::signature::sign(b"sandbox-webhook-secret", 1_767_225_600, body);
    verifier("sandbox-webhook-secret", 1_767_225_600)
        .verify(&header, body)
        .expect("psi verifies what the sandbox signs");
}

/// The shared verification known answers
/// (`tests/known-answers/webhook-verification.json`), which the TypeScript
/// and Python clients check too: rotation with the match first and last,
/// empty parts, spaces, a leading zero signed as sent, and every refusal
/// with its kind.
#[test]
fn the_verifier_gives_every_shared_verification_answer() {
    use psi::webhook::WebhookError;
    let path = crate::workspace_root().join("tests/known-answers/webhook-verification.json");
    let text = std::fs::read_to_string(&path).expect("the known answers are checked in");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON");
    assert!(cases.len() >= 30, "every reading and every refusal");
    for case in &cases {
        let description = case["description"].as_str().unwrap();
        let tolerance = case["tolerance_seconds"].as_u64().unwrap();
        assert_eq!(tolerance, psi::webhook::DEFAULT_TOLERANCE.as_secs());
        let clock = FixedClock::at_unix(case["now"].as_i64().unwrap()).unwrap();
        let verifier =
            WebhookVerifier::new(case["secret"].as_str().unwrap()).with_clock(Arc::new(clock));
        let header = case["header"].as_str().unwrap();
        let answer = match verifier.verify(header, case["body"].as_str().unwrap().as_bytes()) {
            Ok(()) => "accepted",
            Err(WebhookError::MalformedHeader(_)) => "malformed",
            Err(WebhookError::SignatureMismatch) => "mismatch",
            Err(WebhookError::StaleTimestamp { .. }) => "stale",
            Err(WebhookError::FutureTimestamp { .. }) => "future",
            Err(other) => panic!("{description}: {other}"),
        };
        assert_eq!(answer, case["answer"], "{description}: {header}");
    }
}

/// The invoice notification's scheme (`tests/known-answers/invoice_signatures.py`):
/// the lowercase hex of HMAC-SHA512 over the body, the provider's own
/// example among the cases. Both the sandbox's signer and psi's give each
/// answer, and psi's verifier accepts it.
#[test]
fn both_invoice_signers_and_the_verifier_give_every_invoice_known_answer() {
    let path = crate::workspace_root().join("tests/known-answers/invoice-signatures.json");
    let text = std::fs::read_to_string(&path).expect("the known answers are checked in");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON");
    assert!(
        cases.iter().any(|case| case["secret"] == "abc123"
            && case["body"] == r#"{"key":"value"}"#
            && case["expected_signature"]
                == "4c131d60caea39b5f65625b80270e5305d5a00ebc5d15a00ecf82da9de2fcc8ff45df068a11f8b336890b161eb1fdefafe452d2e452623b37e4bd3277bb348fd"),
        "the provider's own example is among the cases"
    );
    for case in &cases {
        let description = case["description"].as_str().unwrap();
        let secret = case["secret"].as_str().unwrap();
        let body = case["body"].as_str().unwrap().as_bytes();
        let expected = case["expected_signature"].as_str().unwrap();
        assert_eq!(
            psi_sandbox::signature::sign_invoice(secret.as_bytes(), body),
            expected,
            "sandbox: {description}"
        );
        assert_eq!(
            psi::webhook::sign_invoice(&psi_runtime::Secret::new(secret), body),
            expected,
            "psi: {description}"
        );
        WebhookVerifier::new(secret)
            .verify_invoice(expected, body)
            .unwrap_or_else(|error| panic!("{description}: {error}"));
    }
}

/// The shared invoice verification answers
/// (`tests/known-answers/invoice-verification.json`), which the TypeScript
/// and Python clients check too. A missing header is read as an empty one,
/// as a receiver that finds no header passes "".
#[test]
fn the_verifier_gives_every_shared_invoice_verification_answer() {
    use psi::webhook::WebhookError;
    let path = crate::workspace_root().join("tests/known-answers/invoice-verification.json");
    let text = std::fs::read_to_string(&path).expect("the known answers are checked in");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON");
    assert!(cases.len() >= 12, "every reading and every refusal");
    for case in &cases {
        let description = case["description"].as_str().unwrap();
        let verifier = WebhookVerifier::new(case["secret"].as_str().unwrap());
        let header = case["header"].as_str().unwrap_or_default();
        let answer =
            match verifier.verify_invoice(header, case["body"].as_str().unwrap().as_bytes()) {
                Ok(()) => "ok",
                Err(WebhookError::MalformedHeader(_)) => "malformed",
                Err(WebhookError::SignatureMismatch) => "mismatch",
                Err(other) => panic!("{description}: {other}"),
            };
        assert_eq!(answer, case["expected"], "{description}: {header:?}");
    }
}

/// One decimal known answer (`tests/known-answers/decimals.py`): the plain
/// text a JSON number is held as, or the limit that refuses it.
struct DecimalCase {
    text: String,
    answer: Result<String, String>,
}

fn decimal_cases() -> Vec<DecimalCase> {
    let path = crate::workspace_root().join("tests/known-answers/decimals.json");
    let text = std::fs::read_to_string(&path).expect("the known answers are checked in");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON");
    assert!(cases.len() >= 40, "every notation and every limit");
    cases
        .iter()
        .map(|case| DecimalCase {
            text: case["text"].as_str().unwrap().to_owned(),
            answer: match case["plain"].as_str() {
                Some(plain) => Ok(plain.to_owned()),
                None => Err(case["refused"].as_str().unwrap().to_owned()),
            },
        })
        .collect()
}

#[test]
fn the_sandbox_reads_every_decimal_known_answer() {
    use psi_sandbox::numbers::{exact, Limit};
    for case in decimal_cases() {
        let read = exact(&case.text).map(|d| d.to_string()).map_err(|limit| {
            match limit {
                Limit::OutOfRange => "out_of_range",
                Limit::TooManyDigits => "too_many_digits",
                Limit::TooSmallAStep => "too_small_a_step",
            }
            .to_owned()
        });
        assert_eq!(read, case.answer, "the sandbox reads {}", case.text);
    }
}

#[test]
fn psi_reads_every_decimal_known_answer() {
    use psi::ParseDecimalError;
    for case in decimal_cases() {
        let read = case
            .text
            .parse::<psi::Decimal>()
            .map(|d| d.to_string())
            .map_err(|error| {
                match error {
                    ParseDecimalError::OutOfRange => "out_of_range",
                    ParseDecimalError::TooManyDigits => "too_many_digits",
                    ParseDecimalError::TooSmallAStep => "too_small_a_step",
                    other => panic!("{}: {other:?}", case.text),
                }
                .to_owned()
            });
        assert_eq!(read, case.answer, "psi reads {}", case.text);
    }
}
