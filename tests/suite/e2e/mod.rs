//! End to end: every operation of every client through `psi::Client`
//! against the in-process sandbox, success and documented error paths.

mod audiences;
mod auth;
mod bank_accounts;
mod declines;
mod drift;
mod faults;
mod media_types;
mod notifications;
mod null_requests;
mod order_status;
mod other_successes;
mod pay_later;
mod payment_page;
mod shop_config;
mod storefront;
mod transaction_status;

use psi::{Credentials, Environment};
use psi_sandbox::Sandbox;

/// The HTTP status and the decline of a call that must have been declined.
/// One helper for every API: they all answer with `psi_common::DeclineResponse`.
pub fn declined<T>(
    result: Result<T, psi_runtime::Error<psi_common::DeclineResponse>>,
) -> (u16, psi_common::Decline) {
    match result {
        Err(psi_runtime::Error::Declined(declined)) => {
            let declined = *declined;
            (
                declined.status,
                declined.body.decline.expect("a decline body"),
            )
        }
        Ok(_) => panic!("expected a decline, got a success"),
        Err(other) => panic!("expected a decline, got {other:?}"),
    }
}

/// A sandbox and a client of it.
pub async fn sandbox() -> (Sandbox, psi::Client) {
    let sandbox = Sandbox::start().await.expect("the sandbox starts");
    let client = client(&sandbox);
    (sandbox, client)
}

/// The sandbox's environment, from its addresses: the shop configuration's
/// address and audience are settings (the specification states neither), and
/// the sandbox publishes the values it chose.
pub fn environment(sandbox: &Sandbox) -> Environment {
    let addresses = sandbox.addresses();
    Environment::new(&addresses.base_url, &addresses.api_url, &addresses.auth_url)
        .and_then(|environment| environment.with_platform_url(&addresses.platform_url))
        .and_then(|environment| {
            environment
                .with_shop_config(&addresses.shop_config_url, &addresses.shop_config_audience)
        })
        .expect("the sandbox's addresses are absolute http URLs")
}

/// The demo merchant's credentials.
pub fn credentials() -> Credentials {
    Credentials::new(psi_sandbox::DEMO_CLIENT_ID, psi_sandbox::DEMO_CLIENT_SECRET)
}

/// A `psi::Client` builder for `sandbox` with the demo credentials, from only
/// what the sandbox publishes: its addresses and the demo credentials.
pub fn builder(sandbox: &Sandbox) -> psi::ClientBuilder {
    psi::Client::builder()
        .environment(environment(sandbox))
        .credentials(credentials())
        .platform_credentials(Credentials::new(
            psi_sandbox::DEMO_PLATFORM_CLIENT_ID,
            psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET,
        ))
}

/// [`builder`], built.
pub fn client(sandbox: &Sandbox) -> psi::Client {
    builder(sandbox)
        .build()
        .expect("the sandbox's settings are complete")
}

/// The provider's documented consistent basket as a session request (gross 43.8).
pub fn session_request(webhook_url: &str) -> psi::payment_page::types::SessionRequest {
    psi_sandbox::demo::session_request(webhook_url)
}

/// Creates a session and completes it as the buyer would; returns the
/// transaction id.
pub async fn completed_transaction(
    sandbox: &Sandbox,
    client: &psi::Client,
    payment_option: &str,
) -> String {
    let session = client
        .payment_page()
        .create_session()
        .body(session_request("http://127.0.0.1:9/unused-webhook"))
        .send()
        .await
        .expect("the session is created")
        .into_inner();
    let session_id = session.session_id.expect("a session id");
    sandbox
        .control()
        .complete_session(&session_id, payment_option)
        .await
        .expect("the buyer completes")
}
