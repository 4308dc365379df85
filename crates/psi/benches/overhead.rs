//! Calls per second through psi (token hook, retry wrapper, tracing span)
//! against raw reqwest sending a fixed Authorization header, on the same
//! in-process server, in the same run.
//!
//! cargo bench -p psi --bench overhead
//!
//! Both sides deserialize the same response into the same generated type,
//! so the difference is what psi adds around a call. Rounds alternate
//! between the two sides; each psi round is compared with the raw round
//! just before it, and the median of those ratios is reported, so drift in
//! the machine's speed cancels out.

use axum::routing::{get, post};
use axum::{Json, Router};
use psi::pay_later::types::PayLaterStatusResponse;
use psi::{Client, Credentials, Environment};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROUND: Duration = Duration::from_secs(1);
const ROUNDS: usize = 9;
const TRANSACTION: &str = "12-34567890123456789";

async fn serve() -> String {
    let app = Router::new()
        .route(
            "/oauth/token",
            post(|| async { Json(serde_json::json!({"access_token": "bench-token", "expires_in": 3600, "token_type": "Bearer"})) }),
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

/// Runs `call` from `concurrency` tasks for one ROUND; returns calls per second.
async fn round<F, Fut>(concurrency: usize, call: F) -> f64
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = PayLaterStatusResponse> + Send,
{
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..concurrency)
        .map(|_| {
            let call = call.clone();
            let done = done.clone();
            tokio::spawn(async move {
                while started.elapsed() < ROUND {
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

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
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
    let url = serve().await;

    let psi = Client::builder()
        .environment(Environment::new(&url, &url, &url).unwrap())
        .credentials(Credentials::new("bench", "bench-secret"))
        .build()
        .unwrap()
        .pay_later();
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

    let http = reqwest::Client::new();
    let status_url = format!("{url}/order/paylater/v1/{TRANSACTION}/status");
    let raw_call = move || {
        let http = http.clone();
        let status_url = status_url.clone();
        async move {
            let response = http
                .get(&status_url)
                .header("authorization", "Bearer bench-token")
                .header("content-type", "application/json")
                .send()
                .await
                .unwrap();
            response.json::<PayLaterStatusResponse>().await.unwrap()
        }
    };

    // Profiling aid: BENCH_ONLY=psi or BENCH_ONLY=raw runs one side only;
    // with BENCH_CALLS=n it makes exactly n calls one after another (after
    // one warm-up call), so `valgrind --tool=callgrind` instruction counts
    // of two runs with different n give the instructions of one call.
    if let Ok(calls) = std::env::var("BENCH_CALLS") {
        let calls: usize = calls.parse().expect("BENCH_CALLS is a number");
        match std::env::var("BENCH_ONLY").as_deref() {
            Ok("psi") => sequential(calls, psi_call).await,
            Ok("raw") => sequential(calls, raw_call).await,
            _ => panic!("BENCH_CALLS needs BENCH_ONLY=psi or BENCH_ONLY=raw"),
        }
        return;
    }
    match std::env::var("BENCH_ONLY").as_deref() {
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
    for concurrency in [16, 1] {
        let (mut raw, mut through_psi, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            let raw_round = round(concurrency, raw_call.clone()).await;
            let psi_round = round(concurrency, psi_call.clone()).await;
            raw.push(raw_round);
            through_psi.push(psi_round);
            // Each psi round against the raw round just before it: the
            // machine's speed drifts, and adjacent rounds share it.
            ratios.push(psi_round / raw_round);
        }
        println!("concurrency {concurrency}, {ROUNDS} pairs of {ROUND:?} rounds, medians:");
        println!("  raw reqwest, fixed header: {:>9.0} calls/s", median(raw));
        println!(
            "  psi (token, retry, trace): {:>9.0} calls/s",
            median(through_psi)
        );
        println!("  ratio psi / raw (paired):  {:>9.3}", median(ratios));
    }
}
