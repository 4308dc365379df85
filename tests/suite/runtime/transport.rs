//! One way to the network: every call is sent by reqwest, refused calls and
//! failures come back as the typed error that prints what happened, no
//! redirect is followed, no dot segment is sent, and a token outage is one
//! fetch however many calls wait for it.

use super::{client, mount_token_endpoint, pay_later_status, CLIENT_SECRET, TRANSACTION};
use psi::{Client, Credentials, Environment, RetryPolicy};
use std::time::Duration;
use wiremock::matchers::{any, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A base URL nothing listens on (the listener is dropped; a dropped
/// MockServer would go back to wiremock's pool and keep answering).
fn dead_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

/// A client of `api_url` for the APIs and `auth_url` for tokens, one attempt.
fn client_of(api_url: &str, auth_url: &str) -> Client {
    Client::builder()
        .environment(Environment::new(api_url, api_url, auth_url).unwrap())
        .credentials(Credentials::new("merchant-1", CLIENT_SECRET))
        .retry(RetryPolicy::none())
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_refused_connection_is_a_transport_error_that_says_so() {
    let tokens = MockServer::start().await;
    mount_token_endpoint(&tokens, 1800).await;
    let dead = dead_url();
    let client = client_of(&dead, &tokens.uri());
    // What `send()` returns, printed as the README's `?` into `Box<dyn Error>` prints it.
    let error = client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("pay-later getPayLaterStatus got no answer after 1 attempt: "),
        "{text}"
    );
    assert!(text.contains("onnect"), "{text}");
    for smuggled in ["999", "Unexpected Response", "x-psi-"] {
        assert!(!text.contains(smuggled), "{text}");
    }
    let psi_runtime::Error::Transport(failed) = &error else {
        panic!("not a transport error: {error:?}");
    };
    assert!(failed.source.is_connect(), "{error:?}");
    assert!(!failed.source.is_decode(), "{error:?}");

    // The facade's one error type reads the same.
    let error = pay_later_status(&client).await.unwrap_err();
    let psi::Error::Transport(transport) = &error else {
        panic!("not a transport error: {error:?}");
    };
    assert!(transport.is_connect(), "{transport:?}");
    let url = transport.url().expect("the error names the call's URL");
    assert_eq!(
        url.path(),
        format!("/order/paylater/v1/{TRANSACTION}/status")
    );
}

#[tokio::test]
async fn a_token_server_out_of_reach_prints_as_a_token_failure() {
    let api = MockServer::start().await;
    let client = client_of(&api.uri(), &dead_url());
    let error = client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(TRANSACTION)
        .send()
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("pay-later getPayLaterStatus refused before sending: token for "),
        "{text}"
    );
    assert!(text.contains("could not be reached"), "{text}");
    assert!(!text.contains("999"), "{text}");
    let psi::Error::Token(token) = psi::Error::from(error) else {
        panic!("not a token error");
    };
    assert_eq!(token.kind(), psi::TokenErrorKind::Transport);
    assert!(api.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_redirect_is_reported_as_it_came_not_followed() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    Mock::given(method("GET"))
        .and(path(format!("/order/paylater/v1/{TRANSACTION}/status")))
        .respond_with(ResponseTemplate::new(302).insert_header("location", "/elsewhere"))
        .mount(&server)
        .await;
    // Checked when the server is dropped: nothing went there.
    Mock::given(any())
        .and(path("/elsewhere"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&server)
        .await;
    let error = pay_later_status(&client(&server)).await.unwrap_err();
    assert!(
        matches!(&error, psi::Error::UnexpectedStatus(answer) if answer.status() == 302),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_307_from_the_token_server_fails_the_call_and_the_secret_goes_nowhere() {
    let elsewhere = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&elsewhere)
        .await;
    let tokens = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/oauth/token"))
        .respond_with(
            ResponseTemplate::new(307)
                .insert_header("location", format!("{}/oauth/token", elsewhere.uri())),
        )
        .mount(&tokens)
        .await;
    let api = MockServer::start().await;
    let error = pay_later_status(&client_of(&api.uri(), &tokens.uri()))
        .await
        .unwrap_err();
    let psi::Error::Token(token) = &error else {
        panic!("not a token error: {error:?}");
    };
    assert_eq!(token.status(), Some(307));
    assert!(error.to_string().contains("redirect 307"), "{error}");
    assert!(!format!("{error} {error:?}").contains(CLIENT_SECRET));
    assert!(elsewhere.received_requests().await.unwrap().is_empty());
    assert!(api.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn dot_segments_and_empty_ids_are_never_sent() {
    let server = MockServer::start().await;
    mount_token_endpoint(&server, 1800).await;
    let client = client(&server);
    for id in ["..", ".", ""] {
        let error = client
            .transaction_status()
            .get_transaction_status()
            .transaction_id(id)
            .send()
            .await
            .unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("path parameter `transaction_id`"),
            "{id:?}: {text}"
        );
        assert!(error.is_refused(), "{id:?}");
    }
    assert!(
        server.received_requests().await.unwrap().is_empty(),
        "nothing was sent, not even a token request"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_outage_is_one_fetch_for_fifty_calls_and_they_all_fail_soon() {
    let tokens = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/oauth/token"))
        .respond_with(ResponseTemplate::new(503).set_delay(Duration::from_millis(200)))
        .mount(&tokens)
        .await;
    let api = MockServer::start().await;
    let client = Client::builder()
        .environment(Environment::new(&api.uri(), &api.uri(), &tokens.uri()).unwrap())
        .credentials(Credentials::new("merchant-1", CLIENT_SECRET))
        .build()
        .unwrap();
    let calls: Vec<_> = (0..50)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { pay_later_status(&client).await })
        })
        .collect();
    for call in calls {
        let error = call.await.unwrap().unwrap_err();
        assert!(matches!(error, psi::Error::Token(_)), "{error:?}");
    }
    // One fetch (a POST answered 503 is not sent again: it may have
    // arrived), whose failure every waiting call got: none waited in turn
    // for a fetch of its own.
    let fetches = tokens.received_requests().await.unwrap().len();
    assert_eq!(fetches, 1, "token requests for 50 calls");
    assert!(api.received_requests().await.unwrap().is_empty());
}

#[test]
fn plain_http_to_another_host_needs_an_opt_in() {
    let environment = || {
        Environment::new(
            "http://pay.example.com",
            "https://api.example.com",
            "https://auth.example.com",
        )
        .unwrap()
    };
    let credentials = || Credentials::new("merchant-1", CLIENT_SECRET);
    let error = Client::builder()
        .environment(environment())
        .credentials(credentials())
        .build()
        .unwrap_err();
    assert_eq!(error.setting(), "base_url");
    Client::builder()
        .environment(environment())
        .credentials(credentials())
        .allow_insecure_http()
        .build()
        .unwrap();
}
