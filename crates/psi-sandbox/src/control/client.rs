//! A typed client of the test-control API, for tests and the quickstart.
//!
//! Its answers are the types generated from `openapi/sandbox-control.yaml`
//! ([`super::types`]), so a change of the document shows up here at compile
//! time. A client acts on one tenant of the sandbox: the one its token
//! belongs to ([`Control::for_tenant`]), or, for the operator, the one it
//! names with the `tenant` query parameter ([`Control::scoped`]; the demo
//! tenant when it names none).

use chrono::{DateTime, FixedOffset};
use psi_payment_page::types::SessionRecord;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::types::{
    AfterProcessing, AfterProcessingFault, BeforeProcessingFault, ClockAdvanceRequest, ClockTime,
    CompleteSessionRequest, CompletedSession, FaultRequest, PayLaterWithdrawal, ResetOutcome,
    SandboxDescription, SeededStorefrontOrder, StorefrontOrderSeed, Tenant, TenantRequest,
    TenantSummary, WebhookDelivery, WebhookSubscription, WebhookSubscriptionRequest,
};
use super::wire::{JournalEntry, StoredTransaction, PREFIX};

/// Calls `/__sandbox/...` of one sandbox.
#[derive(Debug, Clone)]
pub struct Control {
    url: String,
    http: reqwest::Client,
    /// Sent as `Authorization: Bearer` on every call when set: the
    /// operator's control token or a tenant's.
    token: Option<String>,
    /// Sent as the `tenant` query parameter on every tenant-scoped call
    /// when set ([`Control::scoped`]).
    tenant: Option<String>,
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

/// What a `tenant` query value escapes: everything but the unreserved
/// characters of RFC 3986 (a tenant id needs none escaped; any other text
/// still reaches the sandbox as it was written, to be refused there).
const QUERY_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

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
            tenant: None,
        }
    }

    /// Sends `token` with every call: the operator's control token, for a
    /// sandbox started with one (`--control-token`), or a tenant's.
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// A client acting on `tenant` alone: it sends the tenant's control
    /// token (and no `tenant` parameter), as the tenant's own tests would.
    pub fn for_tenant(&self, tenant: &Tenant) -> Control {
        Control {
            url: self.url.clone(),
            http: self.http.clone(),
            token: Some(tenant.control_token.expose().to_owned()),
            tenant: None,
        }
    }

    /// A client acting on the tenant `tenant_id`: it sends `?tenant=` on
    /// every tenant-scoped call, with this client's token (the operator's,
    /// or none on a sandbox without one).
    pub fn scoped(&self, tenant_id: &str) -> Control {
        Control {
            tenant: Some(tenant_id.to_owned()),
            ..self.clone()
        }
    }

    /// `request` with the control token, when there is one.
    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// `/__sandbox/<path>`, or `/__sandbox` itself for an empty path, with
    /// the `tenant` parameter of a scoped client. `path` may carry a query
    /// of its own.
    fn address(&self, path: &str) -> String {
        let mut address = self.unscoped_address(path);
        if let Some(tenant) = &self.tenant {
            address.push(if path.contains('?') { '&' } else { '?' });
            address.push_str("tenant=");
            address.extend(percent_encoding::utf8_percent_encode(tenant, QUERY_VALUE));
        }
        address
    }

    /// `/__sandbox/<path>` without a `tenant` parameter: the calls that
    /// manage tenants act on no one tenant.
    fn unscoped_address(&self, path: &str) -> String {
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

    /// GETs `/__sandbox/<path>` and reads the answer as `T`; a status other
    /// than 2xx is an error.
    async fn get_typed<T: DeserializeOwned>(&self, path: &str) -> Result<T, ControlError> {
        let request = self.http.get(self.address(path));
        Self::typed(path, self.call(path, request).await?)
    }

    /// POSTs `body` to `/__sandbox/<path>` and reads the answer as `T`.
    async fn post_typed<T: DeserializeOwned>(
        &self,
        path: &str,
        body: &impl serde::Serialize,
    ) -> Result<T, ControlError> {
        let request = self.http.post(self.address(path)).json(body);
        Self::typed(path, self.call(path, request).await?)
    }

    /// POSTs `body` to `/__sandbox/<path>`, whose success has no body.
    async fn post_bodiless(
        &self,
        path: &str,
        body: &impl serde::Serialize,
    ) -> Result<(), ControlError> {
        let request = self.http.post(self.address(path)).json(body);
        self.call(path, request).await.map(drop)
    }

    fn typed<T: DeserializeOwned>(what: &str, value: Value) -> Result<T, ControlError> {
        serde_json::from_value(value).map_err(|e| ControlError(format!("{what}: {e}")))
    }

    /// The sandbox as the tenant this client acts on sees it: addresses,
    /// the tenant's id and credentials, the sandbox time, the documents
    /// served from their examples (`GET /__sandbox`).
    pub async fn about(&self) -> Result<SandboxDescription, ControlError> {
        self.get_typed("").await
    }

    /// The sandbox's time, in the offset it keeps its times in (+01:00):
    /// the `now` of `GET /__sandbox`, read alone.
    pub async fn now(&self) -> Result<DateTime<FixedOffset>, ControlError> {
        let time: ClockTime = self.get_typed("").await?;
        Ok(time.now)
    }

    /// The record of every session, oldest first.
    pub async fn sessions(&self) -> Result<Vec<SessionRecord>, ControlError> {
        self.get_typed("sessions").await
    }

    /// What the sandbox stored for a completed session's transaction.
    pub async fn transaction(
        &self,
        transaction_id: &str,
    ) -> Result<StoredTransaction, ControlError> {
        self.get_typed(&format!("transactions/{transaction_id}"))
            .await
    }

    /// The buyer completes the session choosing `payment_option` (e.g.
    /// `OPEN_INVOICE`); returns the new transaction id.
    pub async fn complete_session(
        &self,
        session_id: &str,
        payment_option: &str,
    ) -> Result<String, ControlError> {
        let request = CompleteSessionRequest {
            payment_option: Some(payment_option.to_owned()),
            transfer_type: None,
        };
        let completed: CompletedSession = self
            .post_typed(&format!("sessions/{session_id}/complete"), &request)
            .await?;
        Ok(completed.transaction_id.to_string())
    }

    /// Cancels an open session as the buyer would; answers its record.
    pub async fn cancel_session(&self, session_id: &str) -> Result<SessionRecord, ControlError> {
        self.post_typed(&format!("sessions/{session_id}/cancel"), &json!({}))
            .await
    }

    /// Fails an open session; answers its record.
    pub async fn fail_session(&self, session_id: &str) -> Result<SessionRecord, ControlError> {
        self.post_typed(&format!("sessions/{session_id}/fail"), &json!({}))
            .await
    }

    /// Moves the sandbox clock forward by `seconds`; answers the new time.
    pub async fn advance_clock(&self, seconds: i64) -> Result<ClockTime, ControlError> {
        self.post_typed("clock/advance", &ClockAdvanceRequest { seconds })
            .await
    }

    /// Arms `fault` (`POST /__sandbox/faults`).
    pub async fn arm_fault(&self, fault: &FaultRequest) -> Result<(), ControlError> {
        self.post_bodiless("faults", fault).await
    }

    /// The next `count` calls to `operation` answer `status`.
    pub async fn fail_next(
        &self,
        operation: &str,
        status: u16,
        count: u32,
    ) -> Result<(), ControlError> {
        self.arm_fault(&before_processing(operation, Some(status), None, count))
            .await
    }

    /// The next `count` calls to `operation` are delayed by `delay_ms`.
    pub async fn delay_next(
        &self,
        operation: &str,
        delay_ms: u64,
        count: u32,
    ) -> Result<(), ControlError> {
        self.arm_fault(&before_processing(operation, None, Some(delay_ms), count))
            .await
    }

    /// Withdraws the pay later offer of a transaction.
    pub async fn withdraw_pay_later(
        &self,
        transaction_id: &str,
    ) -> Result<PayLaterWithdrawal, ControlError> {
        self.post_typed(&format!("pay-later/{transaction_id}/withdraw"), &json!({}))
            .await
    }

    /// Seeds a storefront order; answers it with its lines as the module
    /// loads them.
    pub async fn seed_storefront_order(
        &self,
        order: &StorefrontOrderSeed,
    ) -> Result<SeededStorefrontOrder, ControlError> {
        self.post_typed("storefront/orders", order).await
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
    ) -> Result<(), ControlError> {
        let fault = AfterProcessingFault {
            after_processing: AfterProcessing(true),
            body,
            content_type: None,
            count: std::num::NonZeroU64::new(u64::from(count)),
            delay_ms: None,
            network: None,
            operation: operation.to_owned(),
            status: Some(i64::from(status)),
        };
        self.arm_fault(&fault.into()).await
    }

    /// The webhook deliveries so far (each with its attempts).
    pub async fn webhooks(&self) -> Result<Vec<WebhookDelivery>, ControlError> {
        self.get_typed("webhooks").await
    }

    /// Sends the delivery numbered `number` (its `number` in
    /// [`Control::webhooks`]) again as a new delivery: the same body to the
    /// same receiver, signed anew. Answers the new delivery (its `number`,
    /// no attempt yet); an unknown number is an error (404).
    pub async fn resend_webhook(&self, number: u64) -> Result<WebhookDelivery, ControlError> {
        self.post_typed(&format!("webhooks/{number}/resend"), &json!({}))
            .await
    }

    /// Sends the session notification of the session as it is now to its
    /// `webhook_url`, as a new delivery, which it answers; an unknown
    /// session (404) or one without a `webhook_url` (409) is an error.
    pub async fn notify_session(&self, session_id: &str) -> Result<WebhookDelivery, ControlError> {
        self.post_typed(&format!("sessions/{session_id}/notify"), &json!({}))
            .await
    }

    /// Sends the invoice notification of the stored transaction to every
    /// subscription; answers the new deliveries (an empty list without a
    /// subscription); an unknown transaction is an error (404).
    pub async fn notify_invoice(
        &self,
        transaction_id: &str,
    ) -> Result<Vec<WebhookDelivery>, ControlError> {
        self.post_typed(
            &format!("transactions/{transaction_id}/notify-invoice"),
            &json!({}),
        )
        .await
    }

    /// Subscribes `url` to the invoice notifications, signed with the
    /// sandbox's webhook secret.
    pub async fn subscribe_invoice_webhooks(
        &self,
        url: &str,
    ) -> Result<WebhookSubscription, ControlError> {
        let request = WebhookSubscriptionRequest {
            secret: None,
            url: url.to_owned(),
        };
        self.post_typed("webhook-subscriptions", &request).await
    }

    /// Subscribes `url` to the invoice notifications, signed with `secret`
    /// (an empty secret is refused before it is sent).
    pub async fn subscribe_invoice_webhooks_with_secret(
        &self,
        url: &str,
        secret: &str,
    ) -> Result<WebhookSubscription, ControlError> {
        let secret = secret
            .parse()
            .map_err(|e| ControlError(format!("webhook-subscriptions: secret: {e}")))?;
        let request = WebhookSubscriptionRequest {
            secret: Some(secret),
            url: url.to_owned(),
        };
        self.post_typed("webhook-subscriptions", &request).await
    }

    /// The invoice webhook subscriptions.
    pub async fn webhook_subscriptions(&self) -> Result<Vec<WebhookSubscription>, ControlError> {
        self.get_typed("webhook-subscriptions").await
    }

    /// Removes every invoice webhook subscription.
    pub async fn clear_webhook_subscriptions(&self) -> Result<(), ControlError> {
        self.delete("webhook-subscriptions").await.map(drop)
    }

    /// The request journal: the most recent requests outside the control
    /// API, oldest first.
    pub async fn requests(&self) -> Result<Vec<JournalEntry>, ControlError> {
        self.get_typed("requests").await
    }

    /// Empties the request journal.
    pub async fn clear_requests(&self) -> Result<(), ControlError> {
        self.delete("requests").await.map(drop)
    }

    /// Empties the sandbox for the next test (`POST /__sandbox/reset`):
    /// every collection, the faults and the journal of the tenants the
    /// client acts on (the operator's unscoped client: every tenant); the
    /// `--seed` entries are stored again and issued tokens stay valid.
    /// Answers how many seed entries were stored and which tenants were
    /// reset.
    pub async fn reset(&self) -> Result<ResetOutcome, ControlError> {
        self.post_typed("reset", &json!({})).await
    }

    /// Creates a tenant (`POST /__sandbox/tenants`), named `name` or, with
    /// `None`, by the sandbox (`t-` and 12 hexadecimal digits). Answers its
    /// credentials and control token, which only this answer carries;
    /// [`Control::for_tenant`] makes a client of it. Only the operator
    /// may (403 with a tenant's token); an existing name is 409, a name
    /// the pattern refuses or one tenant too many 400.
    pub async fn create_tenant(&self, name: Option<&str>) -> Result<Tenant, ControlError> {
        let name = name
            .map(str::parse)
            .transpose()
            .map_err(|e| ControlError(format!("tenants: name: {e}")))?;
        let path = "tenants";
        let request = self
            .http
            .post(self.unscoped_address(path))
            .json(&TenantRequest { name });
        Self::typed(path, self.call(path, request).await?)
    }

    /// The tenants this client may see, without secrets: every tenant for
    /// the operator, only its own for a tenant's token.
    pub async fn tenants(&self) -> Result<Vec<TenantSummary>, ControlError> {
        let path = "tenants";
        let request = self.http.get(self.unscoped_address(path));
        Self::typed(path, self.call(path, request).await?)
    }

    /// Deletes the tenant `tenant_id` and all its data; an unknown tenant
    /// is 404, the demo tenant 409, a tenant's token 403.
    pub async fn delete_tenant(&self, tenant_id: &str) -> Result<(), ControlError> {
        let path = format!("tenants/{tenant_id}");
        let request = self
            .http
            .delete(self.unscoped_address(&path))
            .header(reqwest::header::CONTENT_TYPE, "application/json");
        self.call(&path, request).await.map(drop)
    }
}

/// A fault before processing: `status` answered (or the call proceeds),
/// after `delay_ms`, for the next `count` calls.
fn before_processing(
    operation: &str,
    status: Option<u16>,
    delay_ms: Option<u64>,
    count: u32,
) -> FaultRequest {
    BeforeProcessingFault {
        after_processing: None,
        count: std::num::NonZeroU64::new(u64::from(count)),
        delay_ms,
        network: None,
        operation: operation.to_owned(),
        status: status.map(i64::from),
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control() -> Control {
        Control::with_client("http://127.0.0.1:8787/", reqwest::Client::new())
    }

    fn tenant(id: &str, token: &str) -> Tenant {
        serde_json::from_value(json!({
            "tenant": id,
            "client_id": "c",
            "client_secret": "cs",
            "platform_client_id": "p",
            "platform_client_secret": "ps",
            "control_token": token,
            "url": "http://127.0.0.1:8787",
            "addresses": {
                "base_url": "http://127.0.0.1:8787",
                "api_url": "http://127.0.0.1:8787",
                "auth_url": "http://127.0.0.1:8787",
                "platform_url": "http://127.0.0.1:8787",
                "shop_config_url": "http://127.0.0.1:8787/shop-config",
                "shop_config_audience": "http://127.0.0.1:8787/shop-config",
            },
        }))
        .expect("a tenant")
    }

    #[test]
    fn an_unscoped_client_sends_no_tenant_parameter() {
        let control = control();
        assert_eq!(control.address(""), "http://127.0.0.1:8787/__sandbox");
        assert_eq!(
            control.address("sessions"),
            "http://127.0.0.1:8787/__sandbox/sessions"
        );
    }

    #[test]
    fn a_scoped_client_names_its_tenant_on_every_scoped_call() {
        let scoped = control().with_token("operator").scoped("acme-shop");
        assert_eq!(
            scoped.address(""),
            "http://127.0.0.1:8787/__sandbox?tenant=acme-shop"
        );
        assert_eq!(
            scoped.address("transactions/12-34567890123456789"),
            "http://127.0.0.1:8787/__sandbox/transactions/12-34567890123456789?tenant=acme-shop"
        );
        assert_eq!(
            scoped.address("requests?limit=1"),
            "http://127.0.0.1:8787/__sandbox/requests?limit=1&tenant=acme-shop"
        );
        assert_eq!(scoped.token.as_deref(), Some("operator"), "the token stays");
    }

    #[test]
    fn a_scoped_client_escapes_what_a_query_value_cannot_carry() {
        let scoped = control().scoped("a b&c=d/é");
        assert_eq!(
            scoped.address("reset"),
            "http://127.0.0.1:8787/__sandbox/reset?tenant=a%20b%26c%3Dd%2F%C3%A9"
        );
    }

    #[test]
    fn tenant_management_is_never_scoped() {
        let scoped = control().scoped("acme-shop");
        assert_eq!(
            scoped.unscoped_address("tenants"),
            "http://127.0.0.1:8787/__sandbox/tenants"
        );
        assert_eq!(
            scoped.unscoped_address("tenants/acme-shop"),
            "http://127.0.0.1:8787/__sandbox/tenants/acme-shop"
        );
    }

    #[test]
    fn a_tenants_client_sends_its_control_token_and_no_parameter() {
        let operator = control().with_token("operator").scoped("other");
        let own = operator.for_tenant(&tenant("acme-shop", "tenant-token"));
        assert_eq!(own.token.as_deref(), Some("tenant-token"));
        assert_eq!(own.tenant, None);
        assert_eq!(
            own.address("sessions"),
            "http://127.0.0.1:8787/__sandbox/sessions"
        );
        assert_eq!(own.url, operator.url);
    }

    #[test]
    fn faults_are_written_as_the_document_declares_them() {
        let before =
            serde_json::to_value(before_processing("getPayLaterStatus", Some(503), None, 2))
                .expect("JSON");
        assert_eq!(
            before,
            json!({"operation": "getPayLaterStatus", "status": 503, "count": 2})
        );
        let delayed =
            serde_json::to_value(before_processing("bookPayLaterOffer", None, Some(50), 1))
                .expect("JSON");
        assert_eq!(
            delayed,
            json!({"operation": "bookPayLaterOffer", "delay_ms": 50, "count": 1})
        );
    }
}
