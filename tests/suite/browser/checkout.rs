//! One browser test's world: a sandbox, a shop on loopback, a psi client
//! and a headless Chromium, with the steps the tests take.

use super::driver::{Browser, Tools};
use super::shop::Shop;
use crate::e2e::{client, session_request};
use fantoccini::Locator;
use psi::payment_page::types::SessionRecord;
use psi::webhook::{FixedClock, WebhookVerifier};
use psi_sandbox::{Sandbox, DEMO_WEBHOOK_SECRET};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Mutex, MutexGuard};

/// Polls of the browser's address after a click, 50 ms apart (10 s in all).
const NAVIGATION_ATTEMPTS: usize = 200;
/// The window of the test browser.
const WINDOW: (u32, u32) = (1280, 1000);

/// Two cores and several Chromiums do not mix: one browser test at a time.
static ONE_BROWSER_AT_A_TIME: Mutex<()> = Mutex::const_new(());

/// What a browser test needs (found by `find`: Chromium and chromedriver,
/// axe-core), or `None` after a loud skip line; with `CI` set its absence
/// fails the test.
pub fn or_skip<T>(found: Result<T, String>) -> Option<T> {
    match found {
        Ok(found) => Some(found),
        Err(missing) if std::env::var_os("CI").is_some() => {
            panic!("{missing}: CI needs it; run `bash .ci/browser` first")
        }
        Err(missing) => {
            eprintln!(
                "\n!!! SKIPPED browser test: {missing}. Install what the browser tests need with `bash .ci/browser`.\n"
            );
            None
        }
    }
}

/// A sandbox, a shop, a psi client and a browser.
pub struct Checkout {
    pub sandbox: Sandbox,
    client: psi::Client,
    pub shop: Shop,
    pub browser: Browser,
    _turn: MutexGuard<'static, ()>,
}

impl Checkout {
    pub async fn open() -> Option<Checkout> {
        let tools = or_skip(Tools::find())?;
        let turn = ONE_BROWSER_AT_A_TIME.lock().await;
        let sandbox = Sandbox::start().await.expect("the sandbox starts");
        let client = client(&sandbox);
        let shop = Shop::start().await;
        let browser = Browser::start(&tools, WINDOW.0, WINDOW.1)
            .await
            .unwrap_or_else(|error| panic!("the browser starts: {error}"));
        Some(Checkout {
            sandbox,
            client,
            shop,
            browser,
            _turn: turn,
        })
    }

    /// The shop's addresses; two carry a query string of their own, which
    /// the redirect must keep.
    pub fn success_url(&self) -> String {
        format!("{}/shop/success?order=order-100045", self.shop.url)
    }
    pub fn failure_url(&self) -> String {
        format!("{}/shop/failure", self.shop.url)
    }
    pub fn cancel_url(&self) -> String {
        format!("{}/shop/cancel?reason=buyer", self.shop.url)
    }

    /// The demo order with the shop's addresses, changed by `edit`;
    /// answers the session id and the landing page.
    pub async fn create_session(&self, edit: impl FnOnce(&mut Value)) -> (String, String) {
        let mut request =
            serde_json::to_value(session_request(&format!("{}/webhook", self.shop.url))).unwrap();
        request["url_data"]["success_url"] = json!(self.success_url());
        request["url_data"]["failure_url"] = json!(self.failure_url());
        request["url_data"]["cancel_url"] = json!(self.cancel_url());
        edit(&mut request);
        let created = self
            .client
            .payment_page()
            .create_session()
            .body(
                serde_json::from_value::<psi::payment_page::types::SessionRequest>(request)
                    .unwrap(),
            )
            .send()
            .await
            .expect("the session is created")
            .into_inner();
        (created.session_id.unwrap(), created.landing_page.unwrap())
    }

    pub async fn goto(&self, url: &str) {
        self.browser.client.goto(url).await.expect("the page opens");
    }

    pub async fn click(&self, css: &str) {
        self.browser
            .client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css}: {e}"))
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
    }

    pub async fn type_into(&self, css: &str, text: &str) {
        let field = self.browser.client.find(Locator::Css(css)).await.unwrap();
        field.clear().await.unwrap();
        field.send_keys(text).await.unwrap();
    }

    pub async fn text_of(&self, css: &str) -> String {
        let element = self.browser.client.find(Locator::Css(css)).await;
        element
            .unwrap_or_else(|e| panic!("{css}: {e}"))
            .text()
            .await
            .unwrap()
    }

    pub async fn current_url(&self) -> String {
        self.browser.client.current_url().await.unwrap().to_string()
    }

    /// Waits until the browser shows `expected`, exactly.
    pub async fn lands_on(&self, expected: &str) {
        let mut current = String::new();
        for _ in 0..NAVIGATION_ATTEMPTS {
            current = self.current_url().await;
            if current == expected {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the browser is at {current}, not {expected}");
    }

    pub async fn record(&self, session_id: &str) -> SessionRecord {
        self.client
            .payment_page()
            .get_session_record()
            .session_id(session_id)
            .send()
            .await
            .expect("the record")
            .into_inner()
    }

    /// The one notification the shop received for the session, its
    /// signature verified with the sandbox's secret at the sandbox's time.
    pub async fn verified_notification(&self, session_id: &str) -> SessionRecord {
        let received = self.shop.notifications_of(session_id).await;
        assert_eq!(received.len(), 1, "one notification per ending");
        let now = self.sandbox.control().now().await.unwrap().to_utc();
        let verifier =
            WebhookVerifier::new(DEMO_WEBHOOK_SECRET).with_clock(Arc::new(FixedClock(now)));
        verifier
            .parse_session_notification(&received[0].signature, &received[0].body)
            .expect("an authentic session notification")
    }

    pub async fn close(self) {
        let Checkout { browser, .. } = self;
        browser.close().await;
    }
}
