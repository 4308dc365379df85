//! `psi-sandbox`: the sandbox as a program (`psi-sandbox --help`).
//!
//! Exit codes: 0 after Ctrl-C or SIGTERM; 2 for a bad flag, an address
//! that cannot be listened on, an unusable `--state` file or `--seed` file
//! (the message names the flag). `psi-sandbox health`: 0 when the sandbox
//! answers its health check, 1 when it does not. `psi-sandbox proxy` (after
//! Ctrl-C or SIGTERM) and `psi-sandbox drift FILE`: 0, or 1 with
//! `--fail-on-drift` when anything was found; 2 for a bad flag or file.

mod args;
mod health_check;
mod logging;
mod proxy;

use clap::Parser;
use psi_sandbox::{Sandbox, Settings};
use std::io::Write;
use std::process::ExitCode;

/// A bad flag or file: the same code clap uses for a bad flag.
pub(crate) const USAGE_ERROR: u8 = 2;

#[tokio::main]
async fn main() -> ExitCode {
    let args = args::Args::parse();
    if let Some(args::Command::Health(health)) = &args.command {
        let url = health.url(args.host, args.port);
        return match health_check::check(&url, health.timeout) {
            Ok(()) => {
                println!("{url}: ok");
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("psi-sandbox health: {message}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(args::Command::Drift(drift)) = &args.command {
        return proxy::drift_file(drift);
    }
    if let Some(args::Command::SeedFrom(seed_from)) = &args.command {
        return proxy::seed_from(seed_from);
    }
    // Held to the end of `main`: dropping it writes the last lines.
    let _log_lines = logging::install(args.log_format);
    if let Some(args::Command::Proxy(flags)) = &args.command {
        return match proxy::run(args.host, args.port, flags).await {
            Ok(code) => code,
            Err(message) => {
                eprintln!("psi-sandbox proxy: {message}");
                ExitCode::from(USAGE_ERROR)
            }
        };
    }
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("psi-sandbox: {message}");
            ExitCode::from(USAGE_ERROR)
        }
    }
}

async fn run(args: args::Args) -> Result<(), String> {
    // Read the seed before listening: a bad file fails before anything starts.
    let seed = match &args.seed {
        Some(path) => Some(psi_sandbox::seed::Seed::read(path).map_err(|e| e.to_string())?),
        None => None,
    };
    let mut settings = Settings::default()
        .address((args.host, args.port).into())
        .token_lifetime(args.token_lifetime)
        .webhook_secret(args.webhook_secret);
    if let Some(url) = args.public_url {
        settings = settings.public_url(url);
    }
    if let Some(path) = args.state {
        settings = settings.state(path);
    }
    let mut limits = psi_sandbox::Limits::default();
    limits.max_sessions = args.max_sessions;
    limits.max_faults = args.max_faults;
    limits.max_tenants = args.max_tenants;
    limits.max_webhook_subscriptions = args.max_webhook_subscriptions;
    limits.max_deliveries = args.max_deliveries;
    limits.max_connections = args.max_connections;
    limits.header_read_timeout = args.header_read_timeout;
    settings = settings.limits(limits);
    if let Some(path) = &args.tenants {
        for tenant in psi_sandbox::DeclaredTenant::read_file(path)? {
            settings = settings.tenant(tenant);
        }
    }
    if let Some(seed) = seed {
        settings = settings.seed(seed);
    }
    for host in args.webhook_allow {
        settings = settings.webhook_allow(host);
    }
    let control_token = args.control_token;
    if let Some(token) = &control_token {
        settings = settings.control_token(token.clone());
    }
    let sandbox = Sandbox::start_with(settings)
        .await
        .map_err(|e| e.to_string())?;
    print_banner(&sandbox);
    stopped().await;
    drop(sandbox);
    Ok(())
}

/// The first line names the address (scripts read it); then what points a
/// client here. The webhook secret is not printed: it is the demo one
/// unless the operator chose their own, which they know. A closed stdout
/// (a script that read the first line and went) is no reason to stop.
fn print_banner(sandbox: &Sandbox) {
    let url = sandbox.url();
    let banner = format!(
        "psi sandbox listening on {url}\n\n{exports}\n\
         export PSI_CLIENT_ID={client_id} PSI_CLIENT_SECRET={client_secret}\n\
         export PSI_PLATFORM_CLIENT_ID={platform_id} PSI_PLATFORM_CLIENT_SECRET={platform_secret}\n\
         test-control API: {url}{control}\n",
        // The shop configuration API has no address in the specification:
        // the sandbox serves it under {url}/shop-config with that audience.
        exports = sandbox.addresses().exports(),
        client_id = psi_sandbox::DEMO_CLIENT_ID,
        client_secret = psi_sandbox::DEMO_CLIENT_SECRET,
        platform_id = psi_sandbox::DEMO_PLATFORM_CLIENT_ID,
        platform_secret = psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET,
        control = psi_sandbox::control::PREFIX,
    );
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(banner.as_bytes());
    let _ = stdout.flush();
}

/// Ctrl-C, or SIGTERM (what `docker stop` and systemd send).
pub(crate) async fn stopped() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .expect("a SIGTERM handler");
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
