//! psi-sandbox: a stateful local emulator of every Payment Services
//! Interface API.
//!
//! One process serves the four hosts of the interface (base, api, auth and
//! platform) on one address, keeps its state in memory, parses every request
//! with the generated types and answers in the documented shapes. Tokens are
//! real signed JWTs; sessions, transactions, pay later bookings, bank
//! accounts, shop configurations and storefront orders live as long as the
//! sandbox. A test-control API under `/__sandbox` plays the buyer, the
//! provider's back office and a flaky network (see [`control`]).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sandbox = psi_sandbox::Sandbox::start().await?;
//! let client = sandbox.client();
//! let token = client.token(psi::Api::PayLater).await?;
//! assert!(!token.expose().is_empty());
//! # Ok(()) }
//! ```

// Handlers answer early with a ready axum `Response` as their error; boxing
// it would only add noise to every handler.
#![allow(clippy::result_large_err)]

pub mod api_errors;
pub mod apis;
pub mod auth;
pub mod clock;
pub mod control;
mod control_client;
pub mod demo;
pub mod errors;
pub mod faults;
pub mod ids;
pub mod limits;
pub mod numbers;
pub mod serve;
pub mod state;

pub use control_client::Control;
pub use state::{AppState, Shared, StoredRequest, Transaction};

use std::net::SocketAddr;
use std::time::Duration;

/// The demo merchant's credentials (printed by `cargo run -p psi-sandbox`).
pub const DEMO_CLIENT_ID: &str = "sandbox-merchant";
pub const DEMO_CLIENT_SECRET: &str = "sandbox-client-secret";
/// The storefront platform's demo credentials.
pub const DEMO_PLATFORM_CLIENT_ID: &str = "sandbox-platform";
pub const DEMO_PLATFORM_CLIENT_SECRET: &str = "sandbox-platform-secret";
/// The secret webhooks are signed with.
pub const DEMO_WEBHOOK_SECRET: &str = "sandbox-webhook-secret";
/// The port `cargo run -p psi-sandbox` listens on.
pub const DEFAULT_PORT: u16 = 8787;

/// The whole sandbox as one axum router: the routes, the path-id rule
/// after routing ([`ids`]), JSON answers for unknown paths and methods, and
/// the size limits and exact-number rule before routing ([`limits`]).
pub fn router(state: AppState) -> axum::Router {
    axum::Router::new()
        .merge(auth::routes())
        .merge(control::routes())
        .merge(apis::routes())
        .route_layer(axum::middleware::from_fn(ids::check))
        .fallback(unknown_path)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn(limits::enforce))
        .with_state(state)
}

async fn unknown_path(uri: axum::http::Uri) -> axum::response::Response {
    api_errors::Owner::of_path(uri.path()).refuse(
        axum::http::StatusCode::NOT_FOUND,
        api_errors::Problem::new("UNKNOWN_PATH", "no operation is served at this path"),
    )
}

async fn method_not_allowed(uri: axum::http::Uri) -> axum::response::Response {
    api_errors::Owner::of_path(uri.path()).refuse(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        api_errors::Problem::new(
            "METHOD_NOT_ALLOWED",
            "the path is served, but not with this method",
        ),
    )
}

/// A running sandbox; stops when dropped.
pub struct Sandbox {
    state: AppState,
    address: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Sandbox {
    /// Starts on a random loopback port, in this process (for tests).
    pub async fn start() -> std::io::Result<Sandbox> {
        Self::start_on(
            "127.0.0.1:0".parse().expect("a socket address"),
            Duration::from_secs(1800),
        )
        .await
    }

    /// Starts on `address` with tokens living `token_lifetime`.
    pub async fn start_on(
        address: SocketAddr,
        token_lifetime: Duration,
    ) -> std::io::Result<Sandbox> {
        let listener = tokio::net::TcpListener::bind(address).await?;
        let address = listener.local_addr()?;
        let state: AppState =
            std::sync::Arc::new(Shared::new(format!("http://{address}"), token_lifetime));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let app = router(state.clone());
        tokio::spawn(serve::serve(listener, app, async {
            let _ = stopped.await;
        }));
        Ok(Sandbox {
            state,
            address,
            stop: Some(stop),
        })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.state.url
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The psi environment pointing every address at this sandbox.
    pub fn environment(&self) -> psi::Environment {
        self.state.environment()
    }

    pub fn credentials(&self) -> psi::Credentials {
        psi::Credentials::new(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
    }

    pub fn platform_credentials(&self) -> psi::Credentials {
        psi::Credentials::new(DEMO_PLATFORM_CLIENT_ID, DEMO_PLATFORM_CLIENT_SECRET)
    }

    /// A `psi::Client` for this sandbox with the demo credentials.
    pub fn client(&self) -> psi::Client {
        psi::Client::builder()
            .environment(self.environment())
            .credentials(self.credentials())
            .platform_credentials(self.platform_credentials())
            .build()
            .expect("the sandbox's settings are complete")
    }

    /// The test-control API of this sandbox.
    pub fn control(&self) -> Control {
        Control::new(self.url())
    }

    /// The state, for tests that inspect it directly.
    pub fn state(&self) -> &AppState {
        &self.state
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
