use super::*;
use std::sync::{Arc, Mutex};
use tracing_subscriber::fmt::MakeWriter;

/// Everything the subscriber writes, kept for inspection.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

const IBAN: &str = "DE89370400440532013000";
const GROUPED_IBAN: &str = "DE89 3704 0044 0532 0130 00";
const BAD_IBAN: &str = "DE88 3704 0044 0532 0130 00";

// A current-thread runtime keeps every task on the thread whose default
// subscriber captures the logs.
#[tokio::test(flavor = "current_thread")]
async fn no_secret_token_or_iban_appears_in_any_log_line() {
    let logs = logs_of(tracing::Level::TRACE, async {
        let server = MockServer::start().await;
        mount_token_endpoint(&server, 1800).await;
        mount_status_failing_once(&server, 401).await;
        Mock::given(method("POST"))
            .and(path(
                "/shop/consumer/v1/partners/partner-1/consumer/buyer-1/bank-accounts",
            ))
            .respond_with(ResponseTemplate::new(503))
            .mount(&server)
            .await;

        let client = client(&server);
        look_up_status(&client).await;
        let _ = store_bank_account(&client, GROUPED_IBAN).await;
        // Refused by the pre-flight check (wrong check digits): traced too.
        assert!(matches!(
            store_bank_account(&client, BAD_IBAN).await,
            Err(psi::Error::Preflight(_))
        ));
    })
    .await;
    let refusal = logs
        .lines()
        .find(|line| line.contains("call refused before sending"))
        .unwrap_or_else(|| panic!("the refusal is traced: {logs}"));
    assert!(
        refusal.contains("psi.call") && refusal.contains("storeBankAccount"),
        "inside the call's span: {refusal}"
    );
    assert!(refusal.contains("refused=\"preflight\""), "{refusal}");
    // The token request runs inside the span of the call that needed it.
    assert!(
        logs.lines()
            .any(|line| line.contains("psi.call{api=\"pay-later\"")
                && line.contains("psi.call{api=\"token\"")),
        "{logs}"
    );

    // The capture works: the call spans are there with their fields.
    assert!(logs.contains("psi.call"), "{logs}");
    assert!(
        logs.contains("operation=\"getPayLaterStatus\"")
            || logs.contains("operation=getPayLaterStatus"),
        "{logs}"
    );
    assert!(
        logs.contains("status=200") && logs.contains("status=503"),
        "{logs}"
    );
    assert!(
        logs.contains("attempt=2"),
        "the 401 retry is visible: {logs}"
    );
    // And nothing that must stay secret is.
    for secret in [
        CLIENT_SECRET,
        "token-1",
        "token-2",
        IBAN,
        GROUPED_IBAN,
        BAD_IBAN,
        "Bearer ",
    ] {
        assert!(
            !logs.contains(secret),
            "{secret:?} leaked into the logs:\n{logs}"
        );
    }
}

/// Runs `calls` under a subscriber at `level` that also writes a line when
/// a span closes (as span exporters see spans); returns what it wrote.
async fn logs_of<F: std::future::Future<Output = ()>>(level: tracing::Level, calls: F) -> String {
    // tracing caches per call site whether anyone listens. A call site first
    // hit by another test's thread while no subscriber exists anywhere can be
    // cached as "never" just as this test installs its own, and the capture
    // then misses it. A global subscriber that listens to everything (and
    // writes nothing) keeps every call site live for the scoped one below.
    static GLOBAL: std::sync::Once = std::sync::Once::new();
    GLOBAL.call_once(|| {
        let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry());
    });
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(captured.clone())
        .with_max_level(level)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    calls.await;
    let logs = captured.0.lock().unwrap().clone();
    String::from_utf8(logs).unwrap()
}

/// A status lookup answered 503 once, then 200: one retry.
async fn server_answering_503_once() -> MockServer {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    mount_status_failing_once(&server, 503).await;
    server
}

/// The pay later status answers `status` once, then 200.
async fn mount_status_failing_once(server: &MockServer, status: u16) {
    Mock::given(method("GET"))
        .and(path(format!("/order/paylater/v1/{TRANSACTION}/status")))
        .respond_with(ResponseTemplate::new(status))
        .up_to_n_times(1)
        .mount(server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/order/paylater/v1/{TRANSACTION}/status")))
        .respond_with(ResponseTemplate::new(200).set_body_json(status_body()))
        .mount(server)
        .await;
}

/// Stores a bank account with `iban` for buyer-1 of partner-1.
async fn store_bank_account(client: &psi::Client, iban: &str) -> Result<(), psi::Error> {
    client
        .bank_accounts()
        .store_bank_account()
        .partner_profile_id("partner-1")
        .shop_buyer_id("buyer-1")
        .body(psi::bank_accounts::types::BankAccountStoreRequest {
            owner: "Erika Mustermann".try_into().unwrap(),
            iban: iban.try_into().unwrap(),
            bic: None,
            extra_members: Default::default(),
        })
        .send()
        .await
        .map(drop)
        .map_err(psi::Error::from)
}

async fn look_up_status(client: &psi::Client) {
    client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .unwrap();
}

// The span is DEBUG unless set: an INFO subscriber sees no span, and the
// retry's WARN event still names the API and the operation by itself.
#[tokio::test(flavor = "current_thread")]
async fn by_default_info_sees_no_call_span_but_a_retry_names_its_call() {
    let server = server_answering_503_once().await;
    let client = client(&server);
    let logs = logs_of(tracing::Level::INFO, look_up_status(&client)).await;
    assert!(!logs.contains("psi.call"), "the span is DEBUG: {logs}");
    let retry = logs
        .lines()
        .find(|line| line.contains("retrying"))
        .unwrap_or_else(|| panic!("the retry is a WARN line: {logs}"));
    assert!(retry.contains("WARN"), "{retry}");
    assert!(retry.contains("api=\"pay-later\""), "{retry}");
    assert!(retry.contains("operation=\"getPayLaterStatus\""), "{retry}");
    assert!(retry.contains("status=Some(503)"), "{retry}");
}

#[tokio::test(flavor = "current_thread")]
async fn an_info_call_span_is_seen_by_an_info_subscriber() {
    let server = server_answering_503_once().await;
    let url = server.uri();
    let client = psi::Client::builder()
        .environment(psi::Environment::new(&url, &url, &url).unwrap())
        .credentials(psi::Credentials::new("merchant-1", CLIENT_SECRET))
        .retry(psi::RetryPolicy::default().with_initial_backoff(Duration::from_millis(5)))
        .call_span_level(tracing::Level::INFO)
        .build()
        .unwrap();
    let logs = logs_of(tracing::Level::INFO, look_up_status(&client)).await;
    // The pay later call's own close line (the token request's span, nested
    // inside it, closes on a line of its own).
    let closed = logs
        .lines()
        .find(|line| {
            line.contains("psi.call{api=\"pay-later\"")
                && !line.contains("api=\"token\"")
                && line.contains("close")
        })
        .unwrap_or_else(|| panic!("the span closes at INFO: {logs}"));
    assert!(
        closed.contains("operation=\"getPayLaterStatus\""),
        "{closed}"
    );
    assert!(closed.contains("attempt=2"), "{closed}");
    assert!(closed.contains("status=200"), "{closed}");
    assert!(closed.contains("duration_ms="), "{closed}");
}

// With the span at DEBUG under an INFO subscriber the call has no span of
// its own to record into; the caller's span (here one that happens to have
// the same field names) must not get the call's attempt, status and duration.
#[tokio::test(flavor = "current_thread")]
async fn a_call_without_a_live_span_records_nothing_into_the_callers_span() {
    use tracing::Instrument;
    let server = server_answering_503_once().await;
    let client = client(&server);
    let logs = logs_of(tracing::Level::INFO, async {
        let handler = tracing::info_span!(
            "handler",
            attempt = tracing::field::Empty,
            status = tracing::field::Empty,
            duration_ms = tracing::field::Empty,
        );
        look_up_status(&client).instrument(handler).await;
    })
    .await;
    let closed = logs
        .lines()
        .find(|line| line.contains("handler") && line.contains("close"))
        .unwrap_or_else(|| panic!("the handler's span closes at INFO: {logs}"));
    // The retry happened (so an `attempt` would have been recorded) ...
    assert!(logs.contains("retrying"), "{logs}");
    // ... and none of the call's fields landed on the caller's span.
    for field in ["attempt=", "status=", "duration_ms="] {
        assert!(!closed.contains(field), "{field} in {closed}");
    }
}
