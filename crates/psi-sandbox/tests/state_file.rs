//! The sandbox binary with `--state`: what it acknowledged survives a
//! SIGKILL in the middle of a load, and an unusable state file stops it
//! with exit code 2 and a message naming `--state`.

use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

const BINARY: &str = env!("CARGO_BIN_EXE_psi-sandbox");
/// Concurrent clients of the load.
const TASKS: usize = 4;
/// The load is killed once this many sessions were completed (counted, not
/// timed), while the tasks are still sending.
const COMPLETED_BEFORE_KILL: usize = 40;
/// Nothing listens here: notifications fail and are retried, so background
/// writes run during the load too.
const UNREACHABLE: &str = "http://127.0.0.1:9";

fn temporary_directory(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!(
        "psi-sandbox-it-{name}-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4()
    ));
    std::fs::create_dir_all(&directory).expect("a temporary directory");
    directory
}

/// A running sandbox process.
struct Process {
    child: Child,
    url: String,
    port: u16,
    /// Kept open: the sandbox may still print.
    _stdout: BufReader<std::process::ChildStdout>,
}

/// Starts the binary on `port` (0: any) with `--state state`; answers the
/// process once it printed its address. Its request log (a line per call on
/// stderr) goes to `log`: a pipe nobody reads would fill and stall it.
fn start(port: u16, state: &Path, log: &Path) -> Process {
    start_with(port, state, log, &[])
}

/// [`start`] with `extra` arguments.
fn start_with(port: u16, state: &Path, log: &Path, extra: &[&str]) -> Process {
    let log_file = std::fs::File::create(log).expect("a log file");
    let mut child = Command::new(BINARY)
        .args(["--port", &port.to_string(), "--state"])
        .arg(state)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(log_file)
        .spawn()
        .expect("the sandbox binary runs");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("a first line");
    let Some(url) = line
        .trim()
        .strip_prefix("psi sandbox listening on ")
        .map(str::to_owned)
    else {
        let _ = child.wait();
        panic!(
            "the sandbox did not start: {line:?} {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
    };
    let port = url
        .rsplit(':')
        .next()
        .and_then(|port| port.parse().ok())
        .expect("a port");
    Process {
        child,
        url,
        port,
        _stdout: stdout,
    }
}

/// What the sandbox acknowledged (answered 2xx) during the load.
#[derive(Default)]
struct Acknowledged {
    sessions: Vec<String>,
    /// (session, transaction)
    completed: Vec<(String, String)>,
    booked: Vec<String>,
    /// (buyer, bank account reference)
    accounts: Vec<(String, String)>,
    shops: Vec<String>,
    orders: Vec<String>,
    clock_seconds: i64,
}

#[derive(Clone)]
struct Tokens {
    payment_page: String,
    pay_later: String,
    bank_accounts: String,
    shop_config: String,
    platform: String,
}

async fn token(http: &reqwest::Client, url: &str, audience: &str) -> String {
    let answer: Value = http
        .post(format!("{url}/oauth/token"))
        .json(&json!({"client_id": psi_sandbox::DEMO_CLIENT_ID, "client_secret": psi_sandbox::DEMO_CLIENT_SECRET, "audience": audience, "grant_type": "client_credentials"}))
        .send()
        .await
        .expect("the token server answers")
        .json()
        .await
        .expect("a token");
    answer["access_token"].as_str().expect("a token").to_owned()
}

async fn tokens(http: &reqwest::Client, url: &str) -> Tokens {
    let platform: Value = http
        .post(format!("{url}/api/oauth/token"))
        .json(&json!({"client_id": psi_sandbox::DEMO_PLATFORM_CLIENT_ID, "client_secret": psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET, "grant_type": "client_credentials", "scope": "write"}))
        .send()
        .await
        .expect("the platform token endpoint answers")
        .json()
        .await
        .expect("a token");
    Tokens {
        payment_page: token(http, url, url).await,
        pay_later: token(http, url, &format!("{url}/paylater")).await,
        bank_accounts: token(http, url, &format!("{url}/shop/consumer/v1")).await,
        shop_config: token(http, url, &format!("{url}/shop-config")).await,
        platform: platform["access_token"]
            .as_str()
            .expect("a token")
            .to_owned(),
    }
}

/// One JSON call; `None` when the sandbox did not answer (killed).
async fn send(
    http: &reqwest::Client,
    method: reqwest::Method,
    address: String,
    token: Option<&str>,
    body: Option<Value>,
) -> Option<(StatusCode, Value)> {
    let mut request = http.request(method, address);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json;charset=UTF-8")
            .body(body.to_string());
    }
    let response = request.send().await.ok()?;
    let status = response.status();
    let bytes = response.bytes().await.ok()?;
    Some((
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    ))
}

/// One client of the load: session, completion, booking, bank account,
/// shop configuration, storefront order and a clock second per round,
/// recording each acknowledged write, until the sandbox stops answering.
async fn client(task: usize, url: String, tokens: Tokens, acknowledged: Arc<Mutex<Acknowledged>>) {
    use reqwest::Method;
    let http = reqwest::Client::new();
    let request = serde_json::to_value(psi_sandbox::demo::session_request(&format!(
        "{UNREACHABLE}/hook"
    )))
    .expect("a session request");
    let configuration =
        serde_json::to_value(psi_sandbox::demo::shop_configuration()).expect("a configuration");
    let record = |change: &dyn Fn(&mut Acknowledged)| {
        change(&mut acknowledged.lock().expect("the records"));
    };
    for round in 0.. {
        let Some((status, created)) = send(
            &http,
            Method::POST,
            format!("{url}/pps/api/v1/session"),
            Some(&tokens.payment_page),
            Some(request.clone()),
        )
        .await
        else {
            return;
        };
        assert_eq!(status, StatusCode::CREATED, "{created}");
        let session = created["session_id"].as_str().expect("an id").to_owned();
        record(&|a| a.sessions.push(session.clone()));

        let Some((status, completed)) = send(
            &http,
            Method::POST,
            format!("{url}/__sandbox/sessions/{session}/complete"),
            None,
            // A control write says application/json, even with nothing to say.
            Some(json!({})),
        )
        .await
        else {
            return;
        };
        assert_eq!(status, StatusCode::OK, "{completed}");
        let transaction = completed["transaction_id"]
            .as_str()
            .expect("an id")
            .to_owned();
        record(&|a| a.completed.push((session.clone(), transaction.clone())));

        let Some((status, booked)) = send(
            &http,
            Method::POST,
            format!("{url}/order/paylater/v1/{transaction}"),
            Some(&tokens.pay_later),
            Some(json!({"offer_id": "payl-1"})),
        )
        .await
        else {
            return;
        };
        assert_eq!(status, StatusCode::OK, "{booked}");
        record(&|a| a.booked.push(transaction.clone()));

        let buyer = format!("b-{task}-{round}");
        let account = json!({"owner": "Erika Mustermann", "iban": "DE89370400440532013000"});
        let Some((status, stored)) = send(
            &http,
            Method::POST,
            format!("{url}/shop/consumer/v1/partners/p-1/consumer/{buyer}/bank-accounts"),
            Some(&tokens.bank_accounts),
            Some(account),
        )
        .await
        else {
            return;
        };
        assert_eq!(status, StatusCode::CREATED, "{stored}");
        let reference = stored["bank_account_reference"]
            .as_str()
            .expect("a reference")
            .to_owned();
        record(&|a| a.accounts.push((buyer.clone(), reference.clone())));

        let shop = format!("shop-{task}-{round}");
        let Some((status, put)) = send(
            &http,
            Method::PUT,
            format!("{url}/shop-config/v2/partners/p-1/shops/{shop}"),
            Some(&tokens.shop_config),
            Some(configuration.clone()),
        )
        .await
        else {
            return;
        };
        assert_eq!(status, StatusCode::OK, "{put}");
        record(&|a| a.shops.push(shop.clone()));

        let Some((status, seeded)) = send(
            &http,
            Method::POST,
            format!("{url}/__sandbox/storefront/orders"),
            None,
            Some(json!({"transaction_id": transaction})),
        )
        .await
        else {
            return;
        };
        assert!(status.is_success(), "{seeded}");
        let order = seeded["order_id"].as_str().expect("an order").to_owned();
        record(&|a| a.orders.push(order.clone()));

        let Some((status, advanced)) = send(
            &http,
            Method::POST,
            format!("{url}/__sandbox/clock/advance"),
            None,
            Some(json!({"seconds": 1})),
        )
        .await
        else {
            return;
        };
        assert_eq!(status, StatusCode::OK, "{advanced}");
        record(&|a| a.clock_seconds += 1);
    }
}

/// The sandbox's clock ahead of real time, in seconds.
async fn clock_offset(http: &reqwest::Client, url: &str) -> i64 {
    let about: Value = http
        .get(format!("{url}/__sandbox"))
        .send()
        .await
        .expect("the control API answers")
        .json()
        .await
        .expect("JSON");
    let now: chrono::DateTime<chrono::FixedOffset> =
        serde_json::from_value(about["now"].clone()).expect("a time");
    (now.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_seconds()
}

async fn get(http: &reqwest::Client, address: String, token: Option<&str>) -> (StatusCode, Value) {
    send(http, reqwest::Method::GET, address, token, None)
        .await
        .expect("the restarted sandbox answers")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_a_sigkill_during_a_load() {
    let directory = temporary_directory("kill");
    let state = directory.join("state.db");
    let mut first = start(0, &state, &directory.join("first.log"));
    let http = reqwest::Client::new();
    let tokens = tokens(&http, &first.url).await;

    let acknowledged = Arc::new(Mutex::new(Acknowledged::default()));
    let load: Vec<_> = (0..TASKS)
        .map(|task| {
            tokio::spawn(client(
                task,
                first.url.clone(),
                tokens.clone(),
                acknowledged.clone(),
            ))
        })
        .collect();
    let mut polls = 0;
    while acknowledged.lock().expect("records").completed.len() < COMPLETED_BEFORE_KILL {
        polls += 1;
        assert!(polls < 6000, "the load makes no progress");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    // SIGKILL, with the clients still sending.
    first.child.kill().expect("the sandbox is killed");
    first.child.wait().expect("the sandbox ended");
    for task in load {
        task.await.expect("a client ends without failing");
    }
    let acknowledged = Arc::try_unwrap(acknowledged)
        .ok()
        .expect("the clients ended")
        .into_inner()
        .expect("the records");
    assert!(acknowledged.completed.len() >= COMPLETED_BEFORE_KILL);
    eprintln!(
        "acknowledged before the kill: {} sessions, {} transactions, {} bookings, {} accounts, {} configurations, {} orders, {} clock seconds",
        acknowledged.sessions.len(),
        acknowledged.completed.len(),
        acknowledged.booked.len(),
        acknowledged.accounts.len(),
        acknowledged.shops.len(),
        acknowledged.orders.len(),
        acknowledged.clock_seconds
    );

    // The same port: the tokens' audiences name the address.
    let second = start(first.port, &state, &directory.join("second.log"));
    assert_eq!(second.url, first.url);
    let url = &second.url;

    for session in &acknowledged.sessions {
        let (status, record) = get(
            &http,
            format!("{url}/pps/api/v1/session-record/{session}"),
            Some(&tokens.payment_page),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "session {session}: {record}");
    }
    for (session, transaction) in &acknowledged.completed {
        let (status, record) = get(
            &http,
            format!("{url}/pps/api/v1/session-record/{session}"),
            Some(&tokens.payment_page),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{record}");
        assert_eq!(record["session_status"], "COMPLETED");
        assert_eq!(record["transaction_id"], transaction.as_str());
        let (status, stored) = get(
            &http,
            format!("{url}/__sandbox/transactions/{transaction}"),
            None,
        )
        .await;
        assert_eq!(
            status,
            StatusCode::OK,
            "transaction {transaction}: {stored}"
        );
    }
    for transaction in &acknowledged.booked {
        let (status, booking) = get(
            &http,
            format!("{url}/order/paylater/v1/{transaction}/status"),
            Some(&tokens.pay_later),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{booking}");
        assert_eq!(booking["pay_later_status"], "ALREADY_BOOKED", "{booking}");
    }
    for (buyer, reference) in &acknowledged.accounts {
        let (status, account) = get(
            &http,
            format!("{url}/shop/consumer/v1/partners/p-1/consumer/{buyer}/bank-accounts"),
            Some(&tokens.bank_accounts),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{account}");
        assert!(
            account.to_string().contains(reference.as_str()),
            "{buyer}: {account}"
        );
    }
    for shop in &acknowledged.shops {
        let (status, configuration) = get(
            &http,
            format!("{url}/__sandbox/shop-config/p-1/{shop}"),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{shop}: {configuration}");
    }
    for order in &acknowledged.orders {
        let (status, loaded) = get(
            &http,
            format!("{url}/api/gateway/order-management/load/{order}"),
            Some(&tokens.platform),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{order}: {loaded}");
    }
    // Every acknowledged second is kept; at most one unanswered advance per
    // client may have been applied too. A second of slack for the reading.
    let offset = clock_offset(&http, url).await;
    let acked = acknowledged.clock_seconds;
    assert!(
        (acked - 1..=acked + TASKS as i64 + 1).contains(&offset),
        "clock offset {offset} s after {acked} acknowledged seconds"
    );

    let mut second = second;
    second.child.kill().expect("stopped");
    second.child.wait().expect("ended");
    let _ = std::fs::remove_dir_all(directory);
}

#[test]
fn an_unusable_state_file_stops_the_sandbox_with_exit_code_2() {
    let directory = temporary_directory("garbage");
    let garbage = directory.join("state.db");
    std::fs::write(&garbage, "not a database\n".repeat(300)).expect("written");
    let missing_directory = directory.join("missing").join("state.db");
    for (state, expected) in [
        (&garbage, "not a SQLite database"),
        (&missing_directory, "does not exist"),
    ] {
        let output = Command::new(BINARY)
            .args(["--port", "0", "--state"])
            .arg(state)
            .output()
            .expect("the sandbox binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("--state"), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(
            !String::from_utf8_lossy(&output.stdout).contains("listening"),
            "it did not start"
        );
    }
    let _ = std::fs::remove_dir_all(directory);
}

/// A port nothing listens on now (it was free a moment ago).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("its address")
        .port()
}

/// Accepts connections on `listener` and answers each request 200,
/// counting the requests.
async fn receive(listener: tokio::net::TcpListener, received: Arc<Mutex<usize>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            return;
        };
        let received = received.clone();
        tokio::spawn(async move {
            let mut request = Vec::new();
            let mut buffer = [0u8; 4096];
            // The head, then the body its content-length announces.
            loop {
                let Ok(read) = stream.read(&mut buffer).await else {
                    return;
                };
                if read == 0 {
                    return;
                }
                request.extend_from_slice(&buffer[..read]);
                let text = String::from_utf8_lossy(&request).to_ascii_lowercase();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text
                        .lines()
                        .find_map(|line| line.strip_prefix("content-length:"))
                        .and_then(|value| value.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break;
                    }
                }
            }
            *received.lock().expect("the count") += 1;
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                .await;
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_notification_is_delivered_after_a_sigkill_and_restart() {
    let directory = temporary_directory("resume");
    let state = directory.join("state.db");
    let log = directory.join("sandbox.log");
    let receiver_port = free_port();
    let webhook = format!("http://127.0.0.1:{receiver_port}/hook");
    let http = reqwest::Client::new();

    // The receiver is down: the notification fails and waits for a retry.
    let mut first = start(0, &state, &log);
    let url = first.url.clone();
    let page = token(&http, &url, &url).await;
    let request =
        serde_json::to_value(psi_sandbox::demo::session_request(&webhook)).expect("a request");
    let (status, created) = send(
        &http,
        reqwest::Method::POST,
        format!("{url}/pps/api/v1/session"),
        Some(&page),
        Some(request),
    )
    .await
    .expect("an answer");
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let session = created["session_id"].as_str().expect("an id").to_owned();
    let (status, _) = send(
        &http,
        reqwest::Method::POST,
        format!("{url}/__sandbox/sessions/{session}/complete"),
        None,
        Some(json!({})),
    )
    .await
    .expect("an answer");
    assert_eq!(status, StatusCode::OK);
    let attempts = |log: &Value| {
        log.as_array()
            .and_then(|log| log.first())
            .map(|delivery| {
                (
                    delivery["attempts"].as_array().map_or(0, Vec::len),
                    delivery["delivered"] == true,
                )
            })
            .unwrap_or((0, false))
    };
    let mut failed_before_kill = 0;
    for _ in 0..500 {
        let (_, log) = get(&http, format!("{url}/__sandbox/webhooks"), None).await;
        failed_before_kill = attempts(&log).0;
        if failed_before_kill > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    first.child.kill().expect("the sandbox is killed");
    let _ = first.child.wait();
    assert!(
        (1..5).contains(&failed_before_kill),
        "killed with {failed_before_kill} of 5 attempts made"
    );

    // The receiver is up; the restarted sandbox delivers the notification.
    let received = Arc::new(Mutex::new(0));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", receiver_port))
        .await
        .expect("the receiver's port is still free");
    tokio::spawn(receive(listener, received.clone()));
    let mut second = start(first.port, &state, &log);
    let mut delivered = (0, false);
    for _ in 0..200 {
        let (_, log) = get(&http, format!("{}/__sandbox/webhooks", second.url), None).await;
        delivered = attempts(&log);
        if delivered.1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    second.child.kill().expect("stopped");
    let _ = second.child.wait();
    assert!(
        delivered.1,
        "not delivered after the restart: {delivered:?}"
    );
    assert!(delivered.0 > failed_before_kill, "{delivered:?}");
    assert_eq!(*received.lock().expect("the count"), 1);
    let _ = std::fs::remove_dir_all(&directory);
}

/// A transaction status token of the tenant whose client is `client_id`.
async fn tenant_token(
    http: &reqwest::Client,
    url: &str,
    client_id: &str,
    secret: &str,
) -> (StatusCode, Value) {
    let audience = format!("{url}/transaction/status/v2/transactions");
    let response = http
        .post(format!("{url}/oauth/token"))
        .json(&json!({"client_id": client_id, "client_secret": secret, "audience": audience, "grant_type": "client_credentials"}))
        .send()
        .await
        .expect("the token server answers");
    let status = response.status();
    (status, response.json().await.expect("JSON"))
}

/// A control call with `token` (a tenant's control token).
async fn control(
    http: &reqwest::Client,
    method: reqwest::Method,
    address: String,
    token: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = http.request(method, address).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("the control API answers");
    let status = response.status();
    let text = response.text().await.expect("a body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tenants_and_their_data_survive_a_sigkill() {
    let directory = temporary_directory("tenants");
    let state = directory.join("state.db");
    let log = directory.join("sandbox.log");
    let declared = directory.join("tenants.json");
    std::fs::write(
        &declared,
        json!({"tenants": [{"tenant": "ci-a", "client_id": "ci-a-client", "client_secret": "ci-a-secret",
            "platform_client_id": "ci-a-platform", "platform_client_secret": "ci-a-platform-secret",
            "control_token": "ci-a-control-token"}]})
        .to_string(),
    )
    .expect("written");
    let http = reqwest::Client::new();
    let mut first = start_with(
        0,
        &state,
        &log,
        &["--tenants", declared.to_str().expect("UTF-8")],
    );
    let url = first.url.clone();

    // A tenant made at run time, with a transaction and its clock moved.
    let made: Value = http
        .post(format!("{url}/__sandbox/tenants"))
        .json(&json!({"name": "made"}))
        .send()
        .await
        .expect("created")
        .json()
        .await
        .expect("JSON");
    let secret = made["client_secret"].as_str().expect("a secret").to_owned();
    let client_id = made["client_id"].as_str().expect("an id").to_owned();
    let control_token = made["control_token"].as_str().expect("a token").to_owned();
    let (status, stored) = control(
        &http,
        reqwest::Method::POST,
        format!("{url}/__sandbox/transactions"),
        &control_token,
        Some(json!({"order_data": psi_sandbox::demo::session_request(UNREACHABLE).order_data})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stored}");
    let transaction = stored["transaction_id"].as_str().expect("an id").to_owned();
    let (status, _) = control(
        &http,
        reqwest::Method::POST,
        format!("{url}/__sandbox/clock/advance"),
        &control_token,
        Some(json!({"seconds": 3600})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // The declared tenant's transaction too.
    let (status, _) = control(
        &http,
        reqwest::Method::POST,
        format!("{url}/__sandbox/transactions"),
        "ci-a-control-token",
        Some(json!({"transaction_id": "12-00000000000000042", "order_data": psi_sandbox::demo::session_request(UNREACHABLE).order_data})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);

    first.child.kill().expect("the sandbox is killed");
    first.child.wait().expect("ended");

    // Restarted without --tenants: the state file keeps both tenants.
    let mut second = start(0, &state, &log);
    let url = second.url.clone();
    let (status, issued) = tenant_token(&http, &url, &client_id, &secret).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the made tenant's credentials: {issued}"
    );
    let token = issued["access_token"].as_str().expect("a token");
    let lookup = |token: String, id: String| {
        let http = http.clone();
        let url = url.clone();
        async move {
            http.get(format!("{url}/transaction/status/v2/transactions/{id}"))
                .bearer_auth(token)
                .send()
                .await
                .expect("answered")
                .status()
        }
    };
    assert_eq!(
        lookup(token.to_owned(), transaction.clone()).await,
        StatusCode::OK
    );
    let (status, issued) = tenant_token(&http, &url, "ci-a-client", "ci-a-secret").await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the declared tenant's credentials: {issued}"
    );
    let ci_token = issued["access_token"].as_str().expect("a token").to_owned();
    assert_eq!(
        lookup(ci_token.clone(), "12-00000000000000042".to_owned()).await,
        StatusCode::OK
    );
    // Each tenant's data stays its own.
    assert_eq!(
        lookup(ci_token, transaction.clone()).await,
        StatusCode::NOT_FOUND
    );
    let (status, _) = control(
        &http,
        reqwest::Method::GET,
        format!("{url}/__sandbox/transactions/{transaction}"),
        &control_token,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // Its clock kept its hour; the demo tenant's did not move.
    let (_, about) = control(
        &http,
        reqwest::Method::GET,
        format!("{url}/__sandbox"),
        &control_token,
        None,
    )
    .await;
    assert_eq!(about["tenant"], "made");
    let now: chrono::DateTime<chrono::FixedOffset> =
        serde_json::from_value(about["now"].clone()).expect("a time");
    let ahead = (now.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_seconds();
    assert!((3590..3700).contains(&ahead), "{ahead} s ahead");
    assert!(clock_offset(&http, &url).await.abs() < 60, "the demo clock");
    second.child.kill().expect("stopped");
    second.child.wait().expect("ended");
    let _ = std::fs::remove_dir_all(directory);
}
