//! Shop configuration API (`openapi/shop-config.yaml`).
//!
//! The specification gives this API no address and no audience: the
//! sandbox serves it under its own base `{url}/shop-config` and takes that
//! base as its token audience (see [`crate::auth::audiences`]).
//!
//! | method | path | does |
//! |---|---|---|
//! | PUT | /shop-config/v2/partners/{partner_profile_id}/shops/{shop_id} | replaces the shop's configuration |
//! | GET | /__sandbox/shop-config/{partner_profile_id}/{shop_id} | the stored configuration (test control) |
//!
//! The service checks every rule of the specification and answers all
//! violations at once: `400 {message, errors: {"address.postal_code": ["must
//! not be blank"], ...}}`, keyed by the dotted field path. It does not rely
//! on the client's pre-flight check; the rules are stated again here.
//!
//! Sandbox convention: every partner profile exists except those whose id
//! starts with `unknown-`, which answer 404.

use crate::auth::audiences::SHOP_CONFIG_PREFIX;
use crate::http::extract::{Bearer, ShopConfig};
use crate::http::operation::declare;
use crate::media_type::{self, Expected};
use crate::state::{tables, Batch, Loader, Persisted, Table};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{Path, State as AxumState};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::{Json, Router};
use psi_shop_config::types::{
    ShopConfiguration, ShopConfigurationError, ShopConfigurationResponse,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Partner profile ids starting with this are unknown to the sandbox.
pub const UNKNOWN_PARTNER_PREFIX: &str = "unknown-";

/// The stored configurations, by partner profile and shop.
#[derive(Debug, Default)]
pub struct State {
    configurations: Table<(String, String), ShopConfiguration>,
}

impl Persisted for State {
    fn has_changes(&self) -> bool {
        self.configurations.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        batch.table(tables::SHOP_CONFIGURATIONS, &mut self.configurations)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        Ok(Self {
            configurations: loader.table(tables::SHOP_CONFIGURATIONS)?,
        })
    }
}

impl State {
    pub fn get(&self, partner_profile_id: &str, shop_id: &str) -> Option<&ShopConfiguration> {
        self.configurations
            .get(&(partner_profile_id.to_owned(), shop_id.to_owned()))
    }

    /// The configuration of a shop under whichever partner registered it
    /// (a transaction's basket names the shop, not the partner); of two
    /// partners, the first in order, whatever the table's order.
    pub fn of_shop(&self, shop_id: &str) -> Option<&ShopConfiguration> {
        self.configurations
            .iter()
            .filter(|((_, shop), _)| shop == shop_id)
            .min_by(|((a, _), _), ((b, _), _)| a.cmp(b))
            .map(|(_, configuration)| configuration)
    }
}

pub fn routes() -> Router<AppState> {
    Router::new()
        .route(
            &format!("{SHOP_CONFIG_PREFIX}/v2/partners/{{partner_profile_id}}/shops/{{shop_id}}"),
            declare("updateShopConfiguration", put(update_shop_configuration)),
        )
        .route(
            "/__sandbox/shop-config/{partner_profile_id}/{shop_id}",
            get(stored_configuration),
        )
}

async fn update_shop_configuration(
    AxumState(state): AxumState<AppState>,
    Path((partner_profile_id, shop_id)): Path<(String, String)>,
    _: Bearer<ShopConfig>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if partner_profile_id.starts_with(UNKNOWN_PARTNER_PREFIX) {
        return error(
            StatusCode::NOT_FOUND,
            format!("Partner profile {partner_profile_id} not found"),
            Errors::new(),
        );
    }
    if let Err(expected) = media_type::check(&headers, &body, Expected::Json) {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            expected.message(),
            Errors::new(),
        );
    }
    let configuration = match validated(&body) {
        Ok(configuration) => configuration,
        Err(errors) => {
            return error(
                StatusCode::BAD_REQUEST,
                "Validation failed".to_owned(),
                errors,
            )
        }
    };
    // Replaced entirely: nothing of the previous configuration survives.
    state
        .data()
        .shop_config
        .configurations
        .insert((partner_profile_id, shop_id.clone()), configuration);
    Json(ShopConfigurationResponse {
        shop_id: Some(shop_id),
    })
    .into_response()
}

async fn stored_configuration(
    AxumState(state): AxumState<AppState>,
    Path((partner_profile_id, shop_id)): Path<(String, String)>,
) -> Response {
    let stored = state
        .data()
        .shop_config
        .get(&partner_profile_id, &shop_id)
        .cloned();
    match stored {
        Some(configuration) => Json(configuration).into_response(),
        None => error(
            StatusCode::NOT_FOUND,
            format!("No configuration for shop {shop_id}"),
            Errors::new(),
        ),
    }
}

/// Messages per dotted field path; sorted so answers are stable.
type Errors = BTreeMap<String, Vec<String>>;

fn error(status: StatusCode, message: String, errors: Errors) -> Response {
    let errors: HashMap<String, Vec<String>> = errors.into_iter().collect();
    (
        status,
        Json(ShopConfigurationError {
            message: Some(message),
            errors,
        }),
    )
        .into_response()
}

/// The body as the generated type, or every violation found. The rules run
/// on the raw JSON first, so a missing field, a malformed colour and a
/// blank name are reported together instead of stopping at the first
/// field the type cannot take.
fn validated(body: &[u8]) -> Result<ShopConfiguration, Errors> {
    let mut errors = Errors::new();
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(problem) => {
            errors.insert("body".to_owned(), vec![format!("is not JSON: {problem}")]);
            return Err(errors);
        }
    };
    check_configuration(&value, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    // A safety net: the rules above cover every field the type reads, so
    // this only fails if the two drift apart.
    let text = std::str::from_utf8(body).unwrap_or_default();
    crate::typed::parse::<ShopConfiguration>(text).map_err(|refusal| {
        let field = match refusal.json_path.strip_prefix("$.") {
            Some(dotted) => dotted.to_owned(),
            None => "body".to_owned(),
        };
        Errors::from([(field, vec![refusal.rule])])
    })
}

/// A checker of one JSON document, collecting every broken rule.
struct Check<'a> {
    errors: &'a mut Errors,
}

impl Check<'_> {
    fn fail(&mut self, path: &str, rule: impl Into<String>) {
        self.errors
            .entry(path.to_owned())
            .or_default()
            .push(rule.into());
    }

    /// A required object; `None` (reported) when it is absent or not an object.
    fn object<'v>(&mut self, parent: &'v Value, path: &str, required: bool) -> Option<&'v Value> {
        match field(parent, path) {
            None | Some(Value::Null) if required => {
                self.fail(path, "is required");
                None
            }
            None | Some(Value::Null) => None,
            Some(value) if value.is_object() => Some(value),
            Some(_) => {
                self.fail(path, "must be an object");
                None
            }
        }
    }

    /// A required string: present, a string and not blank.
    fn text<'v>(&mut self, parent: &'v Value, path: &str) -> Option<&'v str> {
        match field(parent, path) {
            None | Some(Value::Null) => {
                self.fail(path, "is required");
                None
            }
            Some(value) => self.string(value, path),
        }
    }

    /// An optional string: absent, or a string (blank counts as not given).
    fn optional_text<'v>(&mut self, parent: &'v Value, path: &str) -> Option<&'v str> {
        match field(parent, path) {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) if text.trim().is_empty() => None,
            Some(value) => self.string(value, path),
        }
    }

    fn string<'v>(&mut self, value: &'v Value, path: &str) -> Option<&'v str> {
        match value.as_str() {
            None => {
                self.fail(path, "must be a string");
                None
            }
            Some(text) if text.trim().is_empty() => {
                self.fail(path, "must not be blank");
                None
            }
            Some(text) => Some(text),
        }
    }

    fn one_of(&mut self, parent: &Value, path: &str, allowed: &[&str]) {
        if let Some(value) = self.optional_text(parent, path) {
            if !allowed.contains(&value) {
                self.fail(path, format!("must be one of {}", allowed.join(", ")));
            }
        }
    }

    fn boolean(&mut self, parent: &Value, path: &str) {
        if field(parent, path).is_some_and(|v| !v.is_null() && !v.is_boolean()) {
            self.fail(path, "must be true or false");
        }
    }
}

/// The value at the last segment of a dotted path, inside `parent`.
fn field<'v>(parent: &'v Value, path: &str) -> Option<&'v Value> {
    let name = path.rsplit('.').next().unwrap_or(path);
    parent.get(name)
}

fn check_configuration(document: &Value, errors: &mut Errors) {
    let mut check = Check { errors };
    if !document.is_object() {
        check.fail("body", "must be a JSON object");
        return;
    }
    check.text(document, "name");
    // Not `optional_text`: a blank website is given, and it is no URL.
    if let Some(Value::String(website)) = field(document, "website") {
        if !is_web_address(website) {
            check.fail("website", "must be an absolute http or https URL");
        }
    }
    if let Some(address) = check.object(document, "address", true) {
        check_address(&mut check, address);
    }
    if let Some(legal) = check.object(document, "legal", true) {
        check_legal(&mut check, legal);
    }
    if let Some(contacts) = check.object(document, "contacts", false) {
        check_contacts(&mut check, contacts);
    }
    if let Some(settings) = check.object(document, "correspondence_settings", false) {
        check_correspondence_settings(&mut check, settings);
    }
}

fn check_address(check: &mut Check, address: &Value) {
    for path in ["address.street", "address.city", "address.postal_code"] {
        check.text(address, path);
    }
    for path in ["address.street_number", "address.street_additional"] {
        check.optional_text(address, path);
    }
    if let Some(code) = check.text(address, "address.country_code") {
        if !is_country_code(code) {
            check.fail(
                "address.country_code",
                format!("\"{code}\" is not an ISO 3166-1 alpha-2 country code"),
            );
        }
    }
}

fn check_legal(check: &mut Check, legal: &Value) {
    for path in [
        "legal.name",
        "legal.legal_form",
        "legal.commercial_register_number",
        "legal.registration_office",
    ] {
        check.text(legal, path);
    }
    let vat_id = check.optional_text(legal, "legal.vat_id_number");
    let tax_number = check.optional_text(legal, "legal.tax_number");
    if vat_id.is_none() && tax_number.is_none() {
        let rule = "either legal.vat_id_number or legal.tax_number must be given";
        check.fail("legal.vat_id_number", rule);
        check.fail("legal.tax_number", rule);
    }
    check.optional_text(legal, "legal.board_chairman");
    let directors = check.optional_text(legal, "legal.managing_directors");
    let designation = check.optional_text(legal, "legal.designation_of_management");
    if directors.is_some() && designation.is_none() {
        check.fail(
            "legal.designation_of_management",
            "must be given when managing_directors is given",
        );
    }
}

fn check_contacts(check: &mut Check, contacts: &Value) {
    let kinds = [
        "customer_service",
        "fraud",
        "incident",
        "data_protection",
        "invoice_copy",
    ];
    for kind in kinds {
        let path = format!("contacts.{kind}");
        let Some(contact) = check.object(contacts, &path, false) else {
            continue;
        };
        // Only the customer service contact's email is required
        // (specification: "email required"); the others hold an email only.
        let email_path = format!("{path}.email");
        let email = match field(contact, &email_path) {
            None | Some(Value::Null) if kind != "customer_service" => None,
            _ => check.text(contact, &email_path),
        };
        if let Some(email) = email {
            if !is_email(email) {
                check.fail(&email_path, "must be an email address");
            }
        }
        if kind == "customer_service" {
            check.optional_text(contact, &format!("{path}.phone"));
            check.optional_text(contact, &format!("{path}.fax"));
        }
    }
}

fn check_correspondence_settings(check: &mut Check, settings: &Value) {
    let branding_path = "correspondence_settings.branding_settings";
    if let Some(branding) = check.object(settings, branding_path, false) {
        check.one_of(
            branding,
            &format!("{branding_path}.logo_position"),
            &["LEFT", "CENTER", "RIGHT"],
        );
        let color_path = format!("{branding_path}.highlight_color");
        if let Some(color) = check.optional_text(branding, &color_path) {
            if !is_hex_color(color) {
                check.fail(
                    &color_path,
                    "must be an HTML hex colour: an optional # and 3, 4, 6 or 8 hexadecimal digits",
                );
            }
        }
    }
    if let Some(slang) = check.object(settings, "correspondence_settings.slang", false) {
        check_slang(check, slang);
    }
    let methods_path = "correspondence_settings.payment_method_specific";
    match field(settings, methods_path) {
        None | Some(Value::Null) => {}
        Some(Value::Array(entries)) => {
            for (index, entry) in entries.iter().enumerate() {
                check_payment_method_settings(check, entry, &format!("{methods_path}[{index}]"));
            }
        }
        Some(_) => check.fail(methods_path, "must be an array"),
    }
}

fn check_slang(check: &mut Check, slang: &Value) {
    let languages = slang.as_object().into_iter().flatten();
    for language in languages.map(|(language, _)| language) {
        let path = format!("correspondence_settings.slang.{language}");
        if !["en", "de", "nl"].contains(&language.as_str()) {
            check.fail(&path, "language must be one of en, de, nl");
            continue;
        }
        let Some(wording) = check.object(slang, &path, false) else {
            continue;
        };
        check.optional_text(wording, &format!("{path}.salutation"));
        check.one_of(wording, &format!("{path}.order"), &["ORDER", "BOOKING"]);
        check.one_of(
            wording,
            &format!("{path}.formal_tone"),
            &["FORMAL", "INFORMAL"],
        );
        check.one_of(
            wording,
            &format!("{path}.name_format"),
            &["FIRST_NAME", "LAST_NAME", "FIRST_LAST_NAME"],
        );
        let lines_path = format!("{path}.customer_service_contact");
        let lines = field(wording, &lines_path);
        let all_strings = |lines: &Vec<Value>| lines.iter().all(Value::is_string);
        if lines.is_some_and(|l| !l.is_null() && !l.as_array().is_some_and(all_strings)) {
            check.fail(&lines_path, "must be an array of strings");
        }
    }
}

/// The correspondence kinds of a payment method entry, each with
/// skip_sending and shop_branding.
const CORRESPONDENCE_KINDS: [&str; 11] = [
    "invoice",
    "payment_instruction",
    "payment_receipt",
    "dunning_1",
    "dunning_2",
    "dunning_3",
    "advance_notice",
    "order_confirmation",
    "initial_plan",
    "updated_plan",
    "advance_notice_sepa_update",
];

fn check_payment_method_settings(check: &mut Check, entry: &Value, path: &str) {
    if !entry.is_object() {
        check.fail(path, "must be an object");
        return;
    }
    let method_path = format!("{path}.payment_method");
    if let Some(method) = check.object(entry, &method_path, false) {
        check.one_of(
            method,
            &format!("{method_path}.payment_option"),
            &["OPEN_INVOICE", "PREPAYMENT", "INSTALMENT"],
        );
        check.one_of(
            method,
            &format!("{method_path}.transfer_type"),
            &["BANK_TRANSFER", "DIRECT_DEBIT"],
        );
    }
    for kind in CORRESPONDENCE_KINDS {
        let kind_path = format!("{path}.{kind}");
        if let Some(setting) = check.object(entry, &kind_path, false) {
            check.boolean(setting, &format!("{kind_path}.skip_sending"));
            check.boolean(setting, &format!("{kind_path}.shop_branding"));
        }
    }
}

/// An existing country's ISO 3166-1 alpha-2 code, in capitals as the
/// document's pattern wants (`DE`, not `de`; `XX` and `UK` do not exist).
fn is_country_code(code: &str) -> bool {
    code.len() == 2
        && code.chars().all(|c| c.is_ascii_uppercase())
        && celes::Country::from_alpha2(code).is_ok()
}

/// An optional `#` and 3, 4, 6 or 8 hexadecimal digits: every reading of
/// "HTML hex color code" (HTML's `#RRGGBB`, the CSS forms, the bare code).
fn is_hex_color(color: &str) -> bool {
    let digits = color.strip_prefix('#').unwrap_or(color);
    matches!(digits.len(), 3 | 4 | 6 | 8) && digits.chars().all(|c| c.is_ascii_hexdigit())
}

/// Loose on purpose: one `@` with text on both sides, a dot in the domain,
/// no whitespace. Stricter checks reject real addresses.
fn is_email(email: &str) -> bool {
    let no_whitespace = !email.chars().any(char::is_whitespace);
    let parts = email.split_once('@');
    no_whitespace
        && parts.is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        })
}

fn is_web_address(website: &str) -> bool {
    reqwest::Url::parse(website)
        .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.host().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid() -> Value {
        json!({
            "name": "Example Moebel",
            "website": "https://www.example.com",
            "address": {"street": "Musterstrasse", "city": "Berlin", "postal_code": "10115", "country_code": "DE"},
            "legal": {"name": "Example Moebel GmbH", "legal_form": "GmbH", "commercial_register_number": "HRB 1",
                      "registration_office": "AG Charlottenburg", "vat_id_number": "DE123456789"},
            "contacts": {"customer_service": {"email": "service@example.com"}},
            "correspondence_settings": {
                "branding_settings": {"logo_position": "LEFT", "highlight_color": "#1A73E8"},
                "slang": {"de": {"order": "ORDER", "formal_tone": "INFORMAL", "customer_service_contact": ["Mo-Fr"]}},
                "payment_method_specific": [{"payment_method": {"payment_option": "OPEN_INVOICE"}, "invoice": {"skip_sending": false}}]
            }
        })
    }

    fn errors_of(document: Value) -> Errors {
        validated(document.to_string().as_bytes())
            .err()
            .unwrap_or_default()
    }

    #[test]
    fn a_valid_configuration_passes() {
        assert_eq!(errors_of(valid()), Errors::new());
    }

    #[test]
    fn every_broken_rule_is_reported_at_once() {
        let mut document = valid();
        document["name"] = json!(" ");
        document["address"]
            .as_object_mut()
            .expect("an object")
            .remove("postal_code");
        document["address"]["country_code"] = json!("XX");
        document["legal"]["vat_id_number"] = json!("");
        document["legal"]["managing_directors"] = json!("Erika Mustermann");
        document["contacts"]["fraud"] = json!({"email": "not an address"});
        document["correspondence_settings"]["branding_settings"]["highlight_color"] = json!("blue");
        document["correspondence_settings"]["slang"]["de"]["order"] = json!("PURCHASE");
        document["correspondence_settings"]["payment_method_specific"][0]["dunning_3"] =
            json!({"shop_branding": "yes"});
        let errors = errors_of(document);
        let paths: Vec<&str> = errors.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            [
                "address.country_code",
                "address.postal_code",
                "contacts.fraud.email",
                "correspondence_settings.branding_settings.highlight_color",
                "correspondence_settings.payment_method_specific[0].dunning_3.shop_branding",
                "correspondence_settings.slang.de.order",
                "legal.designation_of_management",
                "legal.tax_number",
                "legal.vat_id_number",
                "name",
            ]
        );
        assert_eq!(errors["address.postal_code"], ["is required"]);
        assert_eq!(errors["name"], ["must not be blank"]);
    }

    #[test]
    fn only_the_customer_service_contact_needs_an_email() {
        let mut document = valid();
        document["contacts"]["fraud"] = json!({});
        document["contacts"]["incident"] = json!({"email": null});
        assert_eq!(errors_of(document.clone()), Errors::new());
        document["contacts"]["invoice_copy"] = json!({"email": ""});
        document["contacts"]["customer_service"] = json!({"phone": "+49 30 1234567"});
        let errors = errors_of(document);
        let paths: Vec<&str> = errors.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            [
                "contacts.customer_service.email",
                "contacts.invoice_copy.email"
            ]
        );
    }

    #[test]
    fn missing_sections_are_named_once() {
        let errors = errors_of(json!({"name": "Shop"}));
        assert_eq!(errors.keys().collect::<Vec<_>>(), ["address", "legal"]);
    }

    #[test]
    fn wrong_types_and_bodies_are_named() {
        let mut document = valid();
        document["correspondence_settings"]["slang"]["de"]["salutation"] = json!(42);
        document["legal"]["tax_number"] = json!(27);
        let errors = errors_of(document);
        assert_eq!(
            errors["correspondence_settings.slang.de.salutation"],
            ["must be a string"]
        );
        assert_eq!(errors["legal.tax_number"], ["must be a string"]);
        assert!(errors_of(json!([1])).contains_key("body"));
        assert!(validated(b"{").unwrap_err().contains_key("body"));
    }

    #[test]
    fn country_codes_must_exist_and_be_capitals() {
        for good in ["DE", "AT", "NL", "GB"] {
            assert!(is_country_code(good), "{good}");
        }
        for bad in ["XX", "UK", "EU", "de", "DEU", ""] {
            assert!(!is_country_code(bad), "{bad}");
        }
    }

    #[test]
    fn colours_emails_and_websites() {
        assert!(is_hex_color("#fff") && is_hex_color("#1A73E8"));
        assert!(is_hex_color("1A73E8") && is_hex_color("#1A73E8CC") && is_hex_color("fff"));
        assert!(!is_hex_color("#1A73E") && !is_hex_color("##1A73E8") && !is_hex_color("#GGGGGG"));
        assert!(!is_hex_color("blue") && !is_hex_color(""));
        assert!(is_email("service@example.com"));
        assert!(
            !is_email("service@") && !is_email("a b@example.com") && !is_email("service@localhost")
        );
        assert!(is_web_address("https://www.example.com"));
        assert!(!is_web_address("www.example.com") && !is_web_address("ftp://example.com"));
    }
}
