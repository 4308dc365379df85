//! `psi-sandbox drift FILE`: a recording of the proxy (`--record`, JSON
//! lines) or a HAR 1.2 file (`log.entries[].request/response`, as a
//! browser or Postman exports it) checked again, offline, with a fresh
//! [`Drift`].
//!
//! A recording's bodies are redacted: a placeholder (`<secret-1>`) or a
//! masked IBAN (`****2051`) stands where the value was, so a `format`
//! finding whose every example is such a placeholder is the redaction's,
//! not the service's, and is left out of the report.

use base64::{engine::general_purpose::STANDARD, Engine as _};
use psi_drift::{Direction, Drift, Kind, Note, Report};
use serde_json::Value;

/// One exchange read back.
struct Entry {
    notification: bool,
    method: String,
    /// Without the query.
    path: String,
    request_type: Option<String>,
    request_body: Option<Vec<u8>>,
    request_too_large: bool,
    status: Option<u16>,
    answer_type: Option<String>,
    answer_body: Option<Vec<u8>>,
    answer_too_large: bool,
}

/// The report of `text` (a recording or a HAR file); the error says
/// which line or entry could not be read.
pub fn check(text: &str) -> Result<Report, String> {
    let (entries, recording) = match serde_json::from_str::<Value>(text) {
        Ok(har) if har.get("log").is_some() => (har_entries(&har)?, false),
        _ => (recording_entries(text)?, true),
    };
    let drift = Drift::new();
    for entry in &entries {
        check_entry(&drift, entry);
    }
    let mut report = drift.report();
    if recording {
        report.findings.retain(|finding| {
            !(finding.kind == Kind::Format
                && !finding.examples.is_empty()
                && finding.examples.iter().all(|e| is_placeholder(e)))
        });
    }
    Ok(report)
}

fn is_placeholder(example: &str) -> bool {
    [
        "\"<secret-",
        "\"<token-",
        "\"<signature-",
        "\"<redacted>",
        "\"*",
    ]
    .iter()
    .any(|start| example.starts_with(start))
}

fn check_entry(drift: &Drift, entry: &Entry) {
    if entry.notification {
        let id = if entry.path.ends_with("/invoices") {
            psi_drift::INVOICE_NOTIFICATION
        } else {
            psi_drift::SESSION_NOTIFICATION
        };
        if let Some(body) = &entry.request_body {
            drift.notification(id, entry.request_type.as_deref(), body);
        }
        return;
    }
    let Some(route) = drift.documents().route(&entry.method, &entry.path) else {
        drift.note(Note {
            operation_id: None,
            direction: Direction::Request,
            kind: Kind::UndeclaredPath,
            pointer: "",
            status: None,
            expected: None,
            example: Some(format!("{} {}", entry.method, entry.path)),
        });
        return;
    };
    let id = route.operation_id;
    let too_large = |direction, status| {
        drift.note(Note {
            operation_id: Some(id),
            direction,
            kind: Kind::TooLarge,
            pointer: "",
            status,
            expected: None,
            example: None,
        });
    };
    if entry.request_too_large {
        too_large(Direction::Request, None);
    } else if let Some(body) = &entry.request_body {
        drift.request(id, entry.request_type.as_deref(), body);
    }
    if let Some(status) = entry.status {
        if entry.answer_too_large {
            too_large(Direction::Answer, Some(status));
        } else {
            let body = entry.answer_body.as_deref().unwrap_or_default();
            drift.answer(id, status, entry.answer_type.as_deref(), body);
        }
    }
}

fn recording_entries(text: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).map_err(|e| {
            format!(
                "line {}: neither a recording line nor a HAR file: {e}",
                index + 1
            )
        })?;
        let text = |pointer: &str| {
            value
                .pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let full_path = text("/path").unwrap_or_default();
        let body = |side: &str| -> (Option<Vec<u8>>, bool) {
            let part = &value[side];
            if part.get("body_omitted").and_then(Value::as_str) == Some("too_large") {
                return (None, true);
            }
            match (
                part.get("body"),
                part.get("body_text").and_then(Value::as_str),
            ) {
                (_, Some(text)) => (Some(text.as_bytes().to_vec()), false),
                (Some(Value::Null) | None, None) => (None, false),
                (Some(json), None) => (Some(json.to_string().into_bytes()), false),
            }
        };
        let (request_body, request_too_large) = body("request");
        let (answer_body, answer_too_large) = body("answer");
        entries.push(Entry {
            notification: text("/direction").as_deref() == Some("notification"),
            method: text("/method").unwrap_or_else(|| "GET".to_owned()),
            path: full_path.split('?').next().unwrap_or_default().to_owned(),
            request_type: text("/request/headers/content-type"),
            request_body,
            request_too_large,
            status: value
                .pointer("/answer/status")
                .and_then(Value::as_u64)
                .and_then(|s| u16::try_from(s).ok()),
            answer_type: text("/answer/headers/content-type"),
            answer_body,
            answer_too_large,
        });
    }
    Ok(entries)
}

fn har_entries(har: &Value) -> Result<Vec<Entry>, String> {
    let items = har
        .pointer("/log/entries")
        .and_then(Value::as_array)
        .ok_or("a HAR file without log.entries")?;
    let mut entries = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let url = item
            .pointer("/request/url")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("log.entries[{index}].request.url: missing"))?;
        let path = url::Url::parse(url)
            .map_err(|e| format!("log.entries[{index}].request.url: {e}"))?
            .path()
            .to_owned();
        let header = |side: &str| {
            item.pointer(&format!("/{side}/headers"))
                .and_then(Value::as_array)
                .and_then(|headers| {
                    headers.iter().find(|h| {
                        h["name"]
                            .as_str()
                            .is_some_and(|n| n.eq_ignore_ascii_case("content-type"))
                    })
                })
                .and_then(|h| h["value"].as_str())
                .map(str::to_owned)
        };
        let request_type = header("request").or_else(|| {
            item.pointer("/request/postData/mimeType")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        let request_body = item
            .pointer("/request/postData/text")
            .and_then(Value::as_str)
            .map(|t| t.as_bytes().to_vec());
        // A status of 0: the browser got no answer.
        let status = item
            .pointer("/response/status")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .filter(|s| *s != 0);
        let content = item.pointer("/response/content");
        let answer_type = header("response").or_else(|| {
            content
                .and_then(|c| c["mimeType"].as_str())
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
        });
        let answer_body = content
            .and_then(|c| c["text"].as_str())
            .map(|text| {
                if content.and_then(|c| c["encoding"].as_str()) == Some("base64") {
                    STANDARD
                        .decode(text)
                        .map_err(|e| format!("log.entries[{index}].response.content.text: {e}"))
                } else {
                    Ok(text.as_bytes().to_vec())
                }
            })
            .transpose()?;
        entries.push(Entry {
            notification: false,
            method: item
                .pointer("/request/method")
                .and_then(Value::as_str)
                .unwrap_or("GET")
                .to_ascii_uppercase(),
            path,
            request_type,
            request_body,
            request_too_large: false,
            status,
            answer_type,
            answer_body,
            answer_too_large: false,
        });
    }
    Ok(entries)
}
