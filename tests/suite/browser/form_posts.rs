//! The page's form posted by a plain HTTP client, for what a browser run
//! does not show: the status codes and the exact `Location`.

use crate::e2e::{sandbox, session_request};
use psi::payment_page::types::{SessionRequest, SessionStatus};
use serde_json::{json, Value};

/// Never follows a redirect, so the 303 itself is seen.
fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn create(client: &psi::Client, edit: impl FnOnce(&mut Value)) -> (String, String) {
    let mut request = serde_json::to_value(session_request("http://127.0.0.1:9/webhook")).unwrap();
    edit(&mut request);
    let request: SessionRequest = serde_json::from_value(request).unwrap();
    let created = client
        .payment_page()
        .create_session()
        .body(request)
        .send()
        .await
        .expect("the session is created")
        .into_inner();
    (created.session_id.unwrap(), created.landing_page.unwrap())
}

async fn post(landing_page: &str, form: &str) -> reqwest::Response {
    http()
        .post(landing_page)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_owned())
        .send()
        .await
        .unwrap()
}

async fn status_of(client: &psi::Client, session_id: &str) -> Option<SessionStatus> {
    let pages = client.payment_page();
    let sent = pages.get_session_record().session_id(session_id).send();
    sent.await.unwrap().into_inner().session_status
}

#[tokio::test]
async fn the_redirect_is_a_303_to_the_shops_address_exactly_as_given() {
    let (_sandbox, client) = sandbox().await;
    let success = "https://shop.example.com/checkout/done?order=order-100045&step=2#top";
    let (_, landing_page) = create(&client, |request| {
        request["url_data"]["success_url"] = json!(success);
    })
    .await;
    let answer = post(&landing_page, "method=prepayment&action=pay").await;
    assert_eq!(answer.status().as_u16(), 303);
    assert_eq!(answer.headers()["location"], success, "nothing appended");
}

#[tokio::test]
async fn without_the_shops_address_the_result_is_shown_instead() {
    let (_sandbox, client) = sandbox().await;
    let (session_id, landing_page) = create(&client, |request| {
        request["url_data"]["cancel_url"] = Value::Null;
    })
    .await;
    let answer = post(&landing_page, "action=cancel").await;
    assert_eq!(answer.status().as_u16(), 200);
    let html = answer.text().await.unwrap();
    assert!(html.contains("CANCELED"), "{html}");
    assert!(html.contains("url_data.cancel_url"), "{html}");
    assert_eq!(
        status_of(&client, &session_id).await,
        Some(SessionStatus::Canceled)
    );
}

#[tokio::test]
async fn a_refused_iban_is_422_and_the_session_stays_open() {
    let (_sandbox, client) = sandbox().await;
    let (session_id, landing_page) = create(&client, |_| {}).await;
    let answer = post(&landing_page, "method=direct_debit&iban=DE00&action=pay").await;
    assert_eq!(answer.status().as_u16(), 422);
    assert!(answer.text().await.unwrap().contains("id=\"iban-error\""));
    assert_eq!(
        status_of(&client, &session_id).await,
        Some(SessionStatus::InProgress)
    );
}

#[tokio::test]
async fn a_form_the_page_never_sends_is_400_naming_the_field() {
    let (_sandbox, client) = sandbox().await;
    let (session_id, landing_page) = create(&client, |request| {
        request["order_data"]["payment_method"] = json!({"transfer_type": "SEPA_DIRECT_DEBIT"});
    })
    .await;
    for (form, field) in [
        ("method=open_invoice&action=pay", "method:"),
        ("action=decline&category=LEGAL", "category:"),
        ("action=refund", "action:"),
    ] {
        let answer = post(&landing_page, form).await;
        assert_eq!(answer.status().as_u16(), 400, "{form}");
        assert!(answer.text().await.unwrap().contains(field), "{form}");
    }
    assert_eq!(
        status_of(&client, &session_id).await,
        Some(SessionStatus::InProgress)
    );
}

#[tokio::test]
async fn an_ended_session_is_409_on_post_and_an_unknown_one_404() {
    let (sandbox, client) = sandbox().await;
    let (session_id, landing_page) = create(&client, |_| {}).await;
    sandbox.control().cancel_session(&session_id).await.unwrap();
    let again = post(&landing_page, "method=open_invoice&action=pay").await;
    assert_eq!(again.status().as_u16(), 409);
    assert!(again.text().await.unwrap().contains("CANCELED"));
    let shown = http().get(&landing_page).send().await.unwrap();
    assert_eq!(shown.status().as_u16(), 200);
    assert!(!shown.text().await.unwrap().contains("<form"));

    let unknown = format!(
        "{}/pps/landing/00000000-0000-4000-8000-000000000000",
        sandbox.url()
    );
    assert_eq!(
        http().get(&unknown).send().await.unwrap().status().as_u16(),
        404
    );
    assert_eq!(post(&unknown, "action=cancel").await.status().as_u16(), 404);
}
