//! `--record FILE`: every exchange appended as one JSON line, redacted by
//! construction. One line:
//!
//! ```json
//! {"time": "2026-11-29T04:40:48.123Z", "direction": "exchange",
//!  "method": "POST", "path": "/oauth/token?x=1", "operation_id": "getToken",
//!  "request": {"headers": {"content-type": "application/json"}, "body": {...}},
//!  "answer": {"status": 200, "headers": {...}, "body": {...}}}
//! ```
//!
//! `direction` is `"exchange"` (a client's request and the upstream's
//! answer) or `"notification"` (a webhook posted to the proxy; its
//! `answer` is the receiver's). `headers` maps each lower-case name to its
//! value (several values joined by `, `). A body is given as one of:
//! `"body"`, the JSON value (an answer's after its content coding is
//! undone); `"body_text"`, a text body that is not JSON; or
//! `"body_omitted"` (`"binary"`, `"too_large"`) with `"body_bytes"`. A
//! binary body is left out rather than written as base64, which no
//! redaction could read. An absent body is `"body": null`.
//!
//! Redaction: client secrets, passwords, access tokens, `Authorization`,
//! cookies, webhook secrets and signatures become stable placeholders
//! (`<secret-1>`, `<token-1>`, `<signature-1>`: the same value, the same
//! placeholder throughout the file; the mapping lives in memory only), and
//! IBANs (by member name or by shape) keep their last four characters. A
//! value once known as secret is replaced wherever else it appears in a
//! later line, too. Nothing is written before it is redacted.

use psi_drift::{last_four, looks_like_iban};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// Known values shorter than this are redacted where they are found by
/// name only: replacing a short text everywhere would break lines apart.
const MIN_REPLACED_ANYWHERE: usize = 6;

/// A body as it will be recorded.
#[derive(Debug, Clone)]
enum Body {
    None,
    Bytes {
        content_type: Option<String>,
        bytes: Vec<u8>,
    },
    TooLarge,
}

/// One exchange on its way to the file.
#[derive(Debug, Clone)]
pub struct Exchange {
    direction: &'static str,
    method: String,
    path: String,
    operation_id: Option<String>,
    request_headers: Vec<(String, String)>,
    request_body: Body,
    status: Option<u16>,
    answer_headers: Vec<(String, String)>,
    answer_body: Body,
}

impl Exchange {
    /// A client's request of `method` to `path` (with its query).
    pub fn new(method: &str, path: &str, operation_id: Option<String>) -> Self {
        Self {
            direction: "exchange",
            method: method.to_owned(),
            path: path.to_owned(),
            operation_id,
            request_headers: Vec::new(),
            request_body: Body::None,
            status: None,
            answer_headers: Vec::new(),
            answer_body: Body::None,
        }
    }

    /// A notification posted to the proxy.
    pub fn notification(path: &str, operation_id: &str) -> Self {
        Self {
            direction: "notification",
            ..Self::new("POST", path, Some(operation_id.to_owned()))
        }
    }

    /// The headers forwarded.
    pub fn request_headers(&mut self, headers: &axum::http::HeaderMap) {
        self.request_headers = pairs(headers);
    }

    /// The request body as forwarded.
    pub fn request_body(&mut self, content_type: Option<&str>, bytes: &[u8]) {
        self.request_body = body(content_type, bytes);
    }

    /// The request body was over `--max-body`.
    pub fn request_body_omitted(&mut self) {
        self.request_body = Body::TooLarge;
    }

    /// The answer's status and headers.
    pub fn answer_headers(&mut self, status: u16, headers: &axum::http::HeaderMap) {
        self.status = Some(status);
        self.answer_headers = pairs(headers);
    }

    /// The answer's body, its content coding undone.
    pub fn answer_body(&mut self, content_type: Option<&str>, bytes: &[u8]) {
        self.answer_body = body(content_type, bytes);
    }

    /// The answer's body was over `--max-body` or could not be decoded.
    pub fn answer_body_omitted(&mut self) {
        self.answer_body = Body::TooLarge;
    }
}

fn pairs(headers: &axum::http::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect()
}

fn body(content_type: Option<&str>, bytes: &[u8]) -> Body {
    if bytes.is_empty() {
        return Body::None;
    }
    Body::Bytes {
        content_type: content_type.map(str::to_owned),
        bytes: bytes.to_vec(),
    }
}

/// The file, and the placeholders given so far.
pub struct Recorder {
    file: Mutex<(std::fs::File, Redactor)>,
}

impl Recorder {
    /// Opens `path` for appending; `secrets` (the webhook secrets) are
    /// known as secret from the start.
    pub fn open<'a>(
        path: &Path,
        secrets: impl IntoIterator<Item = &'a str>,
    ) -> std::io::Result<Recorder> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        let mut redactor = Redactor::default();
        for secret in secrets {
            redactor.placeholder(Class::Secret, secret);
        }
        Ok(Recorder {
            file: Mutex::new((file, redactor)),
        })
    }

    /// Appends `exchange`, redacted. A failed write is logged (without
    /// the line) and does not stop the proxy.
    pub fn write(&self, exchange: Exchange) {
        let mut guard = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (file, redactor) = &mut *guard;
        let mut line = redactor.line(&exchange);
        line.push('\n');
        if let Err(error) = file.write_all(line.as_bytes()).and_then(|()| file.flush()) {
            tracing::warn!(%error, "--record: a line could not be written");
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Class {
    Secret,
    Token,
    Signature,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Secret => "secret",
            Class::Token => "token",
            Class::Signature => "signature",
        }
    }

    /// What a member, header or parameter named `name` holds, if secret.
    fn of_name(name: &str) -> Option<Class> {
        let name = name.to_ascii_lowercase();
        if name.contains("signature") {
            Some(Class::Signature)
        } else if name.contains("secret")
            || name.contains("password")
            || name.contains("cookie")
            || name.contains("api-key")
            || name.contains("api_key")
        {
            Some(Class::Secret)
        } else if name.ends_with("token")
            || name == "assertion"
            || name == "authorization"
            || name == "proxy-authorization"
        {
            Some(Class::Token)
        } else {
            None
        }
    }
}

/// Stable placeholders: value → placeholder, kept in memory only.
#[derive(Default)]
pub struct Redactor {
    placeholders: HashMap<String, String>,
    counts: HashMap<Class, usize>,
}

impl Redactor {
    fn placeholder(&mut self, class: Class, value: &str) -> String {
        if let Some(known) = self.placeholders.get(value) {
            return known.clone();
        }
        let count = self.counts.entry(class).or_insert(0);
        *count += 1;
        let placeholder = format!("<{}-{count}>", class.name());
        self.placeholders
            .insert(value.to_owned(), placeholder.clone());
        placeholder
    }

    /// The redacted line of `exchange` (without its newline).
    fn line(&mut self, exchange: &Exchange) -> String {
        // Headers and bodies first: they teach the known values the path
        // and the text bodies are then cleared of.
        let request_headers = self.headers(&exchange.request_headers);
        let answer_headers = self.headers(&exchange.answer_headers);
        let mut request = Map::new();
        request.insert("headers".to_owned(), request_headers);
        self.body_into(&exchange.request_body, &mut request);
        let mut answer = Map::new();
        if let Some(status) = exchange.status {
            answer.insert("status".to_owned(), json!(status));
        }
        answer.insert("headers".to_owned(), answer_headers);
        self.body_into(&exchange.answer_body, &mut answer);
        let line = json!({
            "time": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "direction": exchange.direction,
            "method": exchange.method,
            "path": self.path(&exchange.path),
            "operation_id": exchange.operation_id,
            "request": request,
            "answer": answer,
        });
        self.known_values_out(&line.to_string())
    }

    fn headers(&mut self, headers: &[(String, String)]) -> Value {
        let mut out = Map::new();
        for (name, value) in headers {
            let redacted = match Class::of_name(name) {
                Some(Class::Token) => match value.split_once(' ') {
                    // `Bearer <token>`: the scheme stays readable.
                    Some((scheme, credentials)) => {
                        format!(
                            "{scheme} {}",
                            self.placeholder(Class::Token, credentials.trim())
                        )
                    }
                    None => self.placeholder(Class::Token, value),
                },
                Some(class) => self.placeholder(class, value),
                None => value.clone(),
            };
            match out.get_mut(name) {
                Some(Value::String(joined)) => {
                    joined.push_str(", ");
                    joined.push_str(&redacted);
                }
                _ => {
                    out.insert(name.clone(), Value::String(redacted));
                }
            }
        }
        Value::Object(out)
    }

    fn body_into(&mut self, body: &Body, into: &mut Map<String, Value>) {
        match body {
            Body::None => {
                into.insert("body".to_owned(), Value::Null);
            }
            Body::TooLarge => {
                into.insert("body_omitted".to_owned(), json!("too_large"));
            }
            Body::Bytes {
                content_type,
                bytes,
            } => {
                if let Ok(mut value) = serde_json::from_slice::<Value>(bytes) {
                    self.json(&mut value, None);
                    into.insert("body".to_owned(), value);
                } else if let Ok(text) = std::str::from_utf8(bytes) {
                    let form = content_type.as_deref().is_some_and(|t| {
                        t.to_ascii_lowercase()
                            .starts_with("application/x-www-form-urlencoded")
                    });
                    let text = if form {
                        self.form(text)
                    } else {
                        text.to_owned()
                    };
                    into.insert("body_text".to_owned(), json!(self.text(&text)));
                } else {
                    into.insert("body_omitted".to_owned(), json!("binary"));
                    into.insert("body_bytes".to_owned(), json!(bytes.len()));
                }
            }
        }
    }

    /// Redacts `value` in place; `member` is the name it was found under.
    fn json(&mut self, value: &mut Value, member: Option<&str>) {
        match value {
            Value::String(text) => {
                if let Some(class) = member.and_then(Class::of_name) {
                    *text = self.placeholder(class, text);
                } else if member.is_some_and(|m| m.to_ascii_lowercase().contains("iban"))
                    || looks_like_iban(text)
                {
                    *text = last_four(text);
                } else {
                    // An IBAN written inside a longer text (`pay to DE02…`).
                    *text = ibans_out(text);
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.json(item, member);
                }
            }
            Value::Object(members) => {
                for (name, value) in members.iter_mut() {
                    self.json(value, Some(name));
                }
            }
            Value::Number(_) | Value::Bool(_) | Value::Null => {}
        }
    }

    /// A form body with its secret fields replaced.
    fn form(&mut self, text: &str) -> String {
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(text.as_bytes())
            .map(|(name, value)| {
                let value = match Class::of_name(&name) {
                    Some(class) => self.placeholder(class, &value),
                    None if looks_like_iban(&value) => last_four(&value),
                    None => value.into_owned(),
                };
                (name.into_owned(), value)
            })
            .collect();
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish()
    }

    /// The path with secret query parameters replaced.
    fn path(&mut self, path: &str) -> String {
        let (path, query) = match path.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (path, None),
        };
        let path = self.text(path);
        match query {
            Some(query) => format!("{path}?{}", self.form(query)),
            None => path,
        }
    }

    /// Text with every known value and every IBAN-shaped word replaced.
    fn text(&self, text: &str) -> String {
        ibans_out(&self.known_values_out(text))
    }

    /// `text` with every known value (long enough to be found safely)
    /// replaced by its placeholder.
    fn known_values_out(&self, text: &str) -> String {
        let mut out = text.to_owned();
        let mut known: Vec<(&String, &String)> = self
            .placeholders
            .iter()
            .filter(|(value, _)| value.len() >= MIN_REPLACED_ANYWHERE)
            .collect();
        // Longest first: a value containing another is replaced whole.
        known.sort_by_key(|(value, _)| std::cmp::Reverse(value.len()));
        for (value, placeholder) in known {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), placeholder);
            }
        }
        out
    }
}

/// `text` with every IBAN-shaped word (written without spaces) replaced
/// by its last four characters.
fn ibans_out(text: &str) -> String {
    let ibans: Vec<&str> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| looks_like_iban(word))
        .collect();
    let mut out = text.to_owned();
    for iban in ibans {
        out = out.replace(iban, &last_four(iban));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_tokens_signatures_and_ibans_never_reach_a_line() {
        let mut redactor = Redactor::default();
        redactor.placeholder(Class::Secret, "webhook-secret-1");
        let mut exchange = Exchange::new(
            "POST",
            "/oauth/token?api_key=k3y-k3y-k3y",
            Some("getToken".into()),
        );
        exchange.request_headers = vec![("authorization".into(), "Bearer eyJ.abc.def".into())];
        exchange.request_body = body(
            Some("application/json"),
            br#"{"client_id":"id","client_secret":"s3cr3t-value","iban":"DE02 1203 0000 0000 2020 51","note":"DE02120300000000202051","memo":"pay to DE02120300000000202051 today"}"#,
        );
        exchange.answer_body = body(
            Some("application/json"),
            br#"{"access_token":"eyJ.abc.def","token_type":"Bearer","echo":"s3cr3t-value webhook-secret-1"}"#,
        );
        let line = redactor.line(&exchange);
        for secret in [
            "s3cr3t-value",
            "eyJ.abc.def",
            "k3y-k3y-k3y",
            "webhook-secret-1",
            "DE02",
            "0202051",
        ] {
            assert!(!line.contains(secret), "{secret} in {line}");
        }
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            value["request"]["headers"]["authorization"],
            "Bearer <token-1>"
        );
        assert_eq!(value["answer"]["body"]["access_token"], "<token-1>");
        assert_eq!(value["answer"]["body"]["token_type"], "Bearer");
        assert_eq!(value["request"]["body"]["client_secret"], "<secret-2>");
        assert_eq!(value["answer"]["body"]["echo"], "<secret-2> <secret-1>");
        assert_eq!(value["request"]["body"]["note"], "******************2051");
        assert_eq!(
            value["request"]["body"]["memo"],
            "pay to ******************2051 today"
        );
        // the same value, the same placeholder on a later line
        let again = redactor.line(&exchange);
        assert!(again.contains("<secret-2>") && !again.contains("<secret-3>"));
    }
}
