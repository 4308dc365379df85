//! `psi-sandbox proxy`, `psi-sandbox drift FILE` and `psi-sandbox
//! seed-from RECORDING`: the flags onto `psi_sandbox::proxy`.

use crate::args;
use psi_sandbox::proxy::{Family, Proxy, ProxySettings, Upstreams};
use std::io::Write;
use std::net::IpAddr;
use std::process::ExitCode;

/// Serves until Ctrl-C or SIGTERM; then the summary on stderr, the report
/// to `--report`, and the exit code `--fail-on-drift` asks for.
pub async fn run(host: IpAddr, port: u16, flags: &args::Proxy) -> Result<ExitCode, String> {
    let mut upstreams = Upstreams::default();
    for (family, url) in [
        (Family::Base, &flags.upstream_base),
        (Family::Api, &flags.upstream_api),
        (Family::Auth, &flags.upstream_auth),
        (Family::Platform, &flags.upstream_platform),
        (Family::ShopConfig, &flags.upstream_shop_config),
    ] {
        if let Some(url) = url {
            upstreams = upstreams.with(family, url);
        }
    }
    if let Some(url) = &flags.upstream {
        for family in Family::ALL {
            upstreams = upstreams.or(family, url);
        }
    }
    if upstreams.is_empty() {
        return Err(
            "--upstream (or one of --upstream-base, --upstream-api, --upstream-auth, \
             --upstream-platform, --upstream-shop-config) is required: where to forward to"
                .to_owned(),
        );
    }
    let mut settings = ProxySettings::new((host, port).into(), upstreams.clone());
    settings.max_body = flags.max_body;
    settings.record = flags.record.clone();
    settings.forward_webhooks_to = flags.forward_webhooks_to.clone();
    settings.session_webhook_secret = flags.session_webhook_secret.clone();
    settings.invoice_webhook_secret = flags.invoice_webhook_secret.clone();
    let proxy = Proxy::start(settings).await?;
    // The first line names the address (scripts read it); then the upstreams.
    let mut banner = format!("psi proxy listening on {}\n", proxy.url());
    for family in Family::ALL {
        match upstreams.get(family) {
            Some(url) => banner.push_str(&format!("  {} -> {url}\n", family.server())),
            None => banner.push_str(&format!(
                "  {} -> none ({})\n",
                family.server(),
                family.flag()
            )),
        }
    }
    banner.push_str(&format!("drift report: {}/__proxy/drift\n", proxy.url()));
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(banner.as_bytes());
    let _ = stdout.flush();
    drop(stdout);
    crate::stopped().await;
    let report = proxy.report();
    drop(proxy);
    finish(&report, flags.report.as_deref(), flags.fail_on_drift)
}

/// `psi-sandbox drift FILE`.
pub fn drift_file(flags: &args::DriftFile) -> ExitCode {
    let text = match std::fs::read_to_string(&flags.file) {
        Ok(text) => text,
        Err(error) => return usage(&format!("{}: {error}", flags.file.display())),
    };
    let report = match psi_sandbox::proxy::offline::check(&text) {
        Ok(report) => report,
        Err(error) => return usage(&format!("{}: {error}", flags.file.display())),
    };
    finish(&report, flags.report.as_deref(), flags.fail_on_drift).unwrap_or_else(|e| usage(&e))
}

/// `psi-sandbox seed-from RECORDING`.
pub fn seed_from(flags: &args::SeedFrom) -> ExitCode {
    let text = match std::fs::read_to_string(&flags.recording) {
        Ok(text) => text,
        Err(error) => return usage(&format!("{}: {error}", flags.recording.display())),
    };
    let mapped = match psi_sandbox::proxy::seed_from::seed_from(&text) {
        Ok(mapped) => mapped,
        Err(error) => return usage(&format!("{}: {error}", flags.recording.display())),
    };
    for note in &mapped.notes {
        eprintln!("psi-sandbox seed-from: {note}");
    }
    let mut json = serde_json::to_string_pretty(&mapped.seed).unwrap_or_default();
    json.push('\n');
    match &flags.out {
        Some(path) => {
            if let Err(error) = std::fs::write(path, json) {
                return usage(&format!("--out: {}: {error}", path.display()));
            }
        }
        None => {
            let _ = std::io::stdout().lock().write_all(json.as_bytes());
        }
    }
    ExitCode::SUCCESS
}

fn finish(
    report: &psi_drift::Report,
    path: Option<&std::path::Path>,
    fail_on_drift: bool,
) -> Result<ExitCode, String> {
    if let Some(path) = path {
        let mut json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        json.push('\n');
        std::fs::write(path, json).map_err(|e| format!("--report: {}: {e}", path.display()))?;
    }
    eprint!("{}", report.summary());
    let found = !report.findings.is_empty() || report.dropped > 0;
    Ok(if fail_on_drift && found {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn usage(message: &str) -> ExitCode {
    eprintln!("psi-sandbox: {message}");
    ExitCode::from(crate::USAGE_ERROR)
}
