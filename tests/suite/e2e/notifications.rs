//! The merchant's side of a completed payment: a verified session
//! notification to the session's `webhook_url`, then a verified invoice
//! notification to the invoice webhook subscriptions (signed another way,
//! with the subscription's secret), whose `invoice_id` fetches the invoice.

use super::{sandbox, session_request};
use psi::order_status::types::CorrespondenceFormat;
use psi::webhook::{InvoiceFormat, WebhookVerifier};
use psi_sandbox::control::types::{WebhookDelivery, WebhookDeliveryKind, WebhookSubscription};
use std::time::Duration;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The invoice subscription's own secret; the provider asks for at least
/// 64 characters.
const SUBSCRIPTION_SECRET: &str =
    "subscription-secret-6f0d2c1b9a8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928";

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
    sandbox
        .control()
        .subscribe_invoice_webhooks_with_secret(
            &format!("{}/invoices", receiver.uri()),
            SUBSCRIPTION_SECRET,
        )
        .await
        .unwrap();
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

    let sessions = WebhookVerifier::new(psi_sandbox::DEMO_WEBHOOK_SECRET);
    let invoices = WebhookVerifier::new(SUBSCRIPTION_SECRET);
    let received = received_bodies(&receiver, 2).await;
    let mut correspondence_id = None;
    let mut invoice = None;
    for request in &received {
        let signature = signature_of(request);
        // The receiver knows the kind by the address it is sent to.
        if request.url.path() == "/invoices" {
            assert!(
                sessions.verify(signature, &request.body).is_err(),
                "an invoice notification is not signed like a session's"
            );
            assert_eq!(
                WebhookVerifier::new(psi_sandbox::DEMO_WEBHOOK_SECRET)
                    .verify_invoice(signature, &request.body),
                Err(psi::webhook::WebhookError::SignatureMismatch),
                "signed with the subscription's secret"
            );
            let parsed = invoices
                .parse_invoice_notification(signature, &request.body)
                .expect("signed with the subscription's secret");
            assert_eq!(
                parsed.gateway_transaction_id.as_deref(),
                Some(transaction.as_str())
            );
            assert!(parsed.id.is_some());
            assert!(parsed.shop_transaction_id.is_some());
            let reference = parsed.gateway_payment_reference.as_deref().unwrap();
            assert!((10..=127).contains(&reference.len()), "{reference}");
            assert!(parsed.pdf_url.as_deref().unwrap().ends_with("/pdf"));
            correspondence_id = parsed.invoice_id.clone();
            invoice = Some(parsed);
        } else {
            assert_eq!(request.url.path(), "/hooks");
            let record = sessions
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

    // The same file from the address the notification gives, as given.
    let invoice = invoice.expect("a typed invoice notification");
    for (format, media_type) in [
        (InvoiceFormat::Pdf, "application/pdf"),
        (InvoiceFormat::Eml, "message/rfc822"),
    ] {
        let file = client.download_invoice(&invoice, format).await.unwrap();
        assert_eq!(file.headers().get("content-type").unwrap(), media_type);
    }
    // An address elsewhere gets no token and no call.
    let mut elsewhere = invoice.clone();
    elsewhere.pdf_url = Some(format!("{}/steal", receiver.uri()));
    let Err(refused) = client
        .download_invoice(&elsewhere, InvoiceFormat::Pdf)
        .await
    else {
        panic!("an address elsewhere was called");
    };
    assert!(
        refused
            .to_string()
            .contains("not under the order status API"),
        "{refused}"
    );
    assert!(refused.is_refused());

    // A notification changed on the way, or signed with another secret, is refused.
    for request in &received {
        let signature = signature_of(request);
        // A byte more that is not whitespace between tokens (an invoice
        // notification's compact form would drop that).
        let mut tampered = request.body.clone();
        tampered.push(b'x');
        let other = WebhookVerifier::new("another-secret");
        if request.url.path() == "/invoices" {
            assert!(invoices.verify_invoice(signature, &tampered).is_err());
            assert!(other.verify_invoice(signature, &request.body).is_err());
        } else {
            assert!(sessions.verify(signature, &tampered).is_err());
            assert!(other.verify(signature, &request.body).is_err());
        }
    }
}

/// The invoice notifications queued so far, as the control API lists them.
async fn invoice_deliveries(sandbox: &psi_sandbox::Sandbox) -> Vec<WebhookDelivery> {
    let all = sandbox.control().webhooks().await.unwrap();
    all.into_iter()
        .filter(|delivery| delivery.kind == WebhookDeliveryKind::Invoice)
        .collect()
}

/// A subscription of `url`, as the control API lists it.
fn subscription(url: &str) -> WebhookSubscription {
    WebhookSubscription {
        url: url.to_owned(),
    }
}

#[tokio::test]
async fn invoice_notifications_go_to_every_subscription_and_only_there() {
    let (sandbox, client) = sandbox().await;
    let control = sandbox.control();
    let session_receiver = "http://127.0.0.1:9/session-hook";
    let first = "http://127.0.0.1:9/invoices-1";
    let second = "http://127.0.0.1:9/invoices-2";

    // Without a subscription, a completion sends no invoice notification.
    let transaction = super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    assert!(invoice_deliveries(&sandbox).await.is_empty());

    control.subscribe_invoice_webhooks(first).await.unwrap();
    control.subscribe_invoice_webhooks(second).await.unwrap();
    assert_eq!(
        control.webhook_subscriptions().await.unwrap(),
        [subscription(first), subscription(second)]
    );
    let session = client
        .payment_page()
        .create_session()
        .body(session_request(session_receiver))
        .send()
        .await
        .unwrap()
        .into_inner();
    let second_transaction = control
        .complete_session(session.session_id.as_deref().unwrap(), "OPEN_INVOICE")
        .await
        .unwrap();
    // Queued before the control call answers: one per subscription.
    let invoices = invoice_deliveries(&sandbox).await;
    let urls: Vec<&str> = invoices.iter().map(|d| d.url.as_str()).collect();
    assert_eq!(urls, [first, second]);
    for delivery in &invoices {
        let body: serde_json::Value = serde_json::from_str(&delivery.body).unwrap();
        assert_eq!(body["gateway_transaction_id"], second_transaction.as_str());
        assert_ne!(body["gateway_transaction_id"], transaction.as_str());
    }
    let all = control.webhooks().await.unwrap();
    let to_session_url: Vec<&WebhookDelivery> = all
        .iter()
        .filter(|delivery| delivery.url == session_receiver)
        .collect();
    assert_eq!(to_session_url.len(), 1, "only the session notification");
    assert_eq!(to_session_url[0].kind, WebhookDeliveryKind::Session);

    // Cleared, nothing more is sent.
    control.clear_webhook_subscriptions().await.unwrap();
    assert_eq!(control.webhook_subscriptions().await.unwrap(), []);
    super::completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    assert_eq!(invoice_deliveries(&sandbox).await.len(), 2);

    // A subscription needs an absolute http(s) URL.
    let refused = control
        .subscribe_invoice_webhooks("ftp://example.com")
        .await;
    assert!(refused.unwrap_err().to_string().contains("400"));
}

/// A receiver answering 204 to every POST.
async fn accepting_receiver() -> MockServer {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&receiver)
        .await;
    receiver
}

/// The header `X-Signature` of a received notification.
fn signature_of(request: &wiremock::Request) -> &str {
    request
        .headers
        .get("x-signature")
        .expect("signed")
        .to_str()
        .expect("text")
}

/// Creates a session notified at `webhook_url`; answers its id.
async fn new_session(client: &psi::Client, webhook_url: &str) -> String {
    client
        .payment_page()
        .create_session()
        .body(session_request(webhook_url))
        .send()
        .await
        .unwrap()
        .into_inner()
        .session_id
        .unwrap()
}

#[tokio::test]
async fn a_resent_notification_is_a_second_signed_delivery_of_the_same_body() {
    let (sandbox, client) = sandbox().await;
    let control = sandbox.control();
    let receiver = accepting_receiver().await;
    let session = new_session(&client, &format!("{}/hooks", receiver.uri())).await;
    control
        .complete_session(&session, "OPEN_INVOICE")
        .await
        .unwrap();
    received_bodies(&receiver, 1).await;
    let log = control.webhooks().await.unwrap();
    let first = &log[0];
    assert_eq!(first.number, 0, "{log:?}");

    let resent = control.resend_webhook(0).await.unwrap();
    assert_eq!(resent.number, 1, "{resent:?}");
    assert_eq!(resent.body, first.body);
    assert_eq!(resent.url, first.url);
    assert_eq!(resent.kind, WebhookDeliveryKind::Session);

    let verifier = WebhookVerifier::new(psi_sandbox::DEMO_WEBHOOK_SECRET);
    let received = received_bodies(&receiver, 2).await;
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].body, received[1].body);
    for request in &received {
        verifier
            .verify(signature_of(request), &request.body)
            .unwrap();
    }
    // The receiver has the request before the sandbox records its answer:
    // wait for both to be recorded as delivered.
    let mut log = Vec::new();
    for _ in 0..100 {
        log = control.webhooks().await.unwrap();
        if log.len() == 2 && log.iter().all(|delivery| delivery.delivered) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(log.len(), 2);
    assert!(log.iter().all(|delivery| delivery.delivered), "{log:?}");
    // The one resent is left as it was: one attempt each.
    assert!(log.iter().all(|delivery| delivery.attempts.len() == 1));

    let unknown = control.resend_webhook(7).await.unwrap_err().to_string();
    assert!(unknown.contains("404"), "{unknown}");
}

#[tokio::test]
async fn session_and_invoice_notifications_on_demand_arrive_signed() {
    let (sandbox, client) = sandbox().await;
    let control = sandbox.control();
    let receiver = accepting_receiver().await;
    control
        .subscribe_invoice_webhooks(&format!("{}/invoices", receiver.uri()))
        .await
        .unwrap();
    let session = new_session(&client, &format!("{}/hooks", receiver.uri())).await;
    let transaction = control
        .complete_session(&session, "OPEN_INVOICE")
        .await
        .unwrap();
    let automatic = received_bodies(&receiver, 2).await;

    let queued = control.notify_session(&session).await.unwrap();
    assert_eq!(queued.kind, WebhookDeliveryKind::Session, "{queued:?}");
    assert_eq!(queued.session_status, "COMPLETED");
    let queued = control.notify_invoice(&transaction).await.unwrap();
    assert_eq!(queued.len(), 1, "one per subscription");
    assert_eq!(queued[0].kind, WebhookDeliveryKind::Invoice);

    // Subscribed without a secret: both kinds are keyed with the sandbox's.
    let verifier = WebhookVerifier::new(psi_sandbox::DEMO_WEBHOOK_SECRET);
    let received = received_bodies(&receiver, 4).await;
    let on_demand = &received[2..];
    let session_notification = on_demand
        .iter()
        .find(|request| request.url.path() == "/hooks")
        .expect("the session notification");
    let record = verifier
        .parse_session_notification(
            signature_of(session_notification),
            &session_notification.body,
        )
        .unwrap();
    assert_eq!(record.session_id.as_deref(), Some(session.as_str()));
    assert_eq!(record.transaction_id.as_deref(), Some(transaction.as_str()));
    let invoice_notification = on_demand
        .iter()
        .find(|request| request.url.path() == "/invoices")
        .expect("the invoice notification");
    let invoice = verifier
        .parse_invoice_notification(
            signature_of(invoice_notification),
            &invoice_notification.body,
        )
        .unwrap();
    assert_eq!(
        invoice.gateway_transaction_id.as_deref(),
        Some(transaction.as_str())
    );
    // The same shape as the automatic ones: the same bodies, but for the
    // invoice notification's event id, new for each event.
    for request in on_demand {
        let automatic = automatic
            .iter()
            .find(|first| first.url.path() == request.url.path())
            .unwrap();
        let mut first: serde_json::Value = serde_json::from_slice(&automatic.body).unwrap();
        let mut again: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
        if request.url.path() == "/invoices" {
            assert_ne!(first["id"], again["id"], "a new event");
            first["id"] = serde_json::Value::Null;
            again["id"] = serde_json::Value::Null;
        }
        assert_eq!(first, again, "{}", request.url.path());
    }

    let unknown = control.notify_session("no-such-session").await.unwrap_err();
    assert!(unknown.to_string().contains("404"), "{unknown}");
    let unknown = control
        .notify_invoice("12-00000000000000000")
        .await
        .unwrap_err();
    assert!(unknown.to_string().contains("404"), "{unknown}");
}

/// A failed attempt's retry is due on the sandbox clock: with the clock
/// moved back an hour it does not come after its 100 ms of backoff; moved
/// forward again, past the due time, it comes at once.
#[tokio::test]
async fn a_retry_comes_when_the_sandbox_clock_reaches_its_due_time() {
    use chrono::{DateTime, FixedOffset};
    let (sandbox, client) = sandbox().await;
    let control = sandbox.control();
    let receiver = MockServer::start().await;
    // The first attempt fails, answering late enough for the clock to be
    // moved back before it is recorded; every later one succeeds.
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_delay(Duration::from_millis(1500)))
        .up_to_n_times(1)
        .mount(&receiver)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&receiver)
        .await;
    let session = new_session(&client, &format!("{}/hooks", receiver.uri())).await;
    control
        .complete_session(&session, "OPEN_INVOICE")
        .await
        .unwrap();
    received_bodies(&receiver, 1).await;
    control.advance_clock(-3600).await.unwrap();

    let mut delivery = control.webhooks().await.unwrap().remove(0);
    for _ in 0..100 {
        if delivery.attempts.len() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        delivery = control.webhooks().await.unwrap().remove(0);
    }
    let first = delivery.attempts[0].clone();
    assert_eq!(first.status, Some(500), "{delivery:?}");
    let due: DateTime<FixedOffset> = delivery.next_attempt_at.expect("a due time");
    assert_eq!(due - first.at, chrono::Duration::milliseconds(100));

    // Well past the backoff in wall time, but the sandbox clock is an hour
    // before the due time: no retry.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(receiver.received_requests().await.unwrap().len(), 1);
    let delivery = control.webhooks().await.unwrap().remove(0);
    assert_eq!(delivery.attempts.len(), 1);
    assert!(!delivery.delivered);

    // Back past the due time: the retry comes at once.
    let advanced = std::time::Instant::now();
    control.advance_clock(3600).await.unwrap();
    received_bodies(&receiver, 2).await;
    assert!(
        advanced.elapsed() < Duration::from_secs(5),
        "{:?}",
        advanced.elapsed()
    );
    let mut delivery = control.webhooks().await.unwrap().remove(0);
    for _ in 0..100 {
        if delivery.delivered {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        delivery = control.webhooks().await.unwrap().remove(0);
    }
    assert!(delivery.delivered, "{delivery:?}");
    let attempts = &delivery.attempts;
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[1].status, Some(204));
    assert!(attempts[1].at >= due, "{delivery:?}");
    assert!(delivery.next_attempt_at.is_none(), "{delivery:?}");
}

/// A receiver's redirect is its answer, never followed: the sandbox's
/// client would otherwise carry a signed notification (and its retries) to
/// an address `--webhook-allow` never allowed.
#[tokio::test]
async fn a_redirecting_receiver_is_not_followed() {
    use wiremock::matchers::path;
    let (sandbox, client) = sandbox().await;
    let control = sandbox.control();
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hooks"))
        .respond_with(
            ResponseTemplate::new(307)
                .insert_header("location", format!("{}/elsewhere", receiver.uri())),
        )
        .mount(&receiver)
        .await;
    Mock::given(method("POST"))
        .and(path("/elsewhere"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&receiver)
        .await;
    let session = new_session(&client, &format!("{}/hooks", receiver.uri())).await;
    control
        .complete_session(&session, "OPEN_INVOICE")
        .await
        .unwrap();
    let mut log = Vec::new();
    for _ in 0..100 {
        log = control.webhooks().await.unwrap();
        if log
            .first()
            .is_some_and(|delivery| !delivery.attempts.is_empty())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!log[0].delivered, "a 307 is no delivery: {log:?}");
    let received = receiver.received_requests().await.unwrap();
    let paths: Vec<&str> = received.iter().map(|request| request.url.path()).collect();
    assert_eq!(paths, ["/hooks"], "the redirect was followed");
}
