//! Status lookups per second the sandbox sustains, and its memory with
//! 100,000 stored transactions.
//!
//! cargo bench -p psi-sandbox --bench lookups        (needs `wrk`: apt-get install wrk)
//!
//! The sandbox runs in this process on a random loopback port; 100,000
//! transactions (the provider's documented basket, distinct ids) are stored; `wrk`
//! (a separate process, 2 threads, 32 connections, 10 s) then asks for the
//! transaction status of random stored ids with a valid bearer token.

use psi_sandbox::Sandbox;

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

/// A token for the transaction status API, from the sandbox's token
/// server, as any client would fetch it.
async fn transaction_status_token(sandbox: &Sandbox) -> String {
    let answer: serde_json::Value = reqwest::Client::new()
        .post(format!("{}/oauth/token", sandbox.addresses().auth_url))
        .json(&serde_json::json!({
            "client_id": psi_sandbox::DEMO_CLIENT_ID,
            "client_secret": psi_sandbox::DEMO_CLIENT_SECRET,
            "audience": format!("{}/transaction/status/v2/transactions", sandbox.addresses().api_url),
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

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let before = resident_mib();
    let sandbox = Sandbox::start().await.expect("the sandbox starts");
    let started = resident_mib();
    // Distinct orders (their own references), as a merchant's would be.
    let blob_bytes = sandbox.seed_transactions(TRANSACTIONS);
    let stored = resident_mib();
    println!("stored requests: {blob_bytes} bytes each on average (deflated JSON)");
    println!("memory: {before:.1} MiB before the sandbox, {started:.1} MiB running, {stored:.1} MiB with {TRANSACTIONS} transactions (+{:.1} MiB)", stored - started);

    let token = transaction_status_token(&sandbox).await;
    // One lookup answers 200 before the load starts.
    let probe = reqwest::Client::new()
        .get(format!(
            "{}/transaction/status/v2/transactions/12-{:017}",
            sandbox.url(),
            4711
        ))
        .bearer_auth(&token)
        .send()
        .await
        .expect("the sandbox answers");
    assert_eq!(probe.status(), 200, "a stored transaction is found");

    let script = std::env::temp_dir().join("psi-sandbox-lookups.lua");
    std::fs::write(
        &script,
        format!("request = function()\n  return wrk.format(nil, string.format(\"/transaction/status/v2/transactions/12-%017d\", math.random(0, {})))\nend\n", TRANSACTIONS - 1),
    )
    .expect("the wrk script is written");
    let url = sandbox.url().to_owned();
    let authorization = format!("Authorization: Bearer {token}");
    let output = tokio::task::spawn_blocking(move || {
        Command::new("wrk")
            .args(["-t2", "-c32", "-d10s", "--latency", "-s"])
            .arg(&script)
            .args(["-H", &authorization, &url])
            .output()
    })
    .await
    .expect("the load generator ran");
    match output {
        Ok(output) => {
            let report = String::from_utf8_lossy(&output.stdout);
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
    println!("memory after the load: {:.1} MiB", resident_mib());
    tokio::time::sleep(Duration::from_millis(10)).await;
}
