//! What checking one answer costs: `cargo bench -p psi-drift --bench check`.
//!
//! Checks the transaction status example of `openapi/transaction-status.yaml`
//! (the largest answer psi reads often) and the pay later status example,
//! each ROUNDS (default 5) times over ITERATIONS (default 20000) answers,
//! and prints microseconds per answer (min, median, max over the rounds).
//! A clean answer takes no lock: this is the parse and the walk.

use psi_drift::{Documents, Drift};
use std::time::Instant;

fn example(api: &str, path: &str) -> Vec<u8> {
    let documents = Documents::bundled();
    let api = documents
        .apis()
        .iter()
        .find(|a| a.name == api)
        .expect("the API");
    let content = api.root.pointer(path).expect("the example");
    let example = content
        .get("example")
        .or_else(|| {
            content
                .pointer("/examples")
                .and_then(|e| e.as_object()?.values().next()?.get("value"))
        })
        .expect("an example");
    serde_json::to_vec(example).unwrap()
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let rounds = env("ROUNDS", 5);
    let iterations = env("ITERATIONS", 20_000);
    let cases = [
        (
            "getTransactionStatus",
            example(
                "transaction-status",
                "/paths/~1transaction~1status~1v2~1transactions~1{transaction-id}/get/responses/2XX/content/application~1json",
            ),
        ),
        (
            "getPayLaterStatus",
            example(
                "pay-later",
                "/paths/~1order~1paylater~1v1~1{transaction_id}~1status/get/responses/2XX/content/application~1json;charset=UTF-8",
            ),
        ),
    ];
    for (operation, body) in &cases {
        let drift = Drift::new();
        let mut times = Vec::new();
        for _ in 0..rounds {
            let start = Instant::now();
            for _ in 0..iterations {
                drift.answer(operation, 200, Some("application/json;charset=UTF-8"), body);
            }
            times.push(start.elapsed().as_secs_f64() * 1e6 / iterations as f64);
        }
        assert!(drift.is_empty(), "{}", drift.report().summary());
        times.sort_by(f64::total_cmp);
        println!(
            "{operation} ({} bytes): {:.2} / {:.2} / {:.2} µs per answer (min / median / max of {rounds} rounds)",
            body.len(),
            times[0],
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
}
