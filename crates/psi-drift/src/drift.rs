//! [`Drift`]: findings aggregated over many calls, bounded however long it runs.

use crate::compiled::{essence_of, Api, Content, Documents, Status, INVOICE_NOTIFICATION};
use crate::finding::{Direction, Finding, Kind, Report};
use crate::schema::Id;
use crate::walk::{Raw, Walk};
use chrono::Utc;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;

/// How much a [`Drift`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Distinct findings kept; past it, new ones are counted in
    /// [`Report::dropped`] only.
    pub max_findings: usize,
    /// Distinct example values kept per finding.
    pub max_examples: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_findings: 1000,
            max_examples: 3,
        }
    }
}

/// What the service sent that the documents do not say, aggregated: one
/// [`Finding`] per operation, direction, kind, pointer and status, counted.
/// Shared between threads; checking an answer without findings takes no lock.
pub struct Drift {
    documents: &'static Documents,
    limits: Limits,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    findings: HashMap<Key, Finding>,
    dropped: u64,
}

type Key = (Option<String>, Direction, Kind, String, Option<u16>);

/// A finding the caller made itself (a path no document declares, a body
/// too large to read, a signature that does not verify).
#[derive(Debug, Clone)]
pub struct Note<'a> {
    pub operation_id: Option<&'a str>,
    pub direction: Direction,
    pub kind: Kind,
    pub pointer: &'a str,
    pub status: Option<u16>,
    pub expected: Option<String>,
    /// Shown as given: redact it first ([`crate::example`]).
    pub example: Option<String>,
}

impl Default for Drift {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Drift")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Drift {
    /// Against the documents bundled into this crate, with default limits.
    pub fn new() -> Self {
        Self::with_limits(Limits::default())
    }

    pub fn with_limits(limits: Limits) -> Self {
        Self::with_documents(Documents::bundled(), limits)
    }

    pub fn with_documents(documents: &'static Documents, limits: Limits) -> Self {
        Self {
            documents,
            limits,
            state: Mutex::new(State::default()),
        }
    }

    pub fn documents(&self) -> &'static Documents {
        self.documents
    }

    /// Checks one answer of `operation_id`: its status, media type and
    /// body. `content_type` is the header as received; `body` the bytes
    /// after any content coding is undone.
    pub fn answer(&self, operation_id: &str, status: u16, content_type: Option<&str>, body: &[u8]) {
        let Some((api, operation)) = self.documents.operation(operation_id) else {
            return;
        };
        let responses = &operation.responses;
        let found = responses
            .iter()
            .find(|(key, _)| *key == Status::Exact(status))
            .or_else(|| {
                responses
                    .iter()
                    .find(|(key, _)| *key == Status::Range(status / 100))
            })
            .or_else(|| responses.iter().find(|(key, _)| *key == Status::Default));
        let found = match found {
            Some((_, content)) => self.check_content(api, content, content_type, body),
            None => {
                let mut listed: Vec<String> = responses.iter().map(|(key, _)| key.key()).collect();
                listed.sort_unstable();
                vec![Raw {
                    kind: Kind::UndeclaredStatus,
                    pointer: String::new(),
                    schema: format!("{}/responses", operation.at),
                    expected: format!("one of [{}]", listed.join(", ")),
                    example: Some(status.to_string()),
                }]
            }
        };
        self.record(
            api,
            Some(&operation.operation_id),
            Direction::Answer,
            Some(status),
            found,
        );
    }

    /// Checks one request body a client sent to `operation_id`.
    pub fn request(&self, operation_id: &str, content_type: Option<&str>, body: &[u8]) {
        self.sent(operation_id, Direction::Request, content_type, body);
    }

    /// Checks one notification's body: [`crate::SESSION_NOTIFICATION`]
    /// (the payment page's callback) or [`crate::INVOICE_NOTIFICATION`].
    pub fn notification(&self, operation_id: &str, content_type: Option<&str>, body: &[u8]) {
        if operation_id != INVOICE_NOTIFICATION {
            self.sent(operation_id, Direction::Notification, content_type, body);
            return;
        }
        // No operation declares it: its payload is a schema of its own.
        let Some((a, schema)) = self.documents.invoice else {
            return;
        };
        let api = &self.documents.apis[a];
        let mut found = Vec::new();
        self.check_json(api, schema, body, &mut found);
        self.record(
            api,
            Some(operation_id),
            Direction::Notification,
            None,
            found,
        );
    }

    /// A body sent to an operation (a request, or a callback's notification).
    fn sent(
        &self,
        operation_id: &str,
        direction: Direction,
        content_type: Option<&str>,
        body: &[u8],
    ) {
        let Some((api, operation)) = self.documents.operation(operation_id) else {
            return;
        };
        if let Some(content) = &operation.request {
            let found = self.check_content(api, content, content_type, body);
            self.record(api, Some(&operation.operation_id), direction, None, found);
        }
    }

    /// Records a finding the caller made.
    pub fn note(&self, note: Note<'_>) {
        let now = Utc::now();
        let mut state = self.lock();
        let key: Key = (
            note.operation_id.map(str::to_owned),
            note.direction,
            note.kind,
            note.pointer.to_owned(),
            note.status,
        );
        let document = note
            .operation_id
            .and_then(|id| self.documents.operation(id))
            .map(|(api, operation)| (Documents::file_of(api, &operation.at), operation.at.clone()));
        self.add(
            &mut state,
            key,
            now,
            note.example.into_iter().collect(),
            note.expected,
            document,
        );
    }

    /// Every finding so far, in a stable order (operation, direction, kind, pointer).
    pub fn report(&self) -> Report {
        let state = self.lock();
        let mut findings: Vec<Finding> = state.findings.values().cloned().collect();
        findings.sort_by(|a, b| {
            (&a.operation_id, a.direction, a.kind, &a.pointer, a.status).cmp(&(
                &b.operation_id,
                b.direction,
                b.kind,
                &b.pointer,
                b.status,
            ))
        });
        Report {
            findings,
            dropped: state.dropped,
        }
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        let state = self.lock();
        state.findings.is_empty() && state.dropped == 0
    }

    /// Forgets every finding.
    pub fn clear(&self) {
        *self.lock() = State::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The media type and the body of a documented request body or answer.
    fn check_content(
        &self,
        api: &Api,
        content: &Content,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Vec<Raw> {
        let mut found = Vec::new();
        if content.media.is_empty() || body.iter().all(u8::is_ascii_whitespace) {
            return found;
        }
        let received = content_type.map(essence_of);
        let matches = received.is_some_and(|received| {
            content
                .media
                .iter()
                .any(|(_, essence, _)| essence.eq_ignore_ascii_case(received) || essence == "*/*")
        });
        if !matches {
            let mut keys: Vec<&str> = content
                .media
                .iter()
                .map(|(key, _, _)| key.as_str())
                .collect();
            keys.sort_unstable();
            let shown = content_type.map_or("none".to_owned(), |t| {
                Value::String(t.chars().take(64).collect()).to_string()
            });
            found.push(Raw {
                kind: Kind::MediaType,
                pointer: String::new(),
                schema: format!("{}/content", content.at),
                expected: format!("one of [{}]", keys.join(", ")),
                example: Some(shown),
            });
        }
        // The JSON form of the content, when the document has one and what
        // arrived is (or may be) JSON.
        let read_as_json = match received {
            Some(received) => is_json(received) || !matches,
            None => true,
        };
        let json = content
            .media
            .iter()
            .find(|(_, essence, _)| is_json(essence));
        if let (Some((_, _, Some(schema))), true) = (json, read_as_json) {
            self.check_json(api, *schema, body, &mut found);
        }
        found
    }

    fn check_json(&self, api: &Api, schema: Id, body: &[u8], found: &mut Vec<Raw>) {
        let mut walk = Walk::new(&api.schemas);
        if crate::stream::check(&mut walk, schema, body) {
            found.append(&mut walk.found);
        } else {
            found.push(Raw {
                kind: Kind::NotJson,
                pointer: String::new(),
                schema: api.schemas.nodes[schema].at.clone(),
                expected: "JSON".to_owned(),
                example: None,
            });
        }
    }

    fn record(
        &self,
        api: &Api,
        operation_id: Option<&str>,
        direction: Direction,
        status: Option<u16>,
        found: Vec<Raw>,
    ) {
        if found.is_empty() {
            return;
        }
        let now = Utc::now();
        // One body counts once per finding, whatever number of array items
        // gave it; each item's value is an example.
        let mut grouped: Vec<(Key, Raw, Vec<String>)> = Vec::new();
        for raw in found {
            let key: Key = (
                operation_id.map(str::to_owned),
                direction,
                raw.kind,
                raw.pointer.clone(),
                status,
            );
            match grouped.iter_mut().find(|(known, _, _)| *known == key) {
                Some((_, _, examples)) => examples.extend(raw.example),
                None => {
                    let examples = raw.example.iter().cloned().collect();
                    grouped.push((key, raw, examples));
                }
            }
        }
        let mut state = self.lock();
        for (key, raw, examples) in grouped {
            let document = (Documents::file_of(api, &raw.schema), raw.schema);
            self.add(
                &mut state,
                key,
                now,
                examples,
                Some(raw.expected),
                Some(document),
            );
        }
    }

    fn add(
        &self,
        state: &mut State,
        key: Key,
        now: chrono::DateTime<Utc>,
        examples: Vec<String>,
        expected: Option<String>,
        document: Option<(String, String)>,
    ) {
        let max = self.limits.max_examples;
        let keep = |kept: &mut Vec<String>, examples: Vec<String>| {
            for example in examples {
                if kept.len() < max && !kept.contains(&example) {
                    kept.push(example);
                }
            }
        };
        if let Some(finding) = state.findings.get_mut(&key) {
            finding.count += 1;
            finding.last_seen = now;
            keep(&mut finding.examples, examples);
            return;
        }
        if state.findings.len() >= self.limits.max_findings {
            state.dropped += 1;
            return;
        }
        let (operation_id, direction, kind, pointer, status) = key.clone();
        let (document, schema) = document.unzip();
        state.findings.insert(
            key,
            Finding {
                operation_id,
                direction,
                kind,
                pointer,
                status,
                count: 1,
                first_seen: now,
                last_seen: now,
                examples: {
                    let mut kept = Vec::new();
                    keep(&mut kept, examples);
                    kept
                },
                expected,
                document,
                schema,
            },
        );
    }
}

/// `application/json` or `application/<something>+json`, in any case.
fn is_json(essence: &str) -> bool {
    essence.eq_ignore_ascii_case("application/json")
        || essence
            .get(essence.len().saturating_sub(5)..)
            .is_some_and(|end| end.eq_ignore_ascii_case("+json"))
}
