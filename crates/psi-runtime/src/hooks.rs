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
use crate::token::TokenHandle;
use crate::BoxFuture;
use futures_util::future::Either;
use progenitor_client::{Error, OperationInfo};
use reqwest::header::{
    HeaderName, HeaderValue, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER, USER_AGENT,
};
use reqwest::{Request, Response, StatusCode};
use std::any::Any;
use std::future::Future;
// tokio's clock, as the token cache's: a call reads it once for both (and tests that pause time see one clock).
use tokio::time::Instant;
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
        // The generated call and the table name the method with the same
        // literal, usually merged into one: comparing addresses first
        // finds it without comparing text (this runs twice per call).
        let method = info.operation_id;
        self.ids
            .iter()
            .find(|(name, _)| std::ptr::eq(*name, method))
            .or_else(|| self.ids.iter().find(|(name, _)| *name == method))
            .map_or(method, |(_, id)| id)
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

/// Prepares a request as [`exec`] does before its first send: the wire
/// adjustments and, for operations whose document declares an
/// Idempotency-Key, a UUID v4 key when the caller set none. (Generated code
/// no longer calls this hook: `exec` does the same work itself, for every
/// attempt, with the same key each time.)
pub async fn pre<E>(
    context: &Context,
    request: &mut Request,
    info: &OperationInfo,
    operations: Operations,
) -> Result<(), Error<E>> {
    let operation = operations.operation_id(info);
    prepare_wire(context, request, operation, &operations, &mut None);
    Ok(())
}

/// The wire adjustments every attempt of a call gets: the comma-separated
/// query values, User-Agent, the document's Content-Type and, for
/// operations whose document declares an Idempotency-Key, `key` when the
/// caller set none (a new UUID v4 the first time: the same key then goes
/// out on every attempt). Nothing here can fail: every check that can
/// refuse a call runs in [`exec`], inside the call's span.
fn prepare_wire(
    context: &Context,
    request: &mut Request,
    operation: &'static str,
    operations: &Operations,
    key: &mut Option<uuid::Uuid>,
) {
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
    } else {
        // The specification requires Content-Type on every call, GETs
        // included; one that is already there stays (one lookup, not two).
        request
            .headers_mut()
            .entry(CONTENT_TYPE)
            .or_insert(HeaderValue::from_static("application/json"));
    }
    if operations.idempotent.contains(&operation)
        && !request.headers().contains_key(IDEMPOTENCY_KEY_NAME)
    {
        let key = key.get_or_insert_with(uuid::Uuid::new_v4).to_string();
        let value = HeaderValue::from_str(&key).expect("a UUID is a valid header value");
        request.headers_mut().insert(IDEMPOTENCY_KEY_NAME, value);
    }
}

/// Builds a call's request again, for another send: the generated `send`
/// passes a closure over its validated parameters and body (a request
/// handed to the HTTP client cannot be sent again). `None` when it cannot;
/// the call then ends with the answer it has.
pub type Rebuild<'a> = &'a (dyn Fn() -> Option<Request> + Sync);

/// Opens the `psi.call` span at `level` (a span's level is part of its call
/// site, so each level has its own). `attempt`, `status` and `duration_ms`
/// are recorded later: `attempt` only once a second attempt is sent, the
/// other two together when the call ends.
macro_rules! call_span {
    ($level:expr, $api:expr, $operation:expr) => {{
        macro_rules! at {
            ($lvl:expr) => {
                tracing::span!(
                    $lvl,
                    "psi.call",
                    api = $api,
                    operation = $operation,
                    attempt = tracing::field::Empty,
                    status = tracing::field::Empty,
                    duration_ms = tracing::field::Empty,
                )
            };
        }
        match $level {
            tracing::Level::TRACE => at!(tracing::Level::TRACE),
            tracing::Level::DEBUG => at!(tracing::Level::DEBUG),
            tracing::Level::INFO => at!(tracing::Level::INFO),
            tracing::Level::WARN => at!(tracing::Level::WARN),
            _ => at!(tracing::Level::ERROR),
        }
    }};
}

/// Runs a call inside one `psi.call` span: the wire adjustments, the checks
/// that may refuse it (missing settings, pre-flight, the bearer token), then
/// the sends, with retries as the context's policy allows.
///
/// The span's level is the context's
/// [`call_span_level`](Context::call_span_level) (DEBUG unless set); what
/// happens to a call beyond one plain send (a retry, a refusal, a failure)
/// is a WARN event naming the API and the operationId, whatever that level.
///
/// A refused call answers with the stand-in status
/// [`REFUSED`](crate::failure::REFUSED) carrying the typed
/// [`Refusal`]; an answer that is not a 2xx carries the API, the
/// operationId and the number of attempts (see [`crate::failure`]).
///
/// `request` is the call's request as generated code built it; `rebuild`
/// builds it again for each further send (the same method, URL, headers
/// and body; `exec` then adds what it adds to every attempt: the same
/// Idempotency-Key, the current bearer token). A call that ends with its
/// first answer, nearly every one, builds its request once and copies
/// nothing.
///
/// `body` is the call's typed request body (the value its JSON was
/// serialized from), which the pre-flight checks read.
///
/// Every call's future carries this one's state and moves it: it keeps the
/// request once (the steps below borrow it), is one state machine inside
/// the span's `Instrumented`, and keeps anything rare (a wait for a token,
/// a second send, a body to read) on the heap.
pub fn exec<'a>(
    context: &'a Context,
    http: &'a reqwest::Client,
    request: Request,
    rebuild: Rebuild<'a>,
    info: &OperationInfo,
    operations: &'a Operations,
    body: Option<&'a (dyn Any + Sync)>,
) -> impl Future<Output = reqwest::Result<Response>> + 'a {
    let call = Call {
        api: context.api(),
        operation: operations.operation_id(info),
    };
    let optional_bodies = operations.optional_bodies;
    let span = call_span!(context.call_span_level(), call.api, call.operation);
    // A span nobody listens to (the DEBUG default under an INFO subscriber)
    // is not entered and left on every poll: nothing would see it.
    let entered = if span.is_disabled() {
        tracing::Span::none()
    } else {
        span.clone()
    };
    // `None` once the request has been handed to the HTTP client.
    let mut request = Some(request);
    async move {
        // The call's one clock reading: the token's validity is checked
        // against it, and the span's and the failure WARN's duration start
        // from it.
        let started = Instant::now();
        let bearer = match check_before_sending(context, call.operation, body, started).await {
            Ok(bearer) => bearer,
            Err(reason) => return Ok(refused(call, reason)),
        };
        // The wire adjustments after the checks (they cannot fail and log
        // nothing): nothing made here is kept across an await but the request.
        let Some(unsent) = request.as_mut() else {
            unreachable!("a call's request is sent from here only");
        };
        let resend = Resend {
            rebuild,
            operations,
            key: None,
            bearer,
        };
        let mut resend = Some(resend.first(context, unsent, call.operation));
        let (response, attempts) = send_with_retries(
            context,
            http,
            &mut request,
            &mut resend,
            call,
            &span,
            started,
        )
        .await?;
        // In a block, so that the answer is not kept beside the boxed read.
        let read_body = {
            if response.status().is_success() {
                // Only an empty body is ever replaced: a body of known,
                // non-zero length (nearly every answer) passes at once,
                // before the per-operation lookup.
                if response.content_length().is_some_and(|length| length > 0)
                    || !optional_bodies.contains(&call.operation)
                {
                    return Ok(response);
                }
                // The success type of these operations is an `Option`: no body is `None`.
                read_body_of(response, b"null", None)
            } else {
                // Every error schema is an object of optional fields: an error
                // answered without a body is `{}`, so the caller still gets the
                // declared error with its status instead of a decoding failure.
                let annotation = Annotation {
                    api: call.api,
                    operation_id: call.operation,
                    attempts,
                };
                read_body_of(response, b"{}", Some(annotation))
            }
        };
        read_body.await
    }
    .instrument(entered)
}

/// The answer of a call refused before sending, after its WARN event.
///
/// Cold, and never inlined: what a call rarely does stays out of the code
/// every call runs through (`exec`'s poll function is the hot path of
/// every call; the fewer cache lines it spans, the less each call costs).
#[cold]
#[inline(never)]
fn refused(call: Call, reason: RefusalReason) -> Response {
    tracing::warn!(
        api = call.api,
        operation = call.operation,
        refused = reason.kind(),
        "call refused before sending"
    );
    let refusal = Refusal {
        api: call.api,
        operation_id: call.operation,
        reason,
    };
    refusal.into_response()
}

/// [`with_read_body`] on the heap, made out of line (cold, as [`refused`]).
#[cold]
#[inline(never)]
fn read_body_of(
    response: Response,
    empty: &'static [u8],
    annotation: Option<Annotation>,
) -> BoxFuture<'static, reqwest::Result<Response>> {
    Box::pin(with_read_body(response, empty, annotation))
}

/// Which call this is, for the WARN events (which must name it by
/// themselves: the span may be at a level nobody listens to).
#[derive(Clone, Copy)]
struct Call {
    api: &'static str,
    operation: &'static str,
}

/// What may refuse a call before it is sent, in order: a missing setting,
/// the pre-flight checks (on the typed `body`, never its bytes), the bearer
/// token; the call's Authorization header when it has one.
async fn check_before_sending(
    context: &Context,
    operation: &str,
    body: Option<&(dyn Any + Sync)>,
    now: Instant,
) -> Result<Option<HeaderValue>, RefusalReason> {
    let settings = context.settings();
    if let Some(missing) = &settings.missing_setting {
        return Err(RefusalReason::Config(missing.clone()));
    }
    if let Some(body) = body {
        context
            .check_preflight(operation, body)
            .map_err(RefusalReason::Preflight)?;
    }
    let Some(tokens) = &settings.auth else {
        return Ok(None);
    };
    // The cached token without an await; waiting for a fetch is rare
    // (the first call, a token no longer usable), so its state lives on
    // the heap instead of in every call's future.
    let bearer = match tokens.cached_authorization(now) {
        Some(bearer) => bearer,
        None => wait_for_token(tokens).await.map_err(RefusalReason::Token)?,
    };
    Ok(Some(bearer))
}

/// A token fetch to wait for, on the heap and made out of line (cold, as
/// [`refused`]).
#[cold]
#[inline(never)]
fn wait_for_token(
    tokens: &TokenHandle,
) -> BoxFuture<'_, Result<HeaderValue, crate::token::TokenError>> {
    Box::pin(tokens.authorization())
}

/// What a further send of a call needs besides its rebuilt request.
struct Resend<'a> {
    rebuild: Rebuild<'a>,
    operations: &'a Operations,
    /// The Idempotency-Key psi made for the call, when the caller set none.
    key: Option<uuid::Uuid>,
    /// The Authorization header of the last send (a fresh one after a 401).
    bearer: Option<HeaderValue>,
}

impl Resend<'_> {
    /// Prepares the first send's `request` as every later one (a plain
    /// function: what it borrows is not kept in the call's future).
    fn first(mut self, context: &Context, request: &mut Request, operation: &'static str) -> Self {
        prepare_wire(context, request, operation, self.operations, &mut self.key);
        if let Some(bearer) = &self.bearer {
            request.headers_mut().insert(AUTHORIZATION, bearer.clone());
        }
        self
    }

    /// The call's request for another send, as the last one went out
    /// except for the bearer token (`self.bearer`); `None` when it cannot
    /// be built again.
    fn request(&mut self, context: &Context, operation: &'static str) -> Option<Request> {
        let mut request = (self.rebuild)()?;
        prepare_wire(
            context,
            &mut request,
            operation,
            self.operations,
            &mut self.key,
        );
        if let Some(bearer) = &self.bearer {
            request.headers_mut().insert(AUTHORIZATION, bearer.clone());
        }
        with_timeout(context, &mut request);
        Some(request)
    }
}

/// Gives `request` the policy's timeout unless the HTTP client applies it.
fn with_timeout(context: &Context, request: &mut Request) {
    let settings = context.settings();
    // A client built by psi applies the timeout itself; setting it per
    // request would also allocate the request's extension map every call.
    if request.timeout().is_none() && !settings.client_applies_timeout {
        *request.timeout_mut() = Some(settings.retry.request_timeout());
    }
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

/// Sends the call, again as the retry policy and a 401 allow; the answer
/// and the number of sends.
///
/// The first send is the hot path and keeps its state small (what a resend
/// needs, and reqwest's boxed future): everything after an answer that is
/// not a 2xx (the 401 resend, the retry decision and its sleep) is
/// [`SendAgain`], boxed, so its state is not carried and moved in every
/// call's future.
async fn send_with_retries<'a>(
    context: &'a Context,
    http: &'a reqwest::Client,
    // Taken for the first send.
    request: &mut Option<Request>,
    // Taken when a resend may follow (borrowed: an argument of an `async fn`
    // is kept twice in its future).
    resend: &mut Option<Resend<'a>>,
    call: Call,
    // The call's own span, even when it is not entered (disabled): the
    // caller's current span must never receive this call's fields.
    span: &'a tracing::Span,
    // When the call began (the checks before sending included).
    started: Instant,
) -> reqwest::Result<(Response, u32)> {
    let Some(first) = request.as_mut() else {
        unreachable!("a call's request is sent from here only");
    };
    with_timeout(context, first);
    let sent = Sent {
        attempt: 1,
        retry: 1,
        token_refreshed: false,
    };
    // In a block, so that no part of the answer is kept beside the boxed
    // future below.
    let again = {
        let first = request.take().expect("the request is still here");
        let result = send(context, http, first).await;
        // A success ends the call: nothing below would retry it (no 2xx is
        // a retryable status, and only a 401 is sent again).
        if !sent.may_resend(context) || result.as_ref().is_ok_and(|r| r.status().is_success()) {
            return finish(span, call, started, result).map(|r| (r, 1));
        }
        let again = SendAgain {
            context,
            http,
            resend: resend.take().expect("a resend is prepared once"),
            call,
            span,
            started,
        };
        send_again(again, result, sent)
    };
    again.await
}

/// One send of `request`: through psi's own transport when the context has
/// one, else through `http`. Not an `async fn`, so that the request is not
/// kept in the future beside the send that took it.
fn send(
    context: &Context,
    http: &reqwest::Client,
    request: Request,
) -> impl Future<Output = reqwest::Result<Response>> + Send + 'static {
    let settings = context.settings();
    match &settings.transport {
        Some(transport) => {
            Either::Left(transport.execute(request, settings.retry.request_timeout()))
        }
        None => Either::Right(http.execute(request)),
    }
}

/// [`SendAgain::run`] on the heap, made out of line (cold, as [`refused`]).
#[cold]
#[inline(never)]
fn send_again<'a>(
    again: SendAgain<'a>,
    result: reqwest::Result<Response>,
    sent: Sent,
) -> BoxFuture<'a, reqwest::Result<(Response, u32)>> {
    Box::pin(again.run(result, sent))
}

/// How many sends a call has made.
#[derive(Clone, Copy)]
struct Sent {
    /// Every send (the span shows it).
    attempt: u32,
    /// The sends the retry policy has granted; the one resend after a 401
    /// with a fresh token is not charged to the retry budget.
    retry: u32,
    token_refreshed: bool,
}

impl Sent {
    /// Whether another send may follow the last one.
    fn may_resend(&self, context: &Context) -> bool {
        let settings = context.settings();
        self.retry < settings.retry.max_attempts()
            || (settings.auth.is_some() && !self.token_refreshed)
    }
}

/// A call after an answer that was not a 2xx (or no answer).
struct SendAgain<'a> {
    context: &'a Context,
    http: &'a reqwest::Client,
    resend: Resend<'a>,
    call: Call,
    span: &'a tracing::Span,
    started: Instant,
}

impl SendAgain<'_> {
    /// Decides on `result` (one fresh token after a 401, or a retry after
    /// the policy's delay) and sends again until an answer ends the call.
    /// The request of each further send is built again before the last
    /// answer is let go: a call that cannot build it ends with that answer.
    async fn run(
        mut self,
        mut result: reqwest::Result<Response>,
        mut sent: Sent,
    ) -> reqwest::Result<(Response, u32)> {
        let (call, span, started) = (self.call, self.span, self.started);
        let settings = self.context.settings();
        loop {
            // `result` is not a 2xx here: send again, or end the call with it.
            let next = 'decided: {
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
                if let (Ok(response), Some(tokens)) = (&result, &settings.auth) {
                    if response.status() == StatusCode::UNAUTHORIZED && !sent.token_refreshed {
                        sent.token_refreshed = true;
                        if let Some(rejected) = &self.resend.bearer {
                            tokens.invalidate(rejected).await;
                        }
                        match tokens.authorization().await {
                            Ok(fresh) => {
                                self.resend.bearer = Some(fresh);
                                let Some(next) = self.resend.request(self.context, call.operation)
                                else {
                                    return finish(span, call, started, result)
                                        .map(|r| (r, sent.attempt));
                                };
                                tracing::warn!(
                                    api = call.api,
                                    operation = call.operation,
                                    attempt = sent.attempt,
                                    "401: sending again once with a fresh token"
                                );
                                // Done with before sending again (its connection can go back to the pool).
                                drop(result);
                                break 'decided next;
                            }
                            Err(error) => tracing::warn!(
                                api = call.api,
                                operation = call.operation,
                                %error,
                                "401 and no fresh token"
                            ),
                        }
                    }
                }
                // The next request, also to tell whether it may be repeated.
                let Some(next) = self.resend.request(self.context, call.operation) else {
                    return finish(span, call, started, result).map(|r| (r, sent.attempt));
                };
                let repeatable = is_repeatable(
                    next.method(),
                    next.headers().contains_key(IDEMPOTENCY_KEY_NAME),
                );
                match settings.retry.next_delay(sent.retry, repeatable, &outcome) {
                    Some(delay) => {
                        let status = result.as_ref().map(|r| r.status().as_u16()).ok();
                        tracing::warn!(
                            api = call.api,
                            operation = call.operation,
                            attempt = sent.attempt,
                            ?status,
                            timeout = result.as_ref().is_err_and(reqwest::Error::is_timeout),
                            connect = result.as_ref().is_err_and(reqwest::Error::is_connect),
                            delay_ms = delay.as_millis() as u64,
                            "retrying"
                        );
                        drop(result);
                        tokio::time::sleep(delay).await;
                        sent.retry += 1;
                        next
                    }
                    None => return finish(span, call, started, result).map(|r| (r, sent.attempt)),
                }
            };
            sent.attempt += 1;
            span.record("attempt", sent.attempt);
            result = send(self.context, self.http, next).await;
            if !sent.may_resend(self.context)
                || result.as_ref().is_ok_and(|r| r.status().is_success())
            {
                return finish(span, call, started, result).map(|r| (r, sent.attempt));
            }
        }
    }
}

/// A copy of `request` to send while `request` is kept for another attempt,
/// or `None` when its body cannot be copied (a stream): how a request that
/// did not come from a generated `send` (the hooks trait's `exec`) is built
/// again.
///
/// Built from its parts rather than with `Request::try_clone`, which also
/// allocates an extension map for every copy (to store an absent timeout)
/// and then replaces it; the body, if any, is still copied by `try_clone`
/// (its bytes are shared, not copied).
pub fn copy_of(request: &Request) -> Option<Request> {
    // A request's extensions are private to reqwest; the only one a request
    // built by generated code can hold is its timeout.
    if request.body().is_some() || request.timeout().is_some() {
        return request.try_clone();
    }
    let mut copy = Request::new(request.method().clone(), request.url().clone());
    *copy.headers_mut() = request.headers().clone();
    *copy.version_mut() = request.version();
    Some(copy)
}

fn finish(
    span: &tracing::Span,
    call: Call,
    started: Instant,
    result: reqwest::Result<Response>,
) -> reqwest::Result<Response> {
    match &result {
        Ok(response) => {
            // A span nobody listens to (the default) records nothing: no clock read.
            if !span.is_disabled() {
                record_answer(span, response, started);
            }
            // DEBUG: the span already carries the status and the duration;
            // an INFO line per call would cost every service that logs INFO
            // a formatted line.
            call_finished();
        }
        Err(error) => failed(span, call, started, error),
    }
    result
}

/// The span's status and duration, both at once: one visit to the
/// subscriber, not two. Out of line: the default span is disabled.
#[cold]
#[inline(never)]
fn record_answer(span: &tracing::Span, response: &Response, started: Instant) {
    tracing::record_all!(
        span,
        status = response.status().as_u16(),
        duration_ms = started.elapsed().as_millis() as u64
    );
}

/// The DEBUG line of a call that ended with an answer. Out of line: most
/// services log at INFO, so the event's code is rarely more than its check.
#[inline(never)]
fn call_finished() {
    tracing::debug!("call finished");
}

/// The span's duration and the WARN event of a call that ended without an
/// answer (out of line: cold).
#[cold]
#[inline(never)]
fn failed(span: &tracing::Span, call: Call, started: Instant, error: &reqwest::Error) {
    let duration_ms = started.elapsed().as_millis() as u64;
    span.record("duration_ms", duration_ms);
    // reqwest's message carries the URL without credentials; no headers.
    tracing::warn!(
        api = call.api,
        operation = call.operation,
        duration_ms,
        timeout = error.is_timeout(),
        connect = error.is_connect(),
        "call failed"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every call carries `exec`'s future inside its own and moves it, so
    /// the rare paths keep their state on the heap; it was 2,112 bytes
    /// (with five copies of the request in it) before they did, 592 after;
    /// 728 with what a resend needs instead of a copy of the request (the
    /// generated `send()`'s own future no longer keeps the request); 776
    /// with psi's own transport beside reqwest (its send under way is 32
    /// bytes; as an `async` block it was 304).
    #[test]
    fn a_call_carries_a_small_future() {
        let context = Context::new("x");
        let http = reqwest::Client::new();
        let request = Request::new(reqwest::Method::GET, "http://x/".parse().unwrap());
        let info = OperationInfo { operation_id: "x" };
        let operations = Operations {
            ids: &[],
            idempotent: &[],
            request_media_types: &[],
            optional_bodies: &[],
            comma_separated_query: &[],
        };
        let call = exec(&context, &http, request, &|| None, &info, &operations, None);
        let size = std::mem::size_of_val(&call);
        assert!(size <= 800, "exec's future is {size} bytes");
    }

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
