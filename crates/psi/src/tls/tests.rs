//! psi's client builder with `rustls-graviola` completes a real TLS
//! handshake: a local rustls server (itself on Graviola) presents a
//! self-signed certificate for `localhost` that the client trusts.
//!
//! The certificate and key (P-256, valid until 2126) were made once with
//! `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 ...
//! -subj /CN=localhost -addext subjectAltName=DNS:localhost`.

use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CERT: &str = include_str!("localhost.cert.pem");
const KEY: &str = include_str!("localhost.key.pem");
const BODY: &str = "hello over graviola";

/// Serves one HTTPS request on a loopback port and returns the port.
async fn serve_once() -> u16 {
    let cert = CertificateDer::from_pem_slice(CERT.as_bytes()).unwrap();
    let key = PrivateKeyDer::from_pem_slice(KEY.as_bytes()).unwrap();
    let config =
        rustls::ServerConfig::builder_with_provider(Arc::new(rustls_graviola::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut tls = acceptor.accept(tcp).await.unwrap();
        // Read the request head; this test's GET has no body.
        let mut head = Vec::new();
        let mut buffer = [0u8; 1024];
        while !head.windows(4).any(|window| window == b"\r\n\r\n") {
            let read = tls.read(&mut buffer).await.unwrap();
            assert!(read > 0, "the client closed before sending its request");
            head.extend_from_slice(&buffer[..read]);
        }
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{BODY}",
            BODY.len()
        );
        tls.write_all(response.as_bytes()).await.unwrap();
        tls.shutdown().await.unwrap();
    });
    port
}

#[tokio::test]
async fn a_client_from_the_graviola_builder_talks_tls_to_a_local_server() {
    assert_eq!(
        super::graviola::missing_cpu_features(),
        Vec::<&str>::new(),
        "this machine cannot run Graviola; the test has nothing to show here"
    );
    let port = serve_once().await;
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
    let port = serve_once().await;
    let http = super::client_builder().unwrap().build().unwrap();
    let error = http
        .get(format!("https://localhost:{port}/"))
        .send()
        .await
        .unwrap_err();
    assert!(error.is_connect(), "{error:?}");
}
