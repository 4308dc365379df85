//! `psi-sandbox proxy`: drift watch in front of the real service.
//!
//! The proxy serves on one address and forwards every request to the real
//! host of its API family (`base_url`, `api_url`, `auth_url`,
//! `platform_url`, `shop_config_url`: [`Upstreams`]), passing the answer on
//! byte for byte. On the way it checks each request and answer against the
//! bundled documents with one shared [`psi_drift::Drift`] and answers the
//! findings at `GET /__proxy/drift`. Its one change to what passes: the
//! token request's `audience`, which names the proxy's address, is
//! rewritten to the upstream's (`upstreams.rs`).
//!
//! Its floor is beside `control/`: it imports the HTTP client of `tls.rs`,
//! the health check's path of `control/health.rs` and the demo buyer of
//! `demo.rs`, and nothing of the sandbox's state, APIs or router.
//! `GET /__sandbox/health` is the one path outside `/__proxy` it answers
//! itself, so the container image's health check works for the proxy too.

mod client;
pub mod coding;
mod forward;
mod notifications;
pub mod offline;
pub mod record;
pub mod seed_from;
mod upstreams;

pub use upstreams::{Family, Upstreams};

use axum::routing::{get, post};
use axum::Router;
use psi_drift::Drift;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// The path prefix of the proxy's own calls; never forwarded.
pub const PREFIX: &str = "/__proxy";

/// Bodies read and checked up to this size by default (`--max-body`).
pub const DEFAULT_MAX_BODY: usize = 10 * 1024 * 1024;

/// What `psi-sandbox proxy` is started with.
#[derive(Debug, Clone)]
pub struct ProxySettings {
    /// Where the proxy listens (`--host`, `--port`).
    pub address: SocketAddr,
    /// The real hosts (`--upstream*`).
    pub upstreams: Upstreams,
    /// Bodies over this many bytes are passed on unchecked (`too_large`).
    pub max_body: usize,
    /// Append every exchange, redacted, to this file (JSON lines).
    pub record: Option<PathBuf>,
    /// Where notifications posted to `/__proxy/notifications/*` go.
    pub forward_webhooks_to: Option<String>,
    /// Verifies session notifications; none: not verified.
    pub session_webhook_secret: Option<String>,
    /// Verifies invoice notifications; none: not verified.
    pub invoice_webhook_secret: Option<String>,
}

impl ProxySettings {
    /// Listening on `address`, forwarding to `upstreams`, nothing else.
    pub fn new(address: SocketAddr, upstreams: Upstreams) -> Self {
        Self {
            address,
            upstreams,
            max_body: DEFAULT_MAX_BODY,
            record: None,
            forward_webhooks_to: None,
            session_webhook_secret: None,
            invoice_webhook_secret: None,
        }
    }
}

/// What every handler shares.
pub(crate) struct Shared {
    pub drift: Arc<Drift>,
    pub upstreams: Upstreams,
    /// Reaches the upstreams.
    pub client: client::Client,
    /// Reaches the webhook receiver (and the https upstreams).
    pub http: reqwest::Client,
    pub max_body: usize,
    pub recorder: Option<record::Recorder>,
    pub forward_webhooks_to: Option<String>,
    pub session_webhook_secret: Option<String>,
    pub invoice_webhook_secret: Option<String>,
    /// `http://<address>`: the prefix an audience naming the proxy has.
    pub url: String,
}

/// A running proxy; dropping it stops serving.
pub struct Proxy {
    url: String,
    address: SocketAddr,
    drift: Arc<Drift>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Proxy {
    /// Binds the address and serves in the background. The error names
    /// the flag or file that cannot be used.
    pub async fn start(settings: ProxySettings) -> Result<Proxy, String> {
        // Follows no redirect (a 3xx is the client's to follow) and undoes
        // no content coding (reqwest's decoders are not built here): the
        // bytes pass on as the upstream sent them.
        let http = crate::tls::http_client()?;
        let client = client::Client::new(&settings.upstreams, http.clone())?;
        let recorder = match &settings.record {
            Some(path) => {
                let secrets = [
                    settings.session_webhook_secret.as_deref(),
                    settings.invoice_webhook_secret.as_deref(),
                ];
                Some(
                    record::Recorder::open(path, secrets.into_iter().flatten())
                        .map_err(|e| format!("--record: {}: {e}", path.display()))?,
                )
            }
            None => None,
        };
        let listener = tokio::net::TcpListener::bind(settings.address)
            .await
            .map_err(|e| format!("--host/--port: cannot listen on {}: {e}", settings.address))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        let url = format!("http://{address}");
        let drift = Arc::new(Drift::new());
        let shared = Arc::new(Shared {
            drift: drift.clone(),
            upstreams: settings.upstreams,
            client,
            http,
            max_body: settings.max_body,
            recorder,
            forward_webhooks_to: settings
                .forward_webhooks_to
                .map(|url| url.trim_end_matches('/').to_owned()),
            session_webhook_secret: settings.session_webhook_secret,
            invoice_webhook_secret: settings.invoice_webhook_secret,
            url: url.clone(),
        });
        let app = router(shared);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(Proxy {
            url,
            address,
            drift,
            stop: Some(stop),
        })
    }

    /// `http://<address>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The socket address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The findings so far.
    pub fn report(&self) -> psi_drift::Report {
        self.drift.report()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route(&format!("{PREFIX}/drift"), get(report))
        // The container image's HEALTHCHECK (`psi-sandbox health`) asks
        // here whichever command the image runs: the proxy answers for
        // itself instead of forwarding.
        .route(
            crate::control::health::PATH,
            get(|| async { axum::Json(serde_json::json!({"status": "ok"})) }),
        )
        .route(
            &format!("{PREFIX}/notifications/sessions"),
            post(notifications::sessions),
        )
        .route(
            &format!("{PREFIX}/notifications/invoices"),
            post(notifications::invoices),
        )
        .fallback(forward::forward)
        .with_state(shared)
}

/// `GET /__proxy/drift`: the report so far.
async fn report(
    axum::extract::State(shared): axum::extract::State<Arc<Shared>>,
) -> axum::Json<psi_drift::Report> {
    axum::Json(shared.drift.report())
}

/// A JSON answer of the proxy itself (not the upstream's).
pub(crate) fn own_answer(
    status: axum::http::StatusCode,
    body: serde_json::Value,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    (status, axum::Json(body)).into_response()
}
