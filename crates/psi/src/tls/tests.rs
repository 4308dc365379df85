//! psi's client builder with `rustls-graviola` completes a real TLS
//! handshake: a local rustls server (itself on Graviola) presents a
//! self-signed certificate for `localhost` that the client trusts.

use super::test_server::{serve_once, BODY, CERT};
use std::sync::Arc;

/// The test server on Graviola, as the client.
async fn serve_once_on_graviola() -> u16 {
    serve_once(Arc::new(rustls_graviola::default_provider())).await
}

#[tokio::test]
async fn a_client_from_the_graviola_builder_talks_tls_to_a_local_server() {
    assert_eq!(
        super::graviola::missing_cpu_features(),
        Vec::<&str>::new(),
        "this machine cannot run Graviola; the test has nothing to show here"
    );
    let port = serve_once_on_graviola().await;
    let http = super::client_builder()
        .unwrap()
        .add_root_certificate(reqwest::Certificate::from_pem(CERT.as_bytes()).unwrap())
        .build()
        .unwrap();
    let response = http
        .get(format!("https://localhost:{port}/"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), BODY);
}

#[tokio::test]
async fn the_graviola_builder_refuses_an_untrusted_certificate() {
    // Without the certificate among its roots the client must fail the
    // handshake: the test above passes because of the trust, not despite it.
    let port = serve_once_on_graviola().await;
    let http = super::client_builder().unwrap().build().unwrap();
    let error = http
        .get(format!("https://localhost:{port}/"))
        .send()
        .await
        .unwrap_err();
    assert!(error.is_connect(), "{error:?}");
}
