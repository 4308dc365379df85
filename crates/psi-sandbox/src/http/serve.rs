//! Serving the router over HTTP/1.1 with hyper, so that every answer,
//! even one hyper gives itself, is JSON in the owning API's error shape.
//!
//! `axum::serve` leaves hyper's limits at their defaults, and hyper answers
//! a request head it cannot hold (431), a request target over 64 KiB (414)
//! or a malformed head (400) itself, with an empty body. Here hyper's read
//! buffer is raised above the sandbox's own limits, so an ordinary
//! oversized request reaches [`crate::http::limits`] and is answered there; what
//! hyper still refuses (a target over its fixed 64 KiB, a head over
//! [`HEAD_BUFFER_BYTES`], more than 100 headers) is rewritten on the way
//! out by [`Rewriting`]: it recognises hyper's bodiless automatic answer
//! and sends the same status with the JSON body of the API whose path the
//! request line named.

use crate::http::operation::CloseWithoutAnswer;
use crate::refusals::{Family, Problem};
use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::Response;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;

/// hyper's read buffer: room for a head well over the limits the sandbox
/// answers itself (64 KiB of headers, 8 KiB of target).
pub const HEAD_BUFFER_BYTES: usize = 2 * 1024 * 1024;

/// How many bytes of a request's start are kept to find its API.
const REQUEST_START_BYTES: usize = 512;

/// Serves `app` on `listener` until `stop` completes, then stops accepting
/// and lets open connections finish their current request.
///
/// At most `limits.max_connections` connections are served at once (the
/// next is accepted when one closes), and each must send a request's head
/// within `limits.header_read_timeout`: a connection that sends nothing, or
/// a head slowly, is closed, as is an idle keep-alive connection after
/// that time.
pub async fn serve<App>(
    listener: TcpListener,
    app: App,
    limits: crate::settings::Limits,
    stop: impl Future<Output = ()>,
) where
    App: tower::Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    App::Future: Send + 'static,
{
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .max_buf_size(HEAD_BUFFER_BYTES)
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let connections =
        std::sync::Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
    let mut stop = std::pin::pin!(stop);
    loop {
        let accepted = async {
            // Only acquired, never closed: the semaphore lives as long as this loop.
            let permit = connections.clone().acquire_owned().await;
            (permit, listener.accept().await)
        };
        let (permit, stream) = tokio::select! {
            accepted = accepted => accepted,
            () = &mut stop => break,
        };
        let stream = match stream {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of file descriptors and the like: wait, accept again.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let service = hyper::service::service_fn(move |request| answer(app.clone(), request));
        let connection = builder.serve_connection(TokioIo::new(Rewriting::new(stream)), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A broken connection is the client's business.
            let _ = connection.await;
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// The router's answer to `request`; an error when the answer is marked
/// [`CloseWithoutAnswer`] (an armed fault), on which hyper closes the
/// connection without writing anything. An axum answer cannot express
/// that, so this adapter sits between hyper and the router.
async fn answer<App>(
    mut app: App,
    request: hyper::Request<hyper::body::Incoming>,
) -> Result<Response, ClosedWithoutAnswer>
where
    App: tower::Service<Request, Response = Response, Error = Infallible>,
{
    let answered = async {
        std::future::poll_fn(|cx| app.poll_ready(cx)).await?;
        app.call(request.map(Body::new)).await
    };
    let response = match answered.await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    if response.extensions().get::<CloseWithoutAnswer>().is_some() {
        return Err(ClosedWithoutAnswer);
    }
    Ok(response)
}

/// The connection was closed without an answer, as an armed fault asked.
#[derive(Debug)]
struct ClosedWithoutAnswer;

impl std::fmt::Display for ClosedWithoutAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("closed without an answer, as an armed fault asks")
    }
}

impl std::error::Error for ClosedWithoutAnswer {}

/// A connection whose hyper-made error answers are replaced (see the
/// module documentation).
pub struct Rewriting<S> {
    inner: S,
    /// The first bytes of the request hyper is reading: its request line.
    request_start: Vec<u8>,
    /// Set when an answer is written: the next bytes read start a request.
    /// (Pipelined requests read ahead may be attributed to the wrong API's
    /// error shape; the status stays right.)
    awaiting_request: bool,
    /// A replacement answer, and how much of it is written.
    pending: Vec<u8>,
    pending_at: usize,
}

impl<S> Rewriting<S> {
    pub fn new(inner: S) -> Self {
        Rewriting {
            inner,
            request_start: Vec::new(),
            awaiting_request: true,
            pending: Vec::new(),
            pending_at: 0,
        }
    }
}

impl<S: AsyncWrite + Unpin> Rewriting<S> {
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.pending_at < self.pending.len() {
            let written =
                ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.pending_at..]))?;
            if written == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pending_at += written;
        }
        self.pending.clear();
        self.pending_at = 0;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Rewriting<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        let read = &buf.filled()[before..];
        if !read.is_empty() {
            if this.awaiting_request {
                this.awaiting_request = false;
                this.request_start.clear();
            }
            let room = REQUEST_START_BYTES.saturating_sub(this.request_start.len());
            this.request_start
                .extend_from_slice(&read[..room.min(read.len())]);
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Rewriting<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        this.awaiting_request = true;
        if let Some(status) = automatic_answer(buf) {
            this.pending = replacement(status, request_path(&this.request_start));
            // hyper's answer counts as written; the replacement goes out
            // now or on the flush hyper sends next.
            if let Poll::Ready(Err(error)) = this.poll_drain(cx) {
                return Poll::Ready(Err(error));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// The status of `buf` if it is an answer hyper made itself: a whole head
/// of status 400, 414 or 431 with `content-length: 0` and no content type
/// (every answer of the router has a JSON body and says so).
fn automatic_answer(buf: &[u8]) -> Option<StatusCode> {
    let rest = buf
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| buf.strip_prefix(b"HTTP/1.0 "))?;
    let status = std::str::from_utf8(rest.get(..3)?)
        .ok()?
        .parse::<u16>()
        .ok()?;
    if !matches!(status, 400 | 414 | 431) {
        return None;
    }
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&buf[..end + 2]).to_ascii_lowercase();
    if head.contains("\r\ncontent-length: 0\r\n") && !head.contains("\r\ncontent-type:") {
        StatusCode::from_u16(status).ok()
    } else {
        None
    }
}

/// The path named by a request line's start (`GET /pps/... HTTP/1.1`).
fn request_path(start: &[u8]) -> String {
    let line = String::from_utf8_lossy(start);
    let target = line.split(' ').nth(1).unwrap_or("/");
    // An absolute-form target (`http://host/path`) names its path after the host.
    let path = match target.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |at| &rest[at..]),
        None => target,
    };
    path.to_owned()
}

/// The whole replacement answer: hyper's status with the API's JSON body.
fn replacement(status: StatusCode, path: String) -> Vec<u8> {
    let problem = match status {
        StatusCode::URI_TOO_LONG => Problem::new(
            "URI_TOO_LONG",
            format!(
                "the request target is too long, at most {} bytes are served",
                crate::http::limits::MAX_URI_BYTES
            ),
        ),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => Problem::new(
            "HEADERS_TOO_LARGE",
            format!(
                "the request head is too large (more than 100 headers or {HEAD_BUFFER_BYTES} bytes), \
                 at most {} bytes of headers are served",
                crate::http::limits::MAX_HEADER_BYTES
            ),
        ),
        _ => Problem::new("MALFORMED_REQUEST", "the request line or a header is malformed"),
    };
    let body = Family::of_path(&path).body(status, problem).to_string();
    let reason = status.canonical_reason().unwrap_or("Error");
    let mut answer = format!(
        "HTTP/1.1 {} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        status.as_u16(),
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(body.as_bytes());
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_bodiless_refusals_are_rewritten() {
        let hyper = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        assert_eq!(automatic_answer(hyper), Some(StatusCode::URI_TOO_LONG));
        let ours = b"HTTP/1.1 414 URI Too Long\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(automatic_answer(ours), None);
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(automatic_answer(ok), None);
    }

    #[test]
    fn the_replacement_has_the_apis_body() {
        let path = request_path(b"GET /shop/consumer/v1/partners/aaaaaaaaaaaaaaaa");
        let answer = String::from_utf8(replacement(StatusCode::URI_TOO_LONG, path)).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 414 URI Too Long\r\n"),
            "{answer}"
        );
        assert!(answer.contains("content-type: application/json\r\n"));
        let body: serde_json::Value =
            serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body["decline"]["reasons"][0], "URI_TOO_LONG");
        assert_eq!(
            request_path(b"PUT http://h:1/v2/partners/p/shops/s HTTP/1.1"),
            "/v2/partners/p/shops/s"
        );
    }
}
