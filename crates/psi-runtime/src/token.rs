//! Bearer tokens: one cached token per audience, fetched once however many
//! calls ask at the same time, reused until shortly before it expires.

use crate::Secret;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
pub struct FetchedToken {
    pub access_token: Secret,
    pub expires_in: Duration,
}

/// Why no token could be had. Names the audience and, where there was an
/// answer, its status; never contains a credential.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("token for {audience}: {problem}")]
pub struct TokenError {
    pub audience: Audience,
    /// The token endpoint's HTTP status, when it answered.
    pub status: Option<u16>,
    pub problem: String,
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Fetches a fresh token for an audience (the facade implements it with the
/// generated token clients).
pub trait FetchToken: Send + Sync + 'static {
    fn fetch<'a>(
        &'a self,
        audience: &'a Audience,
    ) -> BoxFuture<'a, Result<FetchedToken, TokenError>>;
}

struct CachedToken {
    token: Secret,
    refresh_at: Instant,
}

/// One token per audience, single flight.
pub struct TokenCache {
    fetcher: Box<dyn FetchToken>,
    slots: Mutex<HashMap<Audience, Arc<tokio::sync::Mutex<Option<CachedToken>>>>>,
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
    pub fn new(fetcher: impl FetchToken) -> Self {
        Self {
            fetcher: Box::new(fetcher),
            slots: Mutex::new(HashMap::new()),
        }
    }

    fn slot(&self, audience: &Audience) -> Arc<tokio::sync::Mutex<Option<CachedToken>>> {
        let mut slots = self
            .slots
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        slots.entry(audience.clone()).or_default().clone()
    }

    /// A valid token for `audience`. Concurrent callers on a cold or expired
    /// cache wait for the one fetch in flight instead of starting their own.
    pub async fn token(&self, audience: &Audience) -> Result<Secret, TokenError> {
        let slot = self.slot(audience);
        let mut cached = slot.lock().await;
        if let Some(token) = cached.as_ref().filter(|t| Instant::now() < t.refresh_at) {
            return Ok(token.token.clone());
        }
        let span = tracing::debug_span!("psi.token", audience = %audience);
        let fetched = tracing::Instrument::instrument(self.fetcher.fetch(audience), span).await?;
        let refresh_at = Instant::now() + fetched.expires_in - refresh_margin(fetched.expires_in);
        *cached = Some(CachedToken {
            token: fetched.access_token.clone(),
            refresh_at,
        });
        Ok(fetched.access_token)
    }

    /// Forgets `rejected` (an API answered 401 to it). A newer token that
    /// another call already fetched is kept.
    pub async fn invalidate(&self, audience: &Audience, rejected: &Secret) {
        let slot = self.slot(audience);
        let mut cached = slot.lock().await;
        if cached.as_ref().is_some_and(|t| &t.token == rejected) {
            *cached = None;
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

    #[tokio::test]
    async fn an_expiring_token_is_replaced_and_a_rejected_one_dropped() {
        let (cache, calls) = cache(Duration::from_millis(300));
        let audience = Audience::Service("https://api.example.com/paylater".into());
        let first = cache.token(&audience).await.unwrap();
        assert_eq!(
            cache.token(&audience).await.unwrap(),
            first,
            "reused while valid"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        let second = cache.token(&audience).await.unwrap();
        assert_ne!(second, first, "refreshed after expiry");
        cache.invalidate(&audience, &first).await;
        assert_eq!(
            cache.token(&audience).await.unwrap(),
            second,
            "a stale rejection keeps the newer token"
        );
        cache.invalidate(&audience, &second).await;
        assert_ne!(cache.token(&audience).await.unwrap(), second);
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }
}
