//! Status lookups per second the sandbox sustains, its memory with 100,000
//! stored transactions, and session creations per second.
//!
//! cargo bench -p psi-sandbox --bench lookups              (in memory)
//! cargo bench -p psi-sandbox --bench lookups -- --state   (with a state file)
//!
//! Needs `wrk` (apt-get install wrk). The sandbox runs in this process on a
//! random loopback port; 100,000 transactions (the provider's documented
//! basket, distinct ids) are stored; `wrk` (a separate process, 2 threads,
//! 32 connections, 10 s) then asks for the transaction status of random
//! stored ids with a valid bearer token, and afterwards creates sessions
//! (the documented request) for 10 s. With `--state` everything is kept in
//! a new SQLite file in the temporary directory: each creation is committed
//! before its answer; lookups read memory only. One mode per process, so
//! the memory figures do not mix.

use psi_sandbox::{Sandbox, Settings};

use std::process::Command;
use std::time::Duration;

const TRANSACTIONS: usize = 100_000;

/// Resident memory of this process, in MiB (Linux).
fn resident_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

/// A token for `audience`, from the sandbox's token server, as any client
/// would fetch it.
async fn token(sandbox: &Sandbox, audience: String) -> String {
    let answer: serde_json::Value = reqwest::Client::new()
        .post(format!("{}/oauth/token", sandbox.addresses().auth_url))
        .json(&serde_json::json!({
            "client_id": psi_sandbox::DEMO_CLIENT_ID,
            "client_secret": psi_sandbox::DEMO_CLIENT_SECRET,
            "audience": audience,
            "grant_type": "client_credentials",
        }))
        .send()
        .await
        .expect("the token server answers")
        .json()
        .await
        .expect("a token response");
    answer["access_token"]
        .as_str()
        .expect("an access token")
        .to_owned()
}

/// CPU time this process has used so far (user and system, all threads),
/// in seconds (Linux; clock ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    // utime and stime are fields 14 and 15 of the line (11 and 12 here).
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<f64>().ok())
        .sum();
    ticks / 100.0
}

/// Runs `wrk` with `script` for 10 s, prints its summary lines and the
/// sandbox's CPU time per answered request (this process only: `wrk` is
/// another), a figure the machine's other load disturbs less than the rate.
async fn wrk(script: std::path::PathBuf, token: &str, url: &str) {
    let authorization = format!("Authorization: Bearer {token}");
    let url = url.to_owned();
    let cpu_before = cpu_seconds();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("wrk")
            .args(["-t2", "-c32", "-d10s", "--latency", "-s"])
            .arg(&script)
            .args(["-H", &authorization, &url])
            .output()
    })
    .await
    .expect("the load generator ran");
    let cpu = cpu_seconds() - cpu_before;
    match output {
        Ok(output) => {
            let report = String::from_utf8_lossy(&output.stdout);
            let requests = report.lines().find_map(|line| {
                let (count, _) = line.trim().split_once(" requests in")?;
                count.parse::<f64>().ok()
            });
            if let Some(requests) = requests.filter(|&n| n > 0.0) {
                println!("sandbox CPU per request: {:.1} µs", cpu / requests * 1e6);
            }
            for line in report.lines().filter(|l| {
                l.contains("Requests/sec")
                    || l.contains("Latency")
                    || l.contains("99%")
                    || l.contains("requests in")
                    || l.contains("Non-2xx")
            }) {
                println!("wrk: {}", line.trim());
            }
        }
        Err(error) => {
            println!("wrk could not run ({error}); install it with `apt-get install wrk`")
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let with_state = std::env::args().any(|arg| arg == "--state");
    let state_file =
        std::env::temp_dir().join(format!("psi-sandbox-bench-{}.db", std::process::id()));
    let mut settings = Settings::default();
    if with_state {
        settings = settings.state(&state_file);
        println!("mode: --state {}", state_file.display());
    } else {
        println!("mode: in memory");
    }
    let before = resident_mib();
    let sandbox = Sandbox::start_with(settings)
        .await
        .expect("the sandbox starts");
    let started = resident_mib();
    // Distinct orders (their own references), as a merchant's would be.
    let seeding = std::time::Instant::now();
    let blob_bytes = sandbox.seed_transactions(TRANSACTIONS);
    let seeded_in = seeding.elapsed();
    let stored = resident_mib();
    println!("stored requests: {blob_bytes} bytes each on average (compact baskets and deflated rest), stored in {seeded_in:.1?}");
    println!("memory: {before:.1} MiB before the sandbox, {started:.1} MiB running, {stored:.1} MiB with {TRANSACTIONS} transactions (+{:.1} MiB)", stored - started);

    let api = sandbox.addresses().api_url;
    let token_of_lookups = token(
        &sandbox,
        format!("{api}/transaction/status/v2/transactions"),
    )
    .await;
    // One lookup answers 200 before the load starts.
    let probe = reqwest::Client::new()
        .get(format!(
            "{}/transaction/status/v2/transactions/12-{:017}",
            sandbox.url(),
            4711
        ))
        .bearer_auth(&token_of_lookups)
        .send()
        .await
        .expect("the sandbox answers");
    assert_eq!(probe.status(), 200, "a stored transaction is found");

    let lookups = std::env::temp_dir().join("psi-sandbox-lookups.lua");
    std::fs::write(
        &lookups,
        format!("request = function()\n  return wrk.format(nil, string.format(\"/transaction/status/v2/transactions/12-%017d\", math.random(0, {})))\nend\n", TRANSACTIONS - 1),
    )
    .expect("the wrk script is written");
    println!("lookups:");
    wrk(lookups, &token_of_lookups, sandbox.url()).await;
    println!("memory after the lookups: {:.1} MiB", resident_mib());

    let request = serde_json::to_string(&psi_sandbox::demo::session_request(
        "https://shop.example.com/webhook",
    ))
    .expect("a session request");
    let creations = std::env::temp_dir().join("psi-sandbox-creations.lua");
    std::fs::write(
        &creations,
        format!("wrk.method = \"POST\"\nwrk.path = \"/pps/api/v1/session\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.body = [==[{request}]==]\n"),
    )
    .expect("the wrk script is written");
    let token_of_sessions = token(&sandbox, sandbox.addresses().base_url).await;
    println!("session creations:");
    wrk(creations, &token_of_sessions, sandbox.url()).await;
    println!("memory after the creations: {:.1} MiB", resident_mib());
    drop(sandbox);
    tokio::time::sleep(Duration::from_millis(10)).await;
    if with_state {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", state_file.display()));
        }
    }
}
