use super::*;

const ADDRESSES: [&str; 2] = ["https://api.psi.test/", "https://auth.psi.test/"];

#[test]
fn no_proxy_setting_leaves_every_address_to_psi() {
    let matcher = Matcher::builder().build();
    assert!(!any_proxied(&matcher, ADDRESSES));
}

#[test]
fn a_proxy_for_any_address_hands_the_calls_to_reqwest() {
    let matcher = Matcher::builder().https("http://proxy.local:3128").build();
    assert!(any_proxied(&matcher, ADDRESSES));
    // Not when NO_PROXY exempts every address.
    let matcher = Matcher::builder()
        .https("http://proxy.local:3128")
        .no("psi.test")
        .build();
    assert!(!any_proxied(&matcher, ADDRESSES));
    // A proxy for plain HTTP only does not touch HTTPS addresses.
    let matcher = Matcher::builder().http("http://proxy.local:3128").build();
    assert!(!any_proxied(&matcher, ADDRESSES));
    assert!(any_proxied(&matcher, ["http://127.0.0.1:8080/"]));
}

#[cfg(any(feature = "rustls", feature = "rustls-graviola"))]
mod tls {
    use super::*;
    use crate::tls::test_server::{serve_once, BODY, CERT};
    use rustls::crypto::CryptoProvider;
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::CertificateDer;
    use std::sync::Arc;
    use std::time::Duration;

    /// The cryptography the build's TLS feature brings.
    fn provider() -> Arc<CryptoProvider> {
        #[cfg(feature = "rustls")]
        return Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        #[cfg(not(feature = "rustls"))]
        return Arc::new(rustls_graviola::default_provider());
    }

    /// A GET of `https://localhost:{port}/` through `transport`.
    async fn get_localhost(transport: &Transport, port: u16) -> reqwest::Result<reqwest::Response> {
        let url = format!("https://localhost:{port}/").parse().unwrap();
        let request = reqwest::Request::new(reqwest::Method::GET, url);
        transport.execute(request, Duration::from_secs(10)).await
    }

    #[test]
    fn with_rustls_and_no_proxy_psi_sends_itself() {
        let transport = own_transport(ADDRESSES, &RetryPolicy::default()).unwrap();
        // Unless this machine's own proxy settings cover these addresses.
        if !any_proxied(&Matcher::from_system(), ADDRESSES) {
            assert!(transport.is_some());
        }
    }

    #[tokio::test]
    async fn the_transport_talks_tls_to_a_server_its_verifier_trusts() {
        let port = serve_once(provider()).await;
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_slice(CERT.as_bytes()).unwrap())
            .unwrap();
        let trusting = rustls::client::WebPkiServerVerifier::builder_with_provider(
            Arc::new(roots),
            provider(),
        )
        .build()
        .unwrap();
        let transport = https_transport(provider(), trusting, &RetryPolicy::default()).unwrap();
        let answer = get_localhost(&transport, port).await.unwrap();
        assert_eq!(answer.status(), 200);
        assert_eq!(answer.text().await.unwrap(), BODY);
    }

    #[tokio::test]
    async fn psi_s_own_transport_refuses_a_certificate_the_platform_does_not_trust() {
        // The test above passes because of its trust, not despite it: with
        // the platform's verifier the self-signed certificate is refused.
        #[cfg(feature = "rustls-graviola")]
        crate::tls::graviola::install_default().unwrap();
        let port = serve_once(provider()).await;
        let transport = rustls_transport(&RetryPolicy::default()).unwrap();
        let error = get_localhost(&transport, port).await.unwrap_err();
        assert!(error.is_connect(), "{error:?}");
        assert!(
            format!("{error:?}").contains("InvalidCertificate"),
            "{error:?}"
        );
    }
}
