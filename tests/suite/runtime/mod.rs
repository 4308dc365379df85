//! The psi facade and runtime against a local fake server: tokens, retries,
//! idempotency, pre-flight checks and logs.

mod builders;
mod extra_members;
mod fidelity;
mod http;
mod logs;
mod observer;
mod preflight;
mod refresh;
mod retries;
mod timeouts;
mod tokens;
mod transport;

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

/// Moves tokio's clock forward by `by` at once, for a test on a running
/// (not paused) current-thread runtime whose calls use real sockets. The
/// clock stays paused only for the jump: a clock left paused advances by
/// itself whenever the runtime idles, which would fire the request timeout
/// while a mock server (on its own thread) is still answering.
pub async fn jump_clock(by: Duration) {
    tokio::time::pause();
    tokio::time::advance(by).await;
    tokio::time::resume();
}

/// Polls `ready` until it holds, yielding between polls. On a paused clock
/// this is how a test waits for real sockets: a runtime that always has
/// the test to run never idles, so its clock never moves by itself.
pub async fn spin_until(mut ready: impl FnMut() -> bool) {
    while !ready() {
        tokio::task::yield_now().await;
    }
}

/// The retries the client schedules, as it announces them (the `delay_ms`
/// of its `retrying` event), read by a layer on this thread's subscriber.
#[derive(Clone, Default)]
pub struct ScheduledRetries(std::sync::Arc<std::sync::Mutex<Vec<Duration>>>);

impl ScheduledRetries {
    /// Starts recording on the current thread (tests using it run on a
    /// current-thread runtime so every task reports here).
    pub fn record() -> (Self, tracing::subscriber::DefaultGuard) {
        use tracing_subscriber::layer::SubscriberExt;
        // tracing caches per call site whether anyone listens; a global
        // subscriber that listens to everything keeps the retry call site
        // live for the scoped one (see logs.rs).
        static GLOBAL: std::sync::Once = std::sync::Once::new();
        GLOBAL.call_once(|| {
            let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry());
        });
        let retries = Self::default();
        let subscriber = tracing_subscriber::registry().with(retries.clone());
        (retries, tracing::subscriber::set_default(subscriber))
    }

    pub fn delays(&self) -> Vec<Duration> {
        self.0.lock().unwrap().clone()
    }

    pub fn count(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ScheduledRetries {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct DelayMs(Option<u64>);
        impl tracing::field::Visit for DelayMs {
            fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
                if field.name() == "delay_ms" {
                    self.0 = Some(value);
                }
            }
            fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
        }
        let mut delay = DelayMs(None);
        event.record(&mut delay);
        if let Some(ms) = delay.0 {
            self.0.lock().unwrap().push(Duration::from_millis(ms));
        }
    }
}

/// Longer than any call of these tests may take: a call that never ends
/// fails its test instead of hanging it.
pub const NEVER: Duration = Duration::from_secs(10);

/// The pay later status of `TRANSACTION` through `client`, as `psi::Error`
/// on failure; a call that has not ended after `NEVER` fails the test.
pub async fn pay_later_status(client: &Client) -> Result<(), psi::Error> {
    let pay_later = client.pay_later();
    let call = pay_later
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send();
    tokio::time::timeout(NEVER, call)
        .await
        .expect("the call ends by its request timeout")
        .map(drop)
        .map_err(psi::Error::from)
}

/// Session creation answers 201 and counts as the only route besides tokens.
pub async fn mount_session_endpoint(server: &MockServer) {
    Mock::given(method("POST"))
        .and(path("/pps/api/v1/session"))
        .respond_with(ResponseTemplate::new(201).set_body_json(serde_json::json!({
            "session_id": "s-1", "landing_page": "https://pp.example.com/landing/s-1"})))
        .mount(server)
        .await;
}
