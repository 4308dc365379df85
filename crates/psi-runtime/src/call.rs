//! One call, from a generated `send()` to its typed result.
//!
//! Every generated operation ends in [`send`]: it hands over how to build
//! its request ([`Build`]), the typed request body for the pre-flight
//! checks, and its [`Operation`] (what its document says about it). `send`
//! then, inside one `psi.call` span:
//!
//! 1. refuses the call before anything is sent when a setting is missing,
//!    the pre-flight checks find a violation or no token can be had
//!    ([`Error::Config`], [`Error::Preflight`], [`Error::Token`]);
//! 2. builds the request, adds what every attempt carries (User-Agent, the
//!    document's Content-Type, the Idempotency-Key, the bearer token, the
//!    request timeout) and sends it with reqwest;
//! 3. sends again as the [`RetryPolicy`](crate::RetryPolicy) allows, and
//!    once with a fresh token after a 401;
//! 4. turns an answer that is not a 2xx into [`Error::Declined`] (the
//!    declared error body) or [`Error::UnexpectedStatus`], a failure to get
//!    an answer into [`Error::Transport`] or [`Error::Timeout`].
//!
//! Each call's final answer, 2xx or not, is shown to the context's
//! [`Observer`] when one is set, before it is decoded
//! ([`Context::with_observer`]).
//!
//! A 2xx comes back as [`Success`], which the generated code reads as its
//! declared type ([`Success::json`]), as nothing ([`Success::empty`]) or
//! as a byte stream ([`Success::stream`]). No header value, body or query
//! value is ever logged.

use crate::context::{Context, Observer, Received};
use crate::error::{
    excerpt, CallId, Declined, DecodeError, Error, Failed, Refused, UnexpectedStatus,
};
use crate::leniency;
use crate::retry::{is_repeatable, Outcome};
use crate::token::{TokenError, TokenErrorKind};
use progenitor_client::{ByteStream, ResponseValue};
use reqwest::header::{
    HeaderName, HeaderValue, AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER, USER_AGENT,
};
use reqwest::{Request, Response, StatusCode};
use serde::de::DeserializeOwned;
use std::any::Any;
use tokio::time::Instant;
use tracing::Instrument;

/// The header a retried POST carries so the service processes it once.
pub const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");

/// What an operation's document says that the call needs at run time;
/// `cargo xtask generate` writes one as a `const` into every `send()`.
#[derive(Debug, Clone, Copy)]
pub struct Operation {
    /// The document's operationId (`createSession`).
    pub id: &'static str,
    /// The document declares an `Idempotency-Key` header: the call gets a
    /// UUID v4 key when the caller set none, the same on every attempt, and
    /// so may be retried.
    pub idempotent: bool,
    /// The request body's media type exactly as the document declares it.
    pub request_media_type: Option<&'static str>,
    /// Success is any 2xx with the documented body or none: an empty body
    /// reads as JSON `null` (the success type is an `Option`).
    pub optional_body: bool,
    /// Query parameters sent as one comma-joined value, whose commas stay
    /// literal on the wire.
    pub comma_separated_query: &'static [&'static str],
    /// The error statuses the document declares with an error body.
    pub declared_errors: &'static [u16],
    /// The boolean member of a 2xx body that is `false` when the service
    /// refused the call (`x-psi-refused-when-false`): such an answer is
    /// [`Error::Declined`], its body read as the declared error body.
    pub refused_when_false: Option<&'static str>,
}

/// Builds the call's request; called once per attempt (a request handed to
/// reqwest cannot be sent again). Generated code passes a closure over its
/// validated parameters and body.
pub type Build<'a> = &'a (dyn Fn() -> Result<Request, BuildError> + Sync);

/// Why a call's request could not be built (a header parameter that is not
/// a valid header value, a URL reqwest refuses); the call ends with
/// [`Error::InvalidRequest`] before anything is sent.
#[derive(Debug)]
pub struct BuildError(String);

impl From<reqwest::Error> for BuildError {
    /// reqwest's own words ("builder error") and, after a colon, its cause:
    /// a body that cannot be written says why (an extra member named like a
    /// declared one, `crate::ExtraMembers`).
    fn from(error: reqwest::Error) -> Self {
        match std::error::Error::source(&error) {
            Some(cause) => Self(format!("{error}: {cause}")),
            None => Self(error.to_string()),
        }
    }
}

impl From<reqwest::header::InvalidHeaderValue> for BuildError {
    fn from(error: reqwest::header::InvalidHeaderValue) -> Self {
        Self(format!(
            "a header parameter is not a valid header value ({error})"
        ))
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Opens the `psi.call` span at `level` (a span's level is part of its
/// call site, so each level has its own). `attempt`, `status` and
/// `duration_ms` are recorded as the call goes.
macro_rules! call_span {
    ($level:expr, $call:expr) => {{
        macro_rules! at {
            ($lvl:expr) => {
                tracing::span!(
                    $lvl,
                    "psi.call",
                    api = $call.api,
                    operation = $call.operation_id,
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

/// Sends one call as described in the [module documentation](self); `E`
/// is the error body the operation's document declares.
///
/// The span's level is the context's
/// [`call_span_level`](Context::call_span_level) (DEBUG unless set); what
/// happens to a call beyond one plain send (a retry, a refusal, a failure)
/// is a WARN event naming the API and the operationId, whatever that level.
pub async fn send<E: DeserializeOwned>(
    context: &Context,
    http: &reqwest::Client,
    operation: &'static Operation,
    build: Build<'_>,
    body: Option<&(dyn Any + Sync)>,
) -> Result<Success, Error<E>> {
    // The call itself is not generic: compiled once, in this crate, rather
    // than once per error body in every generated crate. Only typing the
    // error body is.
    match send_untyped(context, http, operation, build, body).await {
        Ok(success) => Ok(success),
        Err(Failure::Untyped(error)) => Err(widen(error)),
        Err(Failure::Answered(answered)) => Err(answered.typed()),
    }
}

/// An error that holds no error body (every kind but a decline).
type Untyped = Error<std::convert::Infallible>;

/// How a call failed before its error body is typed.
enum Failure {
    /// Refused before sending, or no answer.
    Untyped(Untyped),
    /// An answer that is not a 2xx, its body read.
    Answered(Box<Answered>),
}

impl From<Untyped> for Failure {
    fn from(error: Untyped) -> Self {
        Self::Untyped(error)
    }
}

/// An answer that is not a 2xx, before its body is typed.
struct Answered {
    call: CallId,
    status: StatusCode,
    attempts: u32,
    headers: reqwest::header::HeaderMap,
    bytes: bytes::Bytes,
    declared: bool,
}

impl Answered {
    /// A declined call with the body typed as `E`, or an unexpected status.
    fn typed<E: DeserializeOwned>(self) -> Error<E> {
        let Self {
            call,
            status,
            attempts,
            headers,
            bytes,
            declared,
        } = self;
        // Every error schema is an object of optional fields: an error
        // answered without a body reads as `{}`.
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        // A 4xx the document does not declare is read as the API's error
        // body too: the provider's documentation names 422 declines for
        // calls whose documents do not list it.
        if declared || status.is_client_error() {
            if let Ok(body) = leniency::lenient(|| serde_json::from_slice::<E>(text)) {
                return Error::Declined(Box::new(Declined {
                    call,
                    status: status.as_u16(),
                    attempts,
                    headers,
                    body,
                    excerpt: excerpt(&bytes),
                }));
            }
        }
        Error::UnexpectedStatus(Box::new(UnexpectedStatus {
            call,
            status: status.as_u16(),
            attempts,
            headers,
            excerpt: excerpt(&bytes),
        }))
    }
}

/// `error` as the error of a call whose body type is `E` (it holds none).
fn widen<E>(error: Untyped) -> Error<E> {
    match error {
        Error::InvalidRequest(message) => Error::InvalidRequest(message),
        Error::Config(refused) => Error::Config(refused),
        Error::Preflight(refused) => Error::Preflight(refused),
        Error::Token(refused) => Error::Token(refused),
        Error::Declined(declined) => match declined.body {},
        Error::UnexpectedStatus(unexpected) => Error::UnexpectedStatus(unexpected),
        Error::Transport(failed) => Error::Transport(failed),
        Error::Timeout(failed) => Error::Timeout(failed),
        Error::Decode(decode) => Error::Decode(decode),
    }
}

/// [`send`] up to the typing of an error body, with its span.
async fn send_untyped(
    context: &Context,
    http: &reqwest::Client,
    operation: &'static Operation,
    build: Build<'_>,
    body: Option<&(dyn Any + Sync)>,
) -> Result<Success, Failure> {
    let call = CallId {
        api: context.api(),
        operation_id: operation.id,
    };
    let span = call_span!(context.call_span_level(), call);
    // A span nobody listens to (the DEBUG default under an INFO subscriber)
    // is neither entered on every poll nor given a duration.
    if span.is_disabled() {
        return run(context, http, operation, build, body, call, &span).await;
    }
    let started = Instant::now();
    let result = run(context, http, operation, build, body, call, &span)
        .instrument(span.clone())
        .await;
    span.record("duration_ms", started.elapsed().as_millis() as u64);
    result
}

async fn run(
    context: &Context,
    http: &reqwest::Client,
    operation: &'static Operation,
    build: Build<'_>,
    body: Option<&(dyn Any + Sync)>,
    call: CallId,
    span: &tracing::Span,
) -> Result<Success, Failure> {
    let mut bearer = check_before_sending(context, call, body).await?;
    let settings = context.settings();
    // One key for every attempt of the call.
    let key = operation.idempotent.then(uuid::Uuid::new_v4);
    let mut attempts: u32 = 0;
    // Sends the policy granted; the one resend after a 401 with a fresh
    // token is not charged to it.
    let mut granted: u32 = 1;
    let mut token_refreshed = false;
    loop {
        let mut request = match build() {
            Ok(request) => request,
            Err(error) => return Err(Error::InvalidRequest(error.0).into()),
        };
        prepare(context, operation, &mut request, key, bearer.as_ref());
        let repeatable = is_repeatable(
            request.method(),
            request.headers().contains_key(IDEMPOTENCY_KEY),
        );
        attempts += 1;
        if attempts > 1 {
            span.record("attempt", attempts);
        }
        let result = http.execute(request).await;

        if let (Ok(response), Some(tokens)) = (&result, &settings.auth) {
            if response.status() == StatusCode::UNAUTHORIZED && !token_refreshed {
                token_refreshed = true;
                if let Some(rejected) = &bearer {
                    tokens.invalidate(rejected).await;
                }
                match wait_for_token(context).await {
                    Ok(fresh) => {
                        tracing::warn!(
                            api = call.api,
                            operation = call.operation_id,
                            attempt = attempts,
                            "401: sending again once with a fresh token"
                        );
                        bearer = Some(fresh);
                        continue;
                    }
                    Err(error) => tracing::warn!(
                        api = call.api,
                        operation = call.operation_id,
                        %error,
                        "401 and no fresh token"
                    ),
                }
            }
        }

        let outcome = match &result {
            Ok(response) if response.status().is_success() => None,
            Ok(response) => Some(Outcome::Answered {
                status: response.status(),
                retry_after: response
                    .headers()
                    .get(RETRY_AFTER)
                    .and_then(|value| value.to_str().ok()),
            }),
            Err(error) if error.is_connect() => Some(Outcome::ConnectFailed),
            Err(_) => Some(Outcome::Interrupted),
        };
        let delay = outcome
            .as_ref()
            .and_then(|outcome| settings.retry.next_delay(granted, repeatable, outcome));
        let Some(delay) = delay else {
            return answer(result, context, operation, call, attempts, span).await;
        };
        let status = result.as_ref().ok().map(|r| r.status().as_u16());
        tracing::warn!(
            api = call.api,
            operation = call.operation_id,
            attempt = attempts,
            ?status,
            timeout = result.as_ref().is_err_and(reqwest::Error::is_timeout),
            connect = result.as_ref().is_err_and(reqwest::Error::is_connect),
            delay_ms = delay.as_millis() as u64,
            "retrying"
        );
        // Done with before waiting (its connection goes back to the pool).
        drop(result);
        tokio::time::sleep(delay).await;
        granted += 1;
    }
}

/// What may refuse a call before it is sent, in order: a missing setting,
/// the pre-flight checks (on the typed `body`, never its bytes), the bearer
/// token. The call's Authorization header when it has one.
async fn check_before_sending(
    context: &Context,
    call: CallId,
    body: Option<&(dyn Any + Sync)>,
) -> Result<Option<HeaderValue>, Untyped> {
    let settings = context.settings();
    let refused = |kind: &'static str, error: &dyn std::fmt::Display| {
        tracing::warn!(
            api = call.api,
            operation = call.operation_id,
            refused = kind,
            %error,
            "call refused before sending"
        );
    };
    if let Some(missing) = &settings.missing_setting {
        refused("config", missing);
        return Err(Error::Config(Box::new(Refused {
            call,
            reason: missing.clone(),
        })));
    }
    if let Some(body) = body {
        if let Err(violations) = context.check_preflight(call.operation_id, body) {
            refused("preflight", &violations);
            return Err(Error::Preflight(Box::new(Refused {
                call,
                reason: violations,
            })));
        }
    }
    if settings.auth.is_none() {
        return Ok(None);
    }
    match wait_for_token(context).await {
        Ok(bearer) => Ok(Some(bearer)),
        Err(error) => {
            refused("token", &error);
            Err(Error::Token(Box::new(Refused {
                call,
                reason: error,
            })))
        }
    }
}

/// The call's `Authorization` value: the cached token, or the result of the
/// one fetch in flight, waited for no longer than the request timeout.
async fn wait_for_token(context: &Context) -> Result<HeaderValue, TokenError> {
    let settings = context.settings();
    let Some(tokens) = &settings.auth else {
        unreachable!("only called for a context with a token");
    };
    if let Some(bearer) = tokens.cached_authorization(Instant::now()) {
        return Ok(bearer);
    }
    let limit = settings.retry.request_timeout();
    match tokio::time::timeout(limit, tokens.authorization()).await {
        Ok(result) => result,
        Err(_) => Err(TokenError::new(
            TokenErrorKind::Transport,
            tokens.audience().clone(),
            None,
            format!(
                "no token within the request timeout ({} ms)",
                limit.as_millis()
            ),
        )),
    }
}

/// What every attempt of a call carries besides what generated code built:
/// the comma-separated query values, User-Agent, the document's
/// Content-Type, the Idempotency-Key (unless the caller set one), the
/// bearer token and the request timeout.
fn prepare(
    context: &Context,
    operation: &Operation,
    request: &mut Request,
    key: Option<uuid::Uuid>,
    bearer: Option<&HeaderValue>,
) {
    let settings = context.settings();
    crate::request::prepare(request, |name| {
        operation.comma_separated_query.contains(&name)
    });
    let headers = request.headers_mut();
    headers.insert(USER_AGENT, settings.user_agent.clone());
    match operation.request_media_type {
        // Exactly the document's media type: reqwest's `.json()` has set a
        // plain `application/json`, which the pay later booking's
        // `application/json;charset=UTF-8` is not.
        Some(media_type) => {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(media_type));
        }
        // The specification requires Content-Type on every call, GETs included.
        None => {
            headers
                .entry(CONTENT_TYPE)
                .or_insert(HeaderValue::from_static("application/json"));
        }
    }
    if let Some(key) = key {
        if !headers.contains_key(IDEMPOTENCY_KEY) {
            let value =
                HeaderValue::from_str(&key.to_string()).expect("a UUID is a valid header value");
            headers.insert(IDEMPOTENCY_KEY, value);
        }
    }
    if let Some(bearer) = bearer {
        headers.insert(AUTHORIZATION, bearer.clone());
    }
    *request.timeout_mut() = Some(settings.retry.request_timeout());
}

/// The call's last result: a [`Success`], or its failure before the error
/// body is typed.
async fn answer(
    result: reqwest::Result<Response>,
    context: &Context,
    operation: &Operation,
    call: CallId,
    attempts: u32,
    span: &tracing::Span,
) -> Result<Success, Failure> {
    let failed = |source: reqwest::Error| {
        tracing::warn!(
            api = call.api,
            operation = call.operation_id,
            attempts,
            timeout = source.is_timeout(),
            connect = source.is_connect(),
            "call failed"
        );
        Failure::Untyped(no_answer(call, attempts, source))
    };
    let response = result.map_err(failed)?;
    let status = response.status();
    span.record("status", status.as_u16());
    if status.is_success() {
        tracing::debug!("call finished");
        return Ok(Success {
            response,
            call,
            attempts,
            optional_body: operation.optional_body,
            refused_when_false: operation.refused_when_false,
            // Seen when the generated code reads the body (Success::read).
            observer: context.observer().cloned(),
        });
    }
    let headers = response.headers().clone();
    let bytes = response.bytes().await.map_err(failed)?;
    observe(context.observer(), call, status, &headers, &bytes);
    Err(Failure::Answered(Box::new(Answered {
        call,
        status,
        attempts,
        headers,
        bytes,
        declared: operation.declared_errors.contains(&status.as_u16()),
    })))
}

/// Shows a final answer to the observer, when one is set.
fn observe(
    observer: Option<&Observer>,
    call: CallId,
    status: StatusCode,
    headers: &reqwest::header::HeaderMap,
    body: &[u8],
) {
    if let Some(observer) = observer {
        observer(&Received {
            api: call.api,
            operation_id: call.operation_id,
            status: status.as_u16(),
            content_type: headers
                .get(CONTENT_TYPE)
                .and_then(|value| value.to_str().ok()),
            body,
        });
    }
}

/// The body as the declared error body `E` when its boolean `member` is
/// `false`: a refusal inside a success answer.
fn refusal<E: DeserializeOwned>(text: &[u8], member: &str) -> Option<E> {
    let object: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(text).ok()?;
    if object.get(member) != Some(&serde_json::Value::Bool(false)) {
        return None;
    }
    leniency::lenient(|| serde_json::from_slice(text)).ok()
}

/// [`Error::Timeout`] when `source` timed out (sending, or reading the
/// body), else [`Error::Transport`].
fn no_answer(call: CallId, attempts: u32, source: reqwest::Error) -> Untyped {
    // A body that stops halfway is a decode error whose cause timed out.
    let timed_out = std::iter::successors(
        Some(&source as &(dyn std::error::Error + 'static)),
        |error| error.source(),
    )
    .any(|error| {
        error
            .downcast_ref::<reqwest::Error>()
            .is_some_and(reqwest::Error::is_timeout)
    });
    let failed = Box::new(Failed {
        call,
        attempts,
        source,
    });
    if timed_out {
        Error::Timeout(failed)
    } else {
        Error::Transport(failed)
    }
}

/// A 2xx answer whose body has been read.
struct ReadSuccess {
    call: CallId,
    attempts: u32,
    status: StatusCode,
    headers: reqwest::header::HeaderMap,
    bytes: bytes::Bytes,
    optional_body: bool,
    refused_when_false: Option<&'static str>,
}

impl ReadSuccess {
    /// The body as `T`, or the refusal it says it is, or why it is neither.
    fn decode<T: DeserializeOwned, E: DeserializeOwned>(
        self,
    ) -> Result<ResponseValue<T>, Error<E>> {
        let Self {
            call,
            attempts,
            status,
            headers,
            bytes,
            optional_body,
            refused_when_false,
        } = self;
        let text: &[u8] = if optional_body && bytes.iter().all(u8::is_ascii_whitespace) {
            b"null"
        } else {
            &bytes
        };
        if let Some(member) = refused_when_false {
            if let Some(body) = refusal::<E>(text, member) {
                tracing::warn!(
                    api = call.api,
                    operation = call.operation_id,
                    status = status.as_u16(),
                    "the service refused the call in a success answer"
                );
                return Err(Error::Declined(Box::new(Declined {
                    call,
                    status: status.as_u16(),
                    attempts,
                    headers,
                    body,
                    excerpt: excerpt(text),
                })));
            }
        }
        match leniency::lenient(|| serde_json::from_slice(text)) {
            Ok(inner) => Ok(ResponseValue::new(inner, status, headers)),
            Err(error) => Err(Error::Decode(Box::new(DecodeError {
                call,
                status: status.as_u16(),
                path: crate::json_position::path_at(text, error.line(), error.column()),
                message: error.to_string(),
            }))),
        }
    }
}

/// A 2xx answer, read by the generated code as its operation's success type.
pub struct Success {
    response: Response,
    call: CallId,
    attempts: u32,
    optional_body: bool,
    refused_when_false: Option<&'static str>,
    /// The context's observer: it sees the answer when it is read.
    observer: Option<Observer>,
}

impl std::fmt::Debug for Success {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Success")
            .field("response", &self.response)
            .field("call", &self.call)
            .field("attempts", &self.attempts)
            .field("optional_body", &self.optional_body)
            .field("refused_when_false", &self.refused_when_false)
            .field("observer", &self.observer.is_some())
            .finish()
    }
}

impl Success {
    /// The body as JSON `T`, with the status and headers. An empty body of
    /// an operation whose body is optional reads as `null`; a body that
    /// says the service refused the call ([`Operation::refused_when_false`])
    /// is [`Error::Declined`].
    pub async fn json<T: DeserializeOwned, E: DeserializeOwned>(
        self,
    ) -> Result<ResponseValue<T>, Error<E>> {
        self.read().await.map_err(widen)?.decode()
    }

    /// Shows the answer to the observer without its body (not read here).
    fn observe_unread(&self) {
        let (response, call) = (&self.response, self.call);
        observe(
            self.observer.as_ref(),
            call,
            response.status(),
            response.headers(),
            &[],
        );
    }

    /// The body, read (not generic: compiled once).
    async fn read(self) -> Result<ReadSuccess, Untyped> {
        let Self {
            mut response,
            call,
            attempts,
            optional_body,
            refused_when_false,
            observer,
        } = self;
        let status = response.status();
        let headers = std::mem::take(response.headers_mut());
        let bytes = response
            .bytes()
            .await
            .map_err(|source| no_answer(call, attempts, source))?;
        observe(observer.as_ref(), call, status, &headers, &bytes);
        Ok(ReadSuccess {
            call,
            attempts,
            status,
            headers,
            bytes,
            optional_body,
            refused_when_false,
        })
    }

    /// An answer without a body (the document declares none). The observer
    /// sees its status and headers, not its body, which is not read.
    pub fn empty<E>(self) -> Result<ResponseValue<()>, Error<E>> {
        self.observe_unread();
        Ok(ResponseValue::new(
            (),
            self.response.status(),
            self.response.headers().clone(),
        ))
    }

    /// The body as a stream of bytes (a file download). The observer sees
    /// its status and headers, not its body, which the caller reads.
    pub fn stream<E>(self) -> Result<ResponseValue<ByteStream>, Error<E>> {
        self.observe_unread();
        Ok(ResponseValue::stream(self.response))
    }
}
