//! A one-request HTTPS server on loopback for the TLS tests: it presents a
//! self-signed certificate for `localhost`.
//!
//! The certificate and key (P-256, valid until 2126) were made once with
//! `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 ...
//! -subj /CN=localhost -addext subjectAltName=DNS:localhost`.

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub(crate) const CERT: &str = include_str!("localhost.cert.pem");
const KEY: &str = include_str!("localhost.key.pem");
pub(crate) const BODY: &str = "hello over tls";

/// Serves one HTTPS request on a loopback port, with `provider`'s
/// cryptography, and returns the port. A client that refuses the
/// certificate ends the connection; the server then just stops.
pub(crate) async fn serve_once(provider: Arc<CryptoProvider>) -> u16 {
    let cert = CertificateDer::from_pem_slice(CERT.as_bytes()).unwrap();
    let key = PrivateKeyDer::from_pem_slice(KEY.as_bytes()).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(provider)
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
        let Ok(mut tls) = acceptor.accept(tcp).await else {
            return;
        };
        // Read the request head; these tests' GETs have no body.
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
