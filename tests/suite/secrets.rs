//! Client secrets and tokens never appear in Debug output, yet go on the
//! wire unchanged.

use psi_token::types::{TokenRequest, TokenResponse};

const SECRET: &str = "s3cr3t-client-secret";
const TOKEN: &str = "eyJhbGciOiJSUzI1NiJ9.payload.signature";

#[test]
fn token_request_and_response_do_not_print_secrets() {
    let request: TokenRequest = serde_json::from_value(serde_json::json!({
        "client_id": "merchant-1", "client_secret": SECRET,
        "audience": "https://api.example.com/paylater", "grant_type": "client_credentials"
    }))
    .unwrap();
    let printed = format!("{request:?} {request:#?}");
    assert!(!printed.contains(SECRET), "{printed}");
    assert!(
        printed.contains("merchant-1"),
        "Debug still shows the harmless fields"
    );
    assert!(
        serde_json::to_string(&request).unwrap().contains(SECRET),
        "the wire carries it"
    );

    let response: TokenResponse = serde_json::from_value(
        serde_json::json!({"access_token": TOKEN, "expires_in": 1800, "token_type": "Bearer"}),
    )
    .unwrap();
    assert!(!format!("{response:?}").contains(TOKEN));
    assert_eq!(response.access_token.unwrap().expose(), TOKEN);
}

#[test]
fn the_platform_token_types_do_not_print_secrets() {
    let request: psi_storefront::types::PlatformTokenRequest = serde_json::from_value(serde_json::json!({
        "grant_type": "client_credentials", "client_id": "platform-1", "client_secret": SECRET, "scope": "write"
    }))
    .unwrap();
    assert!(!format!("{request:?}").contains(SECRET));
    let response: psi_storefront::types::PlatformTokenResponse = serde_json::from_value(
        serde_json::json!({"access_token": TOKEN, "expires_in": 600, "token_type": "Bearer"}),
    )
    .unwrap();
    assert!(!format!("{response:?}").contains(TOKEN));
}
