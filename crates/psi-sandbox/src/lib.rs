//! psi-sandbox: a stateful local emulator of every Payment Services
//! Interface API.
//!
//! One process serves the four hosts of the interface (base, api, auth and
//! platform) on one address, keeps its state in memory or, with
//! [`Settings::state`], in a SQLite file that survives restarts, parses every
//! request with the generated types and answers in the documented shapes.
//! Tokens are real signed JWTs; sessions, transactions, pay later bookings,
//! bank accounts, shop configurations and storefront orders live as long as
//! the sandbox (or its state file). Each session's `landing_page` is a real
//! checkout page on which a tester picks the outcome. A test-control API under `/__sandbox` plays the buyer, the
//! provider's back office and a flaky network (see [`control`]).
//!
//! The sandbox is the service's stand-in, not the client's mirror: it
//! depends on no client code. Its audience table ([`audiences`]), webhook
//! signer ([`signature`]) and media type rules ([`media_type`]) are written
//! from the specification, so a client that misreads it is refused here.
//! A client is pointed at it with [`Sandbox::addresses`] and the demo
//! credentials ([`DEMO_CLIENT_ID`], ...).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let sandbox = psi_sandbox::Sandbox::start().await?;
//! let addresses = sandbox.addresses();
//! assert_eq!(addresses.shop_config_url, format!("{}/shop-config", sandbox.url()));
//! assert!(sandbox.control().sessions().await?.is_empty());
//! # Ok(()) }
//! ```
#![warn(missing_docs)]
// Handlers answer early with a ready axum `Response` as their error; boxing
// it would only add noise to every handler.
#![allow(clippy::result_large_err)]

mod api_errors;
mod apis;
pub mod audiences;
mod auth;
mod clock;
pub mod control;
mod control_client;
pub mod demo;
mod errors;
mod faults;
mod html;
mod ids;
mod jwt_hs256;
mod limits;
pub mod media_type;
#[doc(hidden)]
pub mod numbers;
mod request_log;
pub mod seed;
mod serve;
pub mod signature;
mod state;
mod tls;
mod typed;

pub use audiences::Addresses;
pub use control_client::{Control, ControlError, StoredTransaction};
use state::{AppState, Shared, Transaction};

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The demo merchant's credentials (printed by `cargo run -p psi-sandbox`).
pub const DEMO_CLIENT_ID: &str = "sandbox-merchant";
/// The client secret of the demo merchant (`DEMO_CLIENT_ID`).
pub const DEMO_CLIENT_SECRET: &str = "sandbox-client-secret";
/// The storefront platform's demo credentials.
pub const DEMO_PLATFORM_CLIENT_ID: &str = "sandbox-platform";
/// The client secret of the demo storefront platform client.
pub const DEMO_PLATFORM_CLIENT_SECRET: &str = "sandbox-platform-secret";
/// The secret webhooks are signed with.
pub const DEMO_WEBHOOK_SECRET: &str = "sandbox-webhook-secret";
/// The port `cargo run -p psi-sandbox` listens on.
pub const DEFAULT_PORT: u16 = 8787;

/// The whole sandbox as one axum router: the routes, the path-id rule
/// after routing ([`ids`]), JSON answers for unknown paths and methods, the
/// after-processing faults, the size limits and plain-number rewrite before
/// routing ([`limits`]), and outermost one log line per request
/// ([`request_log`]).
fn router(state: AppState) -> axum::Router {
    axum::Router::new()
        .merge(auth::routes())
        .merge(control::routes())
        .merge(apis::routes())
        .route_layer(axum::middleware::from_fn(ids::check))
        .fallback(unknown_path)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn(faults::after_processing))
        .layer(axum::middleware::from_fn(limits::enforce))
        .layer(axum::middleware::from_fn(request_log::log))
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

/// How a sandbox starts: what the command line's flags set (`psi-sandbox
/// --help`). The defaults are those of [`Sandbox::start`] except the
/// address: a random loopback port.
#[derive(Clone)]
#[non_exhaustive]
pub struct Settings {
    /// Where to listen; port 0 picks a free one.
    pub address: SocketAddr,
    /// How long an issued access token lives (`expires_in`).
    pub token_lifetime: Duration,
    /// The secret session and invoice webhooks are signed with.
    pub webhook_secret: String,
    /// The SQLite file everything is kept in; `None` keeps it in memory.
    pub state: Option<PathBuf>,
    /// The address clients reach the sandbox at, e.g.
    /// `http://sandbox.internal:8787`: token audiences, `landing_page` and
    /// webhook file addresses are built from it. `None`: `http://` and the
    /// address listened on, which needs a concrete host (not `0.0.0.0`).
    pub public_url: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            address: "127.0.0.1:0".parse().expect("a socket address"),
            token_lifetime: Duration::from_secs(1800),
            webhook_secret: DEMO_WEBHOOK_SECRET.to_owned(),
            state: None,
            public_url: None,
        }
    }
}

impl Settings {
    /// Listen on `address`.
    pub fn address(mut self, address: SocketAddr) -> Self {
        self.address = address;
        self
    }

    /// Issue tokens living `lifetime`.
    pub fn token_lifetime(mut self, lifetime: Duration) -> Self {
        self.token_lifetime = lifetime;
        self
    }

    /// Sign webhooks with `secret`.
    pub fn webhook_secret(mut self, secret: impl Into<String>) -> Self {
        self.webhook_secret = secret.into();
        self
    }

    /// Clients reach the sandbox at `url` (see [`Settings::public_url`]).
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    /// Keep the state in the SQLite file at `path` (created when missing).
    pub fn state(mut self, path: impl Into<PathBuf>) -> Self {
        self.state = Some(path.into());
        self
    }
}

// The webhook secret is a secret: Debug names the rest and hides it.
impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("address", &self.address)
            .field("token_lifetime", &self.token_lifetime)
            .field("webhook_secret", &"<redacted>")
            .field("state", &self.state)
            .field("public_url", &self.public_url)
            .finish()
    }
}

/// Why a sandbox did not start.
#[derive(Debug)]
#[non_exhaustive]
pub enum StartError {
    /// The address could not be bound.
    Bind {
        /// The address asked for.
        address: SocketAddr,
        /// What the system said.
        source: std::io::Error,
    },
    /// The address clients use is unknown or not an `http://` URL: the
    /// sandbox listens on every interface (`0.0.0.0`, `::`) without a
    /// public URL, or the public URL given is not one.
    PublicUrl {
        /// Why, in words.
        reason: String,
    },
    /// The state file cannot be used (not SQLite, not writable, written by
    /// an incompatible sandbox, ...).
    State {
        /// The file given with `--state`.
        path: PathBuf,
        /// Why, in words.
        reason: String,
    },
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Bind { address, source } => {
                write!(f, "--host/--port: cannot listen on {address}: {source}")
            }
            StartError::PublicUrl { reason } => write!(f, "--public-url: {reason}"),
            StartError::State { path, reason } => {
                write!(f, "--state: {} cannot be used: {reason}", path.display())
            }
        }
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StartError::Bind { source, .. } => Some(source),
            StartError::State { .. } | StartError::PublicUrl { .. } => None,
        }
    }
}

impl From<StartError> for std::io::Error {
    fn from(error: StartError) -> Self {
        match error {
            StartError::Bind { source, .. } => source,
            other => std::io::Error::other(other.to_string()),
        }
    }
}

impl Sandbox {
    /// Starts on a random loopback port, in this process (for tests).
    pub async fn start() -> std::io::Result<Sandbox> {
        Ok(Self::start_with(Settings::default()).await?)
    }

    /// Starts on `address` with tokens living `token_lifetime`.
    pub async fn start_on(
        address: SocketAddr,
        token_lifetime: Duration,
    ) -> std::io::Result<Sandbox> {
        let settings = Settings::default()
            .address(address)
            .token_lifetime(token_lifetime);
        Ok(Self::start_with(settings).await?)
    }

    /// Starts with `settings`.
    pub async fn start_with(settings: Settings) -> Result<Sandbox, StartError> {
        let bind_error = |source| StartError::Bind {
            address: settings.address,
            source,
        };
        let listener = tokio::net::TcpListener::bind(settings.address)
            .await
            .map_err(bind_error)?;
        let address = listener.local_addr().map_err(bind_error)?;
        let url = public_url(&settings, address)?;
        let state: AppState = std::sync::Arc::new(Shared::new(url, &settings)?);
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

    /// The socket address the sandbox listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Every address a client of this sandbox needs (see [`audiences`]).
    pub fn addresses(&self) -> Addresses {
        Addresses::of(self.url())
    }

    /// The test-control API of this sandbox.
    pub fn control(&self) -> Control {
        Control::new(self.url())
    }

    /// Stores `count` transactions of the demo order, with the ids
    /// `12-00000000000000000` upwards, each order with its own references;
    /// answers the average bytes each stored request takes. For load and
    /// memory measurements (`benches/lookups.rs`), where creating them
    /// through sessions would measure the wrong thing.
    pub fn seed_transactions(&self, count: usize) -> usize {
        let template = demo::session_request("https://shop.example.com/webhook");
        let now = self.state.clock.now_local();
        let mut data = self.state.data();
        let mut bytes = 0;
        for index in 0..count {
            let transaction = state::demo_transaction(index, &template, now);
            bytes += transaction.request.stored_len();
            data.transactions.insert(transaction);
        }
        bytes / count.max(1)
    }
}

/// The address clients use: the one given, or the one listened on.
fn public_url(settings: &Settings, listening: SocketAddr) -> Result<String, StartError> {
    let refused = |reason: String| StartError::PublicUrl { reason };
    match &settings.public_url {
        Some(url) => {
            let url = url.trim_end_matches('/');
            let host = url.strip_prefix("http://").ok_or_else(|| {
                refused(format!("{url} must start with http:// (the sandbox serves plain HTTP)"))
            })?;
            if host.is_empty() || host.contains(['/', '?', '#']) {
                return Err(refused(format!(
                    "{url} must be http://host[:port], without a path"
                )));
            }
            Ok(url.to_owned())
        }
        None if listening.ip().is_unspecified() => Err(refused(format!(
            "needed when listening on {}: the address clients use (e.g. http://my-host:{}), which token audiences and landing pages are built from",
            listening.ip(),
            listening.port()
        ))),
        None => Ok(format!("http://{listening}")),
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
