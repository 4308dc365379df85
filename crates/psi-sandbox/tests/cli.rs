//! The `psi-sandbox` binary as an operator meets it: flags, exit codes,
//! the seed file and the request log.

use serde_json::{json, Value};
use std::process::{Command, Output, Stdio};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

const BINARY: &str = env!("CARGO_BIN_EXE_psi-sandbox");

fn run(args: &[&str]) -> Output {
    Command::new(BINARY)
        .args(args)
        .env_clear()
        .output()
        .expect("the binary runs")
}

#[test]
fn help_lists_every_flag() {
    let output = run(&["--help"]);
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for flag in [
        "--host",
        "--port",
        "--public-url",
        "--state",
        "--webhook-secret",
        "--token-lifetime",
        "--seed",
        "--log-format",
        "--help",
        "--version",
    ] {
        assert!(help.contains(flag), "--help does not mention {flag}");
    }
    let version = run(&["--version"]);
    assert_eq!(
        String::from_utf8(version.stdout).unwrap().trim(),
        format!("psi-sandbox {}", env!("CARGO_PKG_VERSION"))
    );
}

/// Exit code 2 and a message naming the flag, before anything listens.
fn assert_refused(args: &[&str], names: &str) {
    let output = run(args);
    assert_eq!(output.status.code(), Some(2), "{args:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains(names), "{args:?}: {stderr}");
}

#[test]
fn bad_flags_and_files_exit_2_naming_the_flag() {
    assert_refused(&["--port", "eighty"], "--port");
    assert_refused(&["--no-such-flag"], "--no-such-flag");
    assert_refused(&["--token-lifetime", "0"], "--token-lifetime");
    assert_refused(&["--log-format", "xml"], "--log-format");
    assert_refused(&["--webhook-secret", " "], "--webhook-secret");
    assert_refused(&["--port", "0", "--host", "0.0.0.0"], "--public-url");
    assert_refused(
        &["--port", "0", "--public-url", "https://x.example"],
        "--public-url",
    );
    assert_refused(&["--port", "0", "--seed", "/no/such/seed.json"], "--seed");

    let dir = std::env::temp_dir().join(format!("psi-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let seed = dir.join("seed.json");
    std::fs::write(&seed, r#"{"transactions": [{"order_data": {}}]}"#).unwrap();
    assert_refused(
        &["--port", "0", "--seed", seed.to_str().unwrap()],
        "$.transactions[0].transaction_id",
    );
}

/// A sandbox process; killed when dropped.
struct Running {
    child: tokio::process::Child,
    url: String,
}

impl Running {
    async fn start(args: &[&str]) -> Running {
        let mut child = tokio::process::Command::new(BINARY)
            .args(["--port", "0"])
            .args(args)
            .env_clear()
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().unwrap();
        let mut first = String::new();
        BufReader::new(stdout).read_line(&mut first).await.unwrap();
        let url = first
            .trim()
            .strip_prefix("psi sandbox listening on ")
            .unwrap_or_else(|| panic!("first line: {first:?}"))
            .to_owned();
        Running { child, url }
    }

    /// Stops the process and answers what it wrote on stderr.
    async fn stop(mut self) -> String {
        self.child.start_kill().unwrap();
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .await
            .unwrap();
        stderr
    }
}

/// The token endpoint's answer for the demo merchant and `audience`.
async fn token(http: &reqwest::Client, url: &str, audience: &str) -> Value {
    http.post(format!("{url}/oauth/token"))
        .json(&json!({
            "grant_type": "client_credentials",
            "client_id": psi_sandbox::DEMO_CLIENT_ID,
            "client_secret": psi_sandbox::DEMO_CLIENT_SECRET,
            "audience": audience,
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn seeds_and_logs_one_line_per_request_without_secrets() {
    let seed = concat!(env!("CARGO_MANIFEST_DIR"), "/seed.example.json");
    let sandbox = Running::start(&["--seed", seed, "--log-format", "json"]).await;
    let http = reqwest::Client::new();
    let url = &sandbox.url;

    // The example file's transactions and orders are there.
    let stored: Value = http
        .get(format!("{url}/__sandbox/transactions/12-00000000000000002"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(stored["payment_option"], "INSTALMENT");
    assert_eq!(
        stored["order_data"]["shop_baskets"][0]["gross_amount"],
        json!(1189.99)
    );

    // A token and a bank account with an IBAN: neither may reach the log.
    let audience = format!("{url}/shop/consumer/v1");
    let token = token(&http, url, &audience).await;
    let access_token = token["access_token"].as_str().unwrap().to_owned();
    let iban = "DE89370400440532013000";
    let stored = http
        .post(format!(
            "{url}/shop/consumer/v1/partners/partner-1/consumer/buyer-1/bank-accounts"
        ))
        .bearer_auth(&access_token)
        .json(&json!({"owner": "Erika Mustermann", "iban": iban}))
        .send()
        .await
        .unwrap();
    assert_eq!(stored.status(), 201, "{:?}", stored.text().await);
    let missing = http.get(format!("{url}/x/{iban}")).send().await.unwrap();
    assert_eq!(missing.status(), 404);

    let log = sandbox.stop().await;
    let lines: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let requests: Vec<&Value> = lines
        .iter()
        .filter(|line| line["target"] == "psi_sandbox::request")
        .collect();
    // Four seed entries, then the four calls above.
    assert_eq!(requests.len(), 4 + 4, "{log}");
    let store = requests
        .iter()
        .find(|line| line["operation_id"] == "storeBankAccount")
        .expect("the store call is logged with its operationId");
    assert_eq!(store["method"], "POST");
    assert_eq!(store["status"], 201);
    assert!(store["path"]
        .as_str()
        .unwrap()
        .ends_with("/consumer/buyer-1/bank-accounts"));
    assert!(store["duration_ms"].as_f64().unwrap() >= 0.0);
    let token_line = requests
        .iter()
        .find(|line| line["operation_id"] == "getToken")
        .expect("the token call is logged");
    assert_eq!(token_line["status"], 200);
    for secret in [
        access_token.as_str(),
        psi_sandbox::DEMO_CLIENT_SECRET,
        psi_sandbox::DEMO_WEBHOOK_SECRET,
        iban,
    ] {
        assert!(!log.contains(secret), "the log shows {secret}:\n{log}");
    }
    assert!(log.contains("/x/DE89…3000"), "{log}");
}

#[tokio::test]
async fn the_webhook_secret_and_token_lifetime_flags_take_effect() {
    let sandbox = Running::start(&[
        "--webhook-secret",
        "operator-secret",
        "--token-lifetime",
        "90s",
    ])
    .await;
    let http = reqwest::Client::new();
    let url = &sandbox.url;
    let about: Value = http
        .get(format!("{url}/__sandbox"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(about["webhook_secret"], "operator-secret");
    let token = token(&http, url, url).await;
    assert_eq!(token["expires_in"], 90);
    sandbox.stop().await;
}
