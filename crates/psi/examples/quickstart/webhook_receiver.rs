//! The merchant's webhook endpoint: verifies every notification's
//! X-Signature on the raw body before believing a word of it.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use psi::payment_page::types::SessionRecord;
use psi::webhook::{InvoiceNotification, WebhookVerifier, SIGNATURE_HEADER};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Mutex};

struct Inbox {
    verifier: WebhookVerifier,
    sessions: mpsc::UnboundedSender<SessionRecord>,
    invoices: mpsc::UnboundedSender<InvoiceNotification>,
}

pub struct Receiver {
    url: String,
    sessions: Mutex<mpsc::UnboundedReceiver<SessionRecord>>,
    invoices: Mutex<mpsc::UnboundedReceiver<InvoiceNotification>>,
}

impl Receiver {
    pub async fn start(secret: &str) -> std::io::Result<Receiver> {
        let (sessions, session_inbox) = mpsc::unbounded_channel();
        let (invoices, invoice_inbox) = mpsc::unbounded_channel();
        let inbox = Arc::new(Inbox {
            verifier: WebhookVerifier::new(secret),
            sessions,
            invoices,
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/webhooks/psi", listener.local_addr()?);
        let app = Router::new()
            .route("/webhooks/psi", post(receive))
            .with_state(inbox);
        tokio::spawn(async move { axum::serve(listener, app).await });
        Ok(Receiver {
            url,
            sessions: Mutex::new(session_inbox),
            invoices: Mutex::new(invoice_inbox),
        })
    }

    pub fn url(&self) -> String {
        self.url.clone()
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

async fn receive(State(inbox): State<Arc<Inbox>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let signature = headers
        .get(SIGNATURE_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if let Err(error) = inbox.verifier.verify(signature, &body) {
        eprintln!("      rejected a webhook: {error}");
        return StatusCode::UNAUTHORIZED;
    }
    let json: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    if json.get("correspondence_id").is_some() {
        if let Ok(invoice) = inbox.verifier.parse_invoice_notification(signature, &body) {
            let _ = inbox.invoices.send(invoice);
        }
    } else if let Ok(record) = inbox.verifier.parse_session_notification(signature, &body) {
        let _ = inbox.sessions.send(record);
    }
    StatusCode::OK
}
