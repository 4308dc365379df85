//! The psi facade and runtime against a local fake server: tokens, retries,
//! idempotency, pre-flight checks and logs.

mod fidelity;
mod http;
mod logs;
mod preflight;
mod retries;
mod tokens;

use psi::{Client, Credentials, Environment, RetryPolicy};
use std::time::Duration;
use wiremock::matchers::{any, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

pub const CLIENT_SECRET: &str = "client-secret-that-must-never-print";
pub const TRANSACTION: &str = "12-34567890123456789";

/// A client whose four addresses all point at `server`, with fast retries.
pub fn client(server: &MockServer) -> Client {
    let url = server.uri();
    Client::builder()
        .environment(
            Environment::new(&url, &url, &url)
                .unwrap()
                .with_platform_url(&url)
                .unwrap(),
        )
        .credentials(Credentials::new("merchant-1", CLIENT_SECRET))
        .platform_credentials(Credentials::new("platform-1", CLIENT_SECRET))
        .retry(
            RetryPolicy::default()
                .with_initial_backoff(Duration::from_millis(5))
                .with_max_backoff(Duration::from_millis(20)),
        )
        .build()
        .unwrap()
}

pub fn token_body(token: &str, expires_in: u64) -> serde_json::Value {
    serde_json::json!({"access_token": token, "expires_in": expires_in, "token_type": "Bearer"})
}

/// The token endpoint hands out `token-1`, `token-2`, ... valid for `expires_in`.
pub async fn mount_token_endpoint(server: &MockServer, expires_in: u64) {
    struct Numbered(std::sync::atomic::AtomicUsize, u64);
    impl wiremock::Respond for Numbered {
        fn respond(&self, _: &wiremock::Request) -> ResponseTemplate {
            let n = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            ResponseTemplate::new(200).set_body_json(token_body(&format!("token-{n}"), self.1))
        }
    }
    Mock::given(method("POST"))
        .and(path("/oauth/token"))
        .respond_with(Numbered(Default::default(), expires_in))
        .mount(server)
        .await;
}

pub async fn requests_to(server: &MockServer, wanted: &str) -> Vec<wiremock::Request> {
    server
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .filter(|request| request.url.path() == wanted)
        .collect()
}

pub fn status_body() -> serde_json::Value {
    serde_json::json!({"transaction_id": TRANSACTION, "pay_later_status": "AVAILABLE"})
}
