//! Every document the sandbox does not emulate by hand, served from its
//! examples, the way stateless mock servers (Prism) serve a document.
//!
//! `cargo xtask generate` bundles each document of `openapi/` into
//! [`crate::documents::DOCUMENTS`]. The APIs of [`HAND_EMULATED`] keep their
//! stateful emulation in `apis/`; every other document is compiled once at
//! startup ([`Served::compile`]) and each of its operations answers at
//! `<sandbox URL><base_path><path>` (the routes are `apis/from_examples.rs`):
//!
//! 1. an armed fault of its operationId applies first ([`crate::faults`]);
//! 2. the bearer token is checked as every emulated API checks it
//!    (`Tokens::check_audience`), against the document's audience
//!    with its `{placeholder}` replaced by the sandbox URL; a document whose
//!    audience is a setting gets `<URL><base_path>`, which the token server
//!    issues and `GET /__sandbox` lists (`documents`); an operation with
//!    `security: []` takes no token;
//! 3. the request is checked against the document ([`request`]): the
//!    Content-Type of a body (415), a required body, path and query
//!    parameters (presence, type, enum, pattern, bounds) and a JSON body
//!    against its schema (400), each refusal a decline naming the field and
//!    the rule;
//! 4. the answer is a documented example ([`answer`]): of the lowest 2xx
//!    status, or of the status and example the `Prefer` header asks for.
//!
//! Nothing is stored: a created resource is not found afterwards. An API
//! that needs state gets a hand-written module and a place in
//! [`HAND_EMULATED`].

mod accepts;
mod answer;
mod compile;
mod documented;
mod media;
mod order;
mod pointer;
mod request;
mod schema;
mod template;

use crate::document::Document;
use crate::refusals::decline;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use compile::Operation;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The documents whose APIs `apis/` emulates by hand, with state: tokens
/// (`auth/`), sessions and their page, bookings, accounts, transactions,
/// shop configurations and storefront orders live across calls there, which
/// examples cannot give. Every other document is served from its examples.
pub const HAND_EMULATED: &[&str] = &[
    "token",
    "payment-page",
    "pay-later",
    "bank-accounts",
    "order-status",
    "transaction-status",
    "shop-config",
    "storefront",
];

/// The compiled documents one sandbox serves from their examples.
#[derive(Default)]
pub struct Served {
    documents: Vec<Arc<compile::Compiled>>,
}

impl Served {
    /// Compiles the bundled documents not in [`HAND_EMULATED`] plus `extra`
    /// (a document of `extra` replaces a bundled one of the same name) for
    /// the sandbox at `url`. `Err((name, reason))` names the document that
    /// does not compile.
    pub fn compile(url: &str, extra: &[Document]) -> Result<Self, (String, String)> {
        let bundled = crate::documents::DOCUMENTS
            .iter()
            .filter(|document| !extra.iter().any(|e| e.name == document.name));
        let documents = bundled
            .chain(extra)
            .filter(|document| !HAND_EMULATED.contains(&document.name))
            .map(|document| {
                compile::Compiled::new(url, document)
                    .map(Arc::new)
                    .map_err(|reason| (document.name.to_owned(), reason))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // A document of shared types only (`common`) serves nothing.
        let documents = documents
            .into_iter()
            .filter(|document| !document.operations.is_empty())
            .collect();
        Ok(Self { documents })
    }

    /// Does a token for `audience` belong to a served document? (The token
    /// server issues those too.)
    pub fn has_audience(&self, audience: &str) -> bool {
        self.documents.iter().any(|d| d.audience == audience)
    }

    /// What `GET /__sandbox` lists under `documents`.
    pub fn about(&self) -> serde_json::Value {
        self.documents
            .iter()
            .map(|document| document.about())
            .collect()
    }
}

/// The documented answers of the hand-emulated APIs ([`HAND_EMULATED`]),
/// by operationId, for a request that asks for one with
/// `Prefer: code=<status>` (and optionally `example=<name>`).
#[derive(Default)]
pub struct Preferred {
    operations: std::collections::HashMap<&'static str, Target>,
}

impl Preferred {
    /// The bundled documents of [`HAND_EMULATED`], compiled for the sandbox
    /// at `url`.
    pub fn compile(url: &str) -> Result<Self, (String, String)> {
        let mut operations = std::collections::HashMap::new();
        for document in crate::documents::DOCUMENTS
            .iter()
            .filter(|document| HAND_EMULATED.contains(&document.name))
        {
            let compiled = compile::Compiled::new(url, document)
                .map(Arc::new)
                .map_err(|reason| (document.name.to_owned(), reason))?;
            for (index, operation) in compiled.operations.iter().enumerate() {
                operations.insert(
                    operation.operation_id,
                    Target {
                        document: compiled.clone(),
                        operation: index,
                    },
                );
            }
        }
        Ok(Self { operations })
    }

    /// The documented answer `headers` ask for with `Prefer: code=…` to a
    /// call of `operation_id`; `None` when they ask for none (or the
    /// operation is no hand-emulated one).
    pub fn answer(&self, operation_id: &str, headers: &HeaderMap) -> Option<Response> {
        let asks = headers.get_all("prefer").iter().any(|value| {
            value.to_str().is_ok_and(|text| {
                text.split([',', ';'])
                    .any(|token| token.trim().to_ascii_lowercase().starts_with("code"))
            })
        });
        if !asks {
            return None;
        }
        let target = self.operations.get(operation_id)?;
        Some(answer::answer(target.operation(), headers))
    }
}

/// The served operations by route: one axum path per distinct path of the
/// served documents (`/a/{x}` and `/a/{y}` are one route), with every
/// operation it may lead to.
impl Served {
    pub fn routes(&self) -> Vec<(String, Arc<[Target]>)> {
        let mut paths: BTreeMap<String, (String, Vec<Target>)> = BTreeMap::new();
        for document in &self.documents {
            for (index, operation) in document.operations.iter().enumerate() {
                let entry = paths
                    .entry(operation.template.shape())
                    .or_insert_with(|| (operation.template.axum_path(), Vec::new()));
                entry.1.push(Target {
                    document: document.clone(),
                    operation: index,
                });
            }
        }
        paths
            .into_values()
            .map(|(path, targets)| (path, targets.into()))
            .collect()
    }
}

/// A request's path parameters, by name, as they came (undecoded).
pub type PathValues = Vec<(String, String)>;

/// An operation a route may lead to.
pub struct Target {
    document: Arc<compile::Compiled>,
    operation: usize,
}

impl Target {
    fn operation(&self) -> &Operation {
        &self.document.operations[self.operation]
    }

    /// The operationId, for the faults armed for it and the log.
    pub fn operation_id(&self) -> &'static str {
        self.operation().operation_id
    }

    /// The audience its token must carry; `None` for an operation with
    /// `security: []`.
    pub fn audience(&self) -> Option<&str> {
        self.operation()
            .needs_token
            .then_some(self.document.audience.as_str())
    }

    /// The operation of `targets` a `method` request to `raw_path` (the
    /// undecoded path) is for, with its path parameters; a 404 or a 405
    /// (with `Allow`) in the decline shape when there is none.
    pub fn find<'a>(
        targets: &'a [Target],
        method: &Method,
        raw_path: &str,
    ) -> Result<(&'a Target, PathValues), Response> {
        let at_path: Vec<(&Target, Vec<(String, String)>)> = targets
            .iter()
            .filter_map(|t| Some((t, t.operation().template.capture(raw_path)?)))
            .collect();
        if at_path.is_empty() {
            return Err(decline(
                StatusCode::NOT_FOUND,
                &["UNKNOWN_PATH"],
                vec![(
                    "$".to_owned(),
                    "no operation is served at this path".to_owned(),
                )],
            ));
        }
        let index = at_path
            .iter()
            .position(|(t, _)| t.operation().method == method);
        match index {
            Some(index) => Ok(at_path.into_iter().nth(index).expect("found above")),
            None => Err(method_not_allowed(
                at_path.iter().map(|(t, _)| &t.operation().method),
            )),
        }
    }

    /// The answer to a request whose token has passed: its checks against
    /// the document (415, 400 naming the field and the rule), then the
    /// documented example (`Prefer` picks the status and example).
    pub fn respond(
        &self,
        path_values: &[(String, String)],
        headers: &HeaderMap,
        query: &str,
        body: &[u8],
    ) -> Response {
        let operation = self.operation();
        if let Err(refusal) = request::check(operation, headers, path_values, query, body) {
            return refusal;
        }
        answer::answer(operation, headers)
    }
}

/// 405 with `Allow`, in the decline shape.
fn method_not_allowed<'a>(allowed: impl Iterator<Item = &'a Method>) -> Response {
    let allowed: Vec<&str> = allowed.map(Method::as_str).collect();
    let mut response = decline(
        StatusCode::METHOD_NOT_ALLOWED,
        &["METHOD_NOT_ALLOWED"],
        vec![(
            "$".to_owned(),
            format!("the path is served with {} only", allowed.join(", ")),
        )],
    );
    if let Ok(value) = HeaderValue::from_str(&allowed.join(", ")) {
        response.headers_mut().insert(header::ALLOW, value);
    }
    response.into_response()
}
