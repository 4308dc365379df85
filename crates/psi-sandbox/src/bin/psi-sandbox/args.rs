//! The command line, with clap: every flag maps onto one
//! `psi_sandbox::Settings` field or one step of start-up.

use clap::{Parser, Subcommand, ValueEnum};
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

/// A stateful local emulator of every Payment Services Interface API.
///
/// Serves the base, api, auth and platform hosts of the interface on one
/// address, with the demo credentials it prints, a hosted payment page at
/// each session's landing_page, and a test-control API under /__sandbox.
#[derive(Debug, Parser)]
#[command(
    name = "psi-sandbox",
    version,
    about,
    long_about,
    disable_help_subcommand = true
)]
pub struct Args {
    /// Without a command the sandbox serves.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The interface to listen on; 0.0.0.0 (or ::) serves other machines
    /// and containers and then needs --public-url.
    #[arg(
        long,
        default_value = "127.0.0.1",
        env = "PSI_SANDBOX_HOST",
        global = true
    )]
    pub host: IpAddr,

    /// The port to listen on; 0 picks a free one (printed on start).
    #[arg(long, default_value_t = psi_sandbox::DEFAULT_PORT, env = "PSI_SANDBOX_PORT", global = true)]
    pub port: u16,

    /// The address clients reach the sandbox at (token audiences and
    /// landing pages are built from it); default http://HOST:PORT.
    #[arg(long, value_name = "URL", env = "PSI_SANDBOX_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Keep everything in this SQLite file (created when missing), so a
    /// restart serves the same sessions, transactions and tokens; without
    /// it the state lives in memory and ends with the process.
    #[arg(long, value_name = "PATH", env = "PSI_SANDBOX_STATE")]
    pub state: Option<PathBuf>,

    /// The secret session and invoice webhooks are signed with (prefer the
    /// environment variable: a flag shows in the process list).
    #[arg(
        long,
        value_name = "SECRET",
        env = "PSI_SANDBOX_WEBHOOK_SECRET",
        hide_env_values = true,
        default_value = psi_sandbox::DEMO_WEBHOOK_SECRET,
        hide_default_value = true,
        value_parser = non_empty_secret,
    )]
    pub webhook_secret: String,

    /// The token control calls (/__sandbox) must carry as `Authorization:
    /// Bearer <token>`; required when --host is not a loopback address
    /// (prefer the environment variable: a flag shows in the process list).
    #[arg(
        long,
        value_name = "TOKEN",
        env = "PSI_SANDBOX_CONTROL_TOKEN",
        hide_env_values = true,
        value_parser = non_empty_token,
    )]
    pub control_token: Option<String>,

    /// Send webhook notifications only to this host (repeat the flag, or
    /// separate hosts with commas). The sandbox calls a session's
    /// webhook_url from where it runs, so without a list anyone who can
    /// create a session can make it call any address it reaches.
    #[arg(
        long,
        value_name = "HOST",
        env = "PSI_SANDBOX_WEBHOOK_ALLOW",
        value_delimiter = ','
    )]
    pub webhook_allow: Vec<String>,

    /// How long an access token lives: seconds (1800) or a duration (30m,
    /// 1h, 90s).
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = token_lifetime, env = "PSI_SANDBOX_TOKEN_LIFETIME")]
    pub token_lifetime: Duration,

    /// Store the transactions and storefront orders of this JSON file on
    /// start (see crates/psi-sandbox/seed.example.json); entries already
    /// in the --state file are kept.
    #[arg(long, value_name = "FILE", env = "PSI_SANDBOX_SEED")]
    pub seed: Option<PathBuf>,

    /// Tenants served from the start, with the credentials this JSON file
    /// gives (`{"tenants": [{"tenant", "client_id", "client_secret",
    /// "platform_client_id", "platform_client_secret", "control_token"}]}`):
    /// a team's CI secrets. Their data stay in the --state file.
    #[arg(long, value_name = "FILE", env = "PSI_SANDBOX_TENANTS")]
    pub tenants: Option<PathBuf>,

    /// Tenants served at once, the demo tenant included; every other cap
    /// holds for each tenant.
    #[arg(long, value_name = "N", default_value_t = psi_sandbox::Limits::default().max_tenants, value_parser = at_least_one, env = "PSI_SANDBOX_MAX_TENANTS")]
    pub max_tenants: usize,

    /// Sessions kept; beyond it the oldest finished one is forgotten (and
    /// answers 404 as unknown).
    #[arg(long, value_name = "N", default_value_t = psi_sandbox::Limits::default().max_sessions, value_parser = at_least_one, env = "PSI_SANDBOX_MAX_SESSIONS")]
    pub max_sessions: usize,

    /// Faults armed at once through the control API.
    #[arg(long, value_name = "N", default_value_t = psi_sandbox::Limits::default().max_faults, value_parser = at_least_one, env = "PSI_SANDBOX_MAX_FAULTS")]
    pub max_faults: usize,

    /// Invoice webhook subscriptions kept.
    #[arg(long, value_name = "N", default_value_t = psi_sandbox::Limits::default().max_webhook_subscriptions, value_parser = at_least_one, env = "PSI_SANDBOX_MAX_WEBHOOK_SUBSCRIPTIONS")]
    pub max_webhook_subscriptions: usize,

    /// Notifications kept in the delivery log (GET /__sandbox/webhooks);
    /// at the cap the oldest finished ones are dropped, down to half.
    #[arg(long, value_name = "N", default_value_t = psi_sandbox::Limits::default().max_deliveries, value_parser = at_least_one, env = "PSI_SANDBOX_MAX_DELIVERIES")]
    pub max_deliveries: usize,

    /// Connections served at once; more wait until one closes.
    #[arg(long, value_name = "N", default_value_t = psi_sandbox::Limits::default().max_connections, value_parser = at_least_one, env = "PSI_SANDBOX_MAX_CONNECTIONS")]
    pub max_connections: usize,

    /// How long a connection may take to send a request's head (and stay
    /// idle between requests): seconds or a duration (30s, 1m).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = timeout, env = "PSI_SANDBOX_HEADER_READ_TIMEOUT")]
    pub header_read_timeout: Duration,

    /// How the one line per request is printed (on stderr).
    #[arg(long, value_enum, default_value_t = LogFormat::Text, env = "PSI_SANDBOX_LOG_FORMAT")]
    pub log_format: LogFormat,
}

/// What the program does instead of serving.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Asks a running sandbox whether it serves: exit code 0 or 1.
    ///
    /// One GET of its /__sandbox/health: exit code 0 when it answers 200,
    /// 1 otherwise. For a container's HEALTHCHECK, where there is no shell
    /// or curl.
    Health(Health),

    /// Drift watch: forwards every request to the real service and checks
    /// what passes against the bundled documents.
    ///
    /// Serves on --host/--port and forwards each request to the upstream of
    /// its API family, passing the answer on unchanged; the token request's
    /// audience, which names this proxy, is rewritten to the upstream's.
    /// GET /__proxy/drift answers the findings so far; on Ctrl-C or SIGTERM
    /// the summary goes to stderr (and the report to --report).
    Proxy(Box<Proxy>),

    /// Checks a recording (--record) or a HAR file again, offline.
    Drift(DriftFile),

    /// Turns the transaction status answers of a recording into a --seed file.
    SeedFrom(SeedFrom),
}

/// `psi-sandbox proxy`.
#[derive(Debug, clap::Args)]
pub struct Proxy {
    /// The real service for every API family not given its own flag.
    #[arg(long, value_name = "URL", env = "PSI_PROXY_UPSTREAM", value_parser = http_url)]
    pub upstream: Option<String>,

    /// The hosted payment page's host ({base_url}).
    #[arg(long, value_name = "URL", env = "PSI_PROXY_UPSTREAM_BASE", value_parser = http_url)]
    pub upstream_base: Option<String>,

    /// The APIs' host ({api_url}: pay later, bank accounts, order and transaction status).
    #[arg(long, value_name = "URL", env = "PSI_PROXY_UPSTREAM_API", value_parser = http_url)]
    pub upstream_api: Option<String>,

    /// The token server's host ({auth_url}).
    #[arg(long, value_name = "URL", env = "PSI_PROXY_UPSTREAM_AUTH", value_parser = http_url)]
    pub upstream_auth: Option<String>,

    /// The storefront platform's host ({platform_url}).
    #[arg(long, value_name = "URL", env = "PSI_PROXY_UPSTREAM_PLATFORM", value_parser = http_url)]
    pub upstream_platform: Option<String>,

    /// The shop configuration API's host ({shop_config_url}).
    #[arg(long, value_name = "URL", env = "PSI_PROXY_UPSTREAM_SHOP_CONFIG", value_parser = http_url)]
    pub upstream_shop_config: Option<String>,

    /// Bodies larger than this many bytes are passed on unchecked (a
    /// too_large finding).
    #[arg(long, value_name = "BYTES", default_value_t = psi_sandbox::proxy::DEFAULT_MAX_BODY, value_parser = at_least_one, env = "PSI_PROXY_MAX_BODY")]
    pub max_body: usize,

    /// Write the report (JSON, as GET /__proxy/drift answers it) to this
    /// file on stopping.
    #[arg(long, value_name = "FILE", env = "PSI_PROXY_REPORT")]
    pub report: Option<PathBuf>,

    /// Exit with status 1 on stopping when anything was found.
    #[arg(long)]
    pub fail_on_drift: bool,

    /// Append every exchange to this file, one redacted JSON line each.
    #[arg(long, value_name = "FILE", env = "PSI_PROXY_RECORD")]
    pub record: Option<PathBuf>,

    /// Forward the notifications posted to /__proxy/notifications/sessions
    /// and /__proxy/notifications/invoices to URL/sessions and URL/invoices.
    #[arg(long, value_name = "URL", env = "PSI_PROXY_FORWARD_WEBHOOKS_TO", value_parser = http_url)]
    pub forward_webhooks_to: Option<String>,

    /// The secret session notifications are signed with; without it they
    /// are not verified (prefer the environment variable).
    #[arg(long, value_name = "SECRET", env = "PSI_PROXY_SESSION_WEBHOOK_SECRET", hide_env_values = true, value_parser = non_empty_secret)]
    pub session_webhook_secret: Option<String>,

    /// The secret invoice notifications are signed with; without it they
    /// are not verified (prefer the environment variable).
    #[arg(long, value_name = "SECRET", env = "PSI_PROXY_INVOICE_WEBHOOK_SECRET", hide_env_values = true, value_parser = non_empty_secret)]
    pub invoice_webhook_secret: Option<String>,
}

/// `psi-sandbox drift FILE`.
#[derive(Debug, clap::Args)]
pub struct DriftFile {
    /// A recording of `psi-sandbox proxy --record`, or a HAR 1.2 file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Write the report (JSON) to this file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Exit with status 1 when anything was found.
    #[arg(long)]
    pub fail_on_drift: bool,
}

/// `psi-sandbox seed-from RECORDING`.
#[derive(Debug, clap::Args)]
pub struct SeedFrom {
    /// A recording of `psi-sandbox proxy --record`.
    #[arg(value_name = "RECORDING")]
    pub recording: PathBuf,

    /// Write the seed here instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// An http:// or https:// address.
fn http_url(text: &str) -> Result<String, String> {
    let url =
        url::Url::parse(text).map_err(|e| format!("{e}: give an http:// or https:// address"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err("give an http:// or https:// address".to_owned());
    }
    Ok(text.trim_end_matches('/').to_owned())
}

/// `psi-sandbox health`.
#[derive(Debug, clap::Args)]
pub struct Health {
    /// The sandbox to ask (an http:// address); default: the --host and
    /// --port it serves on (PSI_SANDBOX_HOST, PSI_SANDBOX_PORT), through
    /// loopback when the host is 0.0.0.0 or ::.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// How long the answer may take: seconds or a duration (5s, 500ms).
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = health_timeout)]
    pub timeout: Duration,
}

impl Health {
    /// `--url`, or the address of `host` and `port` from a client's side.
    pub fn url(&self, host: IpAddr, port: u16) -> String {
        if let Some(url) = &self.url {
            return url.clone();
        }
        let host = match host {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        format!("http://{}", std::net::SocketAddr::new(host, port))
    }
}

/// `--log-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One human-readable line per request.
    Text,
    /// One JSON object per line.
    Json,
}

/// Seconds, or a humantime duration; at least one second (a token that
/// expires as it is issued is no token).
fn token_lifetime(text: &str) -> Result<Duration, String> {
    let lifetime = match text.parse::<u64>() {
        Ok(seconds) => Duration::from_secs(seconds),
        Err(_) => humantime::parse_duration(text)
            .map_err(|e| format!("{e}: give seconds (1800) or a duration (30m, 1h)"))?,
    };
    if lifetime < Duration::from_secs(1) {
        return Err("must be at least one second".to_owned());
    }
    if lifetime.subsec_nanos() != 0 {
        return Err("must be whole seconds (expires_in is a number of seconds)".to_owned());
    }
    Ok(lifetime)
}

/// Seconds, or a humantime duration; at least one second.
fn timeout(text: &str) -> Result<Duration, String> {
    let timeout = match text.parse::<u64>() {
        Ok(seconds) => Duration::from_secs(seconds),
        Err(_) => humantime::parse_duration(text)
            .map_err(|e| format!("{e}: give seconds (30) or a duration (30s, 1m)"))?,
    };
    if timeout < Duration::from_secs(1) {
        return Err("must be at least one second".to_owned());
    }
    Ok(timeout)
}

/// Seconds, or a humantime duration; more than nothing.
fn health_timeout(text: &str) -> Result<Duration, String> {
    let timeout = match text.parse::<u64>() {
        Ok(seconds) => Duration::from_secs(seconds),
        Err(_) => humantime::parse_duration(text)
            .map_err(|e| format!("{e}: give seconds (5) or a duration (5s, 500ms)"))?,
    };
    if timeout.is_zero() {
        return Err("must be more than nothing".to_owned());
    }
    Ok(timeout)
}

fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(count) => Ok(count),
        Err(error) => Err(format!("{error}: give a whole number")),
    }
}

fn non_empty_secret(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("must not be empty (webhooks signed with nothing prove nothing)".to_owned());
    }
    Ok(text.to_owned())
}

fn non_empty_token(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("must not be empty (an empty token guards nothing)".to_owned());
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_lifetimes_in_seconds_or_words() {
        assert_eq!(token_lifetime("1800"), Ok(Duration::from_secs(1800)));
        assert_eq!(token_lifetime("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(token_lifetime("1h 30m"), Ok(Duration::from_secs(5400)));
        assert!(token_lifetime("0").is_err());
        assert!(token_lifetime("1500ms").is_err());
        assert!(token_lifetime("soon").is_err());
    }

    #[test]
    fn health_asks_where_the_sandbox_serves_through_loopback_for_every_interface() {
        let health = |args: &[&str]| {
            let args = Args::try_parse_from(args).unwrap();
            match &args.command {
                Some(Command::Health(health)) => health.url(args.host, args.port),
                _ => panic!("not the health command"),
            }
        };
        assert_eq!(
            health(&["psi-sandbox", "health"]),
            format!("http://127.0.0.1:{}", psi_sandbox::DEFAULT_PORT)
        );
        assert_eq!(
            health(&[
                "psi-sandbox",
                "--host",
                "0.0.0.0",
                "--port",
                "9000",
                "health"
            ]),
            "http://127.0.0.1:9000"
        );
        assert_eq!(
            health(&["psi-sandbox", "health", "--host", "::", "--port", "9000"]),
            "http://[::1]:9000"
        );
        assert_eq!(
            health(&["psi-sandbox", "health", "--host", "10.0.0.5"]),
            format!("http://10.0.0.5:{}", psi_sandbox::DEFAULT_PORT)
        );
        assert_eq!(
            health(&["psi-sandbox", "health", "--url", "http://sandbox:1"]),
            "http://sandbox:1"
        );
        assert!(Args::try_parse_from(["psi-sandbox", "health", "--timeout", "0"]).is_err());
    }

    #[test]
    fn the_flags_are_consistent() {
        use clap::CommandFactory;
        Args::command().debug_assert();
    }
}
