//! Every refusal body of the sandbox, per API family, and the family a
//! request path belongs to.
//!
//! Each family answers its refusals in one error shape, always as
//! `application/json`:
//!
//! | family | APIs | error body |
//! |---|---|---|
//! | [`Family::Payment`] | payment page, pay later, bank accounts, order status (with the invoice retrieval), transaction status | `{"decline": {"category", "reasons", "invalid_fields"}}` |
//! | [`Family::Token`] | the token server, the platform's token endpoint | `{"error", "error_description"}` (the platform's own `{"errors": [..]}` for some) |
//! | [`Family::ShopConfig`] | shop configuration | `{"message", "errors": {field: [..]}}` |
//! | [`Family::Storefront`] | the storefront platform's order management module | `{"success": false, "message"}` |
//! | [`Family::Control`] | the test-control API (`/__sandbox`), and paths no API owns | `{"error"}` |
//!
//! A refusal made before any handler runs (size limits, path ids, exact
//! numbers, unknown paths, a panic, an armed fault) and hyper's own refusals
//! ([`crate::http::serve`]) carry a [`Problem`] and take the shape of
//! [`Family::of_path`]; a handler builds its family's body with the
//! functions below ([`decline`], [`token_error`], [`shop_config_error`],
//! [`storefront_failure`], [`control_error`]).
//!
//! # The family of a path
//!
//! Derived once from the bundled documents ([`psi_drift::Documents::bundled`]):
//! each operation's family is the error schema its document declares for
//! its 4xx and 5xx answers (`DeclineResponse`, `TokenError`,
//! `PlatformTokenError`, `ShopConfigurationError`, `ModuleResult`), and its
//! path on this sandbox is its server's address below the sandbox URL
//! ([`Addresses::of`]: `/shop-config` for `shop_config_url`, nothing for the
//! others), its document's base path and its path template. A path belongs
//! to the operation whose template it shares the most leading literal
//! segments with; on a tie, to an operation whose document's base (address
//! and base path) the path is under, the deeper first, then to one of its
//! document's own family (the platform's token endpoint is the storefront
//! document's one operation of another family). A path that shares no
//! segment with any operation is the control API's.
//!
//! `Documents::route(method, path)` alone does not do: it needs the method
//! (hyper's refusals and the path-id check have only the path), it knows no
//! path outside the documents (an unknown path under an API still answers in
//! that API's shape), and the documents do not hold the shop configuration's
//! address (`{shop_config_url}` is a setting; the sandbox serves it under
//! `/shop-config`).

use crate::audiences::Addresses;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// An API family, by the error body it answers with (see the module
/// documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Payment page, pay later, bank accounts, order status (with the
    /// invoice retrieval), transaction status: the decline body.
    Payment,
    /// The token server and the platform's token endpoint.
    Token,
    ShopConfig,
    Storefront,
    /// The test-control API, and paths no API owns.
    Control,
}

impl Family {
    /// The family an operation's documented error schema names; `None` for
    /// a schema of none.
    fn of_error_schema(name: &str) -> Option<Family> {
        match name {
            "DeclineResponse" => Some(Family::Payment),
            "TokenError" | "PlatformTokenError" => Some(Family::Token),
            "ShopConfigurationError" => Some(Family::ShopConfig),
            "ModuleResult" => Some(Family::Storefront),
            _ => None,
        }
    }

    /// The family of `path` (the path part of the request URI, undecoded).
    pub fn of_path(path: &str) -> Family {
        let segments = || path.split('/').filter(|segment| !segment.is_empty());
        let mut best: Option<((usize, usize, bool), Family)> = None;
        for operation in operations() {
            let shared = operation
                .literals
                .iter()
                .zip(segments())
                .take_while(|(literal, given)| literal == given)
                .count();
            if shared == 0 {
                continue;
            }
            let base = operation.base.len();
            let under_base = if base > 0
                && operation
                    .base
                    .iter()
                    .zip(segments())
                    .take_while(|(base, given)| base == given)
                    .count()
                    == base
            {
                base
            } else {
                0
            };
            let key = (shared, under_base, operation.document_family);
            if best.as_ref().is_none_or(|(known, _)| key > *known) {
                best = Some((key, operation.family));
            }
        }
        best.map_or(Family::Control, |(_, family)| family)
    }

    /// `status` with this family's error body, as `application/json`.
    pub fn refuse(self, status: StatusCode, problem: Problem) -> Response {
        (status, Json(self.body(status, problem))).into_response()
    }

    /// This family's error body. The decline's reason is the problem's
    /// reason; its field, when given, is the JSON path (`$.a.b[0]`) or path
    /// parameter name the problem is in.
    pub fn body(self, status: StatusCode, problem: Problem) -> serde_json::Value {
        let Problem {
            reason,
            field,
            message,
        } = problem;
        let located = match &field {
            Some(field) => format!("{field}: {message}"),
            None => message.clone(),
        };
        match self {
            Family::Payment => decline_body(
                Some(form_category(status)),
                &[reason],
                field.map(|field| (field, message)).into_iter().collect(),
            ),
            Family::Token => serde_json::json!({
                "error": "invalid_request",
                "error_description": located,
            }),
            Family::ShopConfig => {
                let errors = match field {
                    // The service keys errors by dotted field path, not `$.`.
                    Some(field) => serde_json::json!({ dotted(&field): [message] }),
                    None => serde_json::json!({}),
                };
                serde_json::json!({"message": located, "errors": errors})
            }
            Family::Storefront => storefront_body(&located),
            Family::Control => serde_json::json!({"error": located}),
        }
    }

    /// The 401 of a call whose token this family refuses, `reason` naming
    /// why (`EXPIRED_TOKEN`, ...).
    pub fn unauthorized(self, reason: &str) -> Response {
        let status = StatusCode::UNAUTHORIZED;
        match self {
            // The decline without a category.
            Family::Payment => decline(status, &[reason], Vec::new()),
            Family::Token => token_error(status, "invalid_client", reason),
            Family::ShopConfig => {
                shop_config_error(status, format!("Unauthorized: {reason}"), BTreeMap::new())
            }
            Family::Storefront => storefront_failure(status, reason),
            Family::Control => control_error(status, reason),
        }
    }
}

/// What went wrong, for [`Family::refuse`].
#[derive(Debug, Clone)]
pub struct Problem {
    pub reason: &'static str,
    pub field: Option<String>,
    pub message: String,
}

impl Problem {
    pub fn new(reason: &'static str, message: impl Into<String>) -> Self {
        Problem {
            reason,
            field: None,
            message: message.into(),
        }
    }

    pub fn at(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

/// One operation of the bundled documents, as [`Family::of_path`] matches it.
struct Operation {
    /// The literal segments its path on this sandbox starts with.
    literals: Vec<String>,
    /// Its document's address below the sandbox URL and base path, as segments.
    base: Vec<String>,
    family: Family,
    /// Whether `family` is the family most of its document's operations have.
    document_family: bool,
}

/// The bundled documents' operations, read once.
fn operations() -> &'static [Operation] {
    static OPERATIONS: OnceLock<Vec<Operation>> = OnceLock::new();
    OPERATIONS.get_or_init(|| {
        let addresses = Addresses::of("");
        let mut all = Vec::new();
        for api in psi_drift::Documents::bundled().apis() {
            let address = match api.server.as_str() {
                "base_url" => &addresses.base_url,
                "api_url" => &addresses.api_url,
                "auth_url" => &addresses.auth_url,
                "platform_url" => &addresses.platform_url,
                "shop_config_url" => &addresses.shop_config_url,
                _ => "",
            };
            let base_path = psi_drift::documents::DOCUMENTS
                .iter()
                .find(|bundled| bundled.name == api.name)
                .map_or("", |bundled| bundled.base_path);
            let base = format!("{address}{base_path}");
            let mut of_document = Vec::new();
            for operation in api.operations.iter().filter(|o| !o.notification) {
                let Some(template) = template_of(&operation.at) else {
                    continue;
                };
                let Some(family) = error_family(&api.root, &operation.at) else {
                    continue;
                };
                let literals = format!("{base}{template}")
                    .split('/')
                    .filter(|segment| !segment.is_empty())
                    .take_while(|segment| !segment.starts_with('{'))
                    .map(str::to_owned)
                    .collect();
                of_document.push((literals, family));
            }
            let most = [
                Family::Payment,
                Family::Token,
                Family::ShopConfig,
                Family::Storefront,
            ]
            .into_iter()
            .max_by_key(|family| of_document.iter().filter(|(_, f)| f == family).count());
            let base: Vec<String> = segments(&base);
            all.extend(of_document.into_iter().map(|(literals, family)| Operation {
                literals,
                base: base.clone(),
                family,
                document_family: Some(family) == most,
            }));
        }
        all
    })
}

fn segments(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|segment| !segment.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `/paths/~1a~1{b}/get` -> `/a/{b}`.
fn template_of(at: &str) -> Option<String> {
    let (escaped, _method) = at.strip_prefix("/paths/")?.rsplit_once('/')?;
    Some(escaped.replace("~1", "/").replace("~0", "~"))
}

/// The family the error schema of an operation's 4xx and 5xx answers names.
fn error_family(root: &serde_json::Value, at: &str) -> Option<Family> {
    let responses = root.pointer(&format!("{at}/responses"))?.as_object()?;
    responses
        .iter()
        .filter(|(status, _)| status.starts_with(['4', '5']))
        .filter_map(|(_, response)| response.get("content")?.as_object())
        .flat_map(|content| content.values())
        .filter_map(|media| media.pointer("/schema/$ref")?.as_str())
        .find_map(|reference| Family::of_error_schema(reference.rsplit('/').next()?))
}

/// The category a refusal about the request's form carries: the provider's
/// public documentation (docs/service-notes.md) give a category per status,
/// and those refusals are SYNTAX but for 404.
fn form_category(status: StatusCode) -> &'static str {
    match status.as_u16() {
        404 => "RESOURCE_NOT_FOUND",
        _ => "SYNTAX",
    }
}

/// `$.address.postal_code` -> `address.postal_code`.
fn dotted(field: &str) -> String {
    field
        .strip_prefix("$.")
        .or_else(|| field.strip_prefix('$'))
        .unwrap_or(field)
        .to_owned()
}

// The payment APIs.

/// A decline body (`{"decline": {category, reasons, invalid_fields}}`) of
/// the payment APIs, with the category the provider's public documentation (docs/service-notes.md) give per status.
pub fn decline(
    status: StatusCode,
    reasons: &[&str],
    invalid_fields: Vec<(String, String)>,
) -> Response {
    let category = match status.as_u16() {
        400 => Some("SYNTAX"),
        404 => Some("RESOURCE_NOT_FOUND"),
        409 => Some("CONFLICT"),
        422 => Some("UNPROCESSABLE_OPERATION"),
        451 => Some("LEGAL"),
        _ => None,
    };
    decline_with(status, category, reasons, invalid_fields)
}

/// [`decline`] with an explicit category (422 has several).
pub fn decline_with(
    status: StatusCode,
    category: Option<&str>,
    reasons: &[&str],
    invalid_fields: Vec<(String, String)>,
) -> Response {
    (
        status,
        Json(decline_body(category, reasons, invalid_fields)),
    )
        .into_response()
}

/// The decline body itself, for answers built outside a handler.
pub fn decline_body(
    category: Option<&str>,
    reasons: &[&str],
    invalid_fields: Vec<(String, String)>,
) -> serde_json::Value {
    let invalid: Vec<_> = invalid_fields
        .into_iter()
        .map(|(json_path, message)| serde_json::json!({"json_path": json_path, "message": message}))
        .collect();
    let mut decline = serde_json::json!({"reasons": reasons, "invalid_fields": invalid});
    if let Some(category) = category {
        decline["category"] = category.into();
    }
    serde_json::json!({"decline": decline})
}

/// The 415 decline of the payment APIs, naming the expected media type.
pub fn unsupported_media_type(expected: crate::media_type::Expected) -> Response {
    decline(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        &["UNSUPPORTED_MEDIA_TYPE"],
        vec![("Content-Type".to_owned(), expected.message())],
    )
}

/// Parses a JSON body into a generated request type; a failure is a 400
/// decline naming the JSON path of the field.
pub fn parse_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Response> {
    parse_body_redacting(body, &[])
}

/// [`parse_body`], with a fixed message for the fields in `redacted`
/// (`(json path, message)`): serde's messages may quote the value, and some
/// values (an IBAN) must never be echoed.
pub fn parse_body_redacting<T: serde::de::DeserializeOwned>(
    body: &[u8],
    redacted: &[(&str, &str)],
) -> Result<T, Response> {
    let text = std::str::from_utf8(body).map_err(|_| {
        decline(
            StatusCode::BAD_REQUEST,
            &["BODY_NOT_UTF8"],
            vec![("$".into(), "not UTF-8".into())],
        )
    })?;
    crate::typed::parse(text).map_err(|refusal| {
        let path = refusal.json_path;
        let message = redacted
            .iter()
            .find(|(field, _)| *field == path)
            .map_or(refusal.rule, |(_, message)| (*message).to_owned());
        decline(
            StatusCode::BAD_REQUEST,
            &["INVALID_FIELD"],
            vec![(path, message)],
        )
    })
}

// The token endpoints.

/// An error of the token server (and the platform token endpoint's 401):
/// `{"error", "error_description"}`.
pub fn token_error(status: StatusCode, error: &str, description: &str) -> Response {
    (
        status,
        Json(serde_json::json!({"error": error, "error_description": description})),
    )
        .into_response()
}

/// An error of the platform's token endpoint in the platform's own shape:
/// `{"errors": [{status, title, detail}]}`.
pub fn platform_token_error(status: StatusCode, detail: &str) -> Response {
    let title = status.canonical_reason().unwrap_or("Error");
    let body = serde_json::json!({"errors": [{"status": status.as_str(), "title": title, "detail": detail}]});
    (status, Json(body)).into_response()
}

// The shop configuration.

/// An error of the shop configuration: `{"message", "errors"}`, the errors
/// keyed by dotted field path, left out when there are none.
pub fn shop_config_error(
    status: StatusCode,
    message: String,
    errors: BTreeMap<String, Vec<String>>,
) -> Response {
    let mut body = serde_json::json!({ "message": message });
    if !errors.is_empty() {
        body["errors"] = serde_json::json!(errors);
    }
    (status, Json(body)).into_response()
}

// The storefront module.

/// A refusal of the storefront module: `{"success": false, "message"}`.
pub fn storefront_failure(status: StatusCode, message: &str) -> Response {
    (status, Json(storefront_body(message))).into_response()
}

fn storefront_body(message: &str) -> serde_json::Value {
    serde_json::json!({"success": false, "message": message})
}

// The test-control API.

/// An error of the control API: `{"error"}`.
pub fn control_error(status: StatusCode, message: impl Into<String>) -> Response {
    let message: String = message.into();
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}

/// [`control_error`] with the `limit` the request went past:
/// `{"error", "limit"}`.
pub fn control_error_with_limit(
    status: StatusCode,
    message: impl Into<String>,
    limit: impl serde::Serialize,
) -> Response {
    let message: String = message.into();
    let body = serde_json::json!({ "error": message, "limit": limit });
    (status, Json(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_their_family() {
        for (path, family) in [
            ("/pps/api/v1/session", Family::Payment),
            ("/pps/landing/5f0c7a52", Family::Payment),
            ("/order/paylater/v1/12-1/status", Family::Payment),
            (
                "/shop/consumer/v1/partners/p/consumer/b/bank-accounts",
                Family::Payment,
            ),
            ("/transaction/status/v2/transactions/1", Family::Payment),
            ("/transaction/management/v1/x", Family::Payment),
            (
                "/api/order/1/correspondences/invoices/2/pdf",
                Family::Payment,
            ),
            ("/api/order/unknown", Family::Payment),
            ("/oauth/token", Family::Token),
            ("/api/oauth/token", Family::Token),
            ("/shop-config/v2/partners/p/shops/s", Family::ShopConfig),
            ("/shop-config/unknown", Family::ShopConfig),
            ("/api/_action/order/1/gateway/info", Family::Storefront),
            ("/api/gateway/order-management/load/1", Family::Storefront),
            ("/api/unknown", Family::Storefront),
            ("/__sandbox/clock/advance", Family::Control),
            ("/__sandbox/shop-config/p/s", Family::Control),
            ("/webhook/management/x", Family::Control),
            ("/nowhere", Family::Control),
            ("/", Family::Control),
        ] {
            assert_eq!(Family::of_path(path), family, "{path}");
        }
    }

    #[test]
    fn every_bundled_operation_has_a_family() {
        let declared: usize = psi_drift::Documents::bundled()
            .apis()
            .iter()
            .map(|api| api.operations.iter().filter(|o| !o.notification).count())
            .sum();
        assert_eq!(operations().len(), declared);
    }

    /// The body `family` answers `status` with, as [`Family::refuse`] and the
    /// handlers' builders make it.
    fn bodies(family: Family, status: StatusCode) -> Vec<Response> {
        let problem = Problem::new("INVALID_FIELD", "must not be blank").at("$.name");
        let mut bodies = vec![
            family.refuse(status, problem.clone()),
            family.refuse(status, Problem::new("UNKNOWN_PATH", "no operation")),
        ];
        if status == StatusCode::UNAUTHORIZED {
            bodies.push(family.unauthorized("EXPIRED_TOKEN"));
        }
        bodies.push(match family {
            Family::Payment => {
                decline(status, &["INVALID_FIELD"], vec![("$.a".into(), "x".into())])
            }
            Family::Token => token_error(status, "invalid_request", "grant_type is missing"),
            Family::ShopConfig => shop_config_error(
                status,
                "Validation failed".into(),
                BTreeMap::from([("name".into(), vec!["must not be blank".into()])]),
            ),
            Family::Storefront => storefront_failure(status, "Order not found"),
            Family::Control => control_error(status, "no session s"),
        });
        if family == Family::Token {
            bodies.push(platform_token_error(
                status,
                "Client authentication failed.",
            ));
        }
        bodies
    }

    fn bytes_of(response: Response) -> (Option<String>, Vec<u8>) {
        use http_body_util::BodyExt as _;
        let content_type = response
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let body = futures_util::FutureExt::now_or_never(response.into_body().collect())
            .expect("a built body is ready")
            .expect("a built body")
            .to_bytes()
            .to_vec();
        (content_type, body)
    }

    /// Each family's 400, 401 and 404 bodies against the error schema the
    /// bundled documents declare for each operation of that family (checked
    /// by psi-drift's checker: no finding).
    #[test]
    fn bodies_match_the_documented_error_schemas() {
        let documents = psi_drift::Documents::bundled();
        let mut checked = 0;
        for api in documents.apis() {
            for operation in api.operations.iter().filter(|o| !o.notification) {
                let family = error_family(&api.root, &operation.at).expect("a family");
                for status in [
                    StatusCode::BAD_REQUEST,
                    StatusCode::UNAUTHORIZED,
                    StatusCode::NOT_FOUND,
                ] {
                    let declared = format!("{}/responses/{}", operation.at, status.as_u16());
                    if api.root.pointer(&declared).is_none() {
                        continue;
                    }
                    for response in bodies(family, status) {
                        let drift = psi_drift::Drift::new();
                        let (content_type, body) = bytes_of(response);
                        assert_eq!(content_type.as_deref(), Some("application/json"));
                        drift.answer(
                            &operation.operation_id,
                            status.as_u16(),
                            content_type.as_deref(),
                            &body,
                        );
                        assert!(
                            drift.is_empty(),
                            "{} {status}: {}: {:?}",
                            operation.operation_id,
                            String::from_utf8_lossy(&body),
                            drift.report()
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 50, "{checked} bodies checked");
    }

    /// The control API's bodies: `{"error"}` (its document is not bundled).
    #[test]
    fn control_bodies_are_error_objects() {
        for status in [
            StatusCode::BAD_REQUEST,
            StatusCode::UNAUTHORIZED,
            StatusCode::NOT_FOUND,
        ] {
            for response in bodies(Family::Control, status) {
                let (content_type, body) = bytes_of(response);
                assert_eq!(content_type.as_deref(), Some("application/json"));
                let body: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
                let object = body.as_object().expect("an object");
                assert!(object["error"].is_string(), "{body}");
                assert_eq!(object.len(), 1, "{body}");
            }
        }
    }
}
