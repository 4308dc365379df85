//! The hosted payment page in a real browser: headless Chromium driven
//! through chromedriver (WebDriver, with fantoccini) clicks through each
//! outcome and lands on the shop's page, with the session record read
//! through `psi::Client` and the signed notification verified.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`bash .ci/browser`
//! installs them). Without them a test prints a loud SKIPPED line and
//! passes, so `cargo test --workspace` works on a fresh machine; with `CI`
//! set it fails instead. One browser at a time: each test starts its own
//! chromedriver and waits for its turn.

mod driver;
mod form_posts;
mod shop;

use crate::e2e::{client, session_request};
use driver::{Browser, Tools};
use fantoccini::Locator;
use psi::payment_page::types::{DeclineCategory, SessionRecord, SessionStatus};
use psi::webhook::{FixedClock, WebhookVerifier};
use psi_sandbox::{Sandbox, DEMO_WEBHOOK_SECRET};
use serde_json::{json, Value};
use shop::Shop;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Mutex, MutexGuard};

/// Polls of the browser's address after a click, 50 ms apart (10 s in all).
const NAVIGATION_ATTEMPTS: usize = 200;
/// The window of the test browser.
const WINDOW: (u32, u32) = (1280, 1000);

/// Two cores and several Chromiums do not mix: one browser test at a time.
static ONE_BROWSER_AT_A_TIME: Mutex<()> = Mutex::const_new(());

/// The programs, or `None` after a loud skip line; with `CI` set their
/// absence fails the test.
fn tools_or_skip() -> Option<Tools> {
    match Tools::find() {
        Ok(tools) => Some(tools),
        Err(missing) if std::env::var_os("CI").is_some() => {
            panic!("{missing}: CI needs Chromium and chromedriver; run `bash .ci/browser` first")
        }
        Err(missing) => {
            eprintln!(
                "\n!!! SKIPPED browser test: {missing}. Install Chromium and chromedriver with `bash .ci/browser`.\n"
            );
            None
        }
    }
}

/// A sandbox, a shop, a psi client and a browser.
struct Checkout {
    sandbox: Sandbox,
    client: psi::Client,
    shop: Shop,
    browser: Browser,
    _turn: MutexGuard<'static, ()>,
}

impl Checkout {
    async fn open() -> Option<Checkout> {
        let tools = tools_or_skip()?;
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
    fn success_url(&self) -> String {
        format!("{}/shop/success?order=order-100045", self.shop.url)
    }
    fn failure_url(&self) -> String {
        format!("{}/shop/failure", self.shop.url)
    }
    fn cancel_url(&self) -> String {
        format!("{}/shop/cancel?reason=buyer", self.shop.url)
    }

    /// The demo order with the shop's addresses, changed by `edit`;
    /// answers the session id and the landing page.
    async fn create_session(&self, edit: impl FnOnce(&mut Value)) -> (String, String) {
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

    async fn goto(&self, url: &str) {
        self.browser.client.goto(url).await.expect("the page opens");
    }

    async fn click(&self, css: &str) {
        self.browser
            .client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css}: {e}"))
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
    }

    async fn type_into(&self, css: &str, text: &str) {
        let field = self.browser.client.find(Locator::Css(css)).await.unwrap();
        field.clear().await.unwrap();
        field.send_keys(text).await.unwrap();
    }

    async fn text_of(&self, css: &str) -> String {
        let element = self.browser.client.find(Locator::Css(css)).await;
        element
            .unwrap_or_else(|e| panic!("{css}: {e}"))
            .text()
            .await
            .unwrap()
    }

    async fn current_url(&self) -> String {
        self.browser.client.current_url().await.unwrap().to_string()
    }

    /// Waits until the browser shows `expected`, exactly.
    async fn lands_on(&self, expected: &str) {
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

    async fn record(&self, session_id: &str) -> SessionRecord {
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
    async fn verified_notification(&self, session_id: &str) -> SessionRecord {
        let received = self.shop.notifications_of(session_id).await;
        assert_eq!(received.len(), 1, "one notification per ending");
        let now = self.sandbox.control().now().await.unwrap().to_utc();
        let verifier =
            WebhookVerifier::new(DEMO_WEBHOOK_SECRET).with_clock(Arc::new(FixedClock(now)));
        verifier
            .parse_session_notification(&received[0].signature, &received[0].body)
            .expect("an authentic session notification")
    }

    async fn close(self) {
        let Checkout { browser, .. } = self;
        browser.close().await;
    }
}

#[tokio::test]
async fn paying_by_open_invoice_lands_on_success_url_and_completes_the_session() {
    let Some(checkout) = Checkout::open().await else {
        return;
    };
    let (session_id, landing_page) = checkout.create_session(|_| {}).await;
    checkout.goto(&landing_page).await;
    assert_eq!(
        checkout.record(&session_id).await.session_status,
        Some(SessionStatus::InProgress)
    );
    checkout.click("#method-open_invoice").await;
    checkout.click("#pay").await;
    checkout.lands_on(&checkout.success_url()).await;
    assert_eq!(checkout.text_of("#shop-page").await, "success");

    let record = checkout.record(&session_id).await;
    assert_eq!(record.session_status, Some(SessionStatus::Completed));
    let transaction_id = record.transaction_id.clone().expect("a transaction");
    let transaction = checkout
        .sandbox
        .control()
        .transaction(&transaction_id)
        .await
        .unwrap();
    assert_eq!(
        (
            transaction.payment_option.as_str(),
            transaction.transfer_type.as_str()
        ),
        ("OPEN_INVOICE", "BANK_TRANSFER")
    );
    assert_eq!(checkout.verified_notification(&session_id).await, record);

    // Back on the landing page: the session is closed, with a way back.
    checkout.goto(&landing_page).await;
    assert_eq!(checkout.text_of("#status").await, "COMPLETED");
    let back = checkout
        .browser
        .client
        .find(Locator::Css(".message a"))
        .await
        .unwrap();
    assert_eq!(
        back.attr("href").await.unwrap(),
        Some(checkout.success_url())
    );
    assert!(checkout
        .browser
        .client
        .find(Locator::Css("form"))
        .await
        .is_err());
    checkout.close().await;
}

#[tokio::test]
async fn direct_debit_refuses_a_bad_iban_on_the_page_then_pays_with_a_good_one() {
    let Some(checkout) = Checkout::open().await else {
        return;
    };
    let (session_id, landing_page) = checkout.create_session(|_| {}).await;
    checkout.goto(&landing_page).await;
    checkout.click("#method-direct_debit").await;
    checkout
        .type_into("#iban", "DE00 3704 0044 0532 0130 00")
        .await;
    checkout
        .type_into("#account_holder", "Erika Mustermann")
        .await;
    checkout.click("#pay").await;

    let error = checkout
        .browser
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#iban-error"))
        .await
        .expect("a message next to the IBAN");
    assert!(error.text().await.unwrap().contains("IBAN"));
    assert!(checkout
        .current_url()
        .await
        .contains(&format!("/pps/landing/{session_id}")));
    let iban = checkout
        .browser
        .client
        .find(Locator::Css("#iban"))
        .await
        .unwrap();
    assert_eq!(
        iban.prop("value").await.unwrap().as_deref(),
        Some("DE00 3704 0044 0532 0130 00"),
        "the entry is kept"
    );
    assert_eq!(
        checkout.record(&session_id).await.session_status,
        Some(SessionStatus::InProgress),
        "the session stays open"
    );
    assert!(checkout.shop.notifications_now(&session_id).is_empty());

    checkout
        .type_into("#iban", "DE89 3704 0044 0532 0130 00")
        .await;
    checkout.click("#pay").await;
    checkout.lands_on(&checkout.success_url()).await;
    let record = checkout.record(&session_id).await;
    assert_eq!(record.session_status, Some(SessionStatus::Completed));
    let transaction = checkout
        .sandbox
        .control()
        .transaction(record.transaction_id.as_deref().unwrap())
        .await
        .unwrap();
    assert_eq!(
        (
            transaction.payment_option.as_str(),
            transaction.transfer_type.as_str()
        ),
        ("OPEN_INVOICE", "DIRECT_DEBIT")
    );
    assert_eq!(checkout.verified_notification(&session_id).await, record);
    checkout.close().await;
}

#[tokio::test]
async fn declining_with_a_category_lands_on_failure_url_with_that_category() {
    let Some(checkout) = Checkout::open().await else {
        return;
    };
    let (session_id, landing_page) = checkout.create_session(|_| {}).await;
    checkout.goto(&landing_page).await;
    let select = checkout
        .browser
        .client
        .find(Locator::Css("#category"))
        .await
        .unwrap();
    select.select_by_value("TRANSACTION_RISK").await.unwrap();
    checkout.click("#decline").await;
    checkout.lands_on(&checkout.failure_url()).await;

    let record = checkout.record(&session_id).await;
    assert_eq!(record.session_status, Some(SessionStatus::Error));
    assert_eq!(record.transaction_id, None);
    let decline = record.decline_reasons.clone().expect("decline reasons");
    assert_eq!(decline.category, Some(DeclineCategory::TransactionRisk));
    assert!(!decline.reasons.is_empty());
    assert_eq!(checkout.verified_notification(&session_id).await, record);
    checkout.close().await;
}

#[tokio::test]
async fn canceling_lands_on_cancel_url_with_its_query_intact() {
    let Some(checkout) = Checkout::open().await else {
        return;
    };
    let (session_id, landing_page) = checkout.create_session(|_| {}).await;
    checkout.goto(&landing_page).await;
    checkout.click("#cancel").await;
    checkout.lands_on(&checkout.cancel_url()).await;
    assert_eq!(checkout.text_of("#shop-page").await, "cancel");

    let record = checkout.record(&session_id).await;
    assert_eq!(record.session_status, Some(SessionStatus::Canceled));
    assert_eq!(checkout.verified_notification(&session_id).await, record);
    checkout.close().await;
}

#[tokio::test]
async fn letting_it_expire_ends_only_this_session_now_and_lands_on_failure_url() {
    let Some(checkout) = Checkout::open().await else {
        return;
    };
    let (other, _) = checkout.create_session(|_| {}).await;
    let (session_id, landing_page) = checkout.create_session(|_| {}).await;
    let clock_before = checkout.sandbox.control().now().await.unwrap();
    checkout.goto(&landing_page).await;
    checkout.click("#expire").await;
    checkout.lands_on(&checkout.failure_url()).await;

    let record = checkout.record(&session_id).await;
    assert_eq!(record.session_status, Some(SessionStatus::Expired));
    let open_for = record.updated_date.unwrap() - record.created_date.unwrap();
    assert!(
        open_for < chrono::Duration::minutes(1),
        "expired now: {open_for}"
    );
    let clock_after = checkout.sandbox.control().now().await.unwrap();
    assert!(
        clock_after - clock_before < chrono::Duration::minutes(1),
        "the clock did not move"
    );
    assert_eq!(
        checkout.record(&other).await.session_status,
        Some(SessionStatus::Created),
        "other sessions are untouched"
    );
    assert_eq!(checkout.verified_notification(&session_id).await, record);
    checkout.close().await;
}

#[tokio::test]
async fn a_german_buyer_sees_the_page_in_german_and_lang_overrides_it() {
    let Some(checkout) = Checkout::open().await else {
        return;
    };
    // The demo buyer's language is de.
    let (_, landing_page) = checkout.create_session(|_| {}).await;
    checkout.goto(&landing_page).await;
    let html = checkout
        .browser
        .client
        .find(Locator::Css("html"))
        .await
        .unwrap();
    assert_eq!(html.attr("lang").await.unwrap().as_deref(), Some("de"));
    assert_eq!(checkout.text_of("#pay").await, "43,80 EUR bezahlen");
    assert!(checkout
        .text_of("label[for=method-open_invoice]")
        .await
        .contains("Kauf auf Rechnung"));
    assert_eq!(checkout.text_of("label[for=iban]").await, "IBAN");
    assert_eq!(
        checkout.text_of("#sandbox-heading").await,
        "Sandbox: Ergebnis wählen"
    );

    checkout.goto(&format!("{landing_page}?lang=en")).await;
    assert_eq!(checkout.text_of("#pay").await, "Pay 43.80 EUR");
    assert!(checkout
        .text_of("label[for=method-open_invoice]")
        .await
        .contains("Open invoice"));
    checkout.close().await;
}
