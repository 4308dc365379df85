//! Rules of the shop configuration update that its type cannot hold: the
//! cross-field conditions of `legal`, non-blank required strings (the type
//! only makes them present), contact addresses, the highlight colour, and a
//! country code that really exists (the type only checks two capitals).

use psi_shop_config::types::ShopConfiguration;

use super::{Violation, Violations};

/// Reports every broken rule, in the order of the fields in the document.
pub fn check_shop_configuration(configuration: &ShopConfiguration) -> Result<(), Violations> {
    let mut found = Vec::new();
    let address = &configuration.address;
    let legal = &configuration.legal;
    let required = [
        ("$.name", configuration.name.as_str()),
        ("$.address.street", &address.street),
        ("$.address.city", &address.city),
        ("$.address.postal_code", &address.postal_code),
    ];
    require_non_blank(&required, &mut found);
    if celes::Country::from_alpha2(address.country_code.as_str()).is_err() {
        let rule = format!(
            "\"{}\" is not an ISO 3166-1 alpha-2 country code",
            address.country_code.as_str()
        );
        found.push(Violation::new("$.address.country_code", rule));
    }
    let required = [
        ("$.legal.name", legal.name.as_str()),
        ("$.legal.legal_form", &legal.legal_form),
        (
            "$.legal.commercial_register_number",
            &legal.commercial_register_number,
        ),
        ("$.legal.registration_office", &legal.registration_office),
    ];
    require_non_blank(&required, &mut found);
    if !given(legal.vat_id_number.as_deref()) && !given(legal.tax_number.as_deref()) {
        let rule = "needs vat_id_number or tax_number: at least one of them must be non-blank";
        found.push(Violation::new("$.legal", rule));
    }
    if given(legal.managing_directors.as_deref())
        && !given(legal.designation_of_management.as_deref())
    {
        let rule = "must be given (non-blank) when legal.managing_directors is given";
        found.push(Violation::new("$.legal.designation_of_management", rule));
    }
    check_contacts(configuration, &mut found);
    let highlight_color = configuration
        .correspondence_settings
        .as_ref()
        .and_then(|settings| settings.branding_settings.as_ref())
        .and_then(|branding| branding.highlight_color.as_ref());
    if let Some(color) = highlight_color.filter(|color| !is_hex_color(color)) {
        let rule = format!(
            "\"{}\" is not an HTML hex colour (#rgb or #rrggbb)",
            color.as_str()
        );
        let path = "$.correspondence_settings.branding_settings.highlight_color";
        found.push(Violation::new(path, rule));
    }
    Violations(found).into_result()
}

fn check_contacts(configuration: &ShopConfiguration, found: &mut Vec<Violation>) {
    let Some(contacts) = &configuration.contacts else {
        return;
    };
    let emails = [
        (
            "customer_service",
            contacts.customer_service.as_ref().map(|c| &c.email),
        ),
        ("fraud", contacts.fraud.as_ref().map(|c| &c.email)),
        ("incident", contacts.incident.as_ref().map(|c| &c.email)),
        (
            "data_protection",
            contacts.data_protection.as_ref().map(|c| &c.email),
        ),
        (
            "invoice_copy",
            contacts.invoice_copy.as_ref().map(|c| &c.email),
        ),
    ];
    for (contact, email) in emails {
        let Some(email) = email else { continue };
        let rule = if is_blank(email) {
            "must not be blank"
        } else if !looks_like_email(email) {
            "is not an email address (local-part@domain, no spaces)"
        } else {
            continue;
        };
        found.push(Violation::new(format!("$.contacts.{contact}.email"), rule));
    }
}

fn require_non_blank(fields: &[(&str, &str)], found: &mut Vec<Violation>) {
    for (path, value) in fields {
        if is_blank(value) {
            found.push(Violation::new(*path, "must not be blank"));
        }
    }
}

fn is_blank(value: &str) -> bool {
    value.trim().is_empty()
}

fn given(value: Option<&str>) -> bool {
    value.is_some_and(|text| !is_blank(text))
}

/// Deliberately loose: one `@` with text on both sides and no whitespace.
/// Anything stricter rejects real addresses; this only catches a phone
/// number or a name typed into the wrong field.
fn looks_like_email(value: &str) -> bool {
    let no_whitespace = !value.chars().any(char::is_whitespace);
    let parts = value.split_once('@');
    no_whitespace
        && parts.is_some_and(|(local, domain)| {
            !local.is_empty() && !domain.is_empty() && !domain.contains('@')
        })
}

/// `#` followed by 3 or 6 hexadecimal digits. The generated `HexColor`
/// checks the same on construction; this keeps the rule stated here too.
fn is_hex_color(value: &str) -> bool {
    value.strip_prefix('#').is_some_and(|digits| {
        matches!(digits.len(), 3 | 6) && digits.chars().all(|c| c.is_ascii_hexdigit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request example of `openapi/shop-config.yaml`, read from the document.
    fn documented_example() -> ShopConfiguration {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../openapi/shop-config.yaml"
        );
        let text = std::fs::read_to_string(path).expect("the shop configuration document");
        let document: serde_yaml::Value = serde_yaml::from_str(&text).expect("valid YAML");
        let example = &document["paths"]["/v2/partners/{partner_profile_id}/shops/{shop_id}"]
            ["put"]["requestBody"]["content"]["application/json"]["example"];
        assert!(example.is_mapping(), "the document has a request example");
        let json = serde_json::to_string(example).expect("YAML that is also JSON");
        psi_runtime::parse_json(&json).expect("the example fits the type")
    }

    #[test]
    fn the_documented_example_passes() {
        assert_eq!(check_shop_configuration(&documented_example()), Ok(()));
    }

    #[test]
    fn five_broken_rules_are_reported_together() {
        let mut configuration = documented_example();
        configuration.name = "  ".to_owned();
        configuration.address.country_code = "XX".parse().expect("two capitals");
        configuration.legal.vat_id_number = None;
        configuration.legal.tax_number = Some(String::new());
        configuration.legal.designation_of_management = None;
        if let Some(contacts) = configuration.contacts.as_mut() {
            if let Some(fraud) = contacts.fraud.as_mut() {
                fraud.email = "+49 30 1234567".to_owned();
            }
        }
        let found = check_shop_configuration(&configuration).unwrap_err();
        assert_eq!(
            found.paths(),
            [
                "$.name",
                "$.address.country_code",
                "$.legal",
                "$.legal.designation_of_management",
                "$.contacts.fraud.email",
            ]
        );
        assert_eq!(
            found.0[1].rule,
            "\"XX\" is not an ISO 3166-1 alpha-2 country code"
        );
    }

    #[test]
    fn blank_required_strings_are_named() {
        let mut configuration = documented_example();
        configuration.address.street = String::new();
        configuration.address.postal_code = " ".to_owned();
        configuration.legal.registration_office = "\t".to_owned();
        if let Some(customer_service) = configuration
            .contacts
            .as_mut()
            .and_then(|contacts| contacts.customer_service.as_mut())
        {
            customer_service.email = String::new();
        }
        let found = check_shop_configuration(&configuration).unwrap_err();
        assert_eq!(
            found.paths(),
            [
                "$.address.street",
                "$.address.postal_code",
                "$.legal.registration_office",
                "$.contacts.customer_service.email",
            ]
        );
    }

    #[test]
    fn either_tax_identifier_is_enough() {
        let mut configuration = documented_example();
        configuration.legal.vat_id_number = None;
        assert_eq!(check_shop_configuration(&configuration), Ok(()));
        configuration.legal.vat_id_number = Some("DE123456789".to_owned());
        configuration.legal.tax_number = None;
        configuration.legal.managing_directors = None;
        configuration.legal.designation_of_management = None;
        assert_eq!(check_shop_configuration(&configuration), Ok(()));
    }

    #[test]
    fn real_country_codes_pass_and_unassigned_ones_fail() {
        for code in ["DE", "AT", "NL", "GB", "SS"] {
            let mut configuration = documented_example();
            configuration.address.country_code = code.parse().expect("two capitals");
            assert_eq!(check_shop_configuration(&configuration), Ok(()), "{code}");
        }
        for code in ["XX", "UK", "EU", "AA"] {
            let mut configuration = documented_example();
            configuration.address.country_code = code.parse().expect("two capitals");
            let found = check_shop_configuration(&configuration).unwrap_err();
            assert_eq!(found.paths(), ["$.address.country_code"], "{code}");
        }
    }

    #[test]
    fn hex_colours_have_three_or_six_digits() {
        for good in ["#1A73E8", "#fff", "#000000"] {
            assert!(is_hex_color(good), "{good}");
        }
        for bad in ["1A73E8", "#1A73E", "#GGGGGG", "#", "", "#1A73E8FF"] {
            assert!(!is_hex_color(bad), "{bad}");
        }
    }

    #[test]
    fn emails_need_text_around_one_at_sign() {
        assert!(looks_like_email("service@example.com"));
        for bad in [
            "service",
            "@example.com",
            "service@",
            "a@b@c",
            "ser vice@example.com",
        ] {
            assert!(!looks_like_email(bad), "{bad}");
        }
    }
}
