//! The merchant's webhook endpoints: every notification's signature is
//! verified on the raw body before a word of it is believed. The service
//! signs its two kinds differently, so each has its own address and its
//! own secret: session notifications (to the session's `webhook_url`, the
//! webhook secret) and invoice notifications (to the webhook
//! subscription's URL, the subscription's secret).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use psi::payment_page::types::SessionRecord;
use psi::webhook::{InvoiceNotification, WebhookVerifier, SIGNATURE_HEADER};
use std::collections::HashSet;
use std::sync::{Arc, Mutex as SyncMutex};
use std::time::Duration;
use tokio::sync::{mpsc, Mutex};

struct Inbox {
    sessions_verifier: WebhookVerifier,
    invoices_verifier: WebhookVerifier,
    sessions: mpsc::UnboundedSender<SessionRecord>,
    invoices: mpsc::UnboundedSender<InvoiceNotification>,
    /// The `invoice_id`s acted on. An invoice notification has no
    /// timestamp, so a repeat verifies like the first: act once per id.
    invoices_handled: SyncMutex<HashSet<String>>,
}

pub struct Receiver {
    address: String,
    sessions: Mutex<mpsc::UnboundedReceiver<SessionRecord>>,
    invoices: Mutex<mpsc::UnboundedReceiver<InvoiceNotification>>,
}

impl Receiver {
    pub async fn start(session_secret: &str, invoice_secret: &str) -> std::io::Result<Receiver> {
        let (sessions, session_inbox) = mpsc::unbounded_channel();
        let (invoices, invoice_inbox) = mpsc::unbounded_channel();
        let inbox = Arc::new(Inbox {
            sessions_verifier: WebhookVerifier::new(session_secret),
            invoices_verifier: WebhookVerifier::new(invoice_secret),
            sessions,
            invoices,
            invoices_handled: SyncMutex::default(),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = format!("http://{}", listener.local_addr()?);
        let app = Router::new()
            .route("/webhooks/psi/sessions", post(receive_session))
            .route("/webhooks/psi/invoices", post(receive_invoice))
            .with_state(inbox);
        tokio::spawn(async move { axum::serve(listener, app).await });
        Ok(Receiver {
            address,
            sessions: Mutex::new(session_inbox),
            invoices: Mutex::new(invoice_inbox),
        })
    }

    /// The session's `url_data.webhook_url`.
    pub fn session_url(&self) -> String {
        format!("{}/webhooks/psi/sessions", self.address)
    }

    /// The URL of the invoice webhook subscription.
    pub fn invoice_url(&self) -> String {
        format!("{}/webhooks/psi/invoices", self.address)
    }

    /// The next verified session notification of a finished session.
    pub async fn next_session_record(&self, wait: Duration) -> Option<SessionRecord> {
        let mut inbox = self.sessions.lock().await;
        loop {
            let record = tokio::time::timeout(wait, inbox.recv()).await.ok()??;
            if record.transaction_id.is_some() {
                return Some(record);
            }
        }
    }

    /// The next verified invoice notification.
    pub async fn next_invoice(&self, wait: Duration) -> Option<InvoiceNotification> {
        tokio::time::timeout(wait, self.invoices.lock().await.recv())
            .await
            .ok()?
    }
}

fn signature(headers: &HeaderMap) -> &str {
    headers
        .get(SIGNATURE_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

async fn receive_session(
    State(inbox): State<Arc<Inbox>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    match inbox
        .sessions_verifier
        .parse_session_notification(signature(&headers), &body)
    {
        Ok(record) => {
            let _ = inbox.sessions.send(record);
            StatusCode::OK
        }
        Err(error) => {
            eprintln!("      rejected a session notification: {error}");
            StatusCode::UNAUTHORIZED
        }
    }
}

async fn receive_invoice(
    State(inbox): State<Arc<Inbox>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    match inbox
        .invoices_verifier
        .parse_invoice_notification(signature(&headers), &body)
    {
        Ok(invoice) => {
            let first_time = match &invoice.invoice_id {
                Some(id) => inbox
                    .invoices_handled
                    .lock()
                    .is_ok_and(|mut handled| handled.insert(id.clone())),
                None => true,
            };
            // A repeat is answered 2xx, so the service stops sending it.
            if first_time {
                let _ = inbox.invoices.send(invoice);
            }
            StatusCode::OK
        }
        Err(error) => {
            eprintln!("      rejected an invoice notification: {error}");
            StatusCode::UNAUTHORIZED
        }
    }
}
