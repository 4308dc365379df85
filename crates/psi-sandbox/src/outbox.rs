//! Where the sandbox's notifications leave from: the HTTP client that
//! sends them (following no redirect, [`crate::tls`]), the secret session
//! notifications are signed with, the hosts they may go to
//! (`--webhook-allow`), the sandbox's own address (the links an invoice
//! notification carries), how many are kept, and the wake-up of the
//! scheduler that sends them (see `apis/payment_page/webhooks.rs`).
//! Cheap to clone; handlers reach it as a substate of the application.

use std::sync::Arc;
use tokio::sync::Notify;

#[derive(Clone)]
pub struct Outbox(Arc<Inner>);

pub struct Inner {
    /// Sends every notification.
    pub http: reqwest::Client,
    /// Signs session notifications (`--webhook-secret`).
    pub secret: String,
    /// The address the sandbox is reached at (`http://host[:port]`).
    pub url: String,
    /// Deliveries kept in a tenant's log (`--max-deliveries`).
    pub max_deliveries: usize,
    /// The hosts notifications may go to; empty: any (`--webhook-allow`).
    allow: Vec<String>,
    /// Wakes the scheduler: a delivery was queued or attempted, or a clock
    /// moved (`notify_one` keeps the wake-up for a scheduler not waiting
    /// yet, so none is lost).
    wake: Arc<Notify>,
}

impl std::ops::Deref for Outbox {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl Outbox {
    pub fn new(
        http: reqwest::Client,
        secret: String,
        url: String,
        max_deliveries: usize,
        allow: Vec<String>,
    ) -> Self {
        Outbox(Arc::new(Inner {
            http,
            secret,
            url,
            max_deliveries,
            allow,
            wake: Arc::new(Notify::new()),
        }))
    }

    /// `None` when a notification may be sent to `url`; why not otherwise
    /// (its host is not on the `--webhook-allow` list).
    pub fn refusal(&self, url: &str) -> Option<String> {
        if self.allow.is_empty() {
            return None;
        }
        let host = reqwest::Url::parse(url).ok().and_then(|url| {
            url.host_str()
                .map(|host| host.trim_end_matches('.').to_ascii_lowercase())
        });
        match host {
            Some(host) if self.allow.contains(&host) => None,
            _ => Some(format!(
                "its host is not one webhooks may be sent to (--webhook-allow: {})",
                self.allow.join(", ")
            )),
        }
    }

    /// Wakes the scheduler to look at the due times again.
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// What the scheduler waits on.
    pub fn wake_up(&self) -> Arc<Notify> {
        self.wake.clone()
    }
}
