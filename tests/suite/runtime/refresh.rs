//! Background token refresh through the facade, against a fake token
//! server that counts its requests: after warm-up no call waits for a token.
//!
//! Tokens live 1800 s: refreshed in the background from 1620 s, no longer
//! sent from 1740 s (tokio's clock, moved with `jump_clock`).

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The token server: answer `n` (from 1) is `token-n`, after `delay` (real
/// time: the mock server runs on its own threads), or a 400 when `failing(n)`.
#[derive(Clone)]
struct TokenServer {
    asked: Arc<AtomicUsize>,
    delay: Duration,
    failing: fn(usize) -> bool,
}

impl wiremock::Respond for TokenServer {
    fn respond(&self, _: &wiremock::Request) -> ResponseTemplate {
        let n = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
        if (self.failing)(n) {
            return ResponseTemplate::new(400)
                .set_body_json(serde_json::json!({"error": "temporarily_unavailable"}));
        }
        let answer =
            ResponseTemplate::new(200).set_body_json(token_body(&format!("token-{n}"), 1800));
        // The warm-up answers at once; refreshes are slow.
        if n == 1 {
            answer
        } else {
            answer.set_delay(self.delay)
        }
    }
}

async fn serve(delay: Duration, failing: fn(usize) -> bool) -> (MockServer, Arc<AtomicUsize>) {
    let server = MockServer::start().await;
    let asked = Arc::new(AtomicUsize::new(0));
    Mock::given(method("POST"))
        .and(path("/oauth/token"))
        .respond_with(TokenServer {
            asked: asked.clone(),
            delay,
            failing,
        })
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(status_body()))
        .mount(&server)
        .await;
    (server, asked)
}

/// The bearer token each status call carried, in order.
async fn tokens_sent(server: &MockServer) -> Vec<String> {
    requests_to(server, &format!("/order/paylater/v1/{TRANSACTION}/status"))
        .await
        .iter()
        .map(|r| {
            r.headers
                .get("authorization")
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Spins until the cache hands out `wanted` (asking it does not send a call).
async fn wait_for_token(client: &Client, wanted: &str) {
    let mut spins = 0u64;
    while client.token(psi::Api::PayLater).await.unwrap().expose() != wanted {
        spins += 1;
        assert!(spins < 100_000_000, "{wanted} never arrived");
        tokio::task::yield_now().await;
    }
}

async fn status_call(pay_later: &psi::pay_later::Client) {
    pay_later
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn across_expiry_one_refresh_and_no_call_waits_for_it() {
    // The refresh takes 1 s; the 20 calls made meanwhile carry the old
    // token, so none of them waited for the new one.
    let (server, asked) = serve(Duration::from_secs(1), |_| false).await;
    let client = client(&server);
    let pay_later = client.pay_later();
    status_call(&pay_later).await;
    jump_clock(Duration::from_secs(1650)).await;
    for _ in 0..20 {
        status_call(&pay_later).await;
    }
    assert!(
        tokens_sent(&server)
            .await
            .iter()
            .all(|t| t == "Bearer token-1"),
        "the calls did not wait for the refresh"
    );
    wait_for_token(&client, "token-2").await;
    // Past the old token's end (1740 s): still no new token request.
    jump_clock(Duration::from_secs(100)).await;
    status_call(&pay_later).await;
    assert_eq!(tokens_sent(&server).await.last().unwrap(), "Bearer token-2");
    assert_eq!(asked.load(Ordering::SeqCst), 2, "exactly one refresh");
}

#[tokio::test]
async fn concurrent_calls_near_expiry_start_one_refresh() {
    let (server, asked) = serve(Duration::from_secs(1), |_| false).await;
    let client = client(&server);
    status_call(&client.pay_later()).await;
    jump_clock(Duration::from_secs(1650)).await;
    let calls: Vec<_> = (0..50)
        .map(|_| {
            let pay_later = client.pay_later();
            tokio::spawn(async move { status_call(&pay_later).await })
        })
        .collect();
    for call in calls {
        call.await.unwrap();
    }
    assert!(tokens_sent(&server)
        .await
        .iter()
        .all(|t| t == "Bearer token-1"));
    // The refresh may reach the token server only after the calls are done.
    wait_for_token(&client, "token-2").await;
    assert_eq!(
        asked.load(Ordering::SeqCst),
        2,
        "one refresh for 50 concurrent calls"
    );
}

#[tokio::test]
async fn a_failing_refresh_does_not_fail_calls_and_is_tried_again() {
    // The first refresh (answer 2) is refused; the next call tries again.
    let (server, asked) = serve(Duration::ZERO, |n| n == 2).await;
    let client = client(&server);
    let pay_later = client.pay_later();
    status_call(&pay_later).await;
    jump_clock(Duration::from_secs(1650)).await;
    // unwrap in status_call: no call fails while the old token is valid.
    status_call(&pay_later).await;
    let mut spins = 0u64;
    while asked.load(Ordering::SeqCst) < 2 {
        spins += 1;
        assert!(spins < 100_000_000, "the refresh never started");
        tokio::task::yield_now().await;
    }
    // The refused refresh does not fail the next calls; one of them tries again.
    let mut calls = 0;
    while asked.load(Ordering::SeqCst) < 3 {
        status_call(&pay_later).await;
        calls += 1;
        assert!(calls < 100_000, "the refresh was never tried again");
        tokio::task::yield_now().await;
    }
    wait_for_token(&client, "token-3").await;
    status_call(&pay_later).await;
    assert_eq!(tokens_sent(&server).await.last().unwrap(), "Bearer token-3");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        3,
        "one failed refresh, one good one"
    );
    assert!(!tokens_sent(&server)
        .await
        .contains(&"Bearer token-2".to_owned()));
}
