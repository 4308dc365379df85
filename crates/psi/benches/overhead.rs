//! Calls per second through psi (token hook, retry wrapper, tracing span)
//! against raw reqwest sending a fixed Authorization header, on the same
//! in-process server, in the same run (BENCHMARKS.md, How to measure).
//!
//! cargo bench -p psi --bench overhead
//! BENCH_SPAN_LEVEL=info cargo bench -p psi --bench overhead   # the call span at INFO
//! BENCH_DRIFT=1 cargo bench -p psi --bench overhead --features drift   # psi with the drift report on
//!
//! BENCH_ROUNDS=600 cargo bench -p psi --bench overhead      # more pairs of rounds (300 by default)
//! BENCH_ONLY=expiry cargo bench -p psi --bench overhead     # only the latency across token expiry
//!
//! Profiling aids (see `main`): BENCH_ONLY, BENCH_CALLS, BENCH_IN_TASK,
//! BENCH_SIZES, and BENCH_RAW_LIKE_PSI (the raw side doing some of what
//! psi does: `timeout`, `settings`, `headers`, `url`, `decode` or `all`, comma-separated;
//! never part of the reported ratio).
//!
//! Both sides deserialize the same response into the same generated type,
//! so the difference is what psi adds around a call. Rounds come in pairs,
//! one per side, the side that goes first alternating from pair to pair;
//! each pair gives the ratio psi / raw, and the median of those ratios is
//! reported with its 95 % interval, so drift in the machine's speed cancels
//! out and the run says how precise its median is.
//!
//! Then latency across token expiry: a second psi client whose tokens live
//! EXPIRY_LIFETIME, from a token endpoint that takes TOKEN_DELAY to answer
//! (a real token server is remote), makes calls one at a time for
//! `expiry_run()` (30 s; BENCH_EXPIRY_SECONDS). A call "near a token
//! request" overlaps a token request's time at the endpoint widened by NEAR
//! on both sides; the p99 of those calls is compared with the p99 of the
//! others. A caller that waited for a token would show there as a
//! TOKEN_DELAY outlier.

use axum::routing::{get, post};
use axum::{Json, Router};
use psi::pay_later::types::PayLaterStatusResponse;
use psi::{Client, Credentials, Environment};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The whole number in the environment variable `name`, else `default`.
fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |value| {
        value
            .parse()
            .unwrap_or_else(|_| panic!("{name} is a whole number, not {value}"))
    })
}

/// One round's length: 100 ms by default, `BENCH_ROUND_MS` to change it.
/// A round is short so that a run holds many pairs, yet long enough for
/// many calls on either load.
fn round_length() -> Duration {
    Duration::from_millis(setting("BENCH_ROUND_MS", 100))
}
/// Pairs of rounds per concurrency: 300 by default, `BENCH_ROUNDS` to change
/// it. One pair's ratio spreads about as widely with short rounds as with
/// long ones, so what narrows the median is the number of pairs: many short
/// rounds in the same minute give a narrower interval than a few long ones.
fn rounds() -> u64 {
    setting("BENCH_ROUNDS", 300)
}
const TRANSACTION: &str = "12-34567890123456789";
/// Token lifetime of the expiry measurement, in seconds (what `expires_in` carries).
const EXPIRY_LIFETIME: u64 = 2;
const TOKEN_DELAY: Duration = Duration::from_millis(50);
/// How long the calls across token expiry run: 30 s by default,
/// `BENCH_EXPIRY_SECONDS` to change it. A shorter run has few token
/// requests and few calls near them, so one burst of the machine's noise
/// inside those windows moves their p99 far; a run this long keeps it
/// steady from run to run.
fn expiry_run() -> Duration {
    Duration::from_secs(setting("BENCH_EXPIRY_SECONDS", 30))
}
const NEAR: Duration = Duration::from_millis(20);

/// When each token request reached the short-lived token endpoint and when it was answered.
type TokenRequests = Arc<Mutex<Vec<(Instant, Instant)>>>;

/// The status endpoint, and a token endpoint answering `expires_in` after `delay`.
async fn serve(expires_in: u64, delay: Duration, log: TokenRequests) -> String {
    let app = Router::new()
        .route(
            "/oauth/token",
            post(move || async move {
                let arrived = Instant::now();
                tokio::time::sleep(delay).await;
                log.lock().unwrap().push((arrived, Instant::now()));
                Json(serde_json::json!({"access_token": "bench-token", "expires_in": expires_in, "token_type": "Bearer"}))
            }),
        )
        .route(
            "/order/paylater/v1/{transaction_id}/status",
            get(|| async {
                Json(serde_json::json!({"transaction_id": TRANSACTION, "pay_later_status": "AVAILABLE"}))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

/// Runs `call` from `concurrency` tasks for one round; returns calls per second.
async fn round<F, Fut>(concurrency: usize, call: F) -> f64
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = PayLaterStatusResponse> + Send,
{
    let done = Arc::new(AtomicU64::new(0));
    let length = round_length();
    let started = Instant::now();
    let tasks: Vec<_> = (0..concurrency)
        .map(|_| {
            let call = call.clone();
            let done = done.clone();
            tokio::spawn(async move {
                while started.elapsed() < length {
                    let status = call().await;
                    assert!(status.pay_later_status.is_some());
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

/// One warm-up call, then `calls` calls one after another.
async fn sequential<F, Fut>(calls: usize, call: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = PayLaterStatusResponse>,
{
    call().await;
    for _ in 0..calls {
        assert!(call().await.pay_later_status.is_some());
    }
}

/// The 99th percentile of `values` (sorted here).
fn p99(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[(values.len() * 99 / 100).min(values.len() - 1)]
}

/// Calls one at a time across several token expiries; prints the p99 of the
/// calls near a token request and of the others.
async fn across_token_expiry() {
    let token_requests = TokenRequests::default();
    let url = serve(EXPIRY_LIFETIME, TOKEN_DELAY, token_requests.clone()).await;
    let psi = Client::builder()
        .environment(Environment::new(&url, &url, &url).unwrap())
        .credentials(Credentials::new("bench", "bench-secret"))
        .build()
        .unwrap()
        .pay_later();
    let call = || {
        psi.get_pay_later_status()
            .transaction_id(TRANSACTION)
            .send()
    };
    call().await.unwrap(); // the first token: the one wait the cache cannot avoid
    let run = expiry_run();
    let warm = Instant::now();
    let mut calls = Vec::new();
    while warm.elapsed() < run {
        let started = Instant::now();
        call().await.unwrap();
        calls.push((started, started.elapsed()));
    }
    let token_requests: Vec<_> = token_requests
        .lock()
        .unwrap()
        .iter()
        .filter(|(arrived, _)| *arrived >= warm)
        .copied()
        .collect();
    let (near, elsewhere): (Vec<_>, Vec<_>) = calls.iter().partition(|(started, took)| {
        token_requests
            .iter()
            .any(|(from, to)| *started <= *to + NEAR && *started + *took + NEAR >= *from)
    });
    let near: Vec<Duration> = near.iter().map(|(_, took)| *took).collect();
    let elsewhere: Vec<Duration> = elsewhere.iter().map(|(_, took)| *took).collect();
    println!(
        "across token expiry: {EXPIRY_LIFETIME} s tokens, token endpoint answering in {TOKEN_DELAY:?}, {run:?} of calls one at a time:"
    );
    println!("  token requests after warm-up: {}", token_requests.len());
    if near.is_empty() || elsewhere.is_empty() {
        return println!(
            "  too few calls to compare ({} near, {} elsewhere)",
            near.len(),
            elsewhere.len()
        );
    }
    // The p99 can hide a few waits (one per refresh); the slowest call and
    // the calls as slow as a token request cannot.
    let waited = calls
        .iter()
        .filter(|(_, took)| *took >= TOKEN_DELAY)
        .count();
    println!(
        "  slowest call: {:.1?}; calls that took the token endpoint's {TOKEN_DELAY:?} or more: {waited}",
        calls.iter().map(|(_, took)| *took).max().unwrap_or_default()
    );
    let (near_p99, elsewhere_p99) = (p99(near.clone()), p99(elsewhere.clone()));
    println!(
        "  p99 of {:>6} calls near a token request: {near_p99:>10.1?}",
        near.len()
    );
    println!(
        "  p99 of {:>6} other calls:                {elsewhere_p99:>10.1?}",
        elsewhere.len()
    );
    println!(
        "  ratio near / other:                      {:>10.3}",
        near_p99.as_secs_f64() / elsewhere_p99.as_secs_f64()
    );
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

/// A 95 % interval for the median of `sorted` that assumes nothing about
/// their distribution: the order statistics n/2 ∓ 0.98·√n (the count of
/// values below the median is binomial, n and ½; 0.98 = 1.96 / 2).
fn median_interval(sorted: &[f64]) -> (f64, f64) {
    let n = sorted.len() as f64;
    let half_width = 0.98 * n.sqrt();
    let low = (n / 2.0 - half_width).floor().max(0.0) as usize;
    let high = ((n / 2.0 + half_width).ceil() as usize).min(sorted.len() - 1);
    (sorted[low], sorted[high])
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // A live subscriber, so psi's spans and events are really built and
    // formatted (into a sink) as they would be in a service that logs INFO.
    if std::env::var_os("BENCH_NO_SUBSCRIBER").is_none() {
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::INFO)
            .with_writer(std::io::sink)
            .init();
    }
    let url = serve(3600, Duration::ZERO, TokenRequests::default()).await;

    // BENCH_SPAN_LEVEL=info measures psi with its `psi.call` span at INFO
    // (seen by the INFO subscriber) instead of the default DEBUG.
    let span_level = match std::env::var("BENCH_SPAN_LEVEL").as_deref() {
        Ok("info") => tracing::Level::INFO,
        Ok("debug") | Err(_) => tracing::Level::DEBUG,
        Ok(other) => panic!("BENCH_SPAN_LEVEL is info or debug, not {other}"),
    };
    println!("psi.call span at {span_level}");
    let builder = Client::builder()
        .environment(Environment::new(&url, &url, &url).unwrap())
        .credentials(Credentials::new("bench", "bench-secret"))
        .call_span_level(span_level);
    // BENCH_DRIFT=1 measures psi with the drift report on: every answer
    // checked against the documents too (the answer conforms, so the
    // report stays empty and its lock is never taken).
    let builder = if std::env::var_os("BENCH_DRIFT").is_some() {
        with_drift(builder)
    } else {
        builder
    };
    let psi = builder.build().unwrap().pay_later();
    let psi_call = move || {
        let psi = psi.clone();
        async move {
            psi.get_pay_later_status()
                .transaction_id(TRANSACTION)
                .send()
                .await
                .unwrap()
                .into_inner()
        }
    };

    let status_url = format!("{url}/order/paylater/v1/{TRANSACTION}/status");
    let like_psi = LikePsi::from_env();
    let http = like_psi.http_client();
    // The reported comparison keeps a raw side of its own, free of the
    // diagnostic's branches.
    if like_psi == LikePsi::default() {
        let raw_call = move || {
            let http = http.clone();
            let status_url = status_url.clone();
            async move {
                let response = raw_request(&http, &status_url).send().await.unwrap();
                response.json::<PayLaterStatusResponse>().await.unwrap()
            }
        };
        return compare(psi_call, raw_call).await;
    }
    println!("raw side doing as psi does: {like_psi:?}");
    let user_agent = reqwest::header::HeaderValue::from_static("psi/0.1.0 (pay-later)");
    let bearer = reqwest::header::HeaderValue::from_static("Bearer bench-token");
    let raw_call = move || {
        let http = http.clone();
        // psi formats the URL of every call and owns the path parameter.
        let (status_url, transaction_id) = if like_psi.url {
            (
                format!("{url}/order/paylater/v1/{TRANSACTION}/status"),
                Some(TRANSACTION.to_owned()),
            )
        } else {
            (status_url.clone(), None)
        };
        let (user_agent, bearer) = (user_agent.clone(), bearer.clone());
        async move {
            let request = if like_psi.headers {
                use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, USER_AGENT};
                let json = reqwest::header::HeaderValue::from_static("application/json");
                http.get(&status_url)
                    .header(ACCEPT, json.clone())
                    .header(USER_AGENT, user_agent)
                    .header(AUTHORIZATION, bearer)
                    .header(CONTENT_TYPE, json)
            } else {
                raw_request(&http, &status_url)
            };
            let response = request.send().await.unwrap();
            drop(transaction_id);
            if like_psi.decode {
                let body = response.bytes().await.unwrap();
                return serde_json::from_slice::<PayLaterStatusResponse>(&body).unwrap();
            }
            response.json::<PayLaterStatusResponse>().await.unwrap()
        }
    };
    compare(psi_call, raw_call).await
}

#[cfg(feature = "drift")]
fn with_drift(builder: psi::ClientBuilder) -> psi::ClientBuilder {
    println!("drift report on");
    builder.drift(psi::drift::Limits::default())
}

#[cfg(not(feature = "drift"))]
fn with_drift(_: psi::ClientBuilder) -> psi::ClientBuilder {
    panic!("BENCH_DRIFT needs psi's drift feature: cargo bench -p psi --bench overhead --features drift")
}

/// The raw side's request: the status URL with the two headers the
/// service needs, names and values given as strings.
fn raw_request(http: &reqwest::Client, status_url: &str) -> reqwest::RequestBuilder {
    http.get(status_url)
        .header("authorization", "Bearer bench-token")
        .header("content-type", "application/json")
}

/// What the raw side does as psi does, from `BENCH_RAW_LIKE_PSI` (a
/// comma-separated list, or `all`): a diagnostic that tells what psi's
/// overhead is made of in time, which instruction counts do not. The ratio
/// printed is then psi against that side, never the reported one.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct LikePsi {
    /// `timeout`: psi's client-level request timeout (a tokio timer per call).
    timeout: bool,
    /// `settings`: the client built from `psi::http_client_builder()` as
    /// psi's own is (HTTP/1.1, reqwest's retry layer off).
    settings: bool,
    /// `headers`: Accept, User-Agent, Authorization and Content-Type as
    /// header values made once, the way psi sends them.
    headers: bool,
    /// `url`: the URL formatted for every call and the path parameter owned.
    url: bool,
    /// `decode`: the answer read whole, then decoded from its bytes, as psi does.
    decode: bool,
}

impl LikePsi {
    fn from_env() -> Self {
        let Ok(list) = std::env::var("BENCH_RAW_LIKE_PSI") else {
            return Self::default();
        };
        let mut like = Self::default();
        for item in list
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            match item {
                "timeout" => like.timeout = true,
                "settings" => like.settings = true,
                "headers" => like.headers = true,
                "url" => like.url = true,
                "decode" => like.decode = true,
                "all" => {
                    like = Self {
                        timeout: true,
                        settings: true,
                        headers: true,
                        url: true,
                        decode: true,
                    }
                }
                other => panic!(
                    "BENCH_RAW_LIKE_PSI lists timeout, settings, headers, url, decode or all, not {other}"
                ),
            }
        }
        like
    }

    fn http_client(&self) -> reqwest::Client {
        // Without either, `reqwest::Client::builder().build()`, which is
        // `reqwest::Client::new()`: the reported raw side.
        let builder = if self.settings {
            psi::http_client_builder()
        } else {
            reqwest::Client::builder()
        };
        let builder = if self.timeout {
            builder.timeout(Duration::from_secs(30))
        } else {
            builder
        };
        builder.build().unwrap()
    }
}

/// The comparison itself (or one of its profiling aids), psi's calls
/// against `raw_call`'s.
async fn compare<P, PF, R, RF>(psi_call: P, raw_call: R)
where
    P: Fn() -> PF + Clone + Send + 'static,
    PF: std::future::Future<Output = PayLaterStatusResponse> + Send,
    R: Fn() -> RF + Clone + Send + 'static,
    RF: std::future::Future<Output = PayLaterStatusResponse> + Send,
{
    // BENCH_SIZES=1 prints the size of one call's future on each side:
    // every call builds it, moves it and polls it in place.
    if std::env::var_os("BENCH_SIZES").is_some() {
        let (psi_future, raw_future) = (psi_call.clone()(), raw_call.clone()());
        return println!(
            "one call's future: psi {} bytes, raw {} bytes",
            std::mem::size_of_val(&psi_future),
            std::mem::size_of_val(&raw_future)
        );
    }
    // Profiling aid: BENCH_ONLY=psi or BENCH_ONLY=raw runs one side only
    // (BENCH_ONLY=expiry only the measurement across token expiry);
    // with BENCH_CALLS=n it makes exactly n calls one after another (after
    // one warm-up call), so `valgrind --tool=callgrind` instruction counts
    // of two runs with different n give the instructions of one call.
    if let Ok(calls) = std::env::var("BENCH_CALLS") {
        let calls: usize = calls.parse().expect("BENCH_CALLS is a number");
        // BENCH_IN_TASK=1 makes the calls from a spawned task on a worker,
        // as the rounds do (one in flight), instead of from the main
        // thread: what decides which thread wakes which (syscall counts).
        let in_task = std::env::var_os("BENCH_IN_TASK").is_some();
        let side = std::env::var("BENCH_ONLY");
        let calls = async move {
            match side.as_deref() {
                Ok("psi") => sequential(calls, psi_call).await,
                Ok("raw") => sequential(calls, raw_call).await,
                _ => panic!("BENCH_CALLS needs BENCH_ONLY=psi or BENCH_ONLY=raw"),
            }
        };
        if in_task {
            tokio::spawn(calls).await.unwrap();
        } else {
            calls.await;
        }
        return;
    }
    match std::env::var("BENCH_ONLY").as_deref() {
        Ok("expiry") => return across_token_expiry().await,
        Ok("psi") => return println!("psi only: {:.0} calls/s", round(16, psi_call).await),
        Ok("raw") => return println!("raw only: {:.0} calls/s", round(16, raw_call).await),
        _ => {}
    }

    // Warm up both connection pools and the token cache.
    round(16, psi_call.clone()).await;
    round(16, raw_call.clone()).await;

    // 16 calls in flight keep both cores busy (client and server share
    // them): psi's CPU cost shows in full. One call in flight is what a
    // checkout does: latency-bound, as against a remote service.
    let rounds = rounds();
    for concurrency in [16, 1] {
        let (mut raw, mut through_psi, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for pair in 0..rounds {
            // The two rounds of a pair are adjacent, so they share the
            // machine's speed of the moment; the side that goes first
            // alternates, so neither gains from always coming second (the
            // machine's drift within a pair, the other side's leftovers).
            let (raw_round, psi_round) = if pair % 2 == 0 {
                let raw_round = round(concurrency, raw_call.clone()).await;
                (raw_round, round(concurrency, psi_call.clone()).await)
            } else {
                let psi_round = round(concurrency, psi_call.clone()).await;
                (round(concurrency, raw_call.clone()).await, psi_round)
            };
            raw.push(raw_round);
            through_psi.push(psi_round);
            ratios.push(psi_round / raw_round);
        }
        println!(
            "concurrency {concurrency}, {rounds} pairs of {:?} rounds, medians:",
            round_length()
        );
        println!("  raw reqwest, fixed header: {:>9.0} calls/s", median(raw));
        println!(
            "  psi (token, retry, trace): {:>9.0} calls/s",
            median(through_psi)
        );
        // The spread shows how far the machine's speed moved between the
        // two rounds of a pair: a median inside a wide spread needs more pairs.
        let mut sorted = ratios.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let quartile = |q: usize| sorted[(sorted.len() - 1) * q / 4];
        let (low, high) = median_interval(&sorted);
        println!(
            "  ratio psi / raw (paired):  {:>9.3}  (95 % interval of the median {low:.3} to {high:.3})",
            median(ratios)
        );
        println!(
            "  paired ratios: lowest {:.3}, quartiles {:.3} / {:.3}, highest {:.3}",
            quartile(0),
            quartile(1),
            quartile(3),
            quartile(4)
        );
    }
    across_token_expiry().await;
}
