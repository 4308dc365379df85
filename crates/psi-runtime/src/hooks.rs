//! The two hooks every generated client runs (wired by [`wire_client!`](crate::wire_client)).
//!
//! `pre` runs once per call, before anything is sent: wire adjustments,
//! pre-flight checks, the Idempotency-Key, the bearer token. `exec` sends the
//! call: retries with backoff, one token refresh after a 401, and one
//! tracing span with the API, the operationId, the attempt, the status and
//! the duration. No header value, body or query value is ever logged.

use crate::context::Context;
use crate::failure::{
    AnswerBody, Refusal, RefusalReason, API_HEADER, ATTEMPTS_HEADER, OPERATION_HEADER,
};
use crate::retry::{is_repeatable, Outcome};
use progenitor_client::{Error, OperationInfo};
use reqwest::header::{
    HeaderName, HeaderValue, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER, USER_AGENT,
};
use reqwest::{Request, Response, StatusCode};
use std::time::Instant;
use tracing::Instrument;

pub const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
/// The same name, validated at compile time: looking a `&str` up in a
/// header map parses it first, on every call.
const IDEMPOTENCY_KEY_NAME: HeaderName = HeaderName::from_static("idempotency-key");

/// The operations of one generated crate, as its document names them.
#[derive(Debug, Clone, Copy)]
pub struct Operations {
    /// `(method name, operationId)`: progenitor reports the method name
    /// (`create_session`) to hooks; traces and rules use the operationId.
    pub ids: &'static [(&'static str, &'static str)],
    /// operationIds whose document declares an Idempotency-Key header.
    pub idempotent: &'static [&'static str],
    /// `(operationId, media type)`: the request body's media type exactly as
    /// the document declares it.
    pub request_media_types: &'static [(&'static str, &'static str)],
    /// operationIds whose success is any 2xx with the body or none.
    pub optional_bodies: &'static [&'static str],
    /// `(operationId, query parameter)`: the parameters sent as one
    /// comma-joined value, whose commas stay literal on the wire.
    pub comma_separated_query: &'static [(&'static str, &'static str)],
}

impl Operations {
    /// The document's operationId of the call `info` describes.
    pub fn operation_id(&self, info: &OperationInfo) -> &'static str {
        self.ids
            .iter()
            .find(|(method, _)| *method == info.operation_id)
            .map_or(info.operation_id, |(_, id)| id)
    }

    /// Whether `operation` sends its query parameter `name` as one
    /// comma-joined value.
    pub fn is_comma_separated(&self, operation: &str, name: &str) -> bool {
        self.comma_separated_query
            .iter()
            .any(|(id, parameter)| *id == operation && *parameter == name)
    }

    /// The media type the document declares for `operation`'s request body.
    pub fn request_media_type(&self, operation: &str) -> Option<&'static str> {
        self.request_media_types
            .iter()
            .find(|(id, _)| *id == operation)
            .map(|(_, media_type)| *media_type)
    }
}

/// Prepares a call: the wire adjustments and, for operations whose document
/// declares an Idempotency-Key, a UUID v4 key when the caller set none (the
/// same key then goes out on every attempt). Nothing here can fail: every
/// check that can refuse a call runs in [`exec`], inside the call's span.
pub async fn pre<E>(
    context: &Context,
    request: &mut Request,
    info: &OperationInfo,
    operations: Operations,
) -> Result<(), Error<E>> {
    let operation = operations.operation_id(info);
    crate::prepare_request(request, |name| {
        operations.is_comma_separated(operation, name)
    });
    // User-Agent, Content-Type, Authorization and maybe an Idempotency-Key: grow once.
    request.headers_mut().reserve(4);
    request
        .headers_mut()
        .insert(USER_AGENT, context.settings().user_agent.clone());
    if let Some(media_type) = operations.request_media_type(operation) {
        // Exactly the document's media type: progenitor's `.json()` has
        // already set a plain `application/json`, which the pay later
        // booking's `application/json;charset=UTF-8` is not.
        request
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(media_type));
    } else if !request.headers().contains_key(CONTENT_TYPE) {
        // The specification requires Content-Type on every call, GETs included.
        request
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    if operations.idempotent.contains(&operation)
        && !request.headers().contains_key(IDEMPOTENCY_KEY_NAME)
    {
        let key = uuid::Uuid::new_v4().to_string();
        let value = HeaderValue::from_str(&key).expect("a UUID is a valid header value");
        request.headers_mut().insert(IDEMPOTENCY_KEY_NAME, value);
    }
    Ok(())
}

/// Runs a call inside one `psi.call` span: the checks that may refuse it
/// (missing settings, pre-flight, the bearer token), then the sends, with
/// retries as the context's policy allows.
///
/// A refused call answers with the stand-in status
/// [`REFUSED`](crate::failure::REFUSED) carrying the typed
/// [`Refusal`]; an answer that is not a 2xx carries the API, the
/// operationId and the number of attempts (see [`crate::failure`]).
pub async fn exec(
    context: &Context,
    http: &reqwest::Client,
    mut request: Request,
    info: &OperationInfo,
    operations: Operations,
) -> reqwest::Result<Response> {
    let operation = operations.operation_id(info);
    let span = tracing::info_span!(
        "psi.call",
        api = context.api(),
        operation,
        attempt = 1,
        status = tracing::field::Empty,
        duration_ms = tracing::field::Empty,
    );
    async move {
        if let Err(reason) = check_before_sending(context, &mut request, operation).await {
            tracing::warn!(refused = reason.kind(), "call refused before sending");
            let refusal = Refusal {
                api: context.api(),
                operation_id: operation,
                reason,
            };
            return Ok(refusal.into_response());
        }
        let (response, attempts) = send_with_retries(context, http, request).await?;
        let status = response.status();
        if status.is_success() {
            // Only an empty body is ever replaced: a body of known, non-zero
            // length (nearly every answer) passes at once, before the
            // per-operation lookup.
            if response.content_length().is_none_or(|length| length == 0)
                && operations.optional_bodies.contains(&operation)
            {
                // The success type of these operations is an `Option`: no body is `None`.
                return with_read_body(response, b"null", None).await;
            }
            return Ok(response);
        }
        // Every error schema is an object of optional fields: an error
        // answered without a body is `{}`, so the caller still gets the
        // declared error with its status instead of a decoding failure.
        let annotation = Annotation {
            api: context.api(),
            operation_id: operation,
            attempts,
        };
        with_read_body(response, b"{}", Some(annotation)).await
    }
    .instrument(span)
    .await
}

/// What may refuse a call before it is sent, in order: a missing setting,
/// the pre-flight checks, the bearer token.
async fn check_before_sending(
    context: &Context,
    request: &mut Request,
    operation: &str,
) -> Result<(), RefusalReason> {
    let settings = context.settings();
    if let Some(missing) = &settings.missing_setting {
        return Err(RefusalReason::Config(missing.clone()));
    }
    if let (Some(preflight), Some(body)) = (
        &settings.preflight,
        request.body().and_then(|b| b.as_bytes()),
    ) {
        preflight(operation, body).map_err(RefusalReason::Preflight)?;
    }
    if let Some(tokens) = &settings.auth {
        let bearer = tokens.authorization().await.map_err(RefusalReason::Token)?;
        request.headers_mut().insert(AUTHORIZATION, bearer);
    }
    Ok(())
}

/// Where a failed answer came from, written onto it for `psi::Error`.
struct Annotation {
    api: &'static str,
    operation_id: &'static str,
    attempts: u32,
}

/// The same response with its body read: `empty` as its JSON body when it
/// came without one (or with only whitespace) and, for a failed answer, the
/// [`Annotation`] as headers and the body as an extension.
/// Only small bodies go through here: errors and the confirmations of
/// optional-body operations.
async fn with_read_body(
    response: Response,
    empty: &'static [u8],
    annotation: Option<Annotation>,
) -> reqwest::Result<Response> {
    let status = response.status();
    let version = response.version();
    let mut headers = response.headers().clone();
    let body = response.bytes().await?;
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        bytes::Bytes::from_static(empty)
    } else {
        body
    };
    headers.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));
    let kept = annotation.as_ref().map(|_| AnswerBody(body.clone()));
    if let Some(annotation) = annotation {
        headers.insert(API_HEADER, HeaderValue::from_static(annotation.api));
        headers.insert(
            OPERATION_HEADER,
            HeaderValue::from_static(annotation.operation_id),
        );
        headers.insert(ATTEMPTS_HEADER, HeaderValue::from(annotation.attempts));
    }
    let mut rebuilt = http::Response::new(reqwest::Body::from(body));
    *rebuilt.status_mut() = status;
    *rebuilt.version_mut() = version;
    *rebuilt.headers_mut() = headers;
    if let Some(kept) = kept {
        rebuilt.extensions_mut().insert(kept);
    }
    Ok(Response::from(rebuilt))
}

async fn send_with_retries(
    context: &Context,
    http: &reqwest::Client,
    mut template: Request,
) -> reqwest::Result<(Response, u32)> {
    let span = tracing::Span::current();
    let started = Instant::now();
    let repeatable = is_repeatable(
        template.method(),
        template.headers().contains_key(IDEMPOTENCY_KEY_NAME),
    );
    // A client built by psi applies the timeout itself; setting it per
    // request would also allocate the request's extension map every call.
    if template.timeout().is_none() && !context.settings().client_applies_timeout {
        *template.timeout_mut() = Some(context.settings().retry.request_timeout());
    }
    // `attempt` counts every send (the span shows it); `retry` counts the
    // sends the retry policy has granted. The one resend after a 401 with a
    // fresh token is not charged to the retry budget.
    let mut attempt = 1;
    let mut retry = 1;
    let mut token_refreshed = false;
    loop {
        if attempt > 1 {
            span.record("attempt", attempt);
        }
        // A body that cannot be cloned (a stream) is sent exactly once.
        let Some(this_attempt) = template.try_clone() else {
            return finish(&span, started, http.execute(template).await).map(|r| (r, attempt));
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
        if let (Ok(response), Some(tokens)) = (&result, &context.settings().auth) {
            if response.status() == StatusCode::UNAUTHORIZED && !token_refreshed {
                token_refreshed = true;
                if let Some(rejected) = template.headers().get(AUTHORIZATION).cloned() {
                    tokens.invalidate(&rejected).await;
                }
                match tokens.authorization().await {
                    Ok(fresh) => {
                        tracing::debug!(attempt, "401: retrying once with a fresh token");
                        template.headers_mut().insert(AUTHORIZATION, fresh);
                        attempt += 1;
                        continue;
                    }
                    Err(error) => tracing::warn!(%error, "401 and no fresh token"),
                }
            }
        }
        match context
            .settings()
            .retry
            .next_delay(retry, repeatable, &outcome)
        {
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
            None => return finish(&span, started, result).map(|r| (r, attempt)),
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
            // DEBUG: the span already carries the status and the duration;
            // an INFO line per call would cost every service that logs INFO
            // a formatted line (about a third of psi's overhead per call).
            tracing::debug!("call finished");
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
        let operations = Operations {
            ids: &[("create_session", "createSession")],
            idempotent: &[],
            request_media_types: &[],
            optional_bodies: &[],
            comma_separated_query: &[],
        };
        assert_eq!(
            operations.operation_id(&OperationInfo {
                operation_id: "create_session"
            }),
            "createSession"
        );
        assert_eq!(
            operations.operation_id(&OperationInfo {
                operation_id: "unknown_op"
            }),
            "unknown_op"
        );
    }
}
