//! The invoice webhook subscriptions kept by the sandbox.

use super::store::{tables, Batch, Loader};
use super::table::Log;
use super::Persisted;
use crate::models::webhook_subscriptions::Subscription;

/// The registered receivers of invoice notifications, oldest first.
#[derive(Debug, Default)]
pub struct WebhookSubscriptionsState {
    pub(crate) subscriptions: Log<Subscription>,
}

impl Persisted for WebhookSubscriptionsState {
    fn has_changes(&self) -> bool {
        self.subscriptions.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        batch.log(tables::WEBHOOK_SUBSCRIPTIONS, &mut self.subscriptions)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        Ok(Self {
            subscriptions: loader.log(tables::WEBHOOK_SUBSCRIPTIONS)?,
        })
    }
}

impl WebhookSubscriptionsState {
    /// The addresses invoice notifications go to.
    pub fn urls(&self) -> Vec<String> {
        self.subscriptions.iter().map(|s| s.url.clone()).collect()
    }

    /// The secret the notifications to `url` are signed with: its
    /// subscription's own, else `None` (the sandbox's webhook secret; also
    /// for a subscription removed since the notification was queued).
    pub fn secret_for(&self, url: &str) -> Option<&str> {
        self.subscriptions
            .iter()
            .find(|s| s.url == url)
            .and_then(|s| s.secret.as_deref())
    }
}
