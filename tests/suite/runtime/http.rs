//! What goes out on the wire besides the call itself: the User-Agent, and
//! the caller's own HTTP client when one is given.

use super::*;
use wiremock::matchers::header;

fn status_path() -> String {
    format!("/order/paylater/v1/{TRANSACTION}/status")
}

#[tokio::test]
async fn every_call_names_psi_its_version_and_the_api() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    let user_agent = format!("psi/{} (pay-later)", env!("CARGO_PKG_VERSION"));
    Mock::given(method("GET"))
        .and(path(status_path()))
        .and(header("user-agent", user_agent.as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(status_body()))
        .expect(1)
        .mount(&server)
        .await;
    client(&server)
        .pay_later()
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .expect("the call matched the User-Agent");
    let token_request = server
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .find(|request| request.url.path() == "/oauth/token")
        .expect("a token was fetched");
    assert_eq!(
        token_request.headers["user-agent"],
        format!("psi/{} (token)", env!("CARGO_PKG_VERSION")).as_str()
    );
}

#[tokio::test]
async fn calls_go_through_the_callers_own_http_client() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("GET"))
        .and(path(status_path()))
        .and(header("x-proxy-tenant", "shop-7"))
        .respond_with(ResponseTemplate::new(200).set_body_json(status_body()))
        .expect(1)
        .mount(&server)
        .await;
    let mut defaults = reqwest::header::HeaderMap::new();
    defaults.insert("x-proxy-tenant", "shop-7".parse().unwrap());
    let own = reqwest::Client::builder()
        .default_headers(defaults)
        .build()
        .unwrap();
    let url = server.uri();
    let client = Client::builder()
        .environment(Environment::new(&url, &url, &url).unwrap())
        .credentials(Credentials::new("merchant-1", CLIENT_SECRET))
        .http_client(own)
        .build()
        .unwrap();
    client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .expect("sent through the given client, with its default header");
}
