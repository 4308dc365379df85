//! Bearer tokens: one cached token per audience, fetched once however many
//! calls ask at the same time, reused until shortly before it expires.

use crate::Secret;
use reqwest::header::HeaderValue;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::Duration;
// tokio's clock, not std's: tests pause it and move it forward instead of
// sleeping until a token expires.
use tokio::time::Instant;

/// What a token is for: the address of a provider API (the `audience` of
/// the client-credentials grant) or a storefront platform installation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Audience {
    /// A provider API, named by its full address (`{api_url}/paylater`).
    Service(String),
    /// The storefront platform at this address (its own token endpoint, scope `write`).
    Platform(String),
}

impl std::fmt::Display for Audience {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Audience::Service(url) => f.write_str(url),
            Audience::Platform(url) => write!(f, "platform {url}"),
        }
    }
}

/// A token as the token endpoint returned it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FetchedToken {
    /// The bearer token.
    pub access_token: Secret,
    /// How long it stays valid, as the token server said (`expires_in`).
    pub expires_in: Duration,
}

impl FetchedToken {
    /// A token valid for `expires_in` from now.
    pub fn new(access_token: Secret, expires_in: Duration) -> Self {
        Self {
            access_token,
            expires_in,
        }
    }
}

/// Why no token could be had. Names the audience and, where there was an
/// answer, its status; never contains a credential or a response body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("token for {audience}: {message}")]
pub struct TokenError {
    kind: TokenErrorKind,
    audience: Audience,
    status: Option<u16>,
    message: String,
}

/// What kind of failure a [`TokenError`] is, for callers who react
/// differently to wrong credentials and to an outage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TokenErrorKind {
    /// The token server refused the client id and secret (401 or 403, or a
    /// 400 naming `invalid_client` or `unauthorized_client`).
    RejectedCredentials,
    /// The token server answered another status.
    ServerStatus,
    /// The token server could not be reached, or the connection broke.
    Transport,
    /// The token server's answer is not a token.
    Decode,
    /// A setting the token needs is missing (platform credentials, an API's audience).
    MissingSetting,
}

impl TokenError {
    /// A token failure for `audience`; `message` must not contain a
    /// credential or a response body.
    pub fn new(
        kind: TokenErrorKind,
        audience: Audience,
        status: Option<u16>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            audience,
            status,
            message: message.into(),
        }
    }

    /// What kind of failure it is.
    pub fn kind(&self) -> TokenErrorKind {
        self.kind
    }

    /// The audience the token was for.
    pub fn audience(&self) -> &Audience {
        &self.audience
    }

    /// The token server's HTTP status, when it answered.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// What went wrong, in words.
    pub fn message(&self) -> &str {
        &self.message
    }
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Fetches a fresh token for an audience (the facade implements it with the
/// generated token clients).
pub trait FetchToken: Send + Sync + 'static {
    /// Requests a new token for `audience` from its token server.
    fn fetch<'a>(
        &'a self,
        audience: &'a Audience,
    ) -> BoxFuture<'a, Result<FetchedToken, TokenError>>;
}

#[derive(Clone)]
struct CachedToken {
    token: Secret,
    /// `Bearer <token>`, built once per token: calls clone it (a reference
    /// count) instead of formatting and validating a header each time.
    header: HeaderValue,
    refresh_at: Instant,
}

impl CachedToken {
    fn new(token: Secret, refresh_at: Instant) -> Self {
        let mut header = HeaderValue::from_str(&format!("Bearer {}", token.expose()))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer invalid-token"));
        header.set_sensitive(true);
        Self {
            token,
            header,
            refresh_at,
        }
    }
}

/// The cached token of one audience. Readers only take the read lock; the
/// async `fetching` lock makes concurrent misses wait for one fetch.
#[derive(Default)]
struct Slot {
    current: RwLock<Option<CachedToken>>,
    fetching: tokio::sync::Mutex<()>,
}

impl Slot {
    fn valid(&self) -> Option<CachedToken> {
        let current = self
            .current
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        current
            .as_ref()
            .filter(|t| Instant::now() < t.refresh_at)
            .cloned()
    }

    fn store(&self, token: Option<CachedToken>) {
        *self
            .current
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = token;
    }
}

/// One token per audience, single flight.
pub struct TokenCache {
    fetcher: Box<dyn FetchToken>,
    slots: RwLock<HashMap<Audience, Arc<Slot>>>,
}

impl std::fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCache").finish_non_exhaustive()
    }
}

/// How long before `expires_in` runs out a token is replaced: a tenth of
/// its lifetime, at most 60 seconds, so a call never leaves with a token
/// that expires on the way.
fn refresh_margin(expires_in: Duration) -> Duration {
    (expires_in / 10).min(Duration::from_secs(60))
}

impl TokenCache {
    /// An empty cache that fetches tokens with `fetcher`.
    pub fn new(fetcher: impl FetchToken) -> Self {
        Self {
            fetcher: Box::new(fetcher),
            slots: RwLock::new(HashMap::new()),
        }
    }

    fn slot(&self, audience: &Audience) -> Arc<Slot> {
        let known = self
            .slots
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(slot) = known.get(audience) {
            return slot.clone();
        }
        drop(known);
        let mut slots = self
            .slots
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        slots.entry(audience.clone()).or_default().clone()
    }

    /// A valid token for `audience`. Concurrent callers on a cold or expired
    /// cache wait for the one fetch in flight instead of starting their own.
    pub async fn token(self: &Arc<Self>, audience: &Audience) -> Result<Secret, TokenError> {
        Ok(self.handle(audience).current().await?.token)
    }

    /// The cache entry of one audience, resolved once (clients keep it so a
    /// call does not look the audience up again).
    pub fn handle(self: &Arc<Self>, audience: &Audience) -> TokenHandle {
        TokenHandle(Arc::new(HandleParts {
            cache: self.clone(),
            audience: audience.clone(),
            slot: self.slot(audience),
        }))
    }
}

/// One audience's entry of a [`TokenCache`]; cloning is one reference count.
#[derive(Clone)]
pub struct TokenHandle(Arc<HandleParts>);

struct HandleParts {
    cache: Arc<TokenCache>,
    audience: Audience,
    slot: Arc<Slot>,
}

impl std::fmt::Debug for TokenHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenHandle")
            .field("audience", &self.0.audience)
            .finish_non_exhaustive()
    }
}

impl TokenHandle {
    /// The audience whose token this handle hands out.
    pub fn audience(&self) -> &Audience {
        &self.0.audience
    }

    /// The `Authorization` header value for a valid token (sensitive: never
    /// printed by the HTTP stack).
    pub async fn authorization(&self) -> Result<HeaderValue, TokenError> {
        Ok(self.current().await?.header)
    }

    async fn current(&self) -> Result<CachedToken, TokenError> {
        if let Some(token) = self.0.slot.valid() {
            return Ok(token);
        }
        let _fetching = self.0.slot.fetching.lock().await;
        // Another caller may have fetched while this one waited.
        if let Some(token) = self.0.slot.valid() {
            return Ok(token);
        }
        let span = tracing::debug_span!("psi.token", audience = %self.0.audience);
        let fetched =
            tracing::Instrument::instrument(self.0.cache.fetcher.fetch(&self.0.audience), span)
                .await?;
        let lifetime = fetched.expires_in - refresh_margin(fetched.expires_in);
        // A lifetime beyond what the clock can represent means "does not expire".
        let refresh_at = Instant::now()
            .checked_add(lifetime)
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(100 * 365 * 24 * 3600));
        let token = CachedToken::new(fetched.access_token, refresh_at);
        self.0.slot.store(Some(token.clone()));
        Ok(token)
    }

    /// Forgets the token behind `rejected` (an API answered 401 to it). A
    /// newer token that another call already fetched is kept.
    pub async fn invalidate(&self, rejected: &HeaderValue) {
        let _fetching = self.0.slot.fetching.lock().await;
        let current = self
            .0
            .slot
            .current
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        if current.is_some_and(|t| t.header == *rejected) {
            self.0.slot.store(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counting {
        calls: Arc<AtomicUsize>,
        lifetime: Duration,
    }

    impl FetchToken for Counting {
        fn fetch<'a>(&'a self, _: &'a Audience) -> BoxFuture<'a, Result<FetchedToken, TokenError>> {
            Box::pin(async move {
                let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(FetchedToken {
                    access_token: Secret::new(format!("token-{n}")),
                    expires_in: self.lifetime,
                })
            })
        }
    }

    fn cache(lifetime: Duration) -> (Arc<TokenCache>, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        (
            Arc::new(TokenCache::new(Counting {
                calls: calls.clone(),
                lifetime,
            })),
            calls,
        )
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_callers_share_one_fetch_per_audience() {
        let (cache, calls) = cache(Duration::from_secs(1800));
        let pay_later = Audience::Service("https://api.example.com/paylater".into());
        let bank = Audience::Service("https://api.example.com/shop/consumer/v1".into());
        let tasks: Vec<_> = (0..100)
            .map(|i| {
                let cache = cache.clone();
                let audience = if i % 2 == 0 {
                    pay_later.clone()
                } else {
                    bank.clone()
                };
                tokio::spawn(async move { cache.token(&audience).await.unwrap() })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(calls.load(Ordering::SeqCst), 2, "one fetch per audience");
    }

    // A paused clock moves only when told (or when the runtime idles), so
    // the boundaries are exact and nothing really sleeps.
    #[tokio::test(start_paused = true)]
    async fn an_expiring_token_is_replaced_and_a_rejected_one_dropped() {
        // 300 s: refreshed a tenth (30 s) before it runs out, at 270 s.
        let (cache, calls) = cache(Duration::from_secs(300));
        let audience = Audience::Service("https://api.example.com/paylater".into());
        let first = cache.token(&audience).await.unwrap();
        let fetched_at = Instant::now();
        tokio::time::advance(Duration::from_secs(270) - Duration::from_millis(1)).await;
        assert_eq!(
            cache.token(&audience).await.unwrap(),
            first,
            "reused while valid"
        );
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        tokio::time::advance(fetched_at + Duration::from_secs(270) - Instant::now()).await;
        let second = cache.token(&audience).await.unwrap();
        assert_ne!(second, first, "refreshed at the margin");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        let handle = cache.handle(&audience);
        let bearer =
            |token: &Secret| HeaderValue::from_str(&format!("Bearer {}", token.expose())).unwrap();
        handle.invalidate(&bearer(&first)).await;
        assert_eq!(
            cache.token(&audience).await.unwrap(),
            second,
            "a stale rejection keeps the newer token"
        );
        handle.invalidate(&bearer(&second)).await;
        assert_ne!(cache.token(&audience).await.unwrap(), second);
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn a_lifetime_beyond_the_clock_does_not_panic() {
        let (cache, calls) = cache(Duration::MAX);
        let audience = Audience::Service("https://api.example.com/paylater".into());
        let first = cache.token(&audience).await.unwrap();
        tokio::time::advance(Duration::from_secs(10 * 365 * 24 * 3600)).await;
        assert_eq!(cache.token(&audience).await.unwrap(), first);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
