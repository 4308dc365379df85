//! The retry policy's request timeout: a send that gets no answer, or an
//! answer whose body stops halfway, ends with a timeout error (each send
//! counted), and a streamed answer (an invoice PDF) too. They hold any
//! other way of keeping the timeout to what reqwest's own does.

use super::{mount_token_endpoint, pay_later_status, NEVER, TRANSACTION};
use psi::{Client, Credentials, Environment, RetryPolicy};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use wiremock::MockServer;

const TIMEOUT: Duration = Duration::from_millis(300);

/// What the server does with each request.
#[derive(Clone, Copy)]
enum Answer {
    /// Reads the request and never answers.
    Nothing,
    /// Sends the head and part of a body of `Content-Length: 100`, then
    /// nothing more.
    Half(&'static str),
}

/// A server on a real socket that reads each request's head, counts it and
/// answers `answer`, holding the connection open (tokens come from the
/// usual mock token endpoint, on a server of its own); its client allows
/// `attempts` sends per call.
async fn stalling(answer: Answer, attempts: u32) -> Stalling {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let calls = counted.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buffer = [0; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    let Ok(read @ 1..) = socket.read(&mut buffer).await else {
                        return;
                    };
                    head.extend_from_slice(&buffer[..read]);
                }
                calls.fetch_add(1, Ordering::SeqCst);
                if let Answer::Half(content_type) = answer {
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: 100\r\n\r\n"
                    );
                    socket.write_all(head.as_bytes()).await.unwrap();
                    socket.write_all(b"{\"transaction_id\":").await.unwrap();
                }
                // Hold the connection open, answering nothing more.
                let _ = socket.read(&mut buffer).await;
            });
        }
    });
    let tokens = MockServer::start().await;
    mount_token_endpoint(&tokens, 1800).await;
    let client = Client::builder()
        .environment(Environment::new(&url, &url, &tokens.uri()).unwrap())
        .credentials(Credentials::new("merchant-1", "secret"))
        .retry(
            RetryPolicy::default()
                .with_max_attempts(attempts)
                .with_request_timeout(TIMEOUT)
                .with_initial_backoff(Duration::from_millis(5))
                .with_max_backoff(Duration::from_millis(5)),
        )
        .build()
        .unwrap();
    Stalling {
        client,
        calls,
        _tokens: tokens,
    }
}

/// A client of a stalling server, and the requests that server has seen.
struct Stalling {
    client: Client,
    calls: Arc<AtomicUsize>,
    /// Answers the token requests for as long as the test runs.
    _tokens: MockServer,
}

/// The time a timed-out call took: at least its sends' timeouts (none cut
/// short), and well under `NEVER` (the slack is for a busy test machine).
fn assert_took(started: Instant, sends: u32) {
    let took = started.elapsed();
    assert!(took >= TIMEOUT * sends, "{took:?}");
    assert!(took < TIMEOUT * sends + Duration::from_secs(4), "{took:?}");
}

/// The pay later status against a server that answers `answer`, with
/// `attempts` allowed: the timeout error (its `reqwest::Error`) and the
/// number of sends the server saw.
async fn timed_out_status(answer: Answer, attempts: u32) -> (reqwest::Error, usize) {
    let server = stalling(answer, attempts).await;
    let started = Instant::now();
    let error = pay_later_status(&server.client).await.unwrap_err();
    assert!(format!("{error}").starts_with("timeout"), "{error}");
    let psi::Error::Timeout(error) = error else {
        panic!("not a timeout: {error:?}");
    };
    assert!(error.is_timeout(), "{error:?}");
    assert_took(started, attempts);
    (error, server.calls.load(Ordering::SeqCst))
}

#[tokio::test]
async fn a_send_without_an_answer_times_out_and_is_retried_as_the_policy_allows() {
    let (error, sends) = timed_out_status(Answer::Nothing, 3).await;
    assert_eq!(sends, 3, "one send per attempt");
    assert_eq!(
        error.url().map(|url| url.path()),
        Some(format!("/order/paylater/v1/{TRANSACTION}/status").as_str()),
        "the error names the call's URL"
    );
}

#[tokio::test]
async fn a_body_that_stops_halfway_times_out() {
    let (_, sends) = timed_out_status(Answer::Half("application/json"), 1).await;
    assert_eq!(sends, 1);
}

#[tokio::test]
async fn a_streamed_invoice_that_stops_halfway_times_out() {
    use futures_util::StreamExt;
    let server = stalling(Answer::Half("application/pdf"), 1).await;
    let started = Instant::now();
    let answer = server
        .client
        .order_status()
        .get_invoice_correspondence()
        .transaction_id(TRANSACTION)
        .correspondence_id("invoice-1")
        .format("pdf")
        .send()
        .await
        .unwrap();
    let mut stream = answer.into_inner();
    let read = async {
        while let Some(chunk) = stream.next().await {
            if let Err(failed) = chunk {
                return Some(failed);
            }
        }
        None
    };
    let error = tokio::time::timeout(NEVER, read)
        .await
        .expect("reading ends by the request timeout")
        .expect("the stream ends with an error");
    assert!(error.is_timeout(), "{error:?}");
    assert_took(started, 1);
}
