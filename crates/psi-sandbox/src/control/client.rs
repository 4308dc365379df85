//! A typed client of the test-control API, for tests and the quickstart.

use chrono::{DateTime, FixedOffset};
use psi_payment_page::types::SessionRecord;
use serde_json::{json, Value};

use super::wire::{JournalEntry, StoredTransaction, PREFIX};

/// Calls `/__sandbox/...` of one sandbox.
#[derive(Debug, Clone)]
pub struct Control {
    url: String,
    http: reqwest::Client,
    /// Sent as `Authorization: Bearer` on every call when set.
    token: Option<String>,
}

/// A control call that did not succeed.
#[derive(Debug)]
pub struct ControlError(pub String);

impl std::fmt::Display for ControlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ControlError {}

impl Control {
    /// A client of the sandbox at `url`.
    ///
    /// # Panics
    ///
    /// When no HTTP client can be built at all (the TLS backend refuses
    /// both the platform's CA certificates and the bundled roots); a
    /// sandbox's own [`crate::Sandbox::control`] never builds one.
    pub fn new(url: &str) -> Self {
        let http = crate::tls::http_client().unwrap_or_else(|reason| panic!("{reason}"));
        Self::with_client(url, http)
    }

    /// A client of the sandbox at `url` making its calls with `http`.
    pub(crate) fn with_client(url: &str, http: reqwest::Client) -> Self {
        Self {
            url: url.trim_end_matches('/').to_owned(),
            http,
            token: None,
        }
    }

    /// Sends `token` with every call: for a sandbox started with a control
    /// token (`--control-token`).
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// `request` with the control token, when there is one.
    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// `/__sandbox/<path>`, or `/__sandbox` itself for an empty path.
    fn address(&self, path: &str) -> String {
        if path.is_empty() {
            format!("{}{}", self.url, PREFIX)
        } else {
            format!("{}{}/{path}", self.url, PREFIX)
        }
    }

    /// POSTs `body` to `/__sandbox/<path>` and returns the JSON answer.
    pub async fn post(&self, path: &str, body: Value) -> Result<Value, ControlError> {
        let request = self.http.post(self.address(path)).json(&body);
        self.call(path, request).await
    }

    /// GETs `/__sandbox/<path>` and returns the JSON answer, whatever its
    /// status (a 404 answers `{"error"}` or the API's error body).
    pub async fn get(&self, path: &str) -> Result<Value, ControlError> {
        let response = self
            .authorized(self.http.get(self.address(path)))
            .send()
            .await
            .map_err(|e| ControlError(e.to_string()))?;
        response
            .json()
            .await
            .map_err(|e| ControlError(e.to_string()))
    }

    /// GETs `/__sandbox/<path>`; a status other than 2xx is an error.
    async fn get_ok(&self, path: &str) -> Result<Value, ControlError> {
        let request = self.http.get(self.address(path));
        self.call(path, request).await
    }

    /// DELETEs `/__sandbox/<path>` (saying `application/json`, as every
    /// control write must).
    pub async fn delete(&self, path: &str) -> Result<Value, ControlError> {
        let request = self
            .http
            .delete(self.address(path))
            .header(reqwest::header::CONTENT_TYPE, "application/json");
        self.call(path, request).await
    }

    async fn call(
        &self,
        path: &str,
        request: reqwest::RequestBuilder,
    ) -> Result<Value, ControlError> {
        let response = self
            .authorized(request)
            .send()
            .await
            .map_err(|e| ControlError(e.to_string()))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|e| ControlError(e.to_string()))?;
        if !status.is_success() {
            return Err(ControlError(format!("{path}: {status}: {text}")));
        }
        Ok(if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        })
    }

    fn typed<T: serde::de::DeserializeOwned>(what: &str, value: Value) -> Result<T, ControlError> {
        serde_json::from_value(value).map_err(|e| ControlError(format!("{what}: {e}")))
    }

    /// The sandbox's time, in the offset it keeps its times in (+01:00).
    pub async fn now(&self) -> Result<DateTime<FixedOffset>, ControlError> {
        let about = self.get_ok("").await?;
        Self::typed("now", about["now"].clone())
    }

    /// The record of every session, oldest first.
    pub async fn sessions(&self) -> Result<Vec<SessionRecord>, ControlError> {
        Self::typed("sessions", self.get_ok("sessions").await?)
    }

    /// What the sandbox stored for a completed session's transaction.
    pub async fn transaction(
        &self,
        transaction_id: &str,
    ) -> Result<StoredTransaction, ControlError> {
        let answer = self
            .get_ok(&format!("transactions/{transaction_id}"))
            .await?;
        Self::typed("transaction", answer)
    }

    /// The buyer completes the session choosing `payment_option` (e.g.
    /// `OPEN_INVOICE`); returns the new transaction id.
    pub async fn complete_session(
        &self,
        session_id: &str,
        payment_option: &str,
    ) -> Result<String, ControlError> {
        let answer = self
            .post(
                &format!("sessions/{session_id}/complete"),
                json!({"payment_option": payment_option}),
            )
            .await?;
        answer["transaction_id"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| ControlError(format!("no transaction_id in {answer}")))
    }

    /// Cancels an open session as the buyer would.
    pub async fn cancel_session(&self, session_id: &str) -> Result<Value, ControlError> {
        self.post(&format!("sessions/{session_id}/cancel"), json!({}))
            .await
    }

    /// Fails an open session.
    pub async fn fail_session(&self, session_id: &str) -> Result<Value, ControlError> {
        self.post(&format!("sessions/{session_id}/fail"), json!({}))
            .await
    }

    /// Moves the sandbox clock forward by `seconds`.
    pub async fn advance_clock(&self, seconds: i64) -> Result<Value, ControlError> {
        self.post("clock/advance", json!({"seconds": seconds}))
            .await
    }

    /// The next `count` calls to `operation` answer `status`.
    pub async fn fail_next(
        &self,
        operation: &str,
        status: u16,
        count: u32,
    ) -> Result<Value, ControlError> {
        self.post(
            "faults",
            json!({"operation": operation, "status": status, "count": count}),
        )
        .await
    }

    /// The next `count` calls to `operation` are delayed by `delay_ms`.
    pub async fn delay_next(
        &self,
        operation: &str,
        delay_ms: u64,
        count: u32,
    ) -> Result<Value, ControlError> {
        self.post(
            "faults",
            json!({"operation": operation, "delay_ms": delay_ms, "count": count}),
        )
        .await
    }

    /// Withdraws the pay later offer of a transaction.
    pub async fn withdraw_pay_later(&self, transaction_id: &str) -> Result<Value, ControlError> {
        self.post(&format!("pay-later/{transaction_id}/withdraw"), json!({}))
            .await
    }

    /// Seeds a storefront order (shape: see `apis::storefront`).
    pub async fn seed_storefront_order(&self, order: Value) -> Result<Value, ControlError> {
        self.post("storefront/orders", order).await
    }

    /// The next `count` calls to `operation` are processed (their state
    /// changes happen), then answered `status` with `body` (`None`: no body
    /// at all).
    pub async fn answer_after_processing(
        &self,
        operation: &str,
        status: u16,
        body: Option<Value>,
        count: u32,
    ) -> Result<Value, ControlError> {
        let mut fault = json!({"operation": operation, "after_processing": true, "status": status, "count": count});
        if let Some(body) = body {
            fault["body"] = body;
        }
        self.post("faults", fault).await
    }

    /// The webhook deliveries so far (each with its attempts).
    pub async fn webhooks(&self) -> Result<Value, ControlError> {
        self.get("webhooks").await
    }

    /// Sends the delivery numbered `number` (its `number` in
    /// [`Control::webhooks`]) again as a new delivery: the same body to the
    /// same receiver, signed anew. Answers the new delivery (its `number`,
    /// no attempt yet); an unknown number is an error (404).
    pub async fn resend_webhook(&self, number: u64) -> Result<Value, ControlError> {
        self.post(&format!("webhooks/{number}/resend"), json!({}))
            .await
    }

    /// Sends the session notification of the session as it is now to its
    /// `webhook_url`, as a new delivery, which it answers; an unknown
    /// session (404) or one without a `webhook_url` (409) is an error.
    pub async fn notify_session(&self, session_id: &str) -> Result<Value, ControlError> {
        self.post(&format!("sessions/{session_id}/notify"), json!({}))
            .await
    }

    /// Sends the invoice notification of the stored transaction to every
    /// subscription; answers the new deliveries (an empty list without a
    /// subscription); an unknown transaction is an error (404).
    pub async fn notify_invoice(&self, transaction_id: &str) -> Result<Value, ControlError> {
        self.post(
            &format!("transactions/{transaction_id}/notify-invoice"),
            json!({}),
        )
        .await
    }

    /// Subscribes `url` to the invoice notifications, signed with the
    /// sandbox's webhook secret.
    pub async fn subscribe_invoice_webhooks(&self, url: &str) -> Result<Value, ControlError> {
        self.post("webhook-subscriptions", json!({ "url": url }))
            .await
    }

    /// Subscribes `url` to the invoice notifications, signed with `secret`.
    pub async fn subscribe_invoice_webhooks_with_secret(
        &self,
        url: &str,
        secret: &str,
    ) -> Result<Value, ControlError> {
        self.post(
            "webhook-subscriptions",
            json!({ "url": url, "secret": secret }),
        )
        .await
    }

    /// The invoice webhook subscriptions.
    pub async fn webhook_subscriptions(&self) -> Result<Value, ControlError> {
        self.get("webhook-subscriptions").await
    }

    /// Removes every invoice webhook subscription.
    pub async fn clear_webhook_subscriptions(&self) -> Result<Value, ControlError> {
        self.delete("webhook-subscriptions").await
    }

    /// The request journal: the most recent requests outside the control
    /// API, oldest first.
    pub async fn requests(&self) -> Result<Vec<JournalEntry>, ControlError> {
        let entries = self.get("requests").await?;
        Self::typed("requests", entries)
    }

    /// Empties the request journal.
    pub async fn clear_requests(&self) -> Result<Value, ControlError> {
        self.delete("requests").await
    }

    /// Empties the sandbox for the next test (`POST /__sandbox/reset`):
    /// every collection, the faults and the journal; the `--seed` entries
    /// are stored again and issued tokens stay valid. Answers how many seed
    /// entries were stored.
    pub async fn reset(&self) -> Result<u64, ControlError> {
        let answer = self.post("reset", json!({})).await?;
        answer["seeded"]
            .as_u64()
            .ok_or_else(|| ControlError(format!("reset: no count of seeded entries in {answer}")))
    }
}
