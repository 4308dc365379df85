//! Shop configuration against the sandbox: a PUT replaces the stored
//! configuration entirely, every broken rule comes back in one 400, and an
//! unknown partner profile is a 404.

use psi::shop_config::types::{ShopConfiguration, ShopConfigurationError};
use psi::shop_config::Error;
use psi_sandbox::Sandbox;
use serde_json::{json, Value};

const PARTNER: &str = "pp-4711";
const SHOP: &str = "shop-berlin-01";

/// A sandbox and a client whose shop configuration calls reach it.
async fn sandbox() -> (Sandbox, psi::Client) {
    let (sandbox, _) = super::sandbox().await;
    let client = super::client(&sandbox);
    (sandbox, client)
}

/// The sandbox's PUT address of the shop `SHOP` of `PARTNER`.
fn put_url(sandbox: &Sandbox) -> String {
    let base = sandbox.addresses().shop_config_url;
    format!("{base}/v2/partners/{PARTNER}/shops/{SHOP}")
}

/// The request example of the document, contacts included.
fn full_configuration() -> Value {
    json!({
        "name": "Example Moebel",
        "website": "https://www.example.com",
        "address": {"street": "Musterstrasse", "street_number": "12", "street_additional": "3. Etage",
                    "city": "Berlin", "postal_code": "10115", "country_code": "DE"},
        "legal": {"name": "Example Moebel GmbH", "legal_form": "GmbH", "commercial_register_number": "HRB 123456 B",
                  "registration_office": "Amtsgericht Charlottenburg", "vat_id_number": "DE123456789",
                  "tax_number": "27/123/45678", "managing_directors": "Erika Mustermann, Max Mustermann",
                  "designation_of_management": "Geschäftsführer"},
        "contacts": {
            "customer_service": {"email": "service@example.com", "phone": "+49 30 1234567", "fax": "+49 30 1234568"},
            "fraud": {"email": "fraud@example.com"},
            "incident": {"email": "incident@example.com"},
            "data_protection": {"email": "datenschutz@example.com"},
            "invoice_copy": {"email": "invoice-copy@example.com"}
        },
        "correspondence_settings": {
            "branding_settings": {"logo_position": "LEFT", "highlight_color": "#1A73E8"},
            "slang": {"de": {"salutation": "Hallo", "order": "ORDER", "formal_tone": "INFORMAL", "name_format": "FIRST_NAME",
                             "customer_service_contact": ["Kundenservice: Mo-Fr 9-18 Uhr"]}},
            "payment_method_specific": [{
                "payment_method": {"payment_option": "OPEN_INVOICE", "transfer_type": "BANK_TRANSFER"},
                "invoice": {"skip_sending": false, "shop_branding": true},
                "dunning_3": {"skip_sending": false, "shop_branding": false}
            }]
        }
    })
}

fn typed(configuration: Value) -> ShopConfiguration {
    serde_json::from_value(configuration).expect("a configuration the type takes")
}

async fn put(
    client: &psi::Client,
    partner_profile_id: &str,
    configuration: ShopConfiguration,
) -> Result<
    psi::shop_config::ResponseValue<psi::shop_config::types::ShopConfigurationOutcome>,
    Error<ShopConfigurationError>,
> {
    client
        .shop_config()
        .update_shop_configuration()
        .partner_profile_id(partner_profile_id)
        .shop_id(SHOP)
        .body(configuration)
        .send()
        .await
}

/// What the sandbox holds for the shop (its test-control read).
async fn stored(sandbox: &Sandbox) -> Value {
    sandbox
        .control()
        .get(&format!("shop-config/{PARTNER}/{SHOP}"))
        .await
        .unwrap()
}

fn error_of<T: std::fmt::Debug>(
    result: Result<T, Error<ShopConfigurationError>>,
    status: u16,
) -> ShopConfigurationError {
    match result {
        Err(Error::Declined(answer)) => {
            assert_eq!(answer.status, status);
            answer.body
        }
        other => panic!("expected a {status}, got {other:?}"),
    }
}

#[tokio::test]
async fn a_configuration_is_stored_and_the_shop_id_answered() {
    let (sandbox, client) = sandbox().await;
    assert!(
        stored(&sandbox).await["message"].is_string(),
        "nothing stored yet"
    );
    let answer = put(&client, PARTNER, typed(full_configuration()))
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(
        answer
            .into_inner()
            .0
            .and_then(|stored| stored.shop_id)
            .as_deref(),
        Some(SHOP)
    );
    assert_eq!(
        stored(&sandbox).await,
        serde_json::to_value(typed(full_configuration())).unwrap()
    );
}

#[tokio::test]
async fn a_highlight_colour_without_hash_is_sent_and_stored() {
    // "HTML hex color code" is all the specification says: the code
    // written without `#` is one reading of it, so it is sent as given.
    let (sandbox, client) = sandbox().await;
    let mut configuration = full_configuration();
    configuration["correspondence_settings"]["branding_settings"]["highlight_color"] =
        json!("1A73E8");
    put(&client, PARTNER, typed(configuration)).await.unwrap();
    assert_eq!(
        stored(&sandbox).await["correspondence_settings"]["branding_settings"]["highlight_color"],
        "1A73E8"
    );
}

#[tokio::test]
async fn a_second_put_replaces_the_configuration_entirely() {
    let (sandbox, client) = sandbox().await;
    put(&client, PARTNER, typed(full_configuration()))
        .await
        .unwrap();
    assert!(stored(&sandbox).await["contacts"].is_object());

    let mut smaller = full_configuration();
    let fields = smaller.as_object_mut().unwrap();
    fields.remove("contacts");
    fields.remove("correspondence_settings");
    fields.insert("name".to_owned(), json!("Example Moebel Outlet"));
    put(&client, PARTNER, typed(smaller.clone())).await.unwrap();

    let now = stored(&sandbox).await;
    assert_eq!(now["name"], "Example Moebel Outlet");
    assert!(
        now.get("contacts").is_none(),
        "not merged: the contacts are gone: {now}"
    );
    assert!(now.get("correspondence_settings").is_none(), "{now}");
    assert_eq!(now, serde_json::to_value(typed(smaller)).unwrap());
}

/// Six rules broken at once; every one is allowed by the generated type.
fn broken_configuration() -> ShopConfiguration {
    let mut configuration = full_configuration();
    configuration["name"] = json!("  ");
    configuration["address"]["postal_code"] = json!("");
    configuration["address"]["country_code"] = json!("XX");
    let legal = configuration["legal"].as_object_mut().unwrap();
    legal.remove("vat_id_number");
    legal.remove("tax_number");
    legal.remove("designation_of_management");
    configuration["contacts"]["fraud"]["email"] = json!("+49 30 1234567");
    typed(configuration)
}

#[tokio::test]
async fn the_service_reports_every_violation_at_once() {
    let (sandbox, _) = sandbox().await;
    // The client's own pre-flight check would refuse first (see below).
    let unchecked = super::builder(&sandbox).skip_preflight().build().unwrap();
    let error = error_of(put(&unchecked, PARTNER, broken_configuration()).await, 400);
    assert_eq!(error.message.as_deref(), Some("Validation failed"));
    let mut fields: Vec<&str> = error.errors.keys().map(String::as_str).collect();
    fields.sort_unstable();
    assert_eq!(
        fields,
        [
            "address.country_code",
            "address.postal_code",
            "contacts.fraud.email",
            "legal.designation_of_management",
            "legal.tax_number",
            "legal.vat_id_number",
            "name",
        ]
    );
    assert_eq!(error.errors["name"], ["must not be blank"]);
    assert_eq!(
        error.errors["address.country_code"],
        ["\"XX\" is not an ISO 3166-1 alpha-2 country code"]
    );
    assert_eq!(
        error.errors["legal.designation_of_management"],
        ["must be given when managing_directors is given"]
    );
    assert!(
        stored(&sandbox).await["message"].is_string(),
        "nothing was stored"
    );
}

#[tokio::test]
async fn the_clients_preflight_refuses_the_same_body_before_sending() {
    let (sandbox, client) = sandbox().await;
    // The client refuses what the specification states (country code,
    // either tax identifier, designation with managing directors) ...
    match put(&client, PARTNER, broken_configuration())
        .await
        .map_err(psi::Error::from)
    {
        Err(psi::Error::Preflight(refused)) => {
            let violations = refused.violations().to_string();
            for path in [
                "$.address.country_code",
                "$.legal",
                "$.legal.designation_of_management",
            ] {
                assert!(
                    violations.contains(&format!("{path}: ")),
                    "{path} missing in {violations}"
                );
            }
            for advice_only in ["$.name", "$.address.postal_code", "$.contacts.fraud.email"] {
                assert!(
                    !violations.contains(&format!("{advice_only}: ")),
                    "{advice_only} refused in {violations}"
                );
            }
        }
        Err(other) => panic!("expected the pre-flight check to refuse, got {other:?}"),
        Ok(_) => panic!("expected the pre-flight check to refuse, it was sent"),
    }
    assert!(
        stored(&sandbox).await["message"].is_string(),
        "nothing was sent"
    );
    // ... and advises on the rest, which the service may refuse itself.
    let advice: Vec<String> = psi::advice::shop_configuration(&broken_configuration())
        .into_iter()
        .map(|finding| finding.path)
        .collect();
    assert_eq!(
        advice,
        ["$.name", "$.address.postal_code", "$.contacts.fraud.email"]
    );
}

#[tokio::test]
async fn an_unknown_partner_profile_is_a_404() {
    let (sandbox, client) = sandbox().await;
    let error = error_of(
        put(&client, "unknown-partner", typed(full_configuration())).await,
        404,
    );
    assert_eq!(
        error.message.as_deref(),
        Some("Partner profile unknown-partner not found")
    );
    assert!(error.errors.is_empty());
    let nothing = sandbox
        .control()
        .get(&format!("shop-config/unknown-partner/{SHOP}"))
        .await
        .unwrap();
    assert!(nothing["message"].is_string());
}

#[tokio::test]
async fn a_missing_or_foreign_token_is_a_401_with_a_message() {
    let (sandbox, _) = sandbox().await;
    let url = put_url(&sandbox);
    let body = full_configuration();
    let missing = reqwest::Client::new()
        .put(&url)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status().as_u16(), 401);
    let error: ShopConfigurationError = missing.json().await.unwrap();
    assert_eq!(
        error.message.as_deref(),
        Some("Unauthorized: MISSING_TOKEN")
    );
    let foreign = super::client(&sandbox)
        .token(psi::Api::PayLater)
        .await
        .unwrap();
    let refused = reqwest::Client::new()
        .put(&url)
        .bearer_auth(foreign.expose())
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 401);
}

#[tokio::test]
async fn a_body_the_type_cannot_take_is_a_400_naming_the_fields() {
    let (sandbox, client) = sandbox().await;
    let token = client.token(psi::Api::ShopConfig).await.unwrap();
    let url = put_url(&sandbox);
    let mut body = full_configuration();
    body.as_object_mut().unwrap().remove("legal");
    body["correspondence_settings"]["branding_settings"]["highlight_color"] = json!("blue");
    let answer = reqwest::Client::new()
        .put(&url)
        .bearer_auth(token.expose())
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 400);
    let error: ShopConfigurationError = answer.json().await.unwrap();
    let mut fields: Vec<&str> = error.errors.keys().map(String::as_str).collect();
    fields.sort_unstable();
    assert_eq!(
        fields,
        [
            "correspondence_settings.branding_settings.highlight_color",
            "legal"
        ]
    );
    assert_eq!(error.errors["legal"], ["is required"]);

    let not_json = reqwest::Client::new()
        .put(&url)
        .bearer_auth(token.expose())
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .unwrap();
    assert_eq!(not_json.status().as_u16(), 400);
    let error: ShopConfigurationError = not_json.json().await.unwrap();
    assert!(error.errors.contains_key("body"), "{error:?}");
}
