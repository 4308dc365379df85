//! Invoice webhook subscriptions: the receivers the provider's webhook
//! subscription service informs "when a new transaction exists and further
//! information such as invoices can be retrieved".

use serde::{Deserialize, Serialize};

/// A registered receiver of invoice notifications; also the control API's
/// body, `{"url", "secret"}`. The answers show the `url` alone: the secret
/// is never sent back.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subscription {
    pub(crate) url: String,
    /// The key of the notifications' HMAC-SHA512 (the provider's
    /// subscription secret); without one, the sandbox's webhook secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) secret: Option<String>,
}

/// What the control API answers about a subscription: `{"url"}`.
#[derive(Debug, Clone, Serialize)]
pub struct Shown<'a> {
    pub url: &'a str,
}

impl Subscription {
    /// The subscription as the control API shows it.
    pub fn shown(&self) -> Shown<'_> {
        Shown { url: &self.url }
    }
}

impl Subscription {
    /// Whether the URL is one a notification can be sent to: absolute,
    /// http or https, with a host.
    pub fn has_receiver_url(&self) -> bool {
        reqwest::Url::parse(&self.url)
            .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.has_host())
    }
}
