//! Invoice webhook subscriptions: the stand-in for the provider's webhook
//! subscription service ("informs registered merchants when a new
//! transaction exists and further information such as invoices can be
//! retrieved"). The specification shows none of its operations, so
//! merchants register through the control API:
//!
//! | method | path | does |
//! |---|---|---|
//! | POST | /__sandbox/webhook-subscriptions | `{"url": "http(s)://...", "secret": "..."}` registers a receiver of invoice notifications (`secret` optional: the key of their signature, the sandbox's webhook secret without it); 201 `{"url"}`, 200 when the URL is registered already (its secret replaced), 400 beyond `--max-webhook-subscriptions` |
//! | GET | /__sandbox/webhook-subscriptions | the registered receivers, `[{"url"}]`, oldest first |
//! | DELETE | /__sandbox/webhook-subscriptions | removes every subscription; 204 |
//!
//! Every subscription receives every invoice notification, signed with its
//! own secret as the provider signs invoice notifications (the hex of
//! HMAC-SHA512 over the body, see `payment_page::webhooks`).

use crate::http::extract::Current;
use crate::models::webhook_subscriptions::Subscription;
use crate::outbox::Outbox;
use crate::refusals;
use crate::settings::Limits;
use axum::body::Bytes;
use axum::extract::FromRef;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Limits: FromRef<S>,
    Outbox: FromRef<S>,
{
    Router::new().route(
        "/__sandbox/webhook-subscriptions",
        get(list).post(subscribe).delete(clear),
    )
}

async fn subscribe(
    State(outbox): State<Outbox>,
    State(limits): State<Limits>,
    tenant: Current,
    body: Bytes,
) -> Response {
    let subscription: Subscription = match serde_json::from_slice(&body) {
        Ok(subscription) => subscription,
        Err(error) => return control_error(format!("invalid body: {error}")),
    };
    if !subscription.has_receiver_url() {
        return control_error("url must be an absolute http or https URL".to_owned());
    }
    if subscription.secret.as_deref() == Some("") {
        return control_error(
            "secret must not be empty (leave it out for the sandbox's webhook secret)".to_owned(),
        );
    }
    if let Some(refusal) = outbox.refusal(&subscription.url) {
        return control_error(format!("url: {refusal}"));
    }
    let max = limits.max_webhook_subscriptions;
    let mut data = tenant.data();
    let subscriptions = &mut data.webhook_subscriptions.subscriptions;
    // The same receiver twice would get every notification twice: a second
    // registration replaces the secret.
    let registered = subscriptions.iter().position(|s| s.url == subscription.url);
    if let Some(position) = registered {
        subscriptions.replace(position, subscription.clone());
        return (StatusCode::OK, Json(subscription.shown())).into_response();
    }
    if subscriptions.len() >= max {
        return control_error(format!(
            "at most {max} subscriptions are kept (--max-webhook-subscriptions); DELETE removes them all"
        ));
    }
    subscriptions.push(subscription.clone());
    drop(data);
    (StatusCode::CREATED, Json(subscription.shown())).into_response()
}

async fn list(tenant: Current) -> Response {
    let data = tenant.data();
    let shown: Vec<_> = data
        .webhook_subscriptions
        .subscriptions
        .iter()
        .map(Subscription::shown)
        .collect();
    Json(shown).into_response()
}

async fn clear(tenant: Current) -> Response {
    tenant.data().webhook_subscriptions.subscriptions.clear();
    StatusCode::NO_CONTENT.into_response()
}

/// Errors of the control API: `{"error": "..."}`, 400.
fn control_error(message: String) -> Response {
    refusals::control_error(StatusCode::BAD_REQUEST, message)
}
