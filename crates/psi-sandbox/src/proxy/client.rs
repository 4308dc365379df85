//! How a request reaches its upstream. Each family's upstream URL is parsed
//! once, at start; a request's URI is that URL with the rest of the path
//! (and the query) appended. Plain-HTTP upstreams are reached through
//! hyper-util's pooled client directly, https ones through the sandbox's
//! reqwest client (`tls.rs`, the TLS backend its features chose). Neither
//! follows a redirect nor undoes a content coding: the answer is passed on
//! as the upstream sent it.

use super::upstreams::{Family, Upstreams};
use axum::body::{Body, Bytes};
use axum::http::uri::{Authority, PathAndQuery, Scheme};
use axum::http::{HeaderMap, Method, Request, Response, Uri};
use futures_util::Stream;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use std::pin::Pin;
use std::time::Duration;

/// Why an upstream could not be asked (connect, TLS, a broken answer).
pub(crate) type Error = Box<dyn std::error::Error + Send + Sync>;

/// A body passed on: read whole, or the first bytes and the rest to come.
pub(crate) enum Outgoing {
    Whole(Bytes),
    Stream(Pin<Box<dyn Stream<Item = Result<Bytes, axum::Error>> + Send>>),
}

/// One family's upstream, parsed.
pub(crate) struct Target {
    /// As given, without a trailing slash: what a 502 names.
    pub url: String,
    scheme: Scheme,
    authority: Authority,
    /// The URL's own path, without a trailing slash (often `""`).
    path: String,
}

impl Target {
    fn parse(url: &str) -> Result<Target, String> {
        let uri: Uri = url.parse().map_err(|e| format!("{e}"))?;
        let (Some(scheme), Some(authority)) = (uri.scheme(), uri.authority()) else {
            return Err("not an absolute http or https URL".to_owned());
        };
        if uri.query().is_some() {
            return Err("an upstream URL has no query".to_owned());
        }
        Ok(Target {
            url: url.to_owned(),
            scheme: scheme.clone(),
            authority: authority.clone(),
            path: uri.path().trim_end_matches('/').to_owned(),
        })
    }

    fn is_plain(&self) -> bool {
        self.scheme == Scheme::HTTP
    }

    /// The upstream's URI of `rest`, the path (and query) after the
    /// family's own prefix.
    fn uri(&self, rest: &str) -> Result<Uri, Error> {
        let path_and_query = if self.path.is_empty() {
            PathAndQuery::try_from(rest)?
        } else {
            PathAndQuery::try_from(format!("{}{rest}", self.path))?
        };
        let mut parts = axum::http::uri::Parts::default();
        parts.scheme = Some(self.scheme.clone());
        parts.authority = Some(self.authority.clone());
        parts.path_and_query = Some(path_and_query);
        Ok(Uri::from_parts(parts)?)
    }
}

/// The upstreams of every family and the clients that reach them.
pub(crate) struct Client {
    targets: [Option<Target>; 5],
    plain: hyper_util::client::legacy::Client<HttpConnector, Body>,
    tls: reqwest::Client,
}

impl Client {
    /// `tls` reaches the https upstreams. The error names the flag whose
    /// URL cannot be used.
    pub fn new(upstreams: &Upstreams, tls: reqwest::Client) -> Result<Client, String> {
        let mut targets: [Option<Target>; 5] = Default::default();
        for family in Family::ALL {
            if let Some(url) = upstreams.get(family) {
                let target =
                    Target::parse(url).map_err(|e| format!("{}: {url}: {e}", family.flag()))?;
                targets[family as usize] = Some(target);
            }
        }
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        // Idle connections are kept (one per concurrent client at most)
        // and closed after 90 s unused, as reqwest's pool does.
        let plain = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(Duration::from_secs(90))
            .build(connector);
        Ok(Client {
            targets,
            plain,
            tls,
        })
    }

    /// The upstream of `family`, if one was given.
    pub fn target(&self, family: Family) -> Option<&Target> {
        self.targets[family as usize].as_ref()
    }

    /// Sends `method` to `rest` at `target` with `headers` and `body`.
    pub async fn send(
        &self,
        target: &Target,
        method: Method,
        rest: &str,
        headers: HeaderMap,
        body: Outgoing,
    ) -> Result<Response<Body>, Error> {
        let uri = target.uri(rest)?;
        if target.is_plain() {
            let body = match body {
                Outgoing::Whole(bytes) => Body::from(bytes),
                Outgoing::Stream(stream) => Body::from_stream(stream),
            };
            let mut request = Request::new(body);
            *request.method_mut() = method;
            *request.uri_mut() = uri;
            *request.headers_mut() = headers;
            let answer = self.plain.request(request).await?;
            Ok(answer.map(Body::new))
        } else {
            let body = match body {
                Outgoing::Whole(bytes) => reqwest::Body::from(bytes),
                Outgoing::Stream(stream) => reqwest::Body::wrap_stream(stream),
            };
            let url = reqwest::Url::parse(&uri.to_string())?;
            let mut request = reqwest::Request::new(method, url);
            *request.headers_mut() = headers;
            *request.body_mut() = Some(body);
            let answer = self
                .tls
                .execute(request)
                .await
                .map_err(|e| e.without_url())?;
            Ok(Response::from(answer).map(Body::new))
        }
    }
}
