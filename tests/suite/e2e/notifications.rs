//! The merchant's side of a completed payment: a verified session
//! notification, then a verified invoice notification whose correspondence
//! id fetches the invoice.

use super::{sandbox, session_request};
use psi::order_status::types::CorrespondenceFormat;
use psi::webhook::WebhookVerifier;
use std::time::Duration;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn received_bodies(receiver: &MockServer, wanted: usize) -> Vec<wiremock::Request> {
    for _ in 0..100 {
        let received = receiver.received_requests().await.unwrap();
        if received.len() >= wanted {
            return received;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("fewer than {wanted} notifications arrived");
}

#[tokio::test]
async fn completion_sends_a_session_and_an_invoice_notification_that_verify() {
    let (sandbox, client) = sandbox().await;
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&receiver)
        .await;
    let session = client
        .payment_page()
        .create_session()
        .body(session_request(&format!("{}/hooks", receiver.uri())))
        .send()
        .await
        .unwrap()
        .into_inner();
    let transaction = sandbox
        .control()
        .complete_session(session.session_id.as_deref().unwrap(), "OPEN_INVOICE")
        .await
        .unwrap();

    let verifier = WebhookVerifier::new(psi_sandbox::DEMO_WEBHOOK_SECRET);
    let received = received_bodies(&receiver, 2).await;
    let mut correspondence_id = None;
    for request in &received {
        let signature = request
            .headers
            .get("x-signature")
            .unwrap()
            .to_str()
            .unwrap();
        verifier
            .verify(signature, &request.body)
            .expect("every notification is signed");
        let json: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
        if let Some(id) = json["correspondence_id"].as_str() {
            assert_eq!(json["transaction_id"], transaction.as_str());
            assert!(json["pdf_url"].as_str().unwrap().ends_with("/pdf"));
            correspondence_id = Some(id.to_owned());
        } else {
            let record = verifier
                .parse_session_notification(signature, &request.body)
                .unwrap();
            assert_eq!(record.transaction_id.as_deref(), Some(transaction.as_str()));
        }
    }
    let correspondence_id = correspondence_id.expect("an invoice notification");

    let pdf = client
        .order_status()
        .get_invoice_correspondence()
        .transaction_id(&transaction)
        .correspondence_id(&correspondence_id)
        .format(CorrespondenceFormat::Pdf)
        .send()
        .await
        .unwrap();
    assert_eq!(
        pdf.headers().get("content-type").unwrap(),
        "application/pdf"
    );

    // A notification changed on the way, or signed with another secret, is refused.
    let first = &received[0];
    let signature = first.headers.get("x-signature").unwrap().to_str().unwrap();
    let mut tampered = first.body.clone();
    tampered.push(b' ');
    assert!(verifier.verify(signature, &tampered).is_err());
    assert!(WebhookVerifier::new("another-secret")
        .verify(signature, &first.body)
        .is_err());
}
