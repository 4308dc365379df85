//! psi's own transport: a call's request sent through hyper-util's pooled
//! client (the one reqwest itself runs on), without reqwest's layers.
//!
//! Why: reqwest 0.13 does work on every call that psi does not need and
//! that its API cannot switch off. Its redirect layer copies each request's
//! method, URI, headers and body, and each answer's URI is turned back into
//! a `Url` by printing and parsing it again. Measured (BENCHMARKS.md,
//! "reqwest's own layers, and psi through hyper-util"), hyper-util alone
//! does about 1.5 times the calls per second of reqwest against a local
//! server: reqwest's layers were about a third of a call's time.
//!
//! What stays as it was: the generated clients still build a
//! `reqwest::Request` and read a `reqwest::Response` (progenitor's code
//! speaks reqwest), and a failed send is still a `reqwest::Error`
//! (progenitor's `Error::CommunicationError` carries one). What this module
//! adds is the part reqwest did below that: the retry policy's request
//! timeout, which covers the whole call (the answer's head and its body, as
//! reqwest's total timeout does), and the answer's URL.
//!
//! reqwest offers no public way to make a `reqwest::Error` from another
//! error. A failed send here becomes one by way of the only door there is:
//! an answer whose body fails with that error, read to its end, which
//! reqwest reports as a decode error whose source is the failure. So its
//! `is_timeout()`, `is_connect()` and `url()` answer as reqwest's own
//! would, and its source chain ends in the same causes (hyper-util's error,
//! or an I/O error of kind `TimedOut`); its kind (`is_decode()`) and its
//! first line of text differ, and the [`SendError`] in its source chain
//! ([`SendError::of`]) says what really happened. `psi::Error` prints that.

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use hyper_util::client::legacy::connect::Connect;
use hyper_util::client::legacy::{Client, ResponseFuture};
use hyper_util::rt::{TokioExecutor, TokioTimer};
use reqwest::{Request, Response, ResponseBuilderExt, Url};
use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context as TaskContext, Poll};
use std::time::Duration;
use tokio::time::Sleep;

type BoxError = Box<dyn StdError + Send + Sync>;

/// A pool of connections that sends psi's calls (see the module's
/// documentation). Cheap to clone: clones share the pool.
#[derive(Clone)]
pub struct Transport {
    pool: Arc<dyn Pool>,
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transport").finish_non_exhaustive()
    }
}

/// hyper-util's client over any connector, behind one type (the connector,
/// with its TLS backend, is the facade's choice).
trait Pool: Send + Sync {
    fn request(&self, request: http::Request<reqwest::Body>) -> ResponseFuture;
}

impl<C> Pool for Client<C, reqwest::Body>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    fn request(&self, request: http::Request<reqwest::Body>) -> ResponseFuture {
        Client::request(self, request)
    }
}

impl Transport {
    /// A pool over `connector` (its TLS, connect timeout and socket
    /// options are the connector's). It keeps idle connections as
    /// reqwest's does: 90 seconds, with no limit per host.
    pub fn new<C>(connector: C) -> Self
    where
        C: Connect + Clone + Send + Sync + 'static,
    {
        let pool = Client::builder(TokioExecutor::new())
            // Without a timer, idle connections would never be closed.
            .pool_timer(TokioTimer::new())
            .timer(TokioTimer::new())
            .build(connector);
        Transport {
            pool: Arc::new(pool),
        }
    }

    /// A pool over HTTP and HTTPS, TLS by rustls with `config` (whose ALPN
    /// list must be empty: HTTP/1.1 is spoken without it), with reqwest's
    /// settings for its own connector: TCP_NODELAY, and `connect_timeout`.
    ///
    /// # Panics
    ///
    /// When `config` names ALPN protocols (hyper-rustls's rule).
    #[cfg(feature = "transport-rustls")]
    pub fn https(config: rustls::ClientConfig, connect_timeout: Duration) -> Self {
        let mut http = hyper_util::client::legacy::connect::HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(connect_timeout));
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(config)
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Self::new(connector)
    }

    /// Sends `request` and gives its answer, whose body must be read before
    /// the request's deadline: its own timeout, or else `timeout`. (psi's
    /// calls come here by themselves once their context has the transport.)
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime with its timer enabled (the deadline's timer
    /// starts here), as `tokio::time::sleep` does.
    pub fn execute(&self, request: Request, timeout: Duration) -> Sending {
        let timeout = request.timeout().copied().unwrap_or(timeout);
        // The answer's URL (reqwest's `Response::url`, and its errors').
        let url = request.url().clone();
        let state = match http::Request::try_from(request) {
            Ok(request) => State::Waiting {
                answer: self.pool.request(request),
                // One deadline for the head and then the body: reqwest's
                // total timeout.
                deadline: Box::pin(Deadline {
                    sleep: tokio::time::sleep(timeout),
                    url: Some(url),
                }),
            },
            Err(error) => State::Invalid(Some(error)),
        };
        Sending(state)
    }
}

/// A send under way ([`Transport::execute`]): the answer's head, before
/// its deadline.
///
/// A future of its own rather than an `async` block: every call carries it
/// in its own future, and this keeps it to what the answer needs (an
/// `async` block also kept the request's parts and each local beside the
/// others: 304 bytes; this is at most 32, a test says).
pub struct Sending(State);

pin_project_lite::pin_project! {
    /// The call's deadline, and its URL until the answer or the error takes
    /// it: both on the heap in one allocation (the timer must not move),
    /// not in every call's future.
    struct Deadline {
        #[pin]
        sleep: Sleep,
        url: Option<Url>,
    }
}

impl Deadline {
    fn poll_passed(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        self.project().sleep.poll(cx)
    }

    fn take_url(self: Pin<&mut Self>) -> Url {
        self.project().url.take().expect("the URL is taken once")
    }
}

enum State {
    Waiting {
        answer: ResponseFuture,
        deadline: Pin<Box<Deadline>>,
    },
    /// No answer: the failure being made a `reqwest::Error`.
    Failing(crate::BoxFuture<'static, reqwest::Error>),
    /// The request could not be made an HTTP request (reqwest's own error).
    Invalid(Option<reqwest::Error>),
    Done,
}

impl Future for Sending {
    type Output = reqwest::Result<Response>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        // Every field is Unpin (the timer is boxed): no projection needed.
        loop {
            match &mut self.0 {
                State::Waiting { answer, deadline } => {
                    let head = match Pin::new(answer).poll(cx) {
                        Poll::Ready(head) => head.map_err(|error| SendError::Failed(error.into())),
                        Poll::Pending => {
                            ready!(deadline.as_mut().poll_passed(cx));
                            Err(SendError::TimedOut)
                        }
                    };
                    let url = deadline.as_mut().take_url();
                    let State::Waiting { deadline, .. } =
                        std::mem::replace(&mut self.0, State::Done)
                    else {
                        unreachable!("matched above");
                    };
                    match head {
                        Ok(head) => return Poll::Ready(Ok(with_deadline(head, url, deadline))),
                        Err(failure) => self.0 = State::Failing(as_reqwest_error(failure, url)),
                    }
                }
                State::Failing(failing) => {
                    let error = ready!(failing.as_mut().poll(cx));
                    self.0 = State::Done;
                    return Poll::Ready(Err(error));
                }
                State::Invalid(error) => {
                    let error = error.take().expect("polled after completion");
                    self.0 = State::Done;
                    return Poll::Ready(Err(error));
                }
                State::Done => panic!("polled after completion"),
            }
        }
    }
}

/// `answer` as reqwest's, with its URL and a body that fails once
/// `deadline` has passed.
fn with_deadline<B>(answer: http::Response<B>, url: Url, deadline: Pin<Box<Deadline>>) -> Response
where
    B: HttpBody + Send + Sync + Unpin + 'static,
    B::Data: Into<Bytes>,
    B::Error: Into<BoxError>,
{
    let (mut parts, body) = answer.into_parts();
    // The URL goes in as an extension reqwest takes out again; its type is
    // private, so through reqwest's builder.
    let (with_url, ()) = http::Response::builder()
        .url(url)
        .body(())
        .expect("a builder with only a URL")
        .into_parts();
    parts.extensions.extend(with_url.extensions);
    let body = reqwest::Body::wrap(BeforeDeadline { body, deadline });
    Response::from(http::Response::from_parts(parts, body))
}

/// An answer's body that fails with a timeout once its deadline has passed.
struct BeforeDeadline<B> {
    body: B,
    deadline: Pin<Box<Deadline>>,
}

impl<B> HttpBody for BeforeDeadline<B>
where
    B: HttpBody + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = B::Data;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, BoxError>>> {
        // What has arrived is read whatever the time: the deadline is only
        // looked at while waiting.
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        ready!(self.deadline.as_mut().poll_passed(cx));
        Poll::Ready(Some(Err(Box::new(timed_out()))))
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The timeout as reqwest's `is_timeout()` recognises it (an I/O error of
/// kind `TimedOut` anywhere in the source chain).
fn timed_out() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, "operation timed out")
}

/// A send through psi's transport that got no answer: in the source chain
/// of the `reqwest::Error` the call fails with. Its source is the cause:
/// hyper-util's error (`is_connect()` on it tells a connection that could
/// not be made), or an I/O error of kind `TimedOut`.
#[derive(Debug)]
pub enum SendError {
    /// No answer came before the request's timeout.
    TimedOut,
    /// The connection could not be made, or broke before an answer.
    Failed(BoxError),
}

impl SendError {
    /// The `SendError` in `error`'s source chain: there when the call went
    /// through psi's transport and got no answer (`None` for an answer
    /// whose body failed, and for reqwest's own errors).
    pub fn of(error: &reqwest::Error) -> Option<&SendError> {
        let mut source = error.source();
        while let Some(cause) = source {
            if let Some(found) = cause.downcast_ref::<SendError>() {
                return Some(found);
            }
            source = cause.source();
        }
        None
    }
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::TimedOut => f.write_str("no answer before the request timeout"),
            SendError::Failed(_) => f.write_str("error sending request"),
        }
    }
}

impl StdError for SendError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        // Each variant has its own cause; for a timeout a fresh I/O error
        // cannot be borrowed, so it is kept in a static.
        static TIMED_OUT: std::sync::OnceLock<std::io::Error> = std::sync::OnceLock::new();
        match self {
            SendError::TimedOut => Some(TIMED_OUT.get_or_init(timed_out)),
            SendError::Failed(cause) => Some(cause.as_ref()),
        }
    }
}

/// `error` as a `reqwest::Error` for `url` (see the module's documentation
/// for why by way of a body). On the heap and out of line: a rare path,
/// whose state (a whole answer being read) would otherwise be carried in
/// every call's future.
#[cold]
#[inline(never)]
fn as_reqwest_error(error: SendError, url: Url) -> crate::BoxFuture<'static, reqwest::Error> {
    Box::pin(async move {
        let body = reqwest::Body::wrap(Failing(Some(error)));
        let answer = http::Response::builder()
            .url(url)
            .body(body)
            .expect("a builder with only a URL");
        match Response::from(answer).bytes().await {
            Err(error) => error,
            Ok(_) => unreachable!("the body fails on its first read"),
        }
    })
}

/// A body whose first read fails with the error it holds.
struct Failing(Option<SendError>);

impl HttpBody for Failing {
    type Data = Bytes;
    type Error = SendError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, SendError>>> {
        Poll::Ready(self.0.take().map(Err))
    }
}

#[cfg(test)]
mod tests;
