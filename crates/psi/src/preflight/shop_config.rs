//! Rules of the shop configuration update that its type cannot hold: a
//! country code that really exists (the type only checks two capitals),
//! vat_id_number or tax_number, and designation_of_management whenever
//! managing_directors is given. Required fields, the HTML hex colour and the
//! enumerations are the generated types' own checks, run when the body is
//! parsed.
//!
//! "Given" is read so that only a certain breach refuses a send: a tax
//! identifier that is present counts as given even when blank, and
//! managing_directors requires a designation only when it holds text.
//! Blank strings and the shape of email addresses are advice
//! ([`crate::advice::shop_configuration`]).

use psi_shop_config::types::ShopConfiguration;

use super::{Rule, Violation, Violations};

/// Reports every broken rule, in the order of the fields in the document.
pub fn check_shop_configuration(configuration: &ShopConfiguration) -> Result<(), Violations> {
    let mut found = Vec::new();
    let country_code = configuration.address.country_code.as_str();
    if !super::country_codes::is_assigned_alpha2(country_code) {
        let rule = format!("\"{country_code}\" is not an ISO 3166-1 alpha-2 country code");
        found.push(Violation::new(
            Rule::CountryCode,
            "$.address.country_code",
            rule,
        ));
    }
    let legal = &configuration.legal;
    if legal.vat_id_number.is_none() && legal.tax_number.is_none() {
        let rule = "needs vat_id_number or tax_number: at least one of them must be given";
        found.push(Violation::new(Rule::TaxIdentification, "$.legal", rule));
    }
    let has_directors = legal
        .managing_directors
        .as_deref()
        .is_some_and(|text| !text.trim().is_empty());
    if has_directors && legal.designation_of_management.is_none() {
        let rule = "must be given when legal.managing_directors is given";
        found.push(Violation::new(
            Rule::ManagementDesignation,
            "$.legal.designation_of_management",
            rule,
        ));
    }
    Violations(found).into_result()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The request example of `openapi/shop-config.yaml`, read from the document.
    pub(crate) fn documented_example() -> ShopConfiguration {
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
    fn three_broken_rules_are_reported_together() {
        let mut configuration = documented_example();
        configuration.address.country_code = "XX".parse().expect("two capitals");
        configuration.legal.vat_id_number = None;
        configuration.legal.tax_number = None;
        configuration.legal.managing_directors = Some("Erika Mustermann".to_owned());
        configuration.legal.designation_of_management = None;
        let found = check_shop_configuration(&configuration).unwrap_err();
        assert_eq!(
            found.paths(),
            [
                "$.address.country_code",
                "$.legal",
                "$.legal.designation_of_management",
            ]
        );
        assert_eq!(
            found.0[0].message,
            "\"XX\" is not an ISO 3166-1 alpha-2 country code"
        );
    }

    #[test]
    fn either_tax_identifier_is_enough() {
        let mut configuration = documented_example();
        configuration.legal.vat_id_number = None;
        configuration.legal.tax_number = Some("12/345/67890".to_owned());
        assert_eq!(check_shop_configuration(&configuration), Ok(()));
        configuration.legal.vat_id_number = Some("DE123456789".to_owned());
        configuration.legal.tax_number = None;
        assert_eq!(check_shop_configuration(&configuration), Ok(()));
    }

    #[test]
    fn only_a_certain_breach_refuses() {
        // Blank but present: given as far as the rule is concerned (advice
        // reports the blanks).
        let mut configuration = documented_example();
        configuration.legal.vat_id_number = Some(String::new());
        configuration.legal.tax_number = None;
        configuration.legal.managing_directors = Some(" ".to_owned());
        configuration.legal.designation_of_management = None;
        configuration.name = " ".to_owned();
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
}
