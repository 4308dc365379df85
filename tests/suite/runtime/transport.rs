//! Which way psi's calls go out: through psi's own transport when psi built
//! the HTTP client, through the caller's reqwest client when one was given;
//! and how a send that got no answer reads either way (a `reqwest::Error`
//! that the retry policy and `psi::Error` classify alike).

use super::{mount_token_endpoint, pay_later_status, CLIENT_SECRET, TRANSACTION};
use psi::{Client, Credentials, Environment, RetryPolicy};
use psi_runtime::SendError;
use wiremock::matchers::{any, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A base URL nothing listens on (the listener is dropped; a dropped
/// MockServer would go back to wiremock's pool and keep answering).
fn dead_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

/// The pay later status of a dead server, one attempt, through psi's own
/// client or through `http_client`: the call's error.
async fn dead_status(http_client: Option<reqwest::Client>) -> psi::Error {
    let tokens = MockServer::start().await;
    mount_token_endpoint(&tokens, 1800).await;
    let dead = dead_url();
    let mut builder = Client::builder()
        .environment(Environment::new(&dead, &dead, &tokens.uri()).unwrap())
        .credentials(Credentials::new("merchant-1", CLIENT_SECRET))
        .retry(RetryPolicy::none());
    if let Some(http_client) = http_client {
        builder = builder.http_client(http_client);
    }
    pay_later_status(&builder.build().unwrap())
        .await
        .unwrap_err()
}

#[tokio::test]
async fn psi_s_own_client_sends_through_its_transport() {
    let error = dead_status(None).await;
    let psi::Error::Transport(transport) = &error else {
        panic!("not a transport error: {error:?}");
    };
    assert!(transport.is_connect(), "{transport:?}");
    assert!(
        matches!(SendError::of(transport), Some(SendError::Failed(_))),
        "{transport:?}"
    );
    let url = transport.url().expect("the error names the call's URL");
    assert_eq!(
        url.path(),
        format!("/order/paylater/v1/{TRANSACTION}/status")
    );
    // What happened, not reqwest's "error decoding response body".
    let text = error.to_string();
    assert!(
        text.starts_with(&format!(
            "transport: error sending request for url ({url}): "
        )),
        "{text}"
    );
    assert!(text.contains("Connect"), "{text}");
}

#[tokio::test]
async fn a_client_of_the_caller_sends_through_reqwest() {
    let error = dead_status(Some(psi::http_client_builder().build().unwrap())).await;
    let psi::Error::Transport(transport) = &error else {
        panic!("not a transport error: {error:?}");
    };
    assert!(transport.is_connect(), "{transport:?}");
    assert!(transport.is_request(), "reqwest's own error: {transport:?}");
    assert!(SendError::of(transport).is_none(), "{transport:?}");
    assert_eq!(error.to_string(), format!("transport: {transport}"));
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
    let error = pay_later_status(&super::client(&server)).await.unwrap_err();
    assert!(
        matches!(&error, psi::Error::UnexpectedStatus(answer) if answer.status() == 302),
        "{error:?}"
    );
}
