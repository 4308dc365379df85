//! What a shop configuration probably got wrong, though no stated rule
//! forbids it: blank text in required fields (the type only makes them
//! present), tax identifiers or a designation that are present but blank,
//! contact addresses that do not look like email addresses, and a highlight
//! colour in a form other than HTML's `#RRGGBB` (the specification says only
//! "HTML hex color code", so the generated type accepts every reading:
//! `1A73E8`, `#fff`, `#1A73E8CC`).

use psi_shop_config::types::ShopConfiguration;

use crate::Finding;

/// Every finding, in the order of the fields in the document.
#[inline]
pub fn shop_configuration(configuration: &ShopConfiguration) -> Vec<Finding> {
    let mut found = Vec::new();
    let address = &configuration.address;
    let legal = &configuration.legal;
    let required = [
        ("$.name", configuration.name.as_str()),
        ("$.address.street", &address.street),
        ("$.address.city", &address.city),
        ("$.address.postal_code", &address.postal_code),
        ("$.legal.name", &legal.name),
        ("$.legal.legal_form", &legal.legal_form),
        (
            "$.legal.commercial_register_number",
            &legal.commercial_register_number,
        ),
        ("$.legal.registration_office", &legal.registration_office),
    ];
    for (path, value) in required {
        if is_blank(value) {
            found.push(Finding::new(path, "is blank"));
        }
    }
    let tax_identifiers = [legal.vat_id_number.as_deref(), legal.tax_number.as_deref()];
    let some_present = tax_identifiers.iter().any(Option::is_some);
    if some_present && !tax_identifiers.into_iter().any(has_text) {
        let rule =
            "vat_id_number and tax_number are both blank or absent: one of them should hold text";
        found.push(Finding::new("$.legal", rule));
    }
    if has_text(legal.managing_directors.as_deref())
        && legal
            .designation_of_management
            .as_deref()
            .is_some_and(is_blank)
    {
        let rule = "is blank while legal.managing_directors is given";
        found.push(Finding::new("$.legal.designation_of_management", rule));
    }
    check_contacts(configuration, &mut found);
    let highlight_color = configuration
        .correspondence_settings
        .as_ref()
        .and_then(|settings| settings.branding_settings.as_ref())
        .and_then(|branding| branding.highlight_color.as_deref());
    if let Some(color) = highlight_color.filter(|color| !is_html_color(color)) {
        let rule = format!(
            "\"{color}\" is a hex colour code, but not in the form HTML uses (# and 6 \
             hexadecimal digits, such as #1A73E8); the service may read it differently"
        );
        found.push(Finding::new(
            "$.correspondence_settings.branding_settings.highlight_color",
            rule,
        ));
    }
    found
}

/// HTML's colour form: `#` and 6 hexadecimal digits.
#[inline]
fn is_html_color(color: &str) -> bool {
    color
        .strip_prefix('#')
        .is_some_and(|digits| digits.len() == 6 && digits.chars().all(|c| c.is_ascii_hexdigit()))
}

#[inline]
fn check_contacts(configuration: &ShopConfiguration, found: &mut Vec<Finding>) {
    let Some(contacts) = &configuration.contacts else {
        return;
    };
    let emails = [
        (
            "customer_service",
            contacts.customer_service.as_ref().map(|c| &c.email),
        ),
        (
            "fraud",
            contacts.fraud.as_ref().and_then(|c| c.email.as_ref()),
        ),
        (
            "incident",
            contacts.incident.as_ref().and_then(|c| c.email.as_ref()),
        ),
        (
            "data_protection",
            contacts
                .data_protection
                .as_ref()
                .and_then(|c| c.email.as_ref()),
        ),
        (
            "invoice_copy",
            contacts
                .invoice_copy
                .as_ref()
                .and_then(|c| c.email.as_ref()),
        ),
    ];
    for (contact, email) in emails {
        let Some(email) = email else { continue };
        let rule = if is_blank(email) {
            "is blank"
        } else if !looks_like_email(email) {
            "does not look like an email address (local-part@domain, no spaces)"
        } else {
            continue;
        };
        found.push(Finding::new(format!("$.contacts.{contact}.email"), rule));
    }
}

#[inline]
fn is_blank(value: &str) -> bool {
    value.trim().is_empty()
}

#[inline]
fn has_text(value: Option<&str>) -> bool {
    value.is_some_and(|text| !is_blank(text))
}

/// Deliberately loose: one `@` with text on both sides and no whitespace.
#[inline]
fn looks_like_email(value: &str) -> bool {
    let no_whitespace = !value.chars().any(char::is_whitespace);
    let parts = value.split_once('@');
    no_whitespace
        && parts.is_some_and(|(local, domain)| {
            !local.is_empty() && !domain.is_empty() && !domain.contains('@')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preflight::check_shop_configuration;
    use crate::preflight::shop_config::tests::documented_example;

    fn paths(configuration: &ShopConfiguration) -> Vec<String> {
        shop_configuration(configuration)
            .into_iter()
            .map(|finding| finding.path)
            .collect()
    }

    #[test]
    fn the_documented_example_gets_no_advice() {
        assert_eq!(shop_configuration(&documented_example()), []);
    }

    #[test]
    fn blanks_and_odd_emails_are_advice_not_refusals() {
        let mut configuration = documented_example();
        configuration.name = "  ".to_owned();
        configuration.address.street = String::new();
        configuration.legal.registration_office = "\t".to_owned();
        configuration.legal.vat_id_number = Some(String::new());
        configuration.legal.tax_number = None;
        configuration.legal.managing_directors = Some("Erika Mustermann".to_owned());
        configuration.legal.designation_of_management = Some(" ".to_owned());
        if let Some(contacts) = configuration.contacts.as_mut() {
            if let Some(fraud) = contacts.fraud.as_mut() {
                fraud.email = Some("+49 30 1234567".to_owned());
            }
        }
        assert_eq!(check_shop_configuration(&configuration), Ok(()));
        assert_eq!(
            paths(&configuration),
            [
                "$.name",
                "$.address.street",
                "$.legal.registration_office",
                "$.legal",
                "$.legal.designation_of_management",
                "$.contacts.fraud.email",
            ]
        );
    }

    #[test]
    fn a_hex_colour_without_hash_is_sent_with_advice() {
        use psi_shop_config::types::HexColor;
        for color in ["1A73E8", "1a73e8", "#fff", "fff", "#1A73E8CC"] {
            let parsed: HexColor = color.parse().expect("a reading of \"HTML hex color code\"");
            let mut configuration = documented_example();
            let settings = configuration.correspondence_settings.as_mut().unwrap();
            settings.branding_settings.as_mut().unwrap().highlight_color = Some(parsed);
            assert_eq!(check_shop_configuration(&configuration), Ok(()), "{color}");
            assert_eq!(
                paths(&configuration),
                ["$.correspondence_settings.branding_settings.highlight_color"],
                "{color}"
            );
        }
        for not_a_colour in ["blue", "#1A73E", "##1A73E8", "#GGGGGG", "", "1A73E8 "] {
            assert!(not_a_colour.parse::<HexColor>().is_err(), "{not_a_colour}");
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
