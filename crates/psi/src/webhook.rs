//! Verification of the notifications the service POSTs to a merchant
//! (docs/service-notes.md, "Webhooks"). The service signs its two kinds
//! differently, both in the header `X-Signature` (header names are
//! case-insensitive: the provider writes it `x-signature` for invoices):
//!
//! | notification | sent to | signature | checked by |
//! |---|---|---|---|
//! | session record | the session's `url_data.webhook_url` | `t=<unix seconds>,v1=<Base64(HMAC-SHA256(secret, "<t>." + raw body))>` | [`WebhookVerifier::verify`], [`WebhookVerifier::parse_session_notification`] |
//! | invoice | each webhook subscription of the invoice event | lowercase hex of HMAC-SHA512(subscription secret, raw body) | [`WebhookVerifier::verify_invoice`], [`WebhookVerifier::parse_invoice_notification`] |
//!
//! A receiver knows which kind arrives by the address it is sent to (the
//! session's `webhook_url` or the subscription's URL), and keys each
//! verifier with that address's secret. Verification works on the raw body
//! bytes (re-serialising parsed JSON would change them) and compares in
//! constant time.
//!
//! ## Session notifications
//!
//! The header is read leniently where the sender's formatting may vary and
//! exactly where the bytes are signed: parts split at `,`, each trimmed,
//! empty ones skipped, unknown keys ignored, every `v1` tried (a secret
//! rotation signs with both secrets); `t` must be ASCII digits and is signed
//! as sent, leading zeros included. The TypeScript and Python clients read
//! it the same way: `tests/known-answers/webhook-verification.json` holds
//! the answers all three give.
//!
//! What the tolerance allows: a notification verifies whenever `t` lies
//! within the tolerance ([`DEFAULT_TOLERANCE`], 300 s, either way) of the
//! verifier's clock, however often it arrives. The bound makes a captured
//! notification useless once the window has passed; within the window, the
//! same notification verifies again, replayed or delivered twice. Make the
//! receiver idempotent: act on a session's status once, keyed by
//! `session_id` and `session_status` (a record of the pairs already
//! handled, kept at least as long as the tolerance), and answer 2xx to a
//! repeat without acting again.
//!
//! ## Invoice notifications
//!
//! The header is the 128 hexadecimal digits of the HMAC-SHA512, trimmed of
//! surrounding whitespace; upper-case digits are read as well. The provider
//! signs the payload's compact string: a body that arrives so verifies as
//! it is, one that arrives indented through its [`compact_json`] form. There is no
//! timestamp, so nothing bounds a replay's age and the tolerance and clock
//! do not apply: act once per `invoice_id` (keep the ids handled) and answer
//! 2xx to a repeat. The TypeScript and Python clients verify the same way:
//! `tests/known-answers/invoice-verification.json`.
//!
//! ```
//! use psi::webhook::{sign, WebhookVerifier};
//! use psi_runtime::Secret;
//!
//! let secret = Secret::new("whsec-example");
//! let body = br#"{"session_id":"s-1","session_status":"COMPLETED"}"#;
//! let header = sign(&secret, chrono::Utc::now().timestamp(), body);
//!
//! let record = WebhookVerifier::new(secret).parse_session_notification(&header, body)?;
//! assert_eq!(record.session_id.as_deref(), Some("s-1"));
//! # Ok::<(), psi::webhook::WebhookError>(())
//! ```
//!
//! ```
//! use psi::webhook::{sign_invoice, WebhookVerifier};
//! use psi_runtime::Secret;
//!
//! // The provider's own example: secret `abc123`, body `{"key":"value"}`.
//! let secret = Secret::new("abc123");
//! assert_eq!(
//!     sign_invoice(&secret, br#"{"key":"value"}"#),
//!     "4c131d60caea39b5f65625b80270e5305d5a00ebc5d15a00ecf82da9de2fcc8f\
//!      f45df068a11f8b336890b161eb1fdefafe452d2e452623b37e4bd3277bb348fd"
//! );
//!
//! let body = br#"{"id":92,"invoice_id":"DG0627731Z7-001","pdf_url":"https://api.example.com/x.pdf"}"#;
//! let header = sign_invoice(&secret, body);
//! let invoice = WebhookVerifier::new(secret).parse_invoice_notification(&header, body)?;
//! assert_eq!(invoice.invoice_id.as_deref(), Some("DG0627731Z7-001"));
//! # Ok::<(), psi::webhook::WebhookError>(())
//! ```
//!
//! With psi's `drift` feature, [`WebhookVerifier::with_drift`] checks each
//! notification that verifies into a client's drift report
//! ([`crate::drift`]); one that does not verify is never checked.
//!
//! The functions that verify, parse and sign are `#[inline]`, for the build
//! rather than for speed: they are compiled into the application that calls
//! them, not into psi, so one that receives no webhooks does not compile
//! them, nor the session record's whole JSON parser.

use std::{fmt, sync::Arc, time::Duration};

use base64::{engine::general_purpose::STANDARD as BASE64, Engine as _};
use chrono::{DateTime, Utc};
use hmac_sha256::HMAC;
use hmac_sha512::HMAC as HMAC512;
use psi_payment_page::types::SessionRecord;
use psi_runtime::Secret;
use subtle::ConstantTimeEq;

/// Name of the header that carries the signature.
pub const SIGNATURE_HEADER: &str = "X-Signature";

/// How far `t` may lie from now, in either direction, unless configured otherwise.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(300);

/// Length of an HMAC-SHA256 output; a `v1` of any other length cannot be one.
const SIGNATURE_LEN: usize = 32;

/// Length of an HMAC-SHA512 output, the invoice notification's signature.
const INVOICE_SIGNATURE_LEN: usize = 64;

/// The source of "now" for the age check; inject a [`FixedClock`] in tests.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> DateTime<Utc>;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that always answers the same instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedClock(pub DateTime<Utc>);

impl FixedClock {
    /// A clock stopped at `seconds` after the Unix epoch; `None` when chrono
    /// cannot represent that instant.
    pub fn at_unix(seconds: i64) -> Option<Self> {
        DateTime::from_timestamp(seconds, 0).map(Self)
    }
}

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
    }
}

/// What is wrong with the shape of an `X-Signature` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderProblem {
    /// A comma-separated part is not `key=value`.
    PartWithoutEquals,
    /// No `t=` part.
    MissingTimestamp,
    /// More than one `t=` part: which one was signed is ambiguous.
    DuplicateTimestamp,
    /// `t` is not a whole, non-negative number of seconds.
    BadTimestamp,
    /// No `v1=` part.
    MissingSignature,
    /// A `v1` value is not standard Base64.
    BadBase64,
    /// A `v1` value decodes to a length an HMAC-SHA256 never has.
    BadSignatureLength {
        /// The decoded length.
        bytes: usize,
    },
    /// An invoice notification's header is not the 128 hexadecimal digits
    /// of an HMAC-SHA512.
    BadInvoiceSignature {
        /// How many characters it has, once trimmed.
        characters: usize,
    },
}

impl fmt::Display for HeaderProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PartWithoutEquals => f.write_str("a part is not of the form key=value"),
            Self::MissingTimestamp => f.write_str("the t=<unix seconds> part is missing"),
            Self::DuplicateTimestamp => f.write_str("the t= part appears more than once"),
            Self::BadTimestamp => f.write_str("t is not a whole number of seconds"),
            Self::MissingSignature => f.write_str("the v1=<signature> part is missing"),
            Self::BadBase64 => f.write_str("v1 is not valid Base64"),
            Self::BadSignatureLength { bytes } => write!(
                f,
                "v1 decodes to {bytes} bytes; an HMAC-SHA256 has {SIGNATURE_LEN}"
            ),
            Self::BadInvoiceSignature { characters } => write!(
                f,
                "an invoice signature is {} hexadecimal digits (HMAC-SHA512); \
                 this one has {characters} characters and is not",
                INVOICE_SIGNATURE_LEN * 2
            ),
        }
    }
}

/// Why a notification was rejected. No variant carries the secret, the
/// signature or the body.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WebhookError {
    /// The header does not have the expected form.
    MalformedHeader(HeaderProblem),

    /// The signature is authentic but `t` is older than the tolerance: a
    /// replay, a long-delayed retry, or a slow local clock.
    StaleTimestamp {
        /// How long ago the notification was signed.
        age: Duration,
        /// The tolerance.
        tolerance: Duration,
    },

    /// The signature is authentic but `t` lies further ahead than the
    /// tolerance: one of the two clocks is wrong.
    FutureTimestamp {
        /// How far ahead of this clock the timestamp is.
        ahead: Duration,
        /// The tolerance.
        tolerance: Duration,
    },

    /// No `v1` matches the HMAC of `t` and the body under our secret (an
    /// invoice notification: the header is not the HMAC-SHA512 of the body).
    ///
    /// A tampered body (or `t`) and a wrong secret both end here: the HMAC
    /// of different inputs is an unrelated value either way, and the
    /// documented header (`t`, `v1`) carries nothing else, such as a key id,
    /// that would tell them apart. The one honest distinction, a `v1` that
    /// cannot be an HMAC-SHA256 at all, is reported as
    /// [`HeaderProblem::BadSignatureLength`] instead.
    SignatureMismatch,

    /// The signature is valid but the body is not the notification expected.
    InvalidPayload {
        /// JSON path of the field.
        path: String,
        /// The rule it breaks.
        rule: String,
    },
}

// Written out rather than derived (see `Error`'s Display in error.rs).
impl fmt::Display for WebhookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MalformedHeader(problem) => write!(f, "malformed X-Signature header: {problem}"),
            Self::StaleTimestamp { age, tolerance } => write!(
                f,
                "the notification was signed {} s ago; the tolerance is {} s",
                age.as_secs(),
                tolerance.as_secs()
            ),
            Self::FutureTimestamp { ahead, tolerance } => write!(
                f,
                "the notification is dated {} s in the future; the tolerance is {} s",
                ahead.as_secs(),
                tolerance.as_secs()
            ),
            Self::SignatureMismatch => {
                f.write_str("the signature does not match the body (tampered body or wrong secret)")
            }
            Self::InvalidPayload { path, rule } => {
                write!(f, "invalid notification payload at {path}: {rule}")
            }
        }
    }
}

impl std::error::Error for WebhookError {}

/// Checks `X-Signature` headers with a shared secret.
#[derive(Clone)]
pub struct WebhookVerifier {
    secret: Secret,
    tolerance: Duration,
    clock: Arc<dyn Clock>,
    /// The drift report each verified body is checked into
    /// ([`Self::with_drift`]).
    #[cfg(feature = "drift")]
    drift: Option<Arc<psi_drift::Drift>>,
}

impl fmt::Debug for WebhookVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `Secret`'s own Debug redacts; the clock has no useful Debug.
        f.debug_struct("WebhookVerifier")
            .field("secret", &self.secret)
            .field("tolerance", &self.tolerance)
            .field("drift", &self.drift_is_on())
            .finish_non_exhaustive()
    }
}

impl WebhookVerifier {
    /// A verifier with the [`DEFAULT_TOLERANCE`] and the system clock.
    pub fn new(secret: impl Into<Secret>) -> Self {
        Self {
            secret: secret.into(),
            tolerance: DEFAULT_TOLERANCE,
            clock: Arc::new(SystemClock),
            #[cfg(feature = "drift")]
            drift: None,
        }
    }

    /// How far `t` may lie from now in either direction.
    pub fn with_tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Reads the time from `clock` (tests pin it).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Checks each notification that verifies into `client`'s drift report
    /// ([`crate::ClientBuilder::drift`]; nothing when it is off): a
    /// session notification against the `receiveSessionNotification`
    /// callback of `openapi/payment-page.yaml`, an invoice notification
    /// against `InvoiceNotification` of `openapi/order-status.yaml`, as
    /// [`Direction::Notification`](crate::drift::Direction::Notification)
    /// findings. Only a body whose signature verifies (and, for a session
    /// notification, whose age is within the tolerance) is checked: bytes
    /// anyone could send must not fill the report. The media type is not
    /// checked: the verifier sees the body, not the request's headers.
    #[cfg(feature = "drift")]
    pub fn with_drift(mut self, client: &crate::Client) -> Self {
        self.drift = client.drift_checker().cloned();
        self
    }

    /// Whether verified bodies go into a drift report.
    fn drift_is_on(&self) -> bool {
        #[cfg(feature = "drift")]
        return self.drift.is_some();
        #[cfg(not(feature = "drift"))]
        false
    }

    /// A verified notification's body into the drift report, when one is set.
    #[inline]
    #[cfg_attr(not(feature = "drift"), allow(unused_variables))]
    fn verified(&self, notification: Notification, raw_body: &[u8]) {
        #[cfg(feature = "drift")]
        if let Some(drift) = &self.drift {
            let operation_id = match notification {
                Notification::Session => psi_drift::SESSION_NOTIFICATION,
                Notification::Invoice => psi_drift::INVOICE_NOTIFICATION,
            };
            // The media type the documents declare: the verifier does not see the header.
            drift.notification(operation_id, Some("application/json"), raw_body);
        }
    }

    /// Checks the header against the raw body bytes exactly as received.
    ///
    /// The signature is checked before the age, so a stale or future
    /// timestamp is only reported for a notification that is authentic.
    #[inline]
    pub fn verify(&self, signature_header: &str, raw_body: &[u8]) -> Result<(), WebhookError> {
        let header = SignatureHeader::parse(signature_header)?;
        let expected = mac(&self.secret, header.timestamp_text, raw_body);
        // ct_eq compares in constant time (and a candidate of another length
        // is simply unequal); every candidate is tried so the time taken does
        // not depend on which one matched.
        let matched = header.signatures.iter().fold(false, |matched, candidate| {
            bool::from(expected.as_slice().ct_eq(candidate)) | matched
        });
        if !matched {
            return Err(WebhookError::SignatureMismatch);
        }
        self.check_age(header.timestamp)?;
        self.verified(Notification::Session, raw_body);
        Ok(())
    }

    /// Verifies, then parses the body into a session record.
    #[inline]
    pub fn parse_session_notification(
        &self,
        signature_header: &str,
        raw_body: &[u8],
    ) -> Result<SessionRecord, WebhookError> {
        self.verify(signature_header, raw_body)?;
        parse_payload(raw_body)
    }

    /// Checks an invoice notification's header (the hex of HMAC-SHA512
    /// over the payload's compact string) against the raw body bytes as
    /// received: the body itself, or, for a body that arrives indented, its
    /// [`compact_json`] form. Invoice notifications carry no timestamp: the
    /// tolerance and the clock do not apply.
    #[inline]
    pub fn verify_invoice(
        &self,
        signature_header: &str,
        raw_body: &[u8],
    ) -> Result<(), WebhookError> {
        let received =
            decode_invoice_signature(signature_header).map_err(WebhookError::MalformedHeader)?;
        let key = self.secret.expose().as_bytes();
        // Both forms are always tried, so the time taken does not depend on
        // which one matched.
        let as_received = HMAC512::mac(raw_body, key).as_slice().ct_eq(&received);
        let compact = HMAC512::mac(compact_json(raw_body), key)
            .as_slice()
            .ct_eq(&received);
        if bool::from(as_received | compact) {
            self.verified(Notification::Invoice, raw_body);
            Ok(())
        } else {
            Err(WebhookError::SignatureMismatch)
        }
    }

    /// Verifies an invoice notification ([`Self::verify_invoice`]), then
    /// parses the body.
    #[inline]
    pub fn parse_invoice_notification(
        &self,
        signature_header: &str,
        raw_body: &[u8],
    ) -> Result<InvoiceNotification, WebhookError> {
        self.verify_invoice(signature_header, raw_body)?;
        parse_payload(raw_body)
    }

    #[inline]
    fn check_age(&self, timestamp: i64) -> Result<(), WebhookError> {
        let age_seconds = self.clock.now().timestamp().saturating_sub(timestamp);
        let distance = Duration::from_secs(age_seconds.unsigned_abs());
        if distance.as_secs() <= self.tolerance.as_secs() {
            Ok(())
        } else if age_seconds > 0 {
            Err(WebhookError::StaleTimestamp {
                age: distance,
                tolerance: self.tolerance,
            })
        } else {
            Err(WebhookError::FutureTimestamp {
                ahead: distance,
                tolerance: self.tolerance,
            })
        }
    }
}

/// Which notification verified (what the drift report checks it against).
#[derive(Clone, Copy)]
enum Notification {
    Session,
    Invoice,
}

/// Parses a verified body. A notification is something psi receives: read
/// leniently, as answers are.
#[inline]
fn parse_payload<T: serde::de::DeserializeOwned>(raw_body: &[u8]) -> Result<T, WebhookError> {
    let text = std::str::from_utf8(raw_body).map_err(|_| WebhookError::InvalidPayload {
        path: "$".to_owned(),
        rule: "the body is not UTF-8".to_owned(),
    })?;
    psi_runtime::leniency::lenient(|| psi_runtime::parse_json(text)).map_err(|error| {
        WebhookError::InvalidPayload {
            path: json_path(&error.field),
            rule: error.rule,
        }
    })
}

/// Turns a path from [`psi_runtime::parse_json`] (`order_data.items[0]`,
/// `$` for the root) into a JSON path (`$.order_data.items[0]`).
#[inline]
fn json_path(field: &str) -> String {
    match field {
        "" | "$" | "." => "$".to_owned(),
        indexed if indexed.starts_with('[') => format!("${indexed}"),
        named => format!("$.{named}"),
    }
}

/// The complete `X-Signature` header value for `body` signed at `timestamp`
/// (Unix seconds), as the service sends it.
#[inline]
pub fn sign(secret: &Secret, timestamp: i64, body: &[u8]) -> String {
    let timestamp_text = timestamp.to_string();
    let signature = mac(secret, &timestamp_text, body);
    format!("t={timestamp_text},v1={}", BASE64.encode(signature))
}

/// The `X-Signature` header value of an invoice notification of `body`, as
/// the service sends it: the lowercase hex of HMAC-SHA512 over the body,
/// keyed with the subscription's secret.
#[inline]
pub fn sign_invoice(secret: &Secret, body: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mac = HMAC512::mac(body, secret.expose().as_bytes());
    let mut hex = String::with_capacity(INVOICE_SIGNATURE_LEN * 2);
    for byte in mac {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    hex
}

/// `body` without JSON whitespace (space, tab, line feed, carriage return)
/// outside string literals; key order, escapes and number text stay as
/// received. The provider computes an invoice notification's signature "on
/// a string representation of the payload", `{"key":"value"}` for the
/// payload it shows indented: this is that string for a body that arrives
/// indented. Read byte by byte: no byte of a multi-byte UTF-8 character is
/// a quote, a backslash or whitespace, so it works on any bytes.
#[inline]
pub fn compact_json(body: &[u8]) -> Vec<u8> {
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

/// The 64 bytes an invoice notification's header gives in hex: trimmed,
/// exactly 128 digits of either case.
#[inline]
fn decode_invoice_signature(header: &str) -> Result<[u8; INVOICE_SIGNATURE_LEN], HeaderProblem> {
    let trimmed = header.trim();
    let problem = || HeaderProblem::BadInvoiceSignature {
        characters: trimmed.chars().count(),
    };
    let digits = trimmed.as_bytes();
    if digits.len() != INVOICE_SIGNATURE_LEN * 2 {
        return Err(problem());
    }
    let mut bytes = [0; INVOICE_SIGNATURE_LEN];
    for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
        let high = hex_value(pair[0]).ok_or_else(problem)?;
        let low = hex_value(pair[1]).ok_or_else(problem)?;
        *byte = high << 4 | low;
    }
    Ok(bytes)
}

#[inline]
fn hex_value(digit: u8) -> Option<u8> {
    char::from(digit)
        .to_digit(16)
        .and_then(|value| u8::try_from(value).ok())
}

/// HMAC-SHA256 over `"<t>.<body>"`. `t` is used as the text that was sent,
/// not re-formatted, because that text is what the sender signed.
///
/// `hmac-sha256` rather than RustCrypto's `hmac` + `sha2`: the same function
/// (the known answers in tests/suite/known_answers.rs are computed outside
/// Rust), without `digest`, `typenum` and `generic-array` in every user's
/// release build.
#[inline]
fn mac(secret: &Secret, timestamp_text: &str, body: &[u8]) -> [u8; SIGNATURE_LEN] {
    let mut mac = HMAC::new(secret.expose().as_bytes());
    mac.update(timestamp_text.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize()
}

/// The parts of an `X-Signature` header. Unknown keys are ignored so the
/// service can add schemes (`v2=...`) without breaking verification; several
/// `v1` parts are all tried (as during a secret rotation).
struct SignatureHeader<'a> {
    timestamp_text: &'a str,
    timestamp: i64,
    signatures: Vec<Vec<u8>>,
}

impl<'a> SignatureHeader<'a> {
    #[inline]
    fn parse(header: &'a str) -> Result<Self, WebhookError> {
        let malformed = WebhookError::MalformedHeader;
        let mut timestamp_text = None;
        let mut encoded_signatures = Vec::new();
        // Empty parts (a trailing comma) carry nothing and are skipped.
        for part in header
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
        {
            let (key, value) = part
                .split_once('=')
                .ok_or(malformed(HeaderProblem::PartWithoutEquals))?;
            match key {
                "t" if timestamp_text.is_some() => {
                    return Err(malformed(HeaderProblem::DuplicateTimestamp))
                }
                "t" => timestamp_text = Some(value),
                "v1" => encoded_signatures.push(value),
                _ => {}
            }
        }
        let timestamp_text = timestamp_text.ok_or(malformed(HeaderProblem::MissingTimestamp))?;
        let timestamp =
            parse_unix_seconds(timestamp_text).ok_or(malformed(HeaderProblem::BadTimestamp))?;
        if encoded_signatures.is_empty() {
            return Err(malformed(HeaderProblem::MissingSignature));
        }
        let signatures = encoded_signatures
            .into_iter()
            .map(decode_signature)
            .collect::<Result<_, _>>()
            .map_err(malformed)?;
        Ok(Self {
            timestamp_text,
            timestamp,
            signatures,
        })
    }
}

/// Digits only: `+5`, `-5` and ` 5` would parse as numbers, but are not what
/// the service sends.
#[inline]
fn parse_unix_seconds(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[inline]
fn decode_signature(encoded: &str) -> Result<Vec<u8>, HeaderProblem> {
    let bytes = BASE64
        .decode(encoded)
        .map_err(|_| HeaderProblem::BadBase64)?;
    if bytes.len() == SIGNATURE_LEN {
        Ok(bytes)
    } else {
        Err(HeaderProblem::BadSignatureLength { bytes: bytes.len() })
    }
}

/// An invoice notification (docs/service-notes.md, "Invoice
/// notifications"): the provider's fields, with its name written `gateway`
/// as the specification writes it. The provider marks the payload as still
/// subject to change, so every field is optional (a missing or `null` one is
/// `None`) and further members are kept in [`Self::other`].
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize, serde::Serialize)]
#[non_exhaustive]
pub struct InvoiceNotification {
    /// Unique identifier of the webhook event: a JSON number, as the
    /// provider types it (an integer in its example), kept as sent.
    #[serde(default)]
    pub id: Option<serde_json::Number>,
    /// The order id the shop generated and the buyer knows.
    #[serde(default)]
    pub shop_transaction_id: Option<String>,
    /// The reference the buyer gives in the bank transfer.
    #[serde(default)]
    pub gateway_payment_reference: Option<String>,
    /// The transaction the invoice belongs to.
    #[serde(default)]
    pub gateway_transaction_id: Option<String>,
    /// The billing id of the order: the correspondence id of the invoice.
    /// A receiver acts once per `invoice_id`: the notification has no
    /// timestamp, so a repeat verifies as the first did.
    #[serde(default)]
    pub invoice_id: Option<String>,
    /// The address of the EML file.
    #[serde(default)]
    pub eml_url: Option<String>,
    /// The address of the PDF file.
    #[serde(default)]
    pub pdf_url: Option<String>,
    /// Every other member, as received.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// A file format of an invoice notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvoiceFormat {
    /// `pdf_url`.
    Pdf,
    /// `eml_url`.
    Eml,
}

impl InvoiceNotification {
    /// The address of `format`'s file, as the notification gives it.
    pub fn address(&self, format: InvoiceFormat) -> Option<&str> {
        match format {
            InvoiceFormat::Pdf => self.pdf_url.as_deref(),
            InvoiceFormat::Eml => self.eml_url.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psi_payment_page::types::SessionStatus;

    const SECRET: &str = "whsec-test-4f9c6f0e2d0b";
    const NOW: i64 = 1_715_934_930;
    const BODY: &[u8] = br#"{"session_id":"5f0c7a52-1d2e-4b8a-9c3f-2a6d8e4b1c70","transaction_id":"12-34567890123456789","partner_transaction_id":"order-100045","shop_buyer_id":"buyer-4711","session_status":"COMPLETED","created_date":"2024-05-17T10:15:30.123+02:00","updated_date":"2024-05-17T10:18:02.456+02:00"}"#;

    #[test]
    fn every_webhook_error_says_what_went_wrong() {
        let seconds = Duration::from_secs;
        let cases = [
            (
                WebhookError::MalformedHeader(HeaderProblem::DuplicateTimestamp),
                format!(
                    "malformed X-Signature header: {}",
                    HeaderProblem::DuplicateTimestamp
                ),
            ),
            (
                WebhookError::StaleTimestamp {
                    age: seconds(400),
                    tolerance: seconds(300),
                },
                "the notification was signed 400 s ago; the tolerance is 300 s".into(),
            ),
            (
                WebhookError::FutureTimestamp {
                    ahead: seconds(301),
                    tolerance: seconds(300),
                },
                "the notification is dated 301 s in the future; the tolerance is 300 s".into(),
            ),
            (
                WebhookError::SignatureMismatch,
                "the signature does not match the body (tampered body or wrong secret)".into(),
            ),
            (
                WebhookError::InvalidPayload {
                    path: "$.session_status".into(),
                    rule: "required".into(),
                },
                "invalid notification payload at $.session_status: required".into(),
            ),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
            assert!(std::error::Error::source(&error).is_none());
        }
    }

    #[test]
    fn parse_paths_become_json_paths() {
        assert_eq!(json_path("$"), "$");
        assert_eq!(json_path("[2].id"), "$[2].id");
        assert_eq!(
            json_path("order_data.shop_baskets[0]"),
            "$.order_data.shop_baskets[0]"
        );
    }

    fn verifier() -> WebhookVerifier {
        let clock = FixedClock::at_unix(NOW).expect("a representable instant");
        WebhookVerifier::new(SECRET).with_clock(Arc::new(clock))
    }

    fn signed_at(timestamp: i64) -> String {
        sign(&Secret::new(SECRET), timestamp, BODY)
    }

    fn malformed(header: &str) -> WebhookError {
        verifier().verify(header, BODY).unwrap_err()
    }

    #[test]
    fn a_valid_signature_passes() {
        assert_eq!(verifier().verify(&signed_at(NOW), BODY), Ok(()));
    }

    #[test]
    fn sign_produces_the_documented_header() {
        let header = signed_at(NOW);
        let (t, v1) = header.split_once(",v1=").unwrap();
        assert_eq!(t, format!("t={NOW}"));
        // Independent recomputation: HMAC over "<t>.<body>".
        let mut message = format!("{NOW}.").into_bytes();
        message.extend_from_slice(BODY);
        assert_eq!(v1, BASE64.encode(HMAC::mac(&message, SECRET.as_bytes())));
    }

    #[test]
    fn a_tampered_body_is_a_mismatch() {
        let tampered = String::from_utf8(BODY.to_vec())
            .unwrap()
            .replace("COMPLETED", "CANCELED");
        assert_eq!(
            verifier().verify(&signed_at(NOW), tampered.as_bytes()),
            Err(WebhookError::SignatureMismatch)
        );
    }

    #[test]
    fn a_tampered_timestamp_is_a_mismatch() {
        let header = signed_at(NOW).replacen(&NOW.to_string(), &(NOW - 1).to_string(), 1);
        assert_eq!(
            verifier().verify(&header, BODY),
            Err(WebhookError::SignatureMismatch)
        );
    }

    #[test]
    fn a_wrong_secret_is_a_mismatch() {
        let header = sign(&Secret::new("another-secret"), NOW, BODY);
        assert_eq!(
            verifier().verify(&header, BODY),
            Err(WebhookError::SignatureMismatch)
        );
    }

    #[test]
    fn any_matching_v1_is_accepted() {
        let good = signed_at(NOW);
        let other = sign(&Secret::new("old-secret"), NOW, BODY);
        let (_, other_v1) = other.split_once(",v1=").unwrap();
        let header = format!("{good},v1={other_v1},v2=future-scheme");
        assert_eq!(verifier().verify(&header, BODY), Ok(()));
    }

    #[test]
    fn a_stale_timestamp_is_rejected_with_its_age() {
        let tolerance = DEFAULT_TOLERANCE.as_secs() as i64;
        assert_eq!(verifier().verify(&signed_at(NOW - tolerance), BODY), Ok(()));
        assert_eq!(
            verifier().verify(&signed_at(NOW - tolerance - 1), BODY),
            Err(WebhookError::StaleTimestamp {
                age: Duration::from_secs(301),
                tolerance: DEFAULT_TOLERANCE,
            })
        );
    }

    #[test]
    fn a_future_timestamp_is_rejected() {
        let short = verifier().with_tolerance(Duration::from_secs(60));
        assert_eq!(short.verify(&signed_at(NOW + 60), BODY), Ok(()));
        assert_eq!(
            short.verify(&signed_at(NOW + 61), BODY),
            Err(WebhookError::FutureTimestamp {
                ahead: Duration::from_secs(61),
                tolerance: Duration::from_secs(60),
            })
        );
    }

    #[test]
    fn malformed_headers_say_what_is_wrong() {
        use HeaderProblem::*;
        let v1 = signed_at(NOW).split_once(",v1=").unwrap().1.to_owned();
        let cases = [
            (String::new(), MissingTimestamp),
            (format!("garbage,t={NOW},v1={v1}"), PartWithoutEquals),
            (format!("v1={v1}"), MissingTimestamp),
            (format!("t={NOW}"), MissingSignature),
            (format!("t={NOW},t={NOW},v1={v1}"), DuplicateTimestamp),
            (format!("t=soon,v1={v1}"), BadTimestamp),
            (format!("t=-5,v1={v1}"), BadTimestamp),
            (format!("t=99999999999999999999,v1={v1}"), BadTimestamp),
            (format!("t={NOW},v1=not*base64"), BadBase64),
            (
                format!("t={NOW},v1=c2hvcnQ="),
                BadSignatureLength { bytes: 5 },
            ),
            (format!("t={NOW};v1={v1}"), BadTimestamp),
        ];
        for (header, problem) in cases {
            assert_eq!(
                malformed(&header),
                WebhookError::MalformedHeader(problem),
                "{header:?}"
            );
        }
    }

    #[test]
    fn the_parsed_record_has_the_fields_of_the_body() {
        let record = verifier()
            .parse_session_notification(&signed_at(NOW), BODY)
            .unwrap();
        assert_eq!(
            record.session_id.as_deref(),
            Some("5f0c7a52-1d2e-4b8a-9c3f-2a6d8e4b1c70")
        );
        assert_eq!(
            record.transaction_id.as_deref(),
            Some("12-34567890123456789")
        );
        assert_eq!(
            record.partner_transaction_id.as_deref(),
            Some("order-100045")
        );
        assert_eq!(record.shop_buyer_id.as_deref(), Some("buyer-4711"));
        assert_eq!(record.session_status, Some(SessionStatus::Completed));
        let created = record.created_date.unwrap();
        assert_eq!(created.to_rfc3339(), "2024-05-17T10:15:30.123+02:00");
    }

    #[test]
    fn a_signed_body_that_is_not_a_record_names_the_path() {
        let body = br#"{"session_id":"s-1","created_date":"yesterday"}"#;
        let header = sign(&Secret::new(SECRET), NOW, body);
        match verifier().parse_session_notification(&header, body) {
            Err(WebhookError::InvalidPayload { path, .. }) => assert_eq!(path, "$.created_date"),
            other => panic!("expected an invalid payload, got {other:?}"),
        }
    }

    #[test]
    fn an_unsigned_body_is_not_parsed() {
        let header = sign(&Secret::new("another-secret"), NOW, BODY);
        assert_eq!(
            verifier().parse_session_notification(&header, BODY),
            Err(WebhookError::SignatureMismatch)
        );
    }

    #[test]
    fn debug_and_errors_never_show_the_secret() {
        let shown = format!("{:?}", verifier());
        assert!(!shown.contains(SECRET), "{shown}");
        assert!(shown.contains("tolerance"), "{shown}");
        let error = verifier().verify(&signed_at(NOW), b"{}").unwrap_err();
        assert!(!format!("{error} {error:?}").contains(SECRET));
    }

    /// The provider's published example (docs/service-notes.md, "Invoice
    /// notifications").
    const PROVIDER_SECRET: &str = "abc123";
    const PROVIDER_BODY: &[u8] = br#"{"key":"value"}"#;
    const PROVIDER_SIGNATURE: &str = "4c131d60caea39b5f65625b80270e5305d5a00ebc5d15a00ecf82da9de2fcc8ff45df068a11f8b336890b161eb1fdefafe452d2e452623b37e4bd3277bb348fd";
    const INVOICE: &[u8] = br#"{"id":92,"shop_transaction_id":"shop-transaction-id-1234","gateway_payment_reference":"GD1234567890","gateway_transaction_id":"32-201411251340634","invoice_id":"DG0627731Z7-001","eml_url":"https://api.example.com/api/order/32-201411251340634/correspondences/invoices/DG0627731Z7-001/eml","pdf_url":"https://api.example.com/api/order/32-201411251340634/correspondences/invoices/DG0627731Z7-001/pdf","event":"INVOICE_CREATED"}"#;

    fn provider_verifier() -> WebhookVerifier {
        WebhookVerifier::new(PROVIDER_SECRET)
    }

    #[test]
    fn the_providers_invoice_example_signs_and_verifies() {
        assert_eq!(
            sign_invoice(&Secret::new(PROVIDER_SECRET), PROVIDER_BODY),
            PROVIDER_SIGNATURE
        );
        assert_eq!(
            provider_verifier().verify_invoice(PROVIDER_SIGNATURE, PROVIDER_BODY),
            Ok(())
        );
        // Upper-case digits and surrounding whitespace are read too.
        let loose = format!(" {} ", PROVIDER_SIGNATURE.to_uppercase());
        assert_eq!(
            provider_verifier().verify_invoice(&loose, PROVIDER_BODY),
            Ok(())
        );
    }

    #[test]
    fn an_indented_body_verifies_through_its_compact_form() {
        // The provider's example as the provider shows the payload.
        let indented = b"{\n  \"key\": \"value\"\n}\n";
        assert_eq!(compact_json(indented), PROVIDER_BODY);
        assert_eq!(
            provider_verifier().verify_invoice(PROVIDER_SIGNATURE, indented),
            Ok(())
        );
        // Strings keep their whitespace and escapes; only what lies between
        // tokens goes.
        let body = br#"{ "q" : "say \" hi \\" , "n" : [ 1 , 2.50 ] }"#;
        assert_eq!(compact_json(body), br#"{"q":"say \" hi \\","n":[1,2.50]}"#);
        assert_eq!(
            compact_json(b"caf\xc3\xa9 \"\xc3\xa9 \""),
            b"caf\xc3\xa9\"\xc3\xa9 \""
        );
    }

    #[test]
    fn an_invoice_signature_has_no_timestamp_and_ignores_the_clock() {
        let far_future = FixedClock::at_unix(4_000_000_000).unwrap();
        let verifier = provider_verifier()
            .with_clock(Arc::new(far_future))
            .with_tolerance(Duration::ZERO);
        assert_eq!(
            verifier.verify_invoice(PROVIDER_SIGNATURE, PROVIDER_BODY),
            Ok(())
        );
    }

    #[test]
    fn a_changed_invoice_body_secret_or_digit_is_a_mismatch() {
        let verifier = provider_verifier();
        assert_eq!(
            verifier.verify_invoice(PROVIDER_SIGNATURE, br#"{"key":"value2"}"#),
            Err(WebhookError::SignatureMismatch)
        );
        assert_eq!(
            verifier.verify_invoice(PROVIDER_SIGNATURE, br#"{"key": "value "}"#),
            Err(WebhookError::SignatureMismatch),
            "whitespace inside a string is part of the payload"
        );
        assert_eq!(
            verifier.verify_invoice(PROVIDER_SIGNATURE, br#"{"value":"key"}"#),
            Err(WebhookError::SignatureMismatch)
        );
        assert_eq!(
            WebhookVerifier::new("abc124").verify_invoice(PROVIDER_SIGNATURE, PROVIDER_BODY),
            Err(WebhookError::SignatureMismatch)
        );
        let flipped = format!("5{}", &PROVIDER_SIGNATURE[1..]);
        assert_eq!(
            verifier.verify_invoice(&flipped, PROVIDER_BODY),
            Err(WebhookError::SignatureMismatch)
        );
    }

    #[test]
    fn an_invoice_header_that_is_not_128_hex_digits_is_malformed() {
        let mac = HMAC512::mac(PROVIDER_BODY, PROVIDER_SECRET.as_bytes());
        let session_style = sign(&Secret::new(PROVIDER_SECRET), NOW, PROVIDER_BODY);
        let cases = [
            (String::new(), 0),
            (PROVIDER_SIGNATURE[1..].to_owned(), 127),
            (format!("{PROVIDER_SIGNATURE}0"), 129),
            (format!("{}g", &PROVIDER_SIGNATURE[1..]), 128),
            (format!("sha512={PROVIDER_SIGNATURE}"), 135),
            (BASE64.encode(mac), 88),
            (session_style.clone(), session_style.len()),
            // Multi-byte characters are counted as characters, never split.
            (format!("{}é", &PROVIDER_SIGNATURE[2..]), 127),
        ];
        for (header, characters) in cases {
            assert_eq!(
                provider_verifier().verify_invoice(&header, PROVIDER_BODY),
                Err(WebhookError::MalformedHeader(
                    HeaderProblem::BadInvoiceSignature { characters }
                )),
                "{header:?}"
            );
        }
    }

    #[test]
    fn a_session_verifier_refuses_an_invoice_signature_and_back() {
        let invoice_header = sign_invoice(&Secret::new(SECRET), BODY);
        assert!(matches!(
            verifier().verify(&invoice_header, BODY),
            Err(WebhookError::MalformedHeader(_))
        ));
        assert!(matches!(
            verifier().verify_invoice(&signed_at(NOW), BODY),
            Err(WebhookError::MalformedHeader(
                HeaderProblem::BadInvoiceSignature { .. }
            ))
        ));
    }

    #[test]
    fn the_parsed_invoice_has_the_providers_fields() {
        let secret =
            Secret::new("a-subscription-secret-of-at-least-sixty-four-characters-0123456789");
        let header = sign_invoice(&secret, INVOICE);
        let invoice = WebhookVerifier::new(secret)
            .parse_invoice_notification(&header, INVOICE)
            .unwrap();
        assert_eq!(
            invoice.id.as_ref().and_then(serde_json::Number::as_u64),
            Some(92)
        );
        assert_eq!(
            invoice.shop_transaction_id.as_deref(),
            Some("shop-transaction-id-1234")
        );
        assert_eq!(
            invoice.gateway_payment_reference.as_deref(),
            Some("GD1234567890")
        );
        assert_eq!(
            invoice.gateway_transaction_id.as_deref(),
            Some("32-201411251340634")
        );
        assert_eq!(invoice.invoice_id.as_deref(), Some("DG0627731Z7-001"));
        assert!(invoice
            .address(InvoiceFormat::Pdf)
            .unwrap()
            .ends_with("/pdf"));
        assert!(invoice
            .address(InvoiceFormat::Eml)
            .unwrap()
            .ends_with("/eml"));
        assert_eq!(invoice.other["event"], "INVOICE_CREATED");
    }

    #[test]
    fn an_invoice_with_nulls_or_nothing_still_parses() {
        for body in [
            &br#"{}"#[..],
            br#"{"id":null,"invoice_id":null,"pdf_url":null}"#,
        ] {
            let header = sign_invoice(&Secret::new(SECRET), body);
            let invoice = verifier()
                .parse_invoice_notification(&header, body)
                .unwrap();
            assert_eq!(invoice.invoice_id, None);
            assert_eq!(invoice.address(InvoiceFormat::Pdf), None);
        }
    }
}
