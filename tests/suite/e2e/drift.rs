//! The drift report in process (`psi::ClientBuilder::drift`): the sandbox's
//! answers are replaced, through the control API, with bodies and statuses
//! the documents do not say, as a service that drifts would send them.

use psi::drift::{Direction, Finding, Kind, Limits, Report};
use psi::webhook::{sign, sign_invoice, WebhookVerifier};
use psi_runtime::Secret;
use serde_json::json;

/// A client of `sandbox` with the drift report on.
fn drifting_client(sandbox: &psi_sandbox::Sandbox) -> psi::Client {
    super::builder(sandbox)
        .drift(Limits::default())
        .build()
        .expect("the sandbox's settings are complete")
}

/// The one finding of `report` at `operation_id`, `kind` and `pointer`.
fn finding<'a>(report: &'a Report, operation_id: &str, kind: Kind, pointer: &str) -> &'a Finding {
    let found: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| {
            f.operation_id.as_deref() == Some(operation_id)
                && f.kind == kind
                && f.pointer == pointer
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one {kind:?} at {operation_id} {pointer:?} in\n{}",
        report.summary()
    );
    found[0]
}

/// An offers answer with an undeclared member at the top and in each
/// offer, an availability the enum does not list and a currency that
/// breaks its pattern (read leniently).
fn drifted_offers(transaction: &str) -> serde_json::Value {
    json!({
        "transaction_id": transaction,
        "current_due_date": "2020-03-27",
        "pay_Later_offers": [
            {"offer_id": "payl-1", "price": 2.95, "currency": "EUR", "delta_due_date": 14,
             "available": "AVAILABLE", "teaser": "Pay in 14 days"},
            {"offer_id": "payl-2", "price": 4.95, "currency": "978", "delta_due_date": 30,
             "available": "RESERVED", "teaser": "Pay in 30 days"}
        ],
        "campaign": "spring"
    })
}

/// The offers of `transaction` through `client`, as comparable text: the
/// typed answer as JSON, or the error's one line.
async fn offers(client: &psi::Client, transaction: &str) -> String {
    match client
        .pay_later()
        .get_pay_later_offers()
        .transaction_id(transaction)
        .send()
        .await
    {
        Ok(answer) => serde_json::to_string(&answer.into_inner()).unwrap(),
        Err(error) => format!("error: {error}"),
    }
}

/// The pay later status of `transaction` through `client`, as comparable text.
async fn status(client: &psi::Client, transaction: &str) -> String {
    match client
        .pay_later()
        .get_pay_later_status()
        .transaction_id(transaction)
        .send()
        .await
    {
        Ok(answer) => serde_json::to_string(&answer.into_inner()).unwrap(),
        Err(error) => format!("error: {error} (status {:?})", error.status()),
    }
}

#[tokio::test]
async fn answers_the_documents_do_not_describe_are_reported_and_returned_unchanged() {
    let (sandbox, off) = super::sandbox().await;
    let on = drifting_client(&sandbox);
    let transaction = super::completed_transaction(&sandbox, &off, "OPEN_INVOICE").await;
    let control = sandbox.control();

    // The sandbox's own answers are what the documents say: nothing found.
    status(&on, &transaction).await;
    offers(&on, &transaction).await;
    assert_eq!(on.drift(), Some(Report::default()), "the sandbox conforms");

    // Each drifted answer goes to both clients: send() returns the same.
    control
        .answer_after_processing(
            "getPayLaterOffers",
            200,
            Some(drifted_offers(&transaction)),
            2,
        )
        .await
        .unwrap();
    let (without, with) = (
        offers(&off, &transaction).await,
        offers(&on, &transaction).await,
    );
    assert_eq!(
        with, without,
        "the report does not change what send() returns"
    );
    assert!(with.contains("RESERVED") && with.contains("978"), "{with}");
    control
        .answer_after_processing("getPayLaterStatus", 418, Some(json!({"teapot": true})), 2)
        .await
        .unwrap();
    let (without, with) = (
        status(&off, &transaction).await,
        status(&on, &transaction).await,
    );
    assert_eq!(
        with, without,
        "the report does not change what send() returns"
    );
    assert!(with.contains("418"), "{with}");

    let report = on.drift().expect("the report is on");
    let offers_id = "getPayLaterOffers";
    let member = finding(&report, offers_id, Kind::UndeclaredMember, "/campaign");
    assert_eq!(member.status, Some(200));
    assert_eq!(member.direction, Direction::Answer);
    assert_eq!(member.document.as_deref(), Some("openapi/pay-later.yaml"));
    // Array indices collapse: both offers' member is one finding, counted
    // once for the one answer that carried it.
    let teaser = finding(
        &report,
        offers_id,
        Kind::UndeclaredMember,
        "/pay_Later_offers/*/teaser",
    );
    assert_eq!(teaser.count, 1);
    assert_eq!(teaser.direction, Direction::Answer);
    let unknown = finding(
        &report,
        offers_id,
        Kind::EnumValue,
        "/pay_Later_offers/*/available",
    );
    assert_eq!(unknown.examples, ["\"RESERVED\""]);
    assert_eq!(unknown.direction, Direction::Answer);
    let lenient = finding(
        &report,
        offers_id,
        Kind::Format,
        "/pay_Later_offers/*/currency",
    );
    assert_eq!(lenient.examples, ["\"978\""]);
    assert_eq!(lenient.direction, Direction::Answer);
    let undeclared = finding(&report, "getPayLaterStatus", Kind::UndeclaredStatus, "");
    assert_eq!(undeclared.status, Some(418));
    assert_eq!(undeclared.direction, Direction::Answer);
    // An undeclared status's body is not checked against any schema.
    assert_eq!(
        report.findings.len(),
        5,
        "nothing else:\n{}",
        report.summary()
    );

    // Off: no report, however the answers drift.
    assert_eq!(off.drift(), None);
    on.clear_drift();
    assert_eq!(on.drift(), Some(Report::default()));
}

#[tokio::test]
async fn the_token_requests_answers_are_checked_too() {
    let sandbox = psi_sandbox::Sandbox::start().await.unwrap();
    let on = drifting_client(&sandbox);
    sandbox
        .control()
        .answer_after_processing("getToken", 418, None, 1)
        .await
        .unwrap();
    let error = on
        .transaction_status()
        .get_transaction_status()
        .transaction_id("12-00000000000000000")
        .send()
        .await
        .unwrap_err();
    assert!(matches!(error, psi_runtime::Error::Token(_)), "{error:?}");
    let report = on.drift().unwrap();
    let undeclared = finding(&report, "getToken", Kind::UndeclaredStatus, "");
    assert_eq!(undeclared.status, Some(418));
    assert_eq!(undeclared.direction, Direction::Answer);
}

#[tokio::test]
async fn verified_notifications_are_checked_and_unverified_ones_are_not() {
    let (sandbox, off) = super::sandbox().await;
    let on = drifting_client(&sandbox);
    let secret = Secret::new("whsec-drift-test");
    let verifier = WebhookVerifier::new(secret.clone()).with_drift(&on);
    let now = chrono::Utc::now().timestamp();

    // The session record declares its members: another one is drift.
    let session = br#"{"session_id":"s-1","session_status":"COMPLETED","mood":"calm"}"#;
    verifier
        .parse_session_notification(&sign(&secret, now, session), session)
        .expect("verifies");
    // The invoice payload allows undeclared members (additionalProperties:
    // true); a reference shorter than its minLength is read leniently.
    let invoice =
        br#"{"id":92,"invoice_id":"DG0627731Z7-001","gateway_payment_reference":"GD1","note":"n"}"#;
    verifier
        .parse_invoice_notification(&sign_invoice(&secret, invoice), invoice)
        .expect("verifies");

    // Bytes that do not verify (another secret; a session notification
    // older than the tolerance) never reach the report.
    let intruder = Secret::new("not-the-secret");
    let forged = br#"{"session_id":"s-2","session_status":"COMPLETED","forged":1}"#;
    assert!(verifier
        .verify(&sign(&intruder, now, forged), forged)
        .is_err());
    let stale = br#"{"session_id":"s-3","session_status":"COMPLETED","stale":1}"#;
    assert!(verifier
        .verify(&sign(&secret, now - 3600, stale), stale)
        .is_err());
    let forged_invoice = br#"{"id":93,"invoice_id":"X-1","gateway_payment_reference":"F"}"#;
    assert!(verifier
        .verify_invoice(&sign_invoice(&intruder, forged_invoice), forged_invoice)
        .is_err());

    let report = on.drift().unwrap();
    let session_member = finding(
        &report,
        psi::drift::SESSION_NOTIFICATION,
        Kind::UndeclaredMember,
        "/mood",
    );
    assert_eq!(session_member.direction, Direction::Notification);
    assert_eq!(session_member.status, None);
    assert_eq!(session_member.count, 1);
    let invoice_reference = finding(
        &report,
        psi::drift::INVOICE_NOTIFICATION,
        Kind::Format,
        "/gateway_payment_reference",
    );
    assert_eq!(invoice_reference.direction, Direction::Notification);
    assert_eq!(
        invoice_reference.count, 1,
        "the forged invoice is not counted"
    );
    assert_eq!(invoice_reference.examples, ["\"GD1\""]);
    assert_eq!(
        report.findings.len(),
        2,
        "only the verified bodies:\n{}",
        report.summary()
    );

    // A verifier given a client whose report is off checks nothing.
    let unreported = WebhookVerifier::new(secret.clone()).with_drift(&off);
    unreported
        .verify(&sign(&secret, now, session), session)
        .unwrap();
    assert_eq!(off.drift(), None);
}

#[tokio::test]
async fn an_answer_that_is_retried_is_not_checked_only_the_final_one() {
    let (sandbox, _) = super::sandbox().await;
    let on = drifting_client(&sandbox);
    let transaction = super::completed_transaction(&sandbox, &on, "OPEN_INVOICE").await;
    on.clear_drift();
    // getPayLaterStatus declares no 503: a finding, were the retried
    // answers checked. The call ends with the sandbox's own 2xx.
    sandbox
        .control()
        .fail_next("getPayLaterStatus", 503, 2)
        .await
        .unwrap();
    let answer = status(&on, &transaction).await;
    assert!(!answer.starts_with("error"), "{answer}");
    assert_eq!(on.drift(), Some(Report::default()));
    // The same 503 as the final answer (retries used up) is one.
    sandbox
        .control()
        .fail_next("getPayLaterStatus", 503, 3)
        .await
        .unwrap();
    assert!(status(&on, &transaction).await.contains("503"));
    let report = on.drift().unwrap();
    let undeclared = finding(&report, "getPayLaterStatus", Kind::UndeclaredStatus, "");
    assert_eq!((undeclared.status, undeclared.count), (Some(503), 1));
}
