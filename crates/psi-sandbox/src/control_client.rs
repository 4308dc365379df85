//! A typed client of the test-control API, for tests and the quickstart.

use serde_json::{json, Value};

/// Calls `/__sandbox/...` of one sandbox.
#[derive(Debug, Clone)]
pub struct Control {
    url: String,
    http: reqwest::Client,
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
    pub fn new(url: &str) -> Self {
        Self {
            url: url.trim_end_matches('/').to_owned(),
            http: reqwest::Client::new(),
        }
    }

    /// POSTs `body` to `/__sandbox/<path>` and returns the JSON answer.
    pub async fn post(&self, path: &str, body: Value) -> Result<Value, ControlError> {
        let response = self
            .http
            .post(format!("{}/__sandbox/{path}", self.url))
            .json(&body)
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

    pub async fn get(&self, path: &str) -> Result<Value, ControlError> {
        let response = self
            .http
            .get(format!("{}/__sandbox/{path}", self.url))
            .send()
            .await
            .map_err(|e| ControlError(e.to_string()))?;
        response
            .json()
            .await
            .map_err(|e| ControlError(e.to_string()))
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

    pub async fn cancel_session(&self, session_id: &str) -> Result<Value, ControlError> {
        self.post(&format!("sessions/{session_id}/cancel"), json!({}))
            .await
    }

    pub async fn fail_session(&self, session_id: &str) -> Result<Value, ControlError> {
        self.post(&format!("sessions/{session_id}/fail"), json!({}))
            .await
    }

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

    pub async fn withdraw_pay_later(&self, transaction_id: &str) -> Result<Value, ControlError> {
        self.post(&format!("pay-later/{transaction_id}/withdraw"), json!({}))
            .await
    }

    /// Seeds a storefront order (shape: see `apis::storefront`).
    pub async fn seed_storefront_order(&self, order: Value) -> Result<Value, ControlError> {
        self.post("storefront/orders", order).await
    }

    /// The webhook deliveries so far (each with its attempts).
    pub async fn webhooks(&self) -> Result<Value, ControlError> {
        self.get("webhooks").await
    }
}
