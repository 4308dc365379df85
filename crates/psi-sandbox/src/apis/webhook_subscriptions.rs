//! Invoice webhook subscriptions: the stand-in for the provider's webhook
//! subscription service ("informs registered merchants when a new
//! transaction exists and further information such as invoices can be
//! retrieved"). The specification shows none of its operations, so
//! merchants register through the control API:
//!
//! | method | path | does |
//! |---|---|---|
//! | POST | /__sandbox/webhook-subscriptions | `{"url": "http(s)://..."}` registers a receiver of invoice notifications; 201 `{"url"}`, 200 when it is registered already, 400 beyond `--max-webhook-subscriptions` |
//! | GET | /__sandbox/webhook-subscriptions | the registered receivers, `[{"url"}]`, oldest first |
//! | DELETE | /__sandbox/webhook-subscriptions | removes every subscription; 204 |
//!
//! Every subscription receives every invoice notification, signed like the
//! session notification (see `payment_page::webhooks`).

use crate::state::{tables, Batch, Loader, Log, Persisted};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::State as Extract;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

/// The registered receivers of invoice notifications.
#[derive(Debug, Default)]
pub struct State {
    subscriptions: Log<Subscription>,
}

impl Persisted for State {
    fn has_changes(&self) -> bool {
        self.subscriptions.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        batch.log(tables::WEBHOOK_SUBSCRIPTIONS, &mut self.subscriptions)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        Ok(Self {
            subscriptions: loader.log(tables::WEBHOOK_SUBSCRIPTIONS)?,
        })
    }
}

impl State {
    /// The addresses invoice notifications go to.
    pub fn urls(&self) -> Vec<String> {
        self.subscriptions.iter().map(|s| s.url.clone()).collect()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Subscription {
    url: String,
}

pub fn routes() -> Router<AppState> {
    Router::new().route(
        "/__sandbox/webhook-subscriptions",
        get(list).post(subscribe).delete(clear),
    )
}

async fn subscribe(Extract(state): Extract<AppState>, body: Bytes) -> Response {
    let subscription: Subscription = match serde_json::from_slice(&body) {
        Ok(subscription) => subscription,
        Err(error) => return control_error(format!("invalid body: {error}")),
    };
    let valid = reqwest::Url::parse(&subscription.url)
        .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.has_host());
    if !valid {
        return control_error("url must be an absolute http or https URL".to_owned());
    }
    if let Some(refusal) = state.webhook_refusal(&subscription.url) {
        return control_error(format!("url: {refusal}"));
    }
    let max = state.limits.max_webhook_subscriptions;
    let mut data = state.data();
    let subscriptions = &mut data.webhook_subscriptions.subscriptions;
    // The same receiver twice would get every notification twice.
    if subscriptions.iter().any(|s| s.url == subscription.url) {
        return (StatusCode::OK, Json(subscription)).into_response();
    }
    if subscriptions.len() >= max {
        return control_error(format!(
            "at most {max} subscriptions are kept (--max-webhook-subscriptions); DELETE removes them all"
        ));
    }
    subscriptions.push(subscription.clone());
    drop(data);
    (StatusCode::CREATED, Json(subscription)).into_response()
}

async fn list(Extract(state): Extract<AppState>) -> Response {
    let subscriptions = state.data().webhook_subscriptions.subscriptions.to_vec();
    Json(subscriptions).into_response()
}

async fn clear(Extract(state): Extract<AppState>) -> Response {
    state.data().webhook_subscriptions.subscriptions.clear();
    StatusCode::NO_CONTENT.into_response()
}

/// Errors of the control API: `{"error": "..."}`.
fn control_error(message: String) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(serde_json::json!({ "error": message })),
    )
        .into_response()
}
