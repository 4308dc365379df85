//! Invoice webhook subscriptions: the receivers the provider's webhook
//! subscription service informs "when a new transaction exists and further
//! information such as invoices can be retrieved".

use serde::{Deserialize, Serialize};

/// A registered receiver of invoice notifications; also the control API's
/// body and answer, `{"url"}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subscription {
    pub(crate) url: String,
}

impl Subscription {
    /// Whether the URL is one a notification can be sent to: absolute,
    /// http or https, with a host.
    pub fn has_receiver_url(&self) -> bool {
        reqwest::Url::parse(&self.url)
            .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.has_host())
    }
}
