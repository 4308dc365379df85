//! Shop configurations: one per partner profile and shop, replaced
//! entirely by each update. The stored record is the generated
//! `ShopConfiguration`.
//!
//! Every rule of the specification is checked and every violation reported
//! at once, keyed by the dotted field path (`address.postal_code`). The
//! service does not rely on the client's pre-flight check; the rules are
//! stated again here.
//!
//! Sandbox convention: every partner profile exists except those whose id
//! starts with `unknown-`.

use serde_json::Value;
use std::collections::BTreeMap;

/// Partner profile ids starting with this are unknown to the sandbox.
const UNKNOWN_PARTNER_PREFIX: &str = "unknown-";

/// Whether the sandbox knows no partner profile `partner_profile_id`
/// (see the module docs).
pub fn is_unknown_partner(partner_profile_id: &str) -> bool {
    partner_profile_id.starts_with(UNKNOWN_PARTNER_PREFIX)
}

/// Messages per dotted field path; sorted so answers are stable.
pub type Errors = BTreeMap<String, Vec<String>>;

/// A checker of one JSON document, collecting every broken rule.
struct ConfigurationCheck<'a> {
    errors: &'a mut Errors,
}

impl ConfigurationCheck<'_> {
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

/// Every rule of the specification that `document` breaks, by dotted
/// field path; empty when it keeps them all.
pub fn check(document: &Value) -> Errors {
    let mut errors = Errors::new();
    check_configuration(document, &mut errors);
    errors
}

fn check_configuration(document: &Value, errors: &mut Errors) {
    let mut check = ConfigurationCheck { errors };
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

fn check_address(check: &mut ConfigurationCheck, address: &Value) {
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

fn check_legal(check: &mut ConfigurationCheck, legal: &Value) {
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

fn check_contacts(check: &mut ConfigurationCheck, contacts: &Value) {
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

fn check_correspondence_settings(check: &mut ConfigurationCheck, settings: &Value) {
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

fn check_slang(check: &mut ConfigurationCheck, slang: &Value) {
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

fn check_payment_method_settings(check: &mut ConfigurationCheck, entry: &Value, path: &str) {
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
