//! The hosted payment page in a real browser: headless Chromium driven
//! through chromedriver (WebDriver, with fantoccini) clicks through each
//! outcome and lands on the shop's page, with the session record read
//! through `psi::Client` and the signed notification verified.
//!
//! Needs Debian's `chromium` and `chromium-driver`, and for the
//! accessibility check axe-core from npm (`bash .ci/browser` installs them).
//! Without them a test prints a loud SKIPPED line and passes, so `cargo
//! test --workspace` works on a fresh machine; with `CI` set it fails
//! instead. One browser at a time: each test starts its own chromedriver
//! and waits for its turn.

mod accessibility;
mod checkout;
mod driver;
mod form_posts;
mod shop;

use checkout::Checkout;
use fantoccini::Locator;
use psi::payment_page::types::{DeclineCategory, SessionStatus};
use std::time::Duration;

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
