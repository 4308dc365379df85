//! The transport against servers on real sockets: what an answer carries
//! through it, and what each way of getting no answer looks like to the
//! code that reads reqwest's errors (the retry policy, `psi::Error`).

use super::*;
use hyper_util::client::legacy::connect::HttpConnector;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Long enough for a loopback answer on a busy machine; short enough for
/// the tests that wait for it to pass.
const TIMEOUT: Duration = Duration::from_millis(300);

fn transport() -> Transport {
    Transport::new(HttpConnector::new())
}

/// A server that reads one request head per connection and writes `answer`
/// (as raw bytes), then holds the connection open; its base URL.
async fn answering(answer: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buffer = [0; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    let Ok(read @ 1..) = socket.read(&mut buffer).await else {
                        return;
                    };
                    head.extend_from_slice(&buffer[..read]);
                }
                socket.write_all(answer).await.unwrap();
                let _ = socket.read(&mut buffer).await;
            });
        }
    });
    url
}

fn get(url: &str) -> Request {
    Request::new(reqwest::Method::GET, url.parse().unwrap())
}

#[tokio::test]
async fn an_answer_keeps_its_status_headers_body_and_url() {
    let base = answering(
        b"HTTP/1.1 201 Created\r\ncontent-type: application/json\r\nx-seen: yes\r\ncontent-length: 11\r\n\r\n{\"ok\":true}",
    )
    .await;
    let url = format!("{base}/order/paylater/v1/12-3/status?x=1");
    let answer = transport().execute(get(&url), TIMEOUT).await.unwrap();
    assert_eq!(answer.status(), 201);
    assert_eq!(answer.headers()["x-seen"], "yes");
    assert_eq!(answer.url().as_str(), url);
    assert_eq!(answer.bytes().await.unwrap(), "{\"ok\":true}");
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_error_for_the_call_url() {
    // Nothing listens on this port once the listener is dropped.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/status", listener.local_addr().unwrap());
    drop(listener);
    let error = transport().execute(get(&url), TIMEOUT).await.unwrap_err();
    assert!(error.is_connect(), "{error:?}");
    assert!(!error.is_timeout(), "{error:?}");
    assert_eq!(error.url().map(Url::as_str), Some(url.as_str()));
    assert!(
        matches!(SendError::of(&error), Some(SendError::Failed(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn no_answer_before_the_timeout_is_a_timeout() {
    // Reads the request and never answers.
    let base = answering(b"").await;
    let error = transport().execute(get(&base), TIMEOUT).await.unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
    assert!(!error.is_connect(), "{error:?}");
    assert!(
        matches!(SendError::of(&error), Some(SendError::TimedOut)),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_body_that_stops_halfway_times_out_when_read() {
    let base =
        answering(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"transaction_id\":").await;
    let answer = transport().execute(get(&base), TIMEOUT).await.unwrap();
    assert_eq!(answer.status(), 200, "the head comes in time");
    let error = answer.bytes().await.unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
}

#[tokio::test]
async fn a_request_timeout_of_its_own_wins_over_the_default() {
    let base = answering(b"").await;
    // The call's default would be a minute; the request allows 50 ms.
    let mut request = get(&base);
    *request.timeout_mut() = Some(Duration::from_millis(50));
    let transport = transport();
    let call = transport.execute(request, Duration::from_secs(60));
    let error = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the request's own timeout ends the call")
        .unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
}

#[tokio::test]
async fn a_body_sent_goes_out_with_its_length() {
    // Echoes the request it read as the answer's body.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/sessions", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut seen = Vec::new();
        let mut buffer = [0; 4096];
        while !seen.ends_with(b"{\"amount\":\"10.00\"}") {
            let read = socket.read(&mut buffer).await.unwrap();
            seen.extend_from_slice(&buffer[..read]);
        }
        let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", seen.len());
        socket.write_all(head.as_bytes()).await.unwrap();
        socket.write_all(&seen).await.unwrap();
    });
    let mut request = Request::new(reqwest::Method::POST, url.parse().unwrap());
    *request.body_mut() = Some(reqwest::Body::from("{\"amount\":\"10.00\"}"));
    let answer = transport().execute(request, TIMEOUT).await.unwrap();
    let seen = String::from_utf8(answer.bytes().await.unwrap().to_vec()).unwrap();
    assert!(seen.starts_with("POST /sessions HTTP/1.1\r\n"), "{seen}");
    assert!(seen.contains("content-length: 18\r\n"), "{seen}");
    assert!(seen.contains("host: 127.0.0.1:"), "{seen}");
}

#[test]
fn a_send_under_way_is_small() {
    // Every call's future carries one: the answer future and the boxed
    // deadline, or the boxed failure.
    let size = std::mem::size_of::<Sending>();
    assert!(size <= 32, "a send under way is {size} bytes");
}
