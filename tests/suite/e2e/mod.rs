//! End to end: every operation of every client through `psi::Client`
//! against the in-process sandbox, success and documented error paths.

mod auth;
mod bank_accounts;
mod faults;
mod notifications;
mod order_status;
mod pay_later;
mod payment_page;
mod shop_config;
mod storefront;
mod transaction_status;

use psi_sandbox::Sandbox;

/// A sandbox and a client of it.
pub async fn sandbox() -> (Sandbox, psi::Client) {
    let sandbox = Sandbox::start().await.expect("the sandbox starts");
    let client = client(&sandbox);
    (sandbox, client)
}

/// Where the sandbox serves the shop configuration API, which is also the
/// token audience it expects for it: the specification states neither, so
/// the sandbox chooses them and psi takes them as settings.
pub fn shop_config_url(sandbox: &Sandbox) -> String {
    format!("{}/shop-config", sandbox.url())
}

/// The sandbox's environment, including the shop configuration settings.
pub fn environment(sandbox: &Sandbox) -> psi::Environment {
    let shop_config = shop_config_url(sandbox);
    sandbox
        .environment()
        .with_shop_config(&shop_config, &shop_config)
        .expect("the sandbox's shop configuration address is an absolute URL")
}

/// A `psi::Client` of the sandbox with the demo credentials.
pub fn client(sandbox: &Sandbox) -> psi::Client {
    psi::Client::builder()
        .environment(environment(sandbox))
        .credentials(sandbox.credentials())
        .platform_credentials(sandbox.platform_credentials())
        .build()
        .expect("the sandbox's settings are complete")
}

/// The field notes' consistent basket as a session request (gross 43.8).
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
