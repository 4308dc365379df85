//! Shop configuration API's HTTP floor (`openapi/shop-config.yaml`).
//!
//! The specification gives this API no address and no audience: the
//! sandbox serves it under its own base `{url}/shop-config` and takes that
//! base as its token audience (see [`crate::audiences`]).
//!
//! | method | path | does |
//! |---|---|---|
//! | PUT | /shop-config/v2/partners/{partner_profile_id}/shops/{shop_id} | replaces the shop's configuration |
//! | GET | /__sandbox/shop-config/{partner_profile_id}/{shop_id} | the stored configuration (test control) |
//!
//! Every violation of the rules ([`crate::models::shop_config`]) is
//! answered at once: `400 {message, errors: {"address.postal_code": ["must
//! not be blank"], ...}}`, keyed by the dotted field path. An unknown
//! partner profile (id starting with `unknown-`) answers 404.

use crate::audiences::SHOP_CONFIG_PREFIX;
use crate::auth::Tokens;
use crate::http::extract::Current;
use crate::http::extract::{Bearer, ShopConfig};
use crate::http::operation::declare;
use crate::media_type::{self, Expected};
use crate::models::shop_config::{self, Errors};
use crate::refusals::shop_config_error;
use axum::body::Bytes;
use axum::extract::FromRef;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::{Json, Router};
use psi_shop_config::types::{ShopConfiguration, ShopConfigurationResponse};
use serde_json::Value;

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
{
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
    Path((partner_profile_id, shop_id)): Path<(String, String)>,
    Bearer { tenant, .. }: Bearer<ShopConfig>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if shop_config::is_unknown_partner(&partner_profile_id) {
        return shop_config_error(
            StatusCode::NOT_FOUND,
            format!("Partner profile {partner_profile_id} not found"),
            Errors::new(),
        );
    }
    if let Err(expected) = media_type::check(&headers, &body, Expected::Json) {
        return shop_config_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            expected.message(),
            Errors::new(),
        );
    }
    let configuration = match validated(&body) {
        Ok(configuration) => configuration,
        Err(errors) => {
            return shop_config_error(
                StatusCode::BAD_REQUEST,
                "Validation failed".to_owned(),
                errors,
            )
        }
    };
    // Replaced entirely: nothing of the previous configuration survives.
    tenant
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
    tenant: Current,
    Path((partner_profile_id, shop_id)): Path<(String, String)>,
) -> Response {
    let stored = tenant
        .data()
        .shop_config
        .get(&partner_profile_id, &shop_id)
        .cloned();
    match stored {
        Some(configuration) => Json(configuration).into_response(),
        None => shop_config_error(
            StatusCode::NOT_FOUND,
            format!("No configuration for shop {shop_id}"),
            Errors::new(),
        ),
    }
}

/// The body as the generated type, or every violation found. The rules run
/// on the raw JSON first, so a missing field, a malformed colour and a
/// blank name are reported together instead of stopping at the first
/// field the type cannot take.
fn validated(body: &[u8]) -> Result<ShopConfiguration, Errors> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(problem) => {
            let errors =
                Errors::from([("body".to_owned(), vec![format!("is not JSON: {problem}")])]);
            return Err(errors);
        }
    };
    let errors = shop_config::check(&value);
    if !errors.is_empty() {
        return Err(errors);
    }
    // A safety net: the rules cover every field the type reads, so
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
}
