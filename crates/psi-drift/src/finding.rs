//! The drift vocabulary: one [`Finding`] names what was seen, where, how
//! often, and where the document says otherwise.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Which way the bytes went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// What a client sent to the service.
    Request,
    /// What the service answered.
    Answer,
    /// What the service sent to the merchant's webhook address.
    Notification,
}

/// What kind of difference from the documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A member no schema of the object declares (in any branch of its
    /// `allOf`, `oneOf` or `anyOf`).
    UndeclaredMember,
    /// A value of another JSON type than the schema's `type`.
    Type,
    /// A value outside its `format`, `pattern`, length or bounds.
    Format,
    /// A value the schema's `enum` does not list.
    EnumValue,
    /// A member the schema requires is absent.
    MissingRequired,
    /// A status the operation does not document.
    UndeclaredStatus,
    /// A path and method no document declares.
    UndeclaredPath,
    /// A media type the operation does not document.
    MediaType,
    /// A body documented as JSON that is not JSON.
    NotJson,
    /// A notification whose signature does not verify with the configured secret.
    Signature,
    /// A body over the size the checker reads; passed on unchecked.
    TooLarge,
    /// A body in a content coding the checker does not undo (`zstd`), or
    /// whose bytes are not in the coding it names; passed on unchecked.
    UncheckedCoding,
}

impl Kind {
    /// Every kind, in the order of the report.
    pub const ALL: [Kind; 12] = [
        Kind::UndeclaredMember,
        Kind::Type,
        Kind::Format,
        Kind::EnumValue,
        Kind::MissingRequired,
        Kind::UndeclaredStatus,
        Kind::UndeclaredPath,
        Kind::MediaType,
        Kind::NotJson,
        Kind::Signature,
        Kind::TooLarge,
        Kind::UncheckedCoding,
    ];

    /// The snake_case name of the report (`undeclared_member`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::UndeclaredMember => "undeclared_member",
            Kind::Type => "type",
            Kind::Format => "format",
            Kind::EnumValue => "enum_value",
            Kind::MissingRequired => "missing_required",
            Kind::UndeclaredStatus => "undeclared_status",
            Kind::UndeclaredPath => "undeclared_path",
            Kind::MediaType => "media_type",
            Kind::NotJson => "not_json",
            Kind::Signature => "signature",
            Kind::TooLarge => "too_large",
            Kind::UncheckedCoding => "unchecked_coding",
        }
    }
}

/// One difference between what was seen and what the documents say,
/// aggregated over every time it was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The operation (`getTransactionStatus`); `None` for a path no
    /// document declares.
    pub operation_id: Option<String>,
    pub direction: Direction,
    pub kind: Kind,
    /// Where in the body: a JSON pointer with array indices collapsed to
    /// `*` (`/shop_baskets/*/items/*/description`); `""` for the whole
    /// body or for what is not in a body (a status, a path).
    pub pointer: String,
    /// The answer's status, where there is one.
    pub status: Option<u16>,
    /// How many answers, requests or notifications carried it (a body
    /// counts once, however many array items showed it).
    pub count: u64,
    pub first_seen: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
    /// Up to three distinct values seen, redacted: a secret, token or
    /// signature is never shown, an IBAN only by its last four characters.
    pub examples: Vec<String>,
    /// What the document says there (`type string`, `one of [OPEN, PAID]`).
    pub expected: Option<String>,
    /// The document that says it (`openapi/pay-later.yaml`).
    pub document: Option<String>,
    /// The JSON pointer of the schema (or operation) in that document.
    pub schema: Option<String>,
}

/// The report `GET /__proxy/drift` answers and `--report` writes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub findings: Vec<Finding>,
    /// Findings not kept because the report reached its bound (their
    /// occurrences are not counted anywhere else).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl Report {
    /// A few lines for a terminal: the count per kind, then each finding.
    pub fn summary(&self) -> String {
        use std::fmt::Write as _;
        let mut text = String::new();
        if self.findings.is_empty() {
            text.push_str("drift: none\n");
        } else {
            let _ = writeln!(text, "drift: {} finding(s)", self.findings.len());
            for finding in &self.findings {
                let _ = writeln!(
                    text,
                    "  {} {} {} {}{} ×{}{}",
                    finding.operation_id.as_deref().unwrap_or("-"),
                    match finding.direction {
                        Direction::Request => "request",
                        Direction::Answer => "answer",
                        Direction::Notification => "notification",
                    },
                    finding.kind.as_str(),
                    if finding.pointer.is_empty() {
                        "(body)"
                    } else {
                        &finding.pointer
                    },
                    finding
                        .status
                        .map(|status| format!(" [{status}]"))
                        .unwrap_or_default(),
                    finding.count,
                    match (&finding.document, &finding.schema) {
                        (Some(document), Some(schema)) => format!(" — {document}#{schema}"),
                        _ => String::new(),
                    },
                );
            }
        }
        if self.dropped > 0 {
            let _ = writeln!(
                text,
                "  ({} more not kept: the report is full)",
                self.dropped
            );
        }
        text
    }
}
