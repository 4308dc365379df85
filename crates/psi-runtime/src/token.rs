//! Bearer tokens: one cached token per audience, fetched once however many
//! calls ask at the same time, reused until shortly before it expires.
//!
//! After warm-up no call waits for a token: a token has two deadlines.
//! From `refresh_at` (the larger of 60 s and a tenth of its lifetime before
//! it expires, but never earlier than half its lifetime) the first call
//! that sees it starts one background refresh for the audience and keeps
//! using the still-valid token. From `usable_until` (a tenth of its
//! lifetime, at most 60 s, before it expires) the token is no longer sent:
//! a caller finding no usable token waits for the one fetch in flight.
//!
//! A fetch's failure is shared too: the callers waiting for it get its
//! error, and so does every caller for a short pause after it (one second,
//! doubled after each failure in a row up to thirty), so a token outage
//! costs one fetch per pause, not one per call. A failed background
//! refresh is logged; the next call past the pause tries again.

use crate::{BoxFuture, Secret};
use reqwest::header::HeaderValue;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tracing::Instrument;
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
#[derive(Debug, Clone, PartialEq, Eq)]
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

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "token for {}: {}", self.audience, self.message)
    }
}

impl std::error::Error for TokenError {}

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
    /// From here on, the first call that notices starts a background refresh.
    refresh_at: Instant,
    /// From here on, the token is not sent: it could expire on the way.
    usable_until: Instant,
}

impl CachedToken {
    /// The cached form of `fetched`; a token that cannot be sent as a
    /// header value (a control character, a non-ASCII byte) is a decode
    /// failure of the token answer, never a placeholder sent instead.
    fn new(fetched: FetchedToken, audience: &Audience) -> Result<Self, TokenError> {
        let lifetime = fetched.expires_in;
        let now = Instant::now();
        // A lifetime beyond what the clock can represent means "does not expire".
        let after = |wait: Duration| {
            now.checked_add(wait)
                .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600))
        };
        let token = fetched.access_token;
        let mut header =
            HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
                TokenError::new(
                    TokenErrorKind::Decode,
                    audience.clone(),
                    None,
                    "the access_token is not a valid header value",
                )
            })?;
        header.set_sensitive(true);
        Ok(Self {
            token,
            header,
            refresh_at: after(lifetime - refresh_margin(lifetime)),
            usable_until: after(lifetime - expiry_margin(lifetime)),
        })
    }
}

/// A failed fetch, remembered so that the callers waiting for it, and those
/// arriving shortly after, get its error instead of each fetching again.
#[derive(Clone)]
struct RememberedFailure {
    error: TokenError,
    /// Until then, a caller gets `error` without a fetch.
    until: Instant,
    /// How long the next failure is remembered: doubled after each failure
    /// in a row, from [`FIRST_FAILURE_PAUSE`] up to [`LONGEST_FAILURE_PAUSE`].
    next_pause: Duration,
}

/// How long a first failed fetch is remembered.
const FIRST_FAILURE_PAUSE: Duration = Duration::from_secs(1);
/// The longest a failed fetch is remembered.
const LONGEST_FAILURE_PAUSE: Duration = Duration::from_secs(30);

/// The cached token of one audience. Readers only take the read lock; the
/// async `fetching` lock makes concurrent fetches (a waiting caller's or the
/// background refresh) one; `refreshing` lets only the first caller that
/// sees a token due for refresh start the background task.
#[derive(Default)]
struct Slot {
    current: RwLock<Option<CachedToken>>,
    /// The last fetch's failure while it is remembered (guarded by `fetching`).
    failure: std::sync::Mutex<Option<RememberedFailure>>,
    fetching: tokio::sync::Mutex<()>,
    refreshing: AtomicBool,
}

impl Slot {
    /// `pick` of the token and when to refresh it, if it may still be sent
    /// at `now`. Only what `pick` takes is copied: a call needs the header,
    /// not a copy of the token's text (an allocation per call).
    fn usable<R>(
        &self,
        now: Instant,
        pick: impl FnOnce(&CachedToken) -> R,
    ) -> Option<(R, Instant)> {
        let current = self
            .current
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        current
            .as_ref()
            .filter(|t| now < t.usable_until)
            .map(|t| (pick(t), t.refresh_at))
    }

    /// Whether the token held at `now` is missing or due for a refresh.
    fn due(&self, now: Instant) -> bool {
        self.current
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .as_ref()
            .is_none_or(|t| now >= t.refresh_at)
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

/// How long before `expires_in` runs out a token stops being sent: a tenth
/// of its lifetime, at most 60 seconds, so a call never leaves with a token
/// that expires on the way.
fn expiry_margin(expires_in: Duration) -> Duration {
    (expires_in / 10).min(Duration::from_secs(60))
}

/// How long before `expires_in` runs out the background refresh starts: the
/// larger of 60 seconds and a tenth of the lifetime (so a slow or failing
/// token server has time before any call would have to wait), but at most
/// half the lifetime (a short-lived token is not replaced as soon as it
/// arrives). Always at least [`expiry_margin`].
fn refresh_margin(expires_in: Duration) -> Duration {
    (expires_in / 10)
        .max(Duration::from_secs(60))
        .min(expires_in / 2)
        .max(expiry_margin(expires_in))
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
        self.handle(audience)
            .current(|token| token.token.clone())
            .await
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

/// Clears a slot's `refreshing` flag when dropped: made before the refresh
/// task is spawned and moved into it, so the flag is cleared however the
/// task ends, or when it never runs (a runtime shutting down drops it).
struct RefreshGuard(Arc<Slot>);

impl Drop for RefreshGuard {
    fn drop(&mut self) {
        self.0.refreshing.store(false, Ordering::Release);
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
        self.current(|token| token.header.clone()).await
    }

    /// The `Authorization` header value of the cached token when it is
    /// usable, without waiting (starting the background refresh when it is
    /// due, as [`authorization`](Self::authorization) does); `None` when a
    /// caller has to wait for a token.
    ///
    /// `now` is the caller's clock reading (a call reads the clock once, for
    /// this and for its duration).
    pub(crate) fn cached_authorization(&self, now: Instant) -> Option<HeaderValue> {
        self.cached(now, |token| token.header.clone())
    }

    /// `pick` of the cached token when it is usable at `now`, starting the
    /// background refresh when it is due.
    fn cached<R>(&self, now: Instant, pick: impl Fn(&CachedToken) -> R) -> Option<R> {
        let (picked, refresh_at) = self.0.slot.usable(now, &pick)?;
        if now >= refresh_at {
            self.refresh_in_background();
        }
        Some(picked)
    }

    /// `pick` of a valid token, from the cache or fetched.
    async fn current<R>(&self, pick: impl Fn(&CachedToken) -> R) -> Result<R, TokenError> {
        if let Some(picked) = self.cached(Instant::now(), &pick) {
            return Ok(picked);
        }
        let _fetching = self.0.slot.fetching.lock().await;
        // Another caller (or the background refresh) may have fetched while this one waited.
        if let Some((picked, _)) = self.0.slot.usable(Instant::now(), &pick) {
            return Ok(picked);
        }
        // Or failed: its error is this caller's too, for a while.
        if let Some(error) = self.remembered_failure(Instant::now()) {
            return Err(error);
        }
        let span = tracing::debug_span!("psi.token", audience = %self.0.audience);
        Ok(pick(&self.fetch().instrument(span).await?))
    }

    /// Fetches a token and caches it, or remembers the failure; the caller
    /// holds `fetching`.
    async fn fetch(&self) -> Result<CachedToken, TokenError> {
        let fetched = self
            .0
            .cache
            .fetcher
            .fetch(&self.0.audience)
            .await
            .and_then(|fetched| CachedToken::new(fetched, &self.0.audience));
        let mut failure = self
            .0
            .slot
            .failure
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match fetched {
            Ok(token) => {
                *failure = None;
                self.0.slot.store(Some(token.clone()));
                Ok(token)
            }
            Err(error) => {
                let pause = failure
                    .as_ref()
                    .map_or(FIRST_FAILURE_PAUSE, |last| last.next_pause);
                *failure = Some(RememberedFailure {
                    error: error.clone(),
                    until: Instant::now() + pause,
                    next_pause: (pause * 2).min(LONGEST_FAILURE_PAUSE),
                });
                Err(error)
            }
        }
    }

    /// The last fetch's error while it is remembered at `now`.
    fn remembered_failure(&self, now: Instant) -> Option<TokenError> {
        let failure = self
            .0
            .slot
            .failure
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        failure
            .as_ref()
            .filter(|failure| now < failure.until)
            .map(|failure| failure.error.clone())
    }

    /// Starts one background refresh of this audience's token unless one is
    /// running. Outside a tokio runtime nothing starts: the token is then
    /// fetched by the first call that finds it no longer usable.
    fn refresh_in_background(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.0.slot.refreshing.swap(true, Ordering::AcqRel) {
            return;
        }
        let running = RefreshGuard(self.0.slot.clone());
        let handle = self.clone();
        // Its own root span: the call that noticed does not wait for it.
        let span = tracing::debug_span!(parent: None, "psi.token", audience = %self.0.audience, background = true);
        runtime.spawn(
            async move {
                let _running = running;
                let _fetching = handle.0.slot.fetching.lock().await;
                // A caller that had to wait may have fetched meanwhile, or
                // failed (then the next call past the pause tries again).
                if !handle.0.slot.due(Instant::now())
                    || handle.remembered_failure(Instant::now()).is_some()
                {
                    return;
                }
                if let Err(error) = handle.fetch().await {
                    // TokenError never carries a credential or a body.
                    tracing::warn!(%error, "background token refresh failed; the next call tries again");
                }
            }
            .instrument(span),
        );
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

    #[test]
    fn a_token_error_names_its_audience_and_never_more_than_its_message() {
        let error = TokenError::new(
            TokenErrorKind::ServerStatus,
            Audience::Platform("https://shop.example".into()),
            Some(503),
            "the token server answered 503",
        );
        assert_eq!(
            error.to_string(),
            "token for platform https://shop.example: the token server answered 503"
        );
        assert!(std::error::Error::source(&error).is_none());
    }

    struct Counting {
        calls: Arc<AtomicUsize>,
        lifetime: Duration,
        /// How long the token server takes to answer (on tokio's clock).
        delay: Duration,
        /// Which fetches fail (counted from 1).
        failing: fn(usize) -> bool,
    }

    impl FetchToken for Counting {
        fn fetch<'a>(
            &'a self,
            audience: &'a Audience,
        ) -> BoxFuture<'a, Result<FetchedToken, TokenError>> {
            Box::pin(async move {
                let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
                tokio::time::sleep(self.delay).await;
                if (self.failing)(n) {
                    return Err(TokenError::new(
                        TokenErrorKind::ServerStatus,
                        audience.clone(),
                        Some(503),
                        "unavailable",
                    ));
                }
                Ok(FetchedToken {
                    access_token: Secret::new(format!("token-{n}")),
                    expires_in: self.lifetime,
                })
            })
        }
    }

    fn cache(lifetime: Duration) -> (Arc<TokenCache>, Arc<AtomicUsize>) {
        slow_cache(lifetime, Duration::from_millis(20), |_| false)
    }

    fn slow_cache(
        lifetime: Duration,
        delay: Duration,
        failing: fn(usize) -> bool,
    ) -> (Arc<TokenCache>, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        (
            Arc::new(TokenCache::new(Counting {
                calls: calls.clone(),
                lifetime,
                delay,
                failing,
            })),
            calls,
        )
    }

    /// Lets spawned tasks run without moving the paused clock.
    async fn settle() {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
    }

    #[test]
    fn margins() {
        let minutes = |m: u64| Duration::from_secs(60 * m);
        // One hour: refresh from 6 min before expiry, stop sending 1 min before.
        assert_eq!(refresh_margin(minutes(60)), minutes(6));
        assert_eq!(expiry_margin(minutes(60)), minutes(1));
        // Five minutes: refresh from 60 s before, stop sending 30 s before.
        assert_eq!(refresh_margin(minutes(5)), minutes(1));
        assert_eq!(expiry_margin(minutes(5)), Duration::from_secs(30));
        // Two seconds: refresh from half-time, stop sending 0.2 s before.
        assert_eq!(
            refresh_margin(Duration::from_secs(2)),
            Duration::from_secs(1)
        );
        assert_eq!(
            expiry_margin(Duration::from_secs(2)),
            Duration::from_millis(200)
        );
        assert_eq!(refresh_margin(Duration::ZERO), Duration::ZERO);
    }

    // The token server takes 500 ms of paused time. Calls after the refresh
    // margin start one background fetch and return at once with the old
    // token: on a paused clock, a call that waited would move the clock.
    #[tokio::test(start_paused = true)]
    async fn near_expiry_one_background_refresh_and_no_caller_waits() {
        let (cache, calls) =
            slow_cache(Duration::from_secs(300), Duration::from_millis(500), |_| {
                false
            });
        let audience = Audience::Service("https://api.example.com/paylater".into());
        let first = cache.token(&audience).await.unwrap();
        tokio::time::advance(Duration::from_secs(250)).await;
        for _ in 0..20 {
            let asked_at = Instant::now();
            assert_eq!(cache.token(&audience).await.unwrap(), first);
            assert_eq!(Instant::now(), asked_at, "the call did not wait");
            settle().await;
            tokio::time::advance(Duration::from_millis(10)).await;
        }
        assert_eq!(
            calls.load(Ordering::SeqCst),
            2,
            "one refresh, however many calls"
        );
        // 200 ms of the fetch's 500 ms have passed; let it finish.
        tokio::time::advance(Duration::from_millis(300)).await;
        settle().await;
        let second = cache.token(&audience).await.unwrap();
        assert_ne!(second, first, "the refreshed token is used");
        settle().await;
        assert_eq!(calls.load(Ordering::SeqCst), 2, "the new token is not due");
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_callers_near_expiry_start_one_refresh_per_audience() {
        let (cache, calls) =
            slow_cache(Duration::from_secs(300), Duration::from_millis(500), |_| {
                false
            });
        let audiences = [
            Audience::Service("https://api.example.com/paylater".into()),
            Audience::Service("https://api.example.com/shop/consumer/v1".into()),
        ];
        for audience in &audiences {
            cache.token(audience).await.unwrap();
        }
        tokio::time::advance(Duration::from_secs(250)).await;
        let tasks: Vec<_> = (0..100)
            .map(|i| {
                let cache = cache.clone();
                let audience = audiences[i % 2].clone();
                tokio::spawn(async move {
                    let asked_at = Instant::now();
                    cache.token(&audience).await.unwrap();
                    Instant::now() == asked_at
                })
            })
            .collect();
        for task in tasks {
            assert!(task.await.unwrap(), "no caller waited");
        }
        settle().await;
        assert_eq!(
            calls.load(Ordering::SeqCst),
            4,
            "two warm-ups, one refresh per audience"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_failing_background_refresh_keeps_the_old_token_and_is_tried_again() {
        // The second fetch (the first refresh) fails; the third succeeds.
        let (cache, calls) =
            slow_cache(Duration::from_secs(300), Duration::from_millis(500), |n| {
                n == 2
            });
        let audience = Audience::Service("https://api.example.com/paylater".into());
        let first = cache.token(&audience).await.unwrap();
        tokio::time::advance(Duration::from_secs(250)).await;
        assert_eq!(cache.token(&audience).await.unwrap(), first);
        settle().await;
        tokio::time::advance(Duration::from_millis(500)).await;
        settle().await;
        assert_eq!(
            calls.load(Ordering::SeqCst),
            2,
            "the refresh ran and failed"
        );
        assert_eq!(
            cache.token(&audience).await.unwrap(),
            first,
            "the failure does not fail a call while the old token is valid"
        );
        settle().await;
        assert_eq!(
            calls.load(Ordering::SeqCst),
            2,
            "within the pause after a failure, no call fetches again"
        );
        tokio::time::advance(FIRST_FAILURE_PAUSE).await;
        assert_eq!(cache.token(&audience).await.unwrap(), first);
        settle().await;
        assert_eq!(
            calls.load(Ordering::SeqCst),
            3,
            "the next call past the pause tries again"
        );
        tokio::time::advance(Duration::from_millis(500)).await;
        settle().await;
        assert_ne!(cache.token(&audience).await.unwrap(), first);
        assert_eq!(calls.load(Ordering::SeqCst), 3);
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
        // 300 s: refreshed in the background from 240 s (60 s before it
        // runs out), no longer sent from 270 s (a tenth before).
        let (cache, calls) = cache(Duration::from_secs(300));
        let audience = Audience::Service("https://api.example.com/paylater".into());
        let first = cache.token(&audience).await.unwrap();
        let fetched_at = Instant::now();
        tokio::time::advance(Duration::from_secs(240) - Duration::from_millis(1)).await;
        assert_eq!(
            cache.token(&audience).await.unwrap(),
            first,
            "reused while valid"
        );
        tokio::task::yield_now().await;
        assert_eq!(
            calls.load(Ordering::SeqCst),
            1,
            "no refresh before the margin"
        );
        // Nobody called between 240 s and 270 s: the token is not usable
        // any more, and the caller waits for a fresh one.
        tokio::time::advance(fetched_at + Duration::from_secs(270) - Instant::now()).await;
        let second = cache.token(&audience).await.unwrap();
        assert_ne!(second, first, "replaced at the margin");
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

    #[tokio::test(start_paused = true)]
    async fn a_failed_fetch_is_every_waiting_callers_and_is_remembered_briefly() {
        let (cache, calls) =
            slow_cache(Duration::from_secs(300), Duration::from_millis(200), |n| {
                n == 1
            });
        let audience = Audience::Service("https://api.example.com/paylater".into());
        let tasks: Vec<_> = (0..50)
            .map(|_| {
                let cache = cache.clone();
                let audience = audience.clone();
                tokio::spawn(async move { cache.token(&audience).await })
            })
            .collect();
        for task in tasks {
            let error = task.await.unwrap().unwrap_err();
            assert_eq!(error.status(), Some(503));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1, "one fetch for 50 callers");
        // Shortly after, a caller gets the same failure without a fetch.
        assert!(cache.token(&audience).await.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // Past the pause, the next caller fetches again (and succeeds).
        tokio::time::advance(FIRST_FAILURE_PAUSE).await;
        assert_eq!(cache.token(&audience).await.unwrap().expose(), "token-2");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn failures_in_a_row_are_remembered_longer_each_time() {
        let (cache, calls) =
            slow_cache(Duration::from_secs(300), Duration::from_millis(1), |_| true);
        let audience = Audience::Service("https://api.example.com/paylater".into());
        assert!(cache.token(&audience).await.is_err());
        tokio::time::advance(FIRST_FAILURE_PAUSE).await;
        assert!(cache.token(&audience).await.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        // The second failure is remembered for twice as long.
        tokio::time::advance(FIRST_FAILURE_PAUSE).await;
        assert!(cache.token(&audience).await.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        tokio::time::advance(FIRST_FAILURE_PAUSE).await;
        assert!(cache.token(&audience).await.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    struct Answering(&'static str);

    impl FetchToken for Answering {
        fn fetch<'a>(&'a self, _: &'a Audience) -> BoxFuture<'a, Result<FetchedToken, TokenError>> {
            Box::pin(async move {
                Ok(FetchedToken::new(
                    Secret::new(self.0),
                    Duration::from_secs(300),
                ))
            })
        }
    }

    #[tokio::test]
    async fn a_token_that_is_not_a_header_value_is_a_decode_failure() {
        let cache = Arc::new(TokenCache::new(Answering("line\nbreak")));
        let audience = Audience::Service("https://api.example.com/paylater".into());
        let error = cache.handle(&audience).authorization().await.unwrap_err();
        assert_eq!(error.kind(), TokenErrorKind::Decode);
        assert!(!error.to_string().contains("line"), "{error}");
    }

    #[test]
    fn the_refresh_flag_is_cleared_when_the_refresh_task_never_runs() {
        let cache = Arc::new(TokenCache::new(Answering("token")));
        let handle = cache.handle(&Audience::Service(
            "https://api.example.com/paylater".into(),
        ));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        // The task is spawned but the runtime is dropped before it is polled.
        runtime.block_on(async { handle.refresh_in_background() });
        assert!(handle.0.slot.refreshing.load(Ordering::Acquire));
        drop(runtime);
        assert!(
            !handle.0.slot.refreshing.load(Ordering::Acquire),
            "a refresh that never ran does not block every later one"
        );
    }
}
