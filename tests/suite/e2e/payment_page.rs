//! The hosted payment page through `psi::Client` against the sandbox:
//! session creation with its checks and idempotency, the session records,
//! the buyer's transitions, expiry, signed and retried notifications, and
//! token checks.

use super::{declined, sandbox, session_request};
use psi::payment_page::types::{
    Decline, DeclineCategory, DeclineResponse, SessionRecord, SessionRequest, SessionStatus,
};
use psi::payment_page::Error;
use psi::Api;
use psi_sandbox::control::types::WebhookDelivery;
use psi_sandbox::{Sandbox, DEMO_WEBHOOK_SECRET};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// An address nothing listens on: notifications to it fail quietly.
const NOWHERE: &str = "http://127.0.0.1:9/webhook";

fn paths(decline: &Decline) -> Vec<String> {
    decline
        .invalid_fields
        .iter()
        .filter_map(|field| field.json_path.clone())
        .collect()
}

/// A client that sends what it is given, so the sandbox's own checks answer.
fn unchecked_client(sandbox: &Sandbox) -> psi::Client {
    psi::Client::builder()
        .environment(super::environment(sandbox))
        .credentials(super::credentials())
        .skip_preflight()
        .build()
        .expect("a complete configuration")
}

/// `session_request` with a change made to its JSON.
fn edited_request(webhook_url: &str, edit: impl FnOnce(&mut Value)) -> SessionRequest {
    let mut value = serde_json::to_value(session_request(webhook_url)).unwrap();
    edit(&mut value);
    serde_json::from_value(value).expect("still a session request")
}

async fn create(client: &psi::Client, request: SessionRequest) -> String {
    let response = client
        .payment_page()
        .create_session()
        .body(request)
        .send()
        .await
        .expect("a session");
    assert_eq!(response.status().as_u16(), 201);
    response.into_inner().session_id.expect("a session id")
}

async fn record(client: &psi::Client, session_id: &str) -> SessionRecord {
    client
        .payment_page()
        .get_session_record()
        .session_id(session_id)
        .send()
        .await
        .expect("the record")
        .into_inner()
}

/// The sandbox's date in the offset it keeps its times in (+01:00).
async fn sandbox_today(sandbox: &Sandbox) -> chrono::NaiveDate {
    sandbox.control().now().await.unwrap().date_naive()
}

fn is_transaction_id(text: &str) -> bool {
    text.len() == 20 && text.starts_with("12-") && text[3..].bytes().all(|b| b.is_ascii_digit())
}

#[tokio::test]
async fn a_session_is_created_with_a_landing_page_and_reads_back() {
    let (sandbox, client) = sandbox().await;
    let response = client
        .payment_page()
        .create_session()
        .body(session_request(NOWHERE))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let created = response.into_inner();
    let session_id = created.session_id.unwrap();
    uuid::Uuid::parse_str(&session_id).expect("the session id is a UUID");
    let landing_page = created.landing_page.unwrap();
    assert_eq!(
        landing_page,
        format!("{}/pps/landing/{session_id}", sandbox.url())
    );

    let record = record(&client, &session_id).await;
    assert_eq!(record.session_id.as_deref(), Some(session_id.as_str()));
    assert_eq!(record.session_status, Some(SessionStatus::Created));
    assert_eq!(
        record.partner_transaction_id.as_deref(),
        Some("order-100045")
    );
    assert_eq!(record.transaction_id, None);
    assert_eq!(record.shop_buyer_id, None);
    assert_eq!(record.decline_reasons, None);
    assert_eq!(record.created_date, record.updated_date);
    let created_at = record.created_date.unwrap();
    assert_eq!(created_at.offset().local_minus_utc(), 3600);
    assert!(
        (sandbox.control().now().await.unwrap().to_utc() - created_at.to_utc())
            .num_seconds()
            .abs()
            < 5
    );
}

#[tokio::test]
async fn the_landing_page_shows_the_amount_and_puts_the_session_in_progress() {
    let (_sandbox, client) = sandbox().await;
    let created = client
        .payment_page()
        .create_session()
        .body(session_request(NOWHERE))
        .send()
        .await
        .unwrap()
        .into_inner();
    let session_id = created.session_id.unwrap();
    let page = reqwest::get(created.landing_page.unwrap()).await.unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = page.text().await.unwrap();
    // The demo buyer's language is German.
    assert!(html.contains("<html lang=\"de\">"), "{html}");
    assert!(html.contains("43,80 EUR"), "{html}");
    assert!(
        html.contains(&format!(
            "<form method=\"post\" action=\"/pps/landing/{session_id}"
        )),
        "{html}"
    );
    assert_eq!(
        record(&client, &session_id).await.session_status,
        Some(SessionStatus::InProgress)
    );
}

#[tokio::test]
async fn records_are_listed_by_their_creation_day() {
    let (sandbox, client) = sandbox().await;
    let pages = client.payment_page();
    let first = create(&client, session_request(NOWHERE)).await;
    let second = create(&client, session_request(NOWHERE)).await;
    let today = sandbox_today(&sandbox).await;

    let listed = pages
        .list_session_records()
        .created_date(today)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status().as_u16(), 200);
    let ids: Vec<_> = listed
        .into_inner()
        .0
        .into_iter()
        .filter_map(|record| record.session_id)
        .collect();
    assert_eq!(ids, [first, second], "oldest first");

    let yesterday = today.pred_opt().unwrap();
    let listed = pages
        .list_session_records()
        .created_date(yesterday)
        .send()
        .await
        .unwrap();
    assert!(listed.into_inner().0.is_empty());
}

#[tokio::test]
async fn a_missing_or_malformed_created_date_is_400() {
    let (sandbox, client) = sandbox().await;
    let token = client.token(Api::PaymentPage).await.unwrap();
    for query in ["", "?createdDate=2024-13-01", "?createdDate=17.05.2024"] {
        let response = reqwest::Client::new()
            .get(format!(
                "{}/pps/api/v1/session-record{query}",
                sandbox.url()
            ))
            .bearer_auth(token.expose())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 400, "{query}");
        let body: DeclineResponse = response.json().await.unwrap();
        let decline = body.decline.unwrap();
        assert_eq!(decline.category, Some(DeclineCategory::Syntax));
        assert_eq!(paths(&decline), ["createdDate"], "{query}");
    }
}

#[tokio::test]
async fn an_unknown_session_record_is_404() {
    let (_sandbox, client) = sandbox().await;
    let (status, decline) = declined(
        client
            .payment_page()
            .get_session_record()
            .session_id("no-such-session")
            .send()
            .await,
    );
    assert_eq!(status, 404);
    assert_eq!(decline.category, Some(DeclineCategory::ResourceNotFound));
    assert_eq!(decline.reasons, ["SESSION_NOT_FOUND"]);
}

#[tokio::test]
async fn a_repeat_with_the_same_key_and_body_returns_the_same_session() {
    let (sandbox, client) = sandbox().await;
    let pages = client.payment_page();
    let key = uuid::Uuid::new_v4().to_string();
    let mut answers = Vec::new();
    for _ in 0..2 {
        let sent = pages
            .create_session()
            .idempotency_key(key.as_str())
            .body(session_request(NOWHERE));
        let response = sent.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 201);
        answers.push(response.into_inner());
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(sandbox.control().sessions().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_reused_key_with_another_body_is_a_409_conflict() {
    let (sandbox, client) = sandbox().await;
    let pages = client.payment_page();
    let key = "order-100045-attempt-1";
    let first = pages
        .create_session()
        .idempotency_key(key)
        .body(session_request(NOWHERE));
    first.send().await.unwrap();
    let other_body = edited_request(NOWHERE, |body| {
        body["order_data"]["partner_transaction_id"] = json!("order-100046")
    });
    let second = pages.create_session().idempotency_key(key).body(other_body);
    let (status, decline) = declined(second.send().await);
    assert_eq!(status, 409);
    assert_eq!(decline.category, Some(DeclineCategory::Conflict));
    assert_eq!(decline.reasons, ["IDEMPOTENCY_KEY_REUSED"]);
    assert_eq!(sandbox.control().sessions().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_key_is_forgotten_after_24_hours() {
    let (sandbox, client) = sandbox().await;
    let pages = client.payment_page();
    let key = uuid::Uuid::new_v4().to_string();
    let first = pages
        .create_session()
        .idempotency_key(key.as_str())
        .body(session_request(NOWHERE));
    let first = first.send().await.unwrap().into_inner().session_id;
    sandbox
        .control()
        .advance_clock(24 * 3600 + 1)
        .await
        .unwrap();
    let other_body = edited_request(NOWHERE, |body| {
        body["order_data"]["partner_transaction_id"] = json!("order-2")
    });
    let second = pages
        .create_session()
        .idempotency_key(key.as_str())
        .body(other_body);
    let second = second
        .send()
        .await
        .expect("the key was forgotten")
        .into_inner()
        .session_id;
    assert_ne!(first, second);
}

#[tokio::test]
async fn an_idempotency_key_over_64_characters_is_refused() {
    let (sandbox, client) = sandbox().await;
    let pages = client.payment_page();
    let too_long = "k".repeat(65);
    let sent = pages
        .create_session()
        .idempotency_key(too_long.as_str())
        .body(session_request(NOWHERE));
    match sent.send().await {
        Err(Error::InvalidRequest(message)) => {
            assert!(message.contains("idempotency_key"), "{message}")
        }
        other => panic!("the client must refuse the key, got {other:?}"),
    }
    assert!(
        sandbox.control().sessions().await.unwrap().is_empty(),
        "nothing reached the sandbox"
    );

    let token = client.token(Api::PaymentPage).await.unwrap();
    let raw = |key: String| {
        reqwest::Client::new()
            .post(format!("{}/pps/api/v1/session", sandbox.url()))
            .bearer_auth(token.expose())
            .header("Idempotency-Key", key)
            .json(&session_request(NOWHERE))
            .send()
    };
    let response = raw(too_long).await.unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let decline = response
        .json::<DeclineResponse>()
        .await
        .unwrap()
        .decline
        .unwrap();
    assert_eq!(decline.category, Some(DeclineCategory::Syntax));
    assert_eq!(paths(&decline), ["Idempotency-Key"]);
    assert!(sandbox.control().sessions().await.unwrap().is_empty());

    let longest = raw("k".repeat(64)).await.unwrap();
    assert_eq!(longest.status().as_u16(), 201, "64 characters are allowed");
}

#[tokio::test]
async fn a_body_of_the_wrong_shape_is_400_naming_the_path() {
    let (sandbox, client) = sandbox().await;
    let token = client.token(Api::PaymentPage).await.unwrap();
    let bodies = [
        (
            json!({"order_data": {"currency": "EURO"}}),
            "$.order_data.currency",
        ),
        (
            json!({"order_data": {"shop_baskets": [{"gross_amount": "lots"}]}}),
            "$.order_data.shop_baskets[0].gross_amount",
        ),
    ];
    for (body, path) in bodies {
        let response = reqwest::Client::new()
            .post(format!("{}/pps/api/v1/session", sandbox.url()))
            .bearer_auth(token.expose())
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 400);
        let decline = response
            .json::<DeclineResponse>()
            .await
            .unwrap()
            .decline
            .unwrap();
        assert_eq!(decline.category, Some(DeclineCategory::Syntax));
        assert_eq!(paths(&decline), [path]);
    }
}

#[tokio::test]
async fn a_basket_whose_items_do_not_add_up_is_422() {
    let (sandbox, _client) = sandbox().await;
    let client = unchecked_client(&sandbox);
    let wrong_sum = edited_request(NOWHERE, |body| {
        body["order_data"]["shop_baskets"][0]["gross_amount"] = json!(44)
    });
    let (status, decline) = declined(
        client
            .payment_page()
            .create_session()
            .body(wrong_sum)
            .send()
            .await,
    );
    assert_eq!(status, 422);
    assert_eq!(decline.category, Some(DeclineCategory::PaymentAttribute));
    assert_eq!(
        decline.reasons,
        ["SUM_OF_ITEM_AMOUNTS_NOT_MATCHING_TRANSACTION_AMOUNT"]
    );
    assert_eq!(
        paths(&decline),
        ["$.order_data.shop_baskets[0].gross_amount"]
    );

    // Quantities 2 + 1 allow 0.06 between the item sum (43.8) and the gross amount.
    let inside = edited_request(NOWHERE, |body| {
        body["order_data"]["shop_baskets"][0]["gross_amount"] = json!(43.86)
    });
    create(&client, inside).await;
    let outside = edited_request(NOWHERE, |body| {
        body["order_data"]["shop_baskets"][0]["gross_amount"] = json!(43.73)
    });
    let (status, _) = declined(
        client
            .payment_page()
            .create_session()
            .body(outside)
            .send()
            .await,
    );
    assert_eq!(status, 422);
}

#[tokio::test]
async fn a_session_carries_the_fields_the_provider_documents() {
    // Read from JSON as a merchant's own request would be: nothing dropped.
    let (sandbox, client) = sandbox().await;
    let request = edited_request(NOWHERE, |body| {
        let order = &mut body["order_data"];
        order["partner_operation_id"] = json!("operation-4711-1");
        order["authorization_expires"] = json!("2026-12-31T23:59:59+01:00");
        order["buyer"]["shop_buyer_id"] = json!("buyer-4711");
    });
    let sent = serde_json::to_value(&request).unwrap();
    assert_eq!(
        sent["order_data"]["partner_operation_id"],
        "operation-4711-1"
    );
    assert_eq!(
        sent["order_data"]["authorization_expires"], "2026-12-31T23:59:59+01:00",
        "the offset is kept"
    );
    assert_eq!(sent["order_data"]["buyer"]["shop_buyer_id"], "buyer-4711");
    let session_id = create(&client, request).await;
    // The record carries the buyer id the session was created with.
    let person_record = record(&client, &session_id).await;
    assert_eq!(person_record.shop_buyer_id.as_deref(), Some("buyer-4711"));

    // A company buyer's contact person.
    let company: SessionRequest = serde_json::from_value(json!({
        "order_data": {
            "currency": "EUR",
            "buyer": {
                "shop_buyer_id": "buyer-0815",
                "billing_address": {"city": "Hamburg", "country_code": "DE", "street": "Beispielweg",
                                    "street_number": "7a", "zip_code": "20095"},
                "contact": {"email": "purchasing@example.com"},
                "company": {"name": "Example Trading GmbH", "vat_id": "DE123456789",
                            "first_name": "Erika", "last_name": "Musterfrau"}
            },
            "shop_baskets": sent["order_data"]["shop_baskets"].clone()
        }
    }))
    .unwrap();
    let sent = serde_json::to_value(&company).unwrap();
    assert_eq!(
        sent["order_data"]["buyer"]["company"]["first_name"],
        "Erika"
    );
    assert_eq!(
        sent["order_data"]["buyer"]["company"]["last_name"],
        "Musterfrau"
    );
    // No url_data: optional, as the provider's document says.
    assert!(sent.get("url_data").is_none());
    let session_id = create(&client, company).await;
    let company_record = record(&client, &session_id).await;
    assert_eq!(company_record.shop_buyer_id.as_deref(), Some("buyer-0815"));
    drop(sandbox);
}

#[tokio::test]
async fn the_providers_basket_rule_decides_on_both_sides() {
    // The provider's counterexample: 2 x (18.45 - 1.55) + 10 = 43.80, with
    // a gross_total_price of 36.9 (undiscounted), which takes no part. psi
    // sends it and the sandbox accepts it.
    let (sandbox, client) = sandbox().await;
    let counterexample = edited_request(NOWHERE, |body| {
        body["order_data"]["shop_baskets"][0]["items"][0]["gross_total_price"] = json!(36.9)
    });
    create(&client, counterexample).await;

    // A line without gross_total_price is no reason to refuse: the service
    // computes from unit prices (43.8 + 5 = 48.8).
    let untotalled = edited_request(NOWHERE, |body| {
        let basket = &mut body["order_data"]["shop_baskets"][0];
        basket["gross_amount"] = json!(48.8);
        basket["items"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "Gift wrap", "quantity": 1, "gross_unit_price": 5}));
    });
    create(&client, untotalled).await;

    // Line totals that add up to gross_amount do not save unit prices that
    // do not (no discount: 2 x 18.45 + 10 = 46.90): psi refuses before
    // sending, and the sandbox, sent it unchecked, declines it.
    let undiscounted = edited_request(NOWHERE, |body| {
        body["order_data"]["shop_baskets"][0]["items"][0]
            .as_object_mut()
            .unwrap()
            .remove("gross_unit_discount");
    });
    let refused = psi::Error::from(
        client
            .payment_page()
            .create_session()
            .body(undiscounted.clone())
            .send()
            .await
            .unwrap_err(),
    );
    assert!(matches!(refused, psi::Error::Preflight(_)), "{refused}");
    let (status, decline) = declined(
        unchecked_client(&sandbox)
            .payment_page()
            .create_session()
            .body(undiscounted)
            .send()
            .await,
    );
    assert_eq!(status, 422);
    assert_eq!(
        decline.reasons,
        ["SUM_OF_ITEM_AMOUNTS_NOT_MATCHING_TRANSACTION_AMOUNT"]
    );
}

/// The session notifications queued so far for `session_id`.
async fn deliveries_of(sandbox: &Sandbox, session_id: &str) -> Vec<WebhookDelivery> {
    let all = sandbox.control().webhooks().await.unwrap();
    all.into_iter()
        .filter(|delivery| delivery.session_id == session_id)
        .collect()
}

#[tokio::test]
async fn a_session_without_webhook_url_is_created_and_never_notified() {
    let (sandbox, client) = sandbox().await;
    let request = edited_request(NOWHERE, |body| {
        body["url_data"]
            .as_object_mut()
            .unwrap()
            .remove("webhook_url");
    });
    let quiet = create(&client, request).await;
    let notified = create(&client, session_request(NOWHERE)).await;
    for session_id in [&quiet, &notified] {
        sandbox
            .control()
            .complete_session(session_id, "OPEN_INVOICE")
            .await
            .expect("the buyer completes");
    }
    assert_eq!(
        record(&client, &quiet).await.session_status,
        Some(SessionStatus::Completed)
    );
    // Notifications are queued before the control call answers.
    assert!(deliveries_of(&sandbox, &quiet).await.is_empty());
    let sent = deliveries_of(&sandbox, &notified).await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].url, NOWHERE);
}

#[tokio::test]
async fn every_invalid_field_is_named_at_once() {
    let (sandbox, _client) = sandbox().await;
    let client = unchecked_client(&sandbox);
    let request = edited_request("not a url", |body| {
        let order = body["order_data"].as_object_mut().unwrap();
        order.remove("currency");
        order["shop_baskets"][0]
            .as_object_mut()
            .unwrap()
            .remove("gross_amount");
        // No input to the basket rule: its absence is named nowhere.
        order["shop_baskets"][0]["items"][0]
            .as_object_mut()
            .unwrap()
            .remove("gross_total_price");
    });
    let (status, decline) = declined(
        client
            .payment_page()
            .create_session()
            .body(request)
            .send()
            .await,
    );
    assert_eq!(status, 422);
    assert_eq!(
        paths(&decline),
        [
            "$.order_data.currency",
            "$.order_data.shop_baskets[0].gross_amount",
            "$.url_data.webhook_url",
        ]
    );
    assert_eq!(decline.reasons, ["MISSING_FIELD", "INVALID_FIELD"]);

    let no_basket = edited_request(NOWHERE, |body| {
        body["order_data"]["shop_baskets"] = json!([])
    });
    let (status, decline) = declined(
        client
            .payment_page()
            .create_session()
            .body(no_basket)
            .send()
            .await,
    );
    assert_eq!(status, 422);
    assert_eq!(paths(&decline), ["$.order_data.shop_baskets"]);
}

#[tokio::test]
async fn wrong_buyer_data_is_422_buyer_data() {
    let (sandbox, _client) = sandbox().await;
    let client = unchecked_client(&sandbox);
    let request = edited_request(NOWHERE, |body| {
        body["order_data"]["buyer"]["contact"]["email"] = json!("erika.example.com");
        body["order_data"]["buyer"]["person"]["date_of_birth"] = json!("2999-01-01");
    });
    let (status, decline) = declined(
        client
            .payment_page()
            .create_session()
            .body(request)
            .send()
            .await,
    );
    assert_eq!(status, 422);
    assert_eq!(decline.category, Some(DeclineCategory::BuyerData));
    assert_eq!(
        paths(&decline),
        [
            "$.order_data.buyer.contact.email",
            "$.order_data.buyer.person.date_of_birth"
        ]
    );
}

#[tokio::test]
async fn a_5xx_on_creation_is_retried_with_the_same_key_and_creates_one_session() {
    let (sandbox, client) = sandbox().await;
    sandbox
        .control()
        .fail_next("createSession", 500, 1)
        .await
        .unwrap();
    create(&client, session_request(NOWHERE)).await;
    assert_eq!(sandbox.control().sessions().await.unwrap().len(), 1);
}

#[tokio::test]
async fn completing_creates_a_transaction() {
    let (sandbox, client) = sandbox().await;
    let session_id = create(&client, session_request(NOWHERE)).await;
    let transaction_id = sandbox
        .control()
        .complete_session(&session_id, "OPEN_INVOICE")
        .await
        .unwrap();
    assert!(is_transaction_id(&transaction_id), "{transaction_id}");

    let record = record(&client, &session_id).await;
    assert_eq!(record.session_status, Some(SessionStatus::Completed));
    assert_eq!(
        record.transaction_id.as_deref(),
        Some(transaction_id.as_str())
    );
    assert!(record.updated_date >= record.created_date);

    let transaction = sandbox
        .control()
        .transaction(&transaction_id)
        .await
        .unwrap();
    assert_eq!(transaction.session_id.to_string(), session_id);
    assert_eq!(
        (
            transaction.payment_option.as_str(),
            transaction.transfer_type.as_str()
        ),
        ("OPEN_INVOICE", "BANK_TRANSFER")
    );
    assert_eq!(
        transaction.due_date,
        sandbox_today(&sandbox).await + chrono::Days::new(14)
    );
    assert_eq!(transaction.order_data, session_request(NOWHERE).order_data);
    assert_eq!(transaction.correspondence_id.get_version_num(), 4);

    let again = sandbox
        .control()
        .complete_session(&session_id, "OPEN_INVOICE")
        .await
        .unwrap_err();
    assert!(again.to_string().contains("409"), "{again}");
}

#[tokio::test]
async fn the_buyer_can_choose_the_payment_method() {
    let (sandbox, client) = sandbox().await;
    let session_id = create(&client, session_request(NOWHERE)).await;
    let choice = json!({"payment_option": "INSTALMENT", "transfer_type": "DIRECT_DEBIT"});
    let answer = sandbox
        .control()
        .post(&format!("sessions/{session_id}/complete"), choice)
        .await
        .unwrap();
    assert_eq!(answer["session_id"], json!(session_id));
    let transaction_id = answer["transaction_id"].as_str().unwrap();
    let transaction = sandbox.control().transaction(transaction_id).await.unwrap();
    assert_eq!(
        (
            transaction.payment_option.as_str(),
            transaction.transfer_type.as_str()
        ),
        ("INSTALMENT", "DIRECT_DEBIT")
    );
}

#[tokio::test]
async fn cancel_and_fail_end_a_session_and_notify_once_on_any_2xx() {
    let (sandbox, client) = sandbox().await;
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&receiver)
        .await;
    let webhook_url = format!("{}/webhook", receiver.uri());

    let canceled = create(&client, session_request(&webhook_url)).await;
    sandbox.control().cancel_session(&canceled).await.unwrap();
    assert_eq!(
        record(&client, &canceled).await.session_status,
        Some(SessionStatus::Canceled)
    );

    let failed = create(&client, session_request(&webhook_url)).await;
    sandbox.control().fail_session(&failed).await.unwrap();
    let record = record(&client, &failed).await;
    assert_eq!(record.session_status, Some(SessionStatus::Error));
    assert_eq!(record.transaction_id, None);
    assert_eq!(
        record.decline_reasons.unwrap().category,
        Some(DeclineCategory::RiskDecision)
    );

    for (session_id, status) in [(&canceled, "CANCELED"), (&failed, "ERROR")] {
        let delivery = delivered(&sandbox, session_id).await;
        assert_eq!(delivery.session_status, status);
        assert_eq!(delivery.attempts.len(), 1, "a 2xx is not retried");
        assert_eq!(delivery.attempts[0].status, Some(204));
    }
    let again = sandbox
        .control()
        .complete_session(&canceled, "OPEN_INVOICE")
        .await
        .unwrap_err();
    assert!(again.to_string().contains("409"), "{again}");
}

#[tokio::test]
async fn fail_takes_a_decline_category_and_expire_and_fraud_cancel_end_a_session() {
    let (sandbox, client) = sandbox().await;
    let control = sandbox.control();
    let declined = create(&client, session_request(NOWHERE)).await;
    let refused = control
        .post(
            &format!("sessions/{declined}/fail"),
            json!({"category": "SYNTAX"}),
        )
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("400"), "{refused}");
    control
        .post(
            &format!("sessions/{declined}/fail"),
            json!({"category": "BUYER_IDENTITY"}),
        )
        .await
        .unwrap();
    let declined = record(&client, &declined).await;
    assert_eq!(declined.session_status, Some(SessionStatus::Error));
    assert_eq!(
        declined.decline_reasons.unwrap().category,
        Some(DeclineCategory::BuyerIdentity)
    );

    for (action, status) in [
        ("expire", SessionStatus::Expired),
        ("fraud-cancel", SessionStatus::FraudCancellationRequested),
    ] {
        let session_id = create(&client, session_request(NOWHERE)).await;
        let answer = control
            .post(&format!("sessions/{session_id}/{action}"), json!({}))
            .await
            .unwrap();
        assert_eq!(answer["session_status"], json!(status.as_str()));
        assert_eq!(
            record(&client, &session_id).await.session_status,
            Some(status)
        );
        let again = control.cancel_session(&session_id).await.unwrap_err();
        assert!(again.to_string().contains("409"), "{again}");
    }
}

#[tokio::test]
async fn a_session_without_buyer_action_expires_after_30_minutes() {
    let (sandbox, client) = sandbox().await;
    let pages = client.payment_page();
    let session_id = create(&client, session_request(NOWHERE)).await;
    sandbox.control().advance_clock(29 * 60).await.unwrap();
    assert_eq!(
        record(&client, &session_id).await.session_status,
        Some(SessionStatus::Created)
    );

    sandbox.control().advance_clock(2 * 60).await.unwrap();
    let expired = record(&client, &session_id).await;
    assert_eq!(expired.session_status, Some(SessionStatus::Expired));
    let lifetime = expired.updated_date.unwrap() - expired.created_date.unwrap();
    assert_eq!(
        lifetime,
        chrono::Duration::minutes(30),
        "updated when it expired"
    );
    let listed = pages
        .list_session_records()
        .created_date(expired.created_date.unwrap().date_naive());
    assert_eq!(
        listed.send().await.unwrap().into_inner()[0].session_status,
        Some(SessionStatus::Expired)
    );

    let too_late = sandbox
        .control()
        .complete_session(&session_id, "OPEN_INVOICE")
        .await
        .unwrap_err();
    assert!(too_late.to_string().contains("409"), "{too_late}");
}

/// Polls `GET /__sandbox/webhooks` until the session's notification was
/// delivered or gave up (five attempts), for at most five seconds.
async fn delivered(sandbox: &Sandbox, session_id: &str) -> WebhookDelivery {
    for _ in 0..100 {
        let deliveries = sandbox.control().webhooks().await.unwrap();
        let found = deliveries.into_iter().find(|d| d.session_id == session_id);
        if let Some(delivery) = found {
            if delivery.delivered || delivery.attempts.len() >= 5 {
                return delivery;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no finished notification of {session_id}");
}

#[tokio::test]
async fn a_notification_is_retried_until_2xx_and_verifies() {
    let (sandbox, client) = sandbox().await;
    let receiver = MockServer::start().await;
    // Only the session notification fails; the invoice notification that
    // follows a completion is answered 200 at once.
    Mock::given(method("POST"))
        .and(wiremock::matchers::body_partial_json(
            json!({"session_status": "COMPLETED"}),
        ))
        .respond_with(ResponseTemplate::new(500))
        .up_to_n_times(2)
        .with_priority(1)
        .mount(&receiver)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&receiver)
        .await;
    let session_id = create(
        &client,
        session_request(&format!("{}/webhook", receiver.uri())),
    )
    .await;
    let transaction_id = sandbox
        .control()
        .complete_session(&session_id, "OPEN_INVOICE")
        .await
        .unwrap();

    let delivery = delivered(&sandbox, &session_id).await;
    let statuses: Vec<_> = delivery.attempts.iter().map(|a| a.status).collect();
    assert_eq!(statuses, [Some(500), Some(500), Some(200)]);
    assert!(delivery.delivered);

    let received: Vec<_> = receiver
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .filter(|r| String::from_utf8_lossy(&r.body).contains("session_status"))
        .collect();
    assert_eq!(received.len(), 3);
    let last = received.last().unwrap();
    assert_eq!(last.url.path(), "/webhook");
    let signature = last
        .headers
        .get("x-signature")
        .expect("a signature")
        .to_str()
        .unwrap();
    assert_eq!(String::from_utf8(last.body.clone()).unwrap(), delivery.body);
    let clock = psi::webhook::FixedClock(sandbox.control().now().await.unwrap().to_utc());
    let verifier =
        psi::webhook::WebhookVerifier::new(DEMO_WEBHOOK_SECRET).with_clock(Arc::new(clock));
    let notified = verifier
        .parse_session_notification(signature, &last.body)
        .expect("an authentic notification");
    assert_eq!(notified.session_id.as_deref(), Some(session_id.as_str()));
    assert_eq!(notified.session_status, Some(SessionStatus::Completed));
    assert_eq!(
        notified.transaction_id.as_deref(),
        Some(transaction_id.as_str())
    );
    assert_eq!(
        notified,
        record(&client, &session_id).await,
        "the notification is the record"
    );

    let other_secret =
        psi::webhook::WebhookVerifier::new("another-secret").with_clock(Arc::new(clock));
    assert!(other_secret.verify(signature, &last.body).is_err());
}

#[tokio::test]
async fn a_call_without_a_token_or_with_another_audience_is_401() {
    let (sandbox, client) = sandbox().await;
    let http = reqwest::Client::new();
    let url = sandbox.url();
    let calls = [
        http.post(format!("{url}/pps/api/v1/session"))
            .json(&session_request(NOWHERE)),
        http.get(format!("{url}/pps/api/v1/session-record/some-session")),
        http.get(format!(
            "{url}/pps/api/v1/session-record?createdDate=2024-05-17"
        )),
    ];
    let pay_later_token = client.token(Api::PayLater).await.unwrap();
    for call in calls {
        let with_other_audience = call
            .try_clone()
            .unwrap()
            .bearer_auth(pay_later_token.expose());
        for (call, reason) in [
            (call, "MISSING_TOKEN"),
            (with_other_audience, "WRONG_AUDIENCE"),
        ] {
            let response = call.send().await.unwrap();
            assert_eq!(response.status().as_u16(), 401);
            let decline = response
                .json::<DeclineResponse>()
                .await
                .unwrap()
                .decline
                .unwrap();
            assert_eq!(decline.reasons, [reason]);
        }
    }
    assert!(sandbox.control().sessions().await.unwrap().is_empty());
}
