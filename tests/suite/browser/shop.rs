//! A tiny shop on loopback: the success, failure and cancel pages the
//! browser lands on, and the webhook address that records every
//! notification with its signature.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Html;
use axum::routing::{get, post};
use axum::Router;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Polls for a notification, 50 ms apart (5 s in all).
const NOTIFICATION_ATTEMPTS: usize = 100;

/// One POST to the webhook address.
#[derive(Debug, Clone)]
pub struct Received {
    pub signature: String,
    pub body: Bytes,
}

type Inbox = Arc<Mutex<Vec<Received>>>;

pub struct Shop {
    pub url: String,
    inbox: Inbox,
    server: tokio::task::JoinHandle<()>,
}

impl Shop {
    pub async fn start() -> Shop {
        let inbox = Inbox::default();
        let app = Router::new()
            .route("/shop/{page}", get(shop_page))
            .route("/webhook", post(receive))
            .with_state(inbox.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Shop { url, inbox, server }
    }

    /// Every notification received so far.
    pub fn received(&self) -> Vec<Received> {
        self.inbox.lock().unwrap().clone()
    }

    /// The notifications of one session, waiting until at least one came.
    pub async fn notifications_of(&self, session_id: &str) -> Vec<Received> {
        for _ in 0..NOTIFICATION_ATTEMPTS {
            let found = self.notifications_now(session_id);
            if !found.is_empty() {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the shop received no notification of session {session_id}");
    }

    /// The notifications of one session received so far.
    pub fn notifications_now(&self, session_id: &str) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|received| {
                serde_json::from_slice::<serde_json::Value>(&received.body)
                    .is_ok_and(|body| body["session_id"] == session_id)
            })
            .collect()
    }
}

impl Drop for Shop {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn shop_page(Path(page): Path<String>) -> Html<String> {
    let page: String = page.chars().filter(char::is_ascii_alphabetic).collect();
    Html(format!(
        "<!doctype html><title>Shop: {page}</title><h1 id=\"shop-page\">{page}</h1>"
    ))
}

async fn receive(State(inbox): State<Inbox>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let signature = headers
        .get("x-signature")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    inbox.lock().unwrap().push(Received { signature, body });
    StatusCode::NO_CONTENT
}
