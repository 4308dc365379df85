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
        "--control-token",
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
    // Beyond loopback the control API needs a token.
    assert_refused(
        &[
            "--port",
            "0",
            "--host",
            "0.0.0.0",
            "--public-url",
            "http://sandbox.internal:1",
        ],
        "--control-token",
    );
    assert_refused(&["--control-token", " "], "--control-token");
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

/// A loopback port no one listens on (free when asked; the sandbox binds
/// it right after).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A sandbox process; killed when dropped.
struct Running {
    child: tokio::process::Child,
    url: String,
}

impl Running {
    async fn start(args: &[&str]) -> Running {
        Self::start_with_env(args, &[]).await
    }

    /// Starts with only `env` in its environment.
    async fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Running {
        let port: &[&str] = if args.contains(&"--port") {
            &[]
        } else {
            &["--port", "0"]
        };
        let mut child = tokio::process::Command::new(BINARY)
            .args(port)
            .args(args)
            .env_clear()
            .envs(env.iter().copied())
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

    /// Stops the process as a supervisor does (SIGTERM: it finishes and
    /// writes its last log lines) and answers what it wrote on stderr.
    async fn stop(mut self) -> String {
        let pid = self.child.id().expect("the sandbox runs").to_string();
        let terminated = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill runs");
        assert!(terminated.success(), "SIGTERM reaches the sandbox");
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
    // The operator's secret is theirs: no endpoint answers it.
    assert_eq!(about["webhook_secret"], Value::Null, "{about}");
    let token = token(&http, url, url).await;
    assert_eq!(token["expires_in"], 90);

    // A session's notification is signed with it (the receiver at port 9
    // refuses; the attempt and its signature are logged all the same).
    let request = psi_sandbox::demo::session_request("http://127.0.0.1:9/webhook");
    let created: Value = http
        .post(format!("{url}/pps/api/v1/session"))
        .bearer_auth(token["access_token"].as_str().unwrap())
        .json(&request)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let session = created["session_id"]
        .as_str()
        .expect("a session")
        .to_owned();
    let completed = http
        .post(format!("{url}/__sandbox/sessions/{session}/complete"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(completed.status(), 200);
    let mut attempt = Value::Null;
    for _ in 0..100 {
        let log: Value = http
            .get(format!("{url}/__sandbox/webhooks"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if let Some(delivery) = log.as_array().and_then(|log| log.first()) {
            if delivery["attempts"][0].is_object() {
                attempt = delivery["attempts"][0].clone();
                attempt["body"] = delivery["body"].clone();
                break;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let at = chrono::DateTime::parse_from_rfc3339(attempt["at"].as_str().expect("an attempt"))
        .unwrap()
        .timestamp();
    let body = attempt["body"].as_str().expect("the body");
    assert_eq!(
        attempt["signature"],
        psi_sandbox::signature::sign(b"operator-secret", at, body.as_bytes())
    );
    sandbox.stop().await;
}

#[tokio::test]
async fn beyond_loopback_every_control_call_needs_the_control_token() {
    let port = free_port().to_string();
    let public_url = format!("http://127.0.0.1:{port}");
    let seed = concat!(env!("CARGO_MANIFEST_DIR"), "/seed.example.json");
    let sandbox = Running::start_with_env(
        &[
            "--host",
            "0.0.0.0",
            "--port",
            &port,
            "--public-url",
            &public_url,
            "--seed",
            seed,
        ],
        &[("PSI_SANDBOX_CONTROL_TOKEN", "team-token")],
    )
    .await;
    let http = reqwest::Client::new();
    let about = format!("{}/__sandbox", sandbox.url);
    let without = http.get(&about).send().await.unwrap();
    assert_eq!(without.status(), 401);
    let body: Value = without.json().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("--control-token")),
        "{body}"
    );
    let wrong = http.get(&about).bearer_auth("guess").send().await.unwrap();
    assert_eq!(wrong.status(), 401);
    let with = http
        .get(&about)
        .bearer_auth("team-token")
        .send()
        .await
        .unwrap();
    assert_eq!(with.status(), 200);
    // --seed went through the control API with the token.
    let seeded = http
        .get(format!("{about}/transactions/12-00000000000000001"))
        .bearer_auth("team-token")
        .send()
        .await
        .unwrap();
    assert_eq!(seeded.status(), 200);
    // The APIs themselves need no control token.
    assert!(token(&http, &sandbox.url, &sandbox.url).await["access_token"].is_string());
    let stderr = sandbox.stop().await;
    assert!(
        !stderr.contains("team-token"),
        "the token is not logged: {stderr}"
    );
}

#[tokio::test]
async fn without_ca_certificates_the_bundled_roots_are_used_and_logged() {
    let sandbox = Running::start_with_env(
        &[],
        &[
            ("SSL_CERT_FILE", "/nonexistent/ca.pem"),
            ("SSL_CERT_DIR", "/nonexistent"),
        ],
    )
    .await;
    let about: Value = reqwest::Client::new()
        .get(format!("{}/__sandbox", sandbox.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(about["now"].is_string(), "{about}");
    let stderr = sandbox.stop().await;
    assert!(stderr.contains("bundled webpki roots"), "{stderr}");
}

#[tokio::test]
async fn the_health_check_needs_no_control_token_and_the_health_command_asks_it() {
    let port = free_port().to_string();
    // As the container image runs it: every interface, a control token.
    let env = [
        ("PSI_SANDBOX_HOST", "0.0.0.0"),
        ("PSI_SANDBOX_PORT", port.as_str()),
        ("PSI_SANDBOX_CONTROL_TOKEN", "team-token"),
    ];
    let public_url = format!("http://127.0.0.1:{port}");
    // (`--port` too: without it the helper asks for a free one.)
    let sandbox =
        Running::start_with_env(&["--port", &port, "--public-url", &public_url], &env).await;
    let http = reqwest::Client::new();

    // A probe by another name and without the token is answered ...
    let health = http
        .get(format!("{}/__sandbox/health", sandbox.url))
        .header("Host", format!("probe.internal:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(
        health.json::<Value>().await.unwrap(),
        json!({"status": "ok"})
    );
    // ... while the control API beside it still asks for the token.
    let about = http
        .get(format!("{}/__sandbox", sandbox.url))
        .send()
        .await
        .unwrap();
    assert_eq!(about.status(), 401);

    // `psi-sandbox health` finds the sandbox from the same variables.
    let health = |args: &[&str]| {
        Command::new(BINARY)
            .arg("health")
            .args(args)
            .env_clear()
            .envs(env)
            .output()
            .expect("the binary runs")
    };
    let up = health(&[]);
    assert_eq!(up.status.code(), Some(0), "{up:?}");
    assert_eq!(
        String::from_utf8(up.stdout).unwrap().trim(),
        format!("http://127.0.0.1:{port}: ok")
    );
    let by_url = health(&["--url", &public_url]);
    assert_eq!(by_url.status.code(), Some(0), "{by_url:?}");
    sandbox.stop().await;

    let down = health(&["--timeout", "2s"]);
    assert_eq!(down.status.code(), Some(1), "{down:?}");
    let stderr = String::from_utf8(down.stderr).unwrap();
    assert!(
        stderr.contains(&format!("{public_url}/__sandbox/health")),
        "{stderr}"
    );
    let https = health(&["--url", "https://127.0.0.1:1"]);
    assert_eq!(https.status.code(), Some(1), "{https:?}");
    assert!(String::from_utf8(https.stderr).unwrap().contains("http://"));
}
