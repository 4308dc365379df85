//! Pre-flight refuses only stated rules: baskets the provider accepts reach
//! the server, and the shop configuration API is never guessed at.

use super::*;
use psi::payment_page::types::SessionRequest;
use wiremock::matchers::body_partial_json;

/// A session request around one basket, from JSON text (amounts exactly
/// as written: `json!` would pass them through f64).
fn session_with_basket(basket: &str) -> SessionRequest {
    let json = format!(
        r#"{{"order_data":{{"currency":"EUR","shop_baskets":[{basket}]}},
            "url_data":{{"webhook_url":"https://shop.example.com/webhook"}}}}"#
    );
    serde_json::from_str(&json).unwrap()
}

/// Three articles at 9.99 gross, 19 %, VAT worked out per line (net 8.39,
/// tax 1.60 each) and summed: tax 4.80 where net x rate gives 4.78.
fn vat_per_line() -> SessionRequest {
    let article = r#"{"quantity": 1, "tax_rate": 19, "gross_unit_price": 9.99, "gross_total_price": 9.99,
                      "net_unit_price": 8.39, "net_total_price": 8.39}"#;
    session_with_basket(&format!(
        r#"{{"gross_amount": 29.97, "items": [{article}, {article}, {article}],
            "vats": [{{"tax_rate": 19, "net_amount": 25.17, "tax_amount": 4.80}}]}}"#
    ))
}

/// A 0 % article besides a 19 % one, and no VAT line for 0 %.
fn zero_rate_without_vat_line() -> SessionRequest {
    session_with_basket(
        r#"{"gross_amount": 16.90, "items": [
              {"quantity": 1, "tax_rate": 19, "gross_unit_price": 11.90, "gross_total_price": 11.90,
               "net_unit_price": 10, "net_total_price": 10},
              {"quantity": 1, "tax_rate": 0, "gross_unit_price": 5, "gross_total_price": 5,
               "net_unit_price": 5, "net_total_price": 5}],
            "vats": [{"tax_rate": 19, "net_amount": 10, "tax_amount": 1.90}]}"#,
    )
}

#[tokio::test]
async fn baskets_the_provider_accepts_reach_the_server() {
    for (name, request) in [
        ("vat per line", vat_per_line()),
        ("0 % without a vat line", zero_rate_without_vat_line()),
    ] {
        let server = MockServer::start().await;
        mount_token_endpoint(&server, 1800).await;
        mount_session_endpoint(&server).await;
        // Advice sees the arithmetic; the send goes ahead regardless.
        assert_eq!(psi::advice::session_request(&request).len(), 1, "{name}");
        let session = client(&server)
            .payment_page()
            .create_session()
            .body(request)
            .send()
            .await
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        assert_eq!(session.session_id.as_deref(), Some("s-1"), "{name}");
        assert_eq!(
            requests_to(&server, "/pps/api/v1/session").await.len(),
            1,
            "{name}"
        );
    }
}

#[tokio::test]
async fn advice_names_the_arithmetic_of_both_baskets() {
    let findings = psi::advice::session_request(&vat_per_line());
    assert_eq!(
        findings[0].to_string(),
        "$.order_data.shop_baskets[0].vats[0].tax_amount: must equal net_amount x tax_rate / 100 \
         rounded to cents = 4.78 (tolerance 0.01), but is 4.80"
    );
    let findings = psi::advice::session_request(&zero_rate_without_vat_line());
    assert_eq!(findings[0].path, "$.order_data.shop_baskets[0].vats");
}

#[tokio::test]
async fn a_basket_whose_items_miss_the_gross_amount_is_refused_before_sending() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    mount_session_endpoint(&server).await;
    let mut request = vat_per_line();
    request.order_data.as_mut().unwrap().shop_baskets[0].gross_amount =
        Some("30.04".parse().unwrap());
    let error = psi::Error::from(
        client(&server)
            .payment_page()
            .create_session()
            .body(request)
            .send()
            .await
            .unwrap_err(),
    );
    let psi::Error::Preflight(refused) = &error else {
        panic!("refused before sending: {error:?}")
    };
    assert_eq!(refused.operation_id(), "createSession");
    assert_eq!(
        refused.violations().0[0].rule,
        psi::preflight::Rule::BasketTotal
    );
    let error = error.to_string();
    assert!(
        error.contains(
            "$.order_data.shop_baskets[0].gross_amount: must equal the amount the service computes"
        ),
        "{error}"
    );
    assert!(
        error.contains("= 29.97 (allowed difference 0.06"),
        "{error}"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 0);
}

fn shop_configuration() -> psi::shop_config::types::ShopConfiguration {
    crate::example_shop_configuration()
}

#[tokio::test]
async fn shop_configuration_without_its_settings_sends_nothing_and_names_them() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"shop_id": "s"})))
        .mount(&server)
        .await;
    let client = client(&server);
    let error = psi::Error::from(
        client
            .shop_config()
            .update_shop_configuration()
            .partner_profile_id("partner-1")
            .shop_id("shop-1")
            .body(shop_configuration())
            .send()
            .await
            .unwrap_err(),
    );
    let psi::Error::Config(missing) = &error else {
        panic!("a missing setting: {error:?}")
    };
    assert_eq!(missing.setting(), "shop_config_url");
    let error = error.to_string();
    for name in [
        "shop_config_url",
        "shop_config_audience",
        "PSI_SHOP_CONFIG_URL",
        "PSI_SHOP_CONFIG_AUDIENCE",
    ] {
        assert!(error.contains(name), "{name} missing from: {error}");
    }
    let token_error = client.token(psi::Api::ShopConfig).await.unwrap_err();
    assert!(
        token_error.to_string().contains("PSI_SHOP_CONFIG_URL"),
        "{token_error}"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 0);
}

#[tokio::test]
async fn skipping_preflight_does_not_send_an_unconfigured_shop_configuration() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    let url = server.uri();
    let client = Client::builder()
        .environment(Environment::new(&url, &url, &url).unwrap())
        .credentials(Credentials::new("merchant-1", CLIENT_SECRET))
        .skip_preflight()
        .build()
        .unwrap();
    let error = client
        .shop_config()
        .update_shop_configuration()
        .partner_profile_id("partner-1")
        .shop_id("shop-1")
        .body(shop_configuration())
        .send()
        .await
        .unwrap_err();
    let error = psi::Error::from(error);
    assert!(
        matches!(&error, psi::Error::Config(missing) if missing.setting() == "shop_config_url"),
        "{error}"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 0);
}

#[tokio::test]
async fn shop_configuration_goes_to_its_settings_with_its_audience() {
    let server = MockServer::start().await;
    let url = server.uri();
    let shop_config_url = format!("{url}/somewhere/shop-config");
    let audience = "https://audience.example.com/shop-config";
    Mock::given(method("POST"))
        .and(path("/oauth/token"))
        .and(body_partial_json(serde_json::json!({"audience": audience})))
        .respond_with(ResponseTemplate::new(200).set_body_json(token_body("shop-token", 1800)))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("PUT"))
        .and(path(
            "/somewhere/shop-config/v2/partners/partner-1/shops/shop-1",
        ))
        .and(wiremock::matchers::header(
            "authorization",
            "Bearer shop-token",
        ))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(serde_json::json!({"shop_id": "shop-1"})),
        )
        .expect(1)
        .mount(&server)
        .await;
    let client = Client::builder()
        .environment(
            Environment::new(&url, &url, &url)
                .unwrap()
                .with_shop_config(&shop_config_url, audience)
                .unwrap(),
        )
        .credentials(Credentials::new("merchant-1", CLIENT_SECRET))
        .build()
        .unwrap();
    let answer = client
        .shop_config()
        .update_shop_configuration()
        .partner_profile_id("partner-1")
        .shop_id("shop-1")
        .body(shop_configuration())
        .send()
        .await
        .unwrap();
    assert_eq!(
        answer
            .into_inner()
            .0
            .and_then(|stored| stored.shop_id)
            .as_deref(),
        Some("shop-1")
    );
}
