//! A transaction status lookup answers the same bytes whether its id is
//! sent plainly or percent-encoded, for every outcome (found, unknown, no
//! or wrong token, an armed fault), and what the router decides (a
//! refused id, a trailing slash, HEAD) answers as documented.

use super::{store_transaction, token};
use psi_sandbox::Sandbox;
use serde_json::{json, Value};

const TRANSACTION: &str = "12-00000000000000042";
/// The same id with its dash percent-encoded: the router decodes it.
const ENCODED: &str = "12%2D00000000000000042";
const LOOKUP: &str = "/transaction/status/v2/transactions/";

/// Status, Content-Type and body of one request.
async fn send(request: reqwest::RequestBuilder) -> (u16, String, Vec<u8>) {
    let response = request.send().await.expect("an answer");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = response.bytes().await.expect("a body").to_vec();
    (status, content_type, body)
}

/// The answers to a GET of `id` plainly and of the same id encoded,
/// with `token` if any.
async fn both(
    sandbox: &Sandbox,
    (plain, encoded): (&str, &str),
    token: Option<&str>,
) -> [(u16, String, Vec<u8>); 2] {
    let http = reqwest::Client::new();
    let get = |id: &str| {
        let request = http.get(format!("{}{LOOKUP}{id}", sandbox.url()));
        match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    };
    [send(get(plain)).await, send(get(encoded)).await]
}

fn reasons(body: &[u8]) -> Value {
    serde_json::from_slice::<Value>(body).unwrap()["decline"]["reasons"].clone()
}

#[tokio::test]
async fn a_lookup_answers_the_same_with_its_id_plain_or_encoded() {
    let sandbox = Sandbox::start().await.unwrap();
    store_transaction(&sandbox, TRANSACTION).await;
    let control = sandbox.control();
    let url = sandbox.url().to_owned();
    let status_token = token(&sandbox, &format!("{url}{}", LOOKUP.trim_end_matches('/'))).await;
    let other_token = token(&sandbox, &format!("{url}/paylater")).await;
    let ids = (TRANSACTION, ENCODED);

    let [direct, routed] = both(&sandbox, ids, Some(&status_token)).await;
    assert_eq!(direct.0, 200, "{}", String::from_utf8_lossy(&direct.2));
    assert_eq!(direct.1, "application/json");
    let answer: Value = serde_json::from_slice(&direct.2).unwrap();
    assert_eq!(answer["gateway_transaction_id"], TRANSACTION);
    assert_eq!(direct, routed);

    let unknown = ("12-00000000000000043", "12%2D00000000000000043");
    let [direct, routed] = both(&sandbox, unknown, Some(&status_token)).await;
    assert_eq!(direct.0, 404);
    assert_eq!(direct, routed);

    let [direct, routed] = both(&sandbox, ids, None).await;
    assert_eq!(direct.0, 401);
    assert_eq!(direct, routed);
    let [direct, routed] = both(&sandbox, ids, Some(&other_token)).await;
    assert_eq!(direct.0, 401, "{}", String::from_utf8_lossy(&direct.2));
    assert_eq!(direct, routed);

    // Faults are the handler's own: both ways count them alike.
    control
        .fail_next("getTransactionStatus", 503, 2)
        .await
        .unwrap();
    let [direct, routed] = both(&sandbox, ids, Some(&status_token)).await;
    assert_eq!((direct.0, routed.0), (503, 503));
    assert_eq!(direct, routed);
    control
        .answer_after_processing("getTransactionStatus", 202, Some(json!({"x": 1})), 2)
        .await
        .unwrap();
    let [direct, routed] = both(&sandbox, ids, Some(&status_token)).await;
    assert_eq!((direct.0, direct.2.as_slice()), (202, &b"{\"x\":1}"[..]));
    assert_eq!(direct, routed);
    let [direct, _] = both(&sandbox, ids, Some(&status_token)).await;
    assert_eq!(direct.0, 200, "the faults are spent");

    // What only the router decides.
    let http = reqwest::Client::new();
    let refused = send(
        http.get(format!("{url}{LOOKUP}12%00"))
            .bearer_auth(&status_token),
    )
    .await;
    assert_eq!(refused.0, 404);
    assert_eq!(reasons(&refused.2), json!(["UNKNOWN_ID"]));
    let slash = send(
        http.get(format!("{url}{LOOKUP}{TRANSACTION}/"))
            .bearer_auth(&status_token),
    )
    .await;
    assert_eq!(slash.0, 404);
    assert!(
        String::from_utf8_lossy(&slash.2).contains("UNKNOWN_PATH"),
        "{}",
        String::from_utf8_lossy(&slash.2)
    );
    let head = send(
        http.head(format!("{url}{LOOKUP}{TRANSACTION}"))
            .bearer_auth(&status_token),
    )
    .await;
    assert_eq!((head.0, head.2.len()), (200, 0));
}
