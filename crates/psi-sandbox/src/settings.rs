//! How a sandbox starts ([`Settings`], with its [`Limits`]) and why it did
//! not ([`StartError`]): what the binary's flags set.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::document::Document;

/// The caps on what requests can make a sandbox keep or hold open, so
/// that no flood of calls exhausts its memory (each a flag of the binary).
/// Build one from [`Limits::default`] and change the fields wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Sessions kept (`--max-sessions`); beyond it the oldest finished
    /// session (among the oldest few, else the oldest) is forgotten and
    /// answers 404 as unknown. Also the most Idempotency-Keys kept (each
    /// for 24 hours of sandbox time at most), the oldest forgotten first.
    pub max_sessions: usize,
    /// Faults armed at once (`--max-faults`); arming one more is a 400.
    pub max_faults: usize,
    /// Invoice webhook subscriptions (`--max-webhook-subscriptions`); one
    /// more is a 400 (the same URL again is the existing subscription).
    pub max_webhook_subscriptions: usize,
    /// Notifications kept in the delivery log (`--max-deliveries`): at
    /// the cap the oldest finished ones are dropped, down to half of it.
    pub max_deliveries: usize,
    /// Connections served at once (`--max-connections`); more wait in the
    /// listen queue until one closes.
    pub max_connections: usize,
    /// How long a connection may take to send a request's head
    /// (`--header-read-timeout`), also the longest an idle keep-alive
    /// connection stays open.
    pub header_read_timeout: Duration,
    /// Tenants served at once, the demo tenant included (`--max-tenants`);
    /// creating one more is a 400. The other caps hold for each tenant.
    pub max_tenants: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_sessions: 10_000,
            max_faults: 1_000,
            max_webhook_subscriptions: 100,
            max_deliveries: 10_000,
            max_connections: 1_024,
            header_read_timeout: Duration::from_secs(30),
            max_tenants: 100,
        }
    }
}

/// How a sandbox starts: what the command line's flags set (`psi-sandbox
/// --help`). The defaults are those of [`crate::Sandbox::start`] except the
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
    /// The token every control call must carry (`Authorization: Bearer`),
    /// see [`Settings::control_token`]; required when listening on an
    /// address other than a loopback one.
    pub control_token: Option<String>,
    /// The hosts webhook notifications may be sent to; empty: any. The
    /// sandbox calls a webhook URL from where it runs, so without a list a
    /// session's `webhook_url` can make it call any address it reaches
    /// (see [`Settings::webhook_allow`]).
    pub webhook_allow: Vec<String>,
    /// The caps on what requests can make the sandbox keep ([`Limits`]).
    pub limits: Limits,
    /// Documents served from their examples besides the bundled ones
    /// ([`Settings::with_document`]).
    pub(crate) documents: Vec<Document>,
    /// Transactions and storefront orders stored on start and again on
    /// every reset (`--seed`).
    pub seed: Option<std::sync::Arc<crate::seed::Seed>>,
    /// Tenants that exist from the start (`--tenants FILE`), with the
    /// credentials given: a team's CI secrets.
    pub tenants: Vec<DeclaredTenant>,
}

/// A tenant declared at start ([`Settings::tenant`], `--tenants FILE`):
/// its id and every credential it is served with. Its `Debug` shows the
/// ids only.
#[derive(Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclaredTenant {
    /// The tenant's id (`^[a-z0-9][a-z0-9-]{0,39}$`).
    pub tenant: String,
    /// Its API client's id and secret.
    pub client_id: String,
    /// The secret of `client_id`.
    pub client_secret: String,
    /// Its storefront platform client's id.
    pub platform_client_id: String,
    /// The secret of `platform_client_id`.
    pub platform_client_secret: String,
    /// The bearer token of its control calls.
    pub control_token: String,
}

impl std::fmt::Debug for DeclaredTenant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeclaredTenant")
            .field("tenant", &self.tenant)
            .field("client_id", &self.client_id)
            .field("platform_client_id", &self.platform_client_id)
            .finish_non_exhaustive()
    }
}

impl DeclaredTenant {
    /// The tenants of a `--tenants` file: `{"tenants": [DeclaredTenant, ...]}`.
    /// The error names the file and what is wrong.
    pub fn read_file(path: &std::path::Path) -> Result<Vec<DeclaredTenant>, String> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            tenants: Vec<DeclaredTenant>,
        }
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("--tenants: {}: {error}", path.display()))?;
        let file: File = serde_json::from_str(&text)
            .map_err(|error| format!("--tenants: {}: {error}", path.display()))?;
        for (index, tenant) in file.tenants.iter().enumerate() {
            let fields = [
                ("client_id", &tenant.client_id),
                ("client_secret", &tenant.client_secret),
                ("platform_client_id", &tenant.platform_client_id),
                ("platform_client_secret", &tenant.platform_client_secret),
                ("control_token", &tenant.control_token),
            ];
            for (name, value) in fields {
                if value.trim().is_empty() {
                    return Err(format!(
                        "--tenants: {}: $.tenants[{index}].{name}: must not be empty",
                        path.display()
                    ));
                }
            }
        }
        Ok(file.tenants)
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            address: "127.0.0.1:0".parse().expect("a socket address"),
            token_lifetime: Duration::from_secs(1800),
            webhook_secret: crate::demo::DEMO_WEBHOOK_SECRET.to_owned(),
            state: None,
            public_url: None,
            control_token: None,
            webhook_allow: Vec::new(),
            limits: Limits::default(),
            seed: None,
            documents: Vec::new(),
            tenants: Vec::new(),
        }
    }
}

impl Settings {
    /// Listen on `address`.
    pub fn address(mut self, address: SocketAddr) -> Self {
        self.address = address;
        self
    }

    /// Stores `seed`'s entries on start and on every reset.
    pub fn seed(mut self, seed: crate::seed::Seed) -> Self {
        self.seed = Some(std::sync::Arc::new(seed));
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

    /// Control calls (`/__sandbox`) must carry `Authorization: Bearer
    /// <token>`. Without it the control API is open to whoever reaches the
    /// address, so a sandbox listening beyond loopback refuses to start
    /// without one ([`StartError::ControlToken`]).
    pub fn control_token(mut self, token: impl Into<String>) -> Self {
        self.control_token = Some(token.into());
        self
    }

    /// Send webhook notifications only to `host` (and the other hosts
    /// allowed so far): a session or subscription naming another host is
    /// refused, and no call leaves for it.
    pub fn webhook_allow(mut self, host: impl Into<String>) -> Self {
        self.webhook_allow.push(
            host.into()
                .trim()
                .trim_end_matches('.')
                .to_ascii_lowercase(),
        );
        self
    }

    /// Keep and serve within `limits`.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Clients reach the sandbox at `url` (see [`Settings::public_url`]).
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    /// Also serve `document` from its examples (replacing a bundled one of
    /// the same name), as a document of `openapi/` is once generated. For
    /// tests: a document of the interface is bundled by `cargo xtask
    /// generate`; leak the strings to make them `'static`.
    #[doc(hidden)]
    pub fn with_document(mut self, document: Document) -> Self {
        self.documents.push(document);
        self
    }

    /// Serve `tenant` from the start, with its credentials (replacing those
    /// a state file keeps for it; its data stay).
    pub fn tenant(mut self, tenant: DeclaredTenant) -> Self {
        self.tenants.push(tenant);
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
            .field(
                "control_token",
                &self.control_token.as_ref().map(|_| "<redacted>"),
            )
            .field("state", &self.state)
            .field("public_url", &self.public_url)
            .field("webhook_allow", &self.webhook_allow)
            .field("limits", &self.limits)
            .field("seed", &self.seed.as_ref().map(|seed| seed.path()))
            .field("tenants", &self.tenants)
            .field(
                "documents",
                &self.documents.iter().map(|d| d.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Why a sandbox did not start.
#[derive(Debug)]
#[non_exhaustive]
pub enum StartError {
    /// The seed could not be stored (`--seed`).
    Seed {
        /// Why, naming the entry.
        reason: String,
    },
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
    /// No HTTP client for webhook deliveries could be built: neither the
    /// platform's CA certificates nor the bundled roots can be used.
    Tls {
        /// Why, in words.
        reason: String,
    },
    /// The sandbox would listen beyond loopback (`--host`) with its
    /// control API open to the network: a control token is needed.
    ControlToken {
        /// The address asked for.
        address: SocketAddr,
    },
    /// The tenants cannot be served: a declared tenant's name or
    /// credentials are refused, or the state file's tenants cannot be read.
    Tenants {
        /// Why, naming the tenant.
        reason: String,
    },
    /// A document served from its examples cannot be served.
    Document {
        /// The document's name (`dispute-management`).
        name: String,
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
            StartError::Document { name, reason } => {
                write!(f, "the document {name} cannot be served: {reason}")
            }
            StartError::Tls { reason } => write!(f, "{reason}"),
            StartError::Tenants { reason } => write!(f, "{reason}"),
            StartError::Seed { reason } => write!(f, "{reason}"),
            StartError::ControlToken { address } => write!(
                f,
                "--control-token: needed when listening on {}, beyond loopback: \
                 the control API can end sessions and read buyers' data \
                 (or set PSI_SANDBOX_CONTROL_TOKEN)",
                address.ip()
            ),
        }
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StartError::Bind { source, .. } => Some(source),
            StartError::State { .. }
            | StartError::Seed { .. }
            | StartError::PublicUrl { .. }
            | StartError::Tls { .. }
            | StartError::Tenants { .. }
            | StartError::ControlToken { .. }
            | StartError::Document { .. } => None,
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
