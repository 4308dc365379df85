//! The two hooks every generated client runs (wired by [`wire_client!`](crate::wire_client)).
//!
//! `pre` runs once per call, before anything is sent: wire adjustments,
//! pre-flight checks, the Idempotency-Key, the bearer token. `exec` sends the
//! call: retries with backoff, one token refresh after a 401, and one
//! tracing span with the API, the operationId, the attempt, the status and
//! the duration. No header value, body or query value is ever logged.

use crate::context::Context;
use crate::retry::{is_repeatable, Outcome};
use crate::Secret;
use progenitor_client::{Error, OperationInfo};
use reqwest::header::{HeaderValue, AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER};
use reqwest::{Request, Response, StatusCode};
use std::time::Instant;
use tracing::Instrument;

pub const IDEMPOTENCY_KEY: &str = "Idempotency-Key";

/// The document's operationId (`createSession`). progenitor's
/// `OperationInfo` carries the generated method name (`create_session`).
pub fn operation_id(info: &OperationInfo) -> String {
    let mut id = String::with_capacity(info.operation_id.len());
    let mut upper = false;
    for c in info.operation_id.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            id.extend(c.to_uppercase());
            upper = false;
        } else {
            id.push(c);
        }
    }
    id
}

/// Prepares a call. `idempotent_operations` are the operationIds whose
/// document declares an Idempotency-Key: they get a UUID v4 when the caller
/// set none, and the same key goes out on every attempt.
pub async fn pre<E>(
    context: &Context,
    request: &mut Request,
    info: &OperationInfo,
    idempotent_operations: &[&str],
) -> Result<(), Error<E>> {
    let operation = operation_id(info);
    crate::prepare_request(request);
    if !request.headers().contains_key(CONTENT_TYPE) {
        // The specification requires Content-Type on every call, GETs included.
        request
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    if let (Some(preflight), Some(body)) = (
        &context.preflight,
        request.body().and_then(|b| b.as_bytes()),
    ) {
        preflight(&operation, body).map_err(Error::InvalidRequest)?;
    }
    if idempotent_operations.contains(&operation.as_str())
        && !request.headers().contains_key(IDEMPOTENCY_KEY)
    {
        let key = uuid::Uuid::new_v4().to_string();
        let value = HeaderValue::from_str(&key).expect("a UUID is a valid header value");
        request.headers_mut().insert(IDEMPOTENCY_KEY, value);
    }
    if let Some((audience, tokens)) = &context.auth {
        let token = tokens
            .token(audience)
            .await
            .map_err(|error| Error::Custom(error.to_string()))?;
        set_bearer(request, &token);
    }
    Ok(())
}

fn set_bearer(request: &mut Request, token: &Secret) {
    if let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {}", token.expose())) {
        value.set_sensitive(true);
        request.headers_mut().insert(AUTHORIZATION, value);
    }
}

fn bearer_of(request: &Request) -> Option<Secret> {
    let value = request.headers().get(AUTHORIZATION)?.to_str().ok()?;
    value.strip_prefix("Bearer ").map(Secret::from)
}

/// Sends a prepared call, retrying as the context's policy allows.
pub async fn exec(
    context: &Context,
    http: &reqwest::Client,
    request: Request,
    info: &OperationInfo,
) -> reqwest::Result<Response> {
    let span = tracing::info_span!(
        "psi.call",
        api = context.api,
        operation = %operation_id(info),
        method = %request.method(),
        attempt = tracing::field::Empty,
        status = tracing::field::Empty,
        duration_ms = tracing::field::Empty,
    );
    send_with_retries(context, http, request)
        .instrument(span)
        .await
}

async fn send_with_retries(
    context: &Context,
    http: &reqwest::Client,
    mut template: Request,
) -> reqwest::Result<Response> {
    let span = tracing::Span::current();
    let started = Instant::now();
    let repeatable = is_repeatable(
        template.method(),
        template.headers().contains_key(IDEMPOTENCY_KEY),
    );
    if template.timeout().is_none() {
        *template.timeout_mut() = Some(context.retry.request_timeout);
    }
    // `attempt` counts every send (the span shows it); `retry` counts the
    // sends the retry policy has granted. The one resend after a 401 with a
    // fresh token is not charged to the retry budget.
    let mut attempt = 1;
    let mut retry = 1;
    let mut token_refreshed = false;
    loop {
        span.record("attempt", attempt);
        // A body that cannot be cloned (a stream) is sent exactly once.
        let Some(this_attempt) = template.try_clone() else {
            return finish(&span, started, http.execute(template).await);
        };
        let result = http.execute(this_attempt).await;
        let outcome = match &result {
            Ok(response) => Outcome::Answered {
                status: response.status(),
                retry_after: response
                    .headers()
                    .get(RETRY_AFTER)
                    .and_then(|v| v.to_str().ok()),
            },
            Err(error) if error.is_connect() => Outcome::ConnectFailed,
            Err(_) => Outcome::Interrupted,
        };
        if let (Ok(response), Some((audience, tokens))) = (&result, &context.auth) {
            if response.status() == StatusCode::UNAUTHORIZED && !token_refreshed {
                token_refreshed = true;
                if let Some(rejected) = bearer_of(&template) {
                    tokens.invalidate(audience, &rejected).await;
                }
                match tokens.token(audience).await {
                    Ok(fresh) => {
                        tracing::debug!(attempt, "401: retrying once with a fresh token");
                        set_bearer(&mut template, &fresh);
                        attempt += 1;
                        continue;
                    }
                    Err(error) => tracing::warn!(%error, "401 and no fresh token"),
                }
            }
        }
        match context.retry.next_delay(retry, repeatable, &outcome) {
            Some(delay) => {
                let status = result.as_ref().map(|r| r.status().as_u16()).ok();
                tracing::debug!(
                    attempt,
                    ?status,
                    delay_ms = delay.as_millis() as u64,
                    "retrying"
                );
                drop(result);
                tokio::time::sleep(delay).await;
                attempt += 1;
                retry += 1;
            }
            None => return finish(&span, started, result),
        }
    }
}

fn finish(
    span: &tracing::Span,
    started: Instant,
    result: reqwest::Result<Response>,
) -> reqwest::Result<Response> {
    let duration_ms = started.elapsed().as_millis() as u64;
    span.record("duration_ms", duration_ms);
    match &result {
        Ok(response) => {
            span.record("status", response.status().as_u16());
            tracing::info!(
                status = response.status().as_u16(),
                duration_ms,
                "call finished"
            );
        }
        Err(error) => {
            // reqwest's message carries the URL without credentials; no headers.
            tracing::warn!(
                duration_ms,
                timeout = error.is_timeout(),
                connect = error.is_connect(),
                "call failed"
            );
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_map_back_to_operation_ids() {
        for (method, id) in [
            ("create_session", "createSession"),
            ("deliver_order_items_v7", "deliverOrderItemsV7"),
            ("get_token", "getToken"),
        ] {
            assert_eq!(
                operation_id(&OperationInfo {
                    operation_id: method
                }),
                id
            );
        }
    }
}
