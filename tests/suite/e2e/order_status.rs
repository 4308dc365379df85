//! Order status (payment API 1.8) and the invoice correspondence retrieval
//! against the sandbox: each `include` shows exactly its sections, the
//! invoice comes in all three formats, and the documented errors.

use super::{completed_transaction, declined, sandbox};
use psi::order_status::types::{
    CorrespondenceFormat, DeclineCategory, DeclineResponse, IncludeOption,
};
use psi::order_status::{ByteStream, Error, ResponseValue};
use psi::Api;
use psi_runtime::Decimal;
use psi_sandbox::{Sandbox, StoredTransaction};
use serde_json::json;

const DAY: i64 = 24 * 60 * 60;

fn decimal(text: &str) -> Decimal {
    text.parse().unwrap()
}

/// What the sandbox stored for the transaction (its test-control read).
async fn stored(sandbox: &Sandbox, transaction_id: &str) -> StoredTransaction {
    sandbox
        .control()
        .transaction(transaction_id)
        .await
        .expect("a stored transaction")
}

fn assert_declined<T>(
    result: Result<T, Error<DeclineResponse>>,
    status: u16,
    category: DeclineCategory,
) {
    let (answered, decline) = declined(result);
    assert_eq!(answered, status);
    assert_eq!(decline.category, Some(category));
}

/// The bytes of a streamed body. The test crate has no futures crate to
/// poll the stream with, so reqwest (which can send a stream) hands it to a
/// mock server that keeps what it received.
async fn collect(stream: ByteStream) -> Vec<u8> {
    use futures_util::TryStreamExt;
    let chunks: Vec<_> = stream.into_inner().try_collect().await.unwrap();
    chunks.concat()
}

async fn raw_get(sandbox: &Sandbox, client: &psi::Client, path: &str) -> (u16, serde_json::Value) {
    let token = client.token(Api::OrderStatus).await.unwrap();
    let response = reqwest::Client::new()
        .get(format!("{}{path}", sandbox.url()))
        .bearer_auth(token.expose())
        .send()
        .await
        .unwrap();
    (
        response.status().as_u16(),
        response.json().await.unwrap_or_default(),
    )
}

#[tokio::test]
async fn without_include_only_the_general_order_information_comes_back() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let status = client
        .order_status()
        .get_order_status()
        .transaction_id(&transaction_id)
        .send()
        .await
        .unwrap();
    assert_eq!(status.status().as_u16(), 200);
    let status = status.into_inner();
    let general = status.general_order_information.unwrap();
    assert_eq!(
        general.transaction_id.as_deref(),
        Some(transaction_id.as_str())
    );
    assert_eq!(general.shop_order_id.as_deref(), Some("SO-100045"));
    assert_eq!(
        general.order_creation_date,
        Some(stored(&sandbox, &transaction_id).await.created)
    );
    assert_eq!(general.currency.as_deref().map(String::as_str), Some("EUR"));
    assert_eq!(general.shop_buyer_id, None);
    assert_eq!(status.basket, None);
    assert_eq!(status.payment_information, None);
}

#[tokio::test]
async fn include_basket_adds_the_basket_of_the_session_and_nothing_else() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let status = client
        .order_status()
        .get_order_status()
        .transaction_id(&transaction_id)
        .include([IncludeOption::Basket])
        .send()
        .await
        .unwrap()
        .into_inner();
    assert!(status.general_order_information.is_some());
    assert_eq!(status.payment_information, None);
    let basket = status.basket.unwrap();
    assert_eq!(basket.initial_order_amount_gross, Some(decimal("43.8")));
    assert_eq!(basket.current_order_amount_gross, Some(decimal("43.8")));
    assert_eq!(
        basket.last_updated,
        Some(stored(&sandbox, &transaction_id).await.created)
    );
    assert_eq!(basket.current_items.len(), 1);
    assert_eq!(basket.current_items[0].shop_id.as_deref(), Some("shop-1"));
    let groups = basket.current_items[0].shop_items.as_ref().unwrap();
    assert!(groups.shipped_items.is_empty() && groups.returned_items.is_empty());
    let [item] = groups.open_items.as_slice() else {
        panic!("one open item: {groups:?}")
    };
    assert_eq!(item.unit_price_gross, Some(decimal("18.45")));
    assert_eq!(item.discount, Some(decimal("-1.55")));
    assert_eq!(item.quantity, Some(decimal("2")));
    assert_eq!(item.tax_rate, Some(decimal("19")));
    assert_eq!(item.description.as_deref(), Some("Cotton T-shirt"));
    assert_eq!(item.identification_number.as_deref(), Some("ART-1001"));
    let shipping = &basket.current_special_items["shipping"];
    assert_eq!(shipping["unit_price_gross"], json!(10));
    assert_eq!(shipping["tax_rate"], json!(19));
    assert_eq!(shipping["description"], json!("Shipping"));
}

#[tokio::test]
async fn include_payment_status_adds_only_the_payment_status() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let status = client
        .order_status()
        .get_order_status()
        .transaction_id(&transaction_id)
        .include([IncludeOption::PaymentStatus])
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.basket, None);
    let payment = status.payment_information.unwrap();
    assert_eq!(
        payment.maximum_processing_offset_in_hours,
        Some(decimal("24"))
    );
    let due_date = stored(&sandbox, &transaction_id).await.due_date;
    assert_eq!(
        serde_json::Value::Object(payment.payment_status),
        json!({"status": "OPEN", "due_date": due_date, "outstanding_amount": 43.8})
    );
    assert!(
        payment.payment_method.is_empty(),
        "{:?}",
        payment.payment_method
    );
    assert!(
        payment.dunning_status.is_empty(),
        "{:?}",
        payment.dunning_status
    );
}

#[tokio::test]
async fn include_all_adds_every_section_and_lists_combine() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let all = client
        .order_status()
        .get_order_status()
        .transaction_id(&transaction_id)
        .include([IncludeOption::All])
        .send()
        .await
        .unwrap()
        .into_inner();
    assert!(all.general_order_information.is_some() && all.basket.is_some());
    let payment = all.payment_information.unwrap();
    assert_eq!(
        payment.payment_method["payment_option"],
        json!("OPEN_INVOICE")
    );
    assert_eq!(
        payment.payment_method["transfer_type"],
        json!("BANK_TRANSFER")
    );
    assert_eq!(payment.payment_status["status"], json!("OPEN"));
    assert_eq!(
        serde_json::Value::Object(payment.dunning_status),
        json!({"level": 0})
    );

    let combined = client
        .order_status()
        .get_order_status()
        .transaction_id(&transaction_id)
        .include([IncludeOption::Basket, IncludeOption::DunningStatus])
        .send()
        .await
        .unwrap()
        .into_inner();
    assert!(combined.basket.is_some());
    let payment = combined.payment_information.unwrap();
    assert!(payment.payment_status.is_empty() && payment.payment_method.is_empty());
    assert_eq!(payment.dunning_status["level"], json!(0));
}

#[tokio::test]
async fn the_payment_status_follows_the_sandbox_clock_past_the_due_date() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    sandbox.control().advance_clock(15 * DAY).await.unwrap();
    let status = client
        .order_status()
        .get_order_status()
        .transaction_id(&transaction_id)
        .include([IncludeOption::PaymentStatus])
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        status.payment_information.unwrap().payment_status["status"],
        json!("OVERDUE")
    );
}

#[tokio::test]
async fn an_unknown_include_value_is_a_400_naming_include() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    // The typed client cannot send an unknown value; a raw call can.
    let path = format!("/order/status/v2/transactions/{transaction_id}?include=basket,shipping");
    let (status, body) = raw_get(&sandbox, &client, &path).await;
    assert_eq!(status, 400);
    let decline: DeclineResponse = serde_json::from_value(body).unwrap();
    let decline = decline.decline.unwrap();
    assert_eq!(decline.category, Some(DeclineCategory::Syntax));
    assert_eq!(
        decline.invalid_fields[0].json_path.as_deref(),
        Some("include")
    );
    assert!(decline.invalid_fields[0]
        .message
        .as_deref()
        .unwrap()
        .contains("shipping"));
}

#[tokio::test]
async fn an_unknown_transaction_is_a_404() {
    let (_sandbox, client) = sandbox().await;
    let result = client
        .order_status()
        .get_order_status()
        .transaction_id("12-00000000000000000")
        .send()
        .await;
    assert_declined(result, 404, DeclineCategory::ResourceNotFound);
}

#[tokio::test]
async fn calls_without_a_token_are_401() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let correspondence_id = stored(&sandbox, &transaction_id)
        .await
        .correspondence_id
        .to_string();
    for path in [
        format!("/order/status/v2/transactions/{transaction_id}"),
        format!("/api/order/{transaction_id}/correspondences/invoices/{correspondence_id}/pdf"),
    ] {
        let response = reqwest::get(format!("{}{path}", sandbox.url()))
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 401, "{path}");
        let body: DeclineResponse = response.json().await.unwrap();
        assert_eq!(body.decline.unwrap().reasons, ["MISSING_TOKEN"]);
    }
}

async fn invoice(
    sandbox: &Sandbox,
    client: &psi::Client,
    transaction_id: &str,
    format: CorrespondenceFormat,
) -> (String, Vec<u8>) {
    let correspondence_id = stored(sandbox, transaction_id)
        .await
        .correspondence_id
        .to_string();
    let answer: ResponseValue<ByteStream> = client
        .order_status()
        .get_invoice_correspondence()
        .transaction_id(transaction_id)
        .correspondence_id(correspondence_id)
        .format(format)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    let content_type = answer.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    (content_type, collect(answer.into_inner()).await)
}

#[tokio::test]
async fn the_invoice_comes_as_a_pdf() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let (content_type, pdf) = invoice(
        &sandbox,
        &client,
        &transaction_id,
        CorrespondenceFormat::Pdf,
    )
    .await;
    assert_eq!(content_type, "application/pdf");
    assert!(pdf.starts_with(b"%PDF-"));
    assert!(pdf.trim_ascii_end().ends_with(b"%%EOF"));
    let text = String::from_utf8_lossy(&pdf);
    assert!(text.contains("/Helvetica"));
    assert!(
        text.contains("Total gross: 43.80 EUR"),
        "the total is in the uncompressed page"
    );
    assert!(text.contains(&format!("Transaction id: {transaction_id}")));
}

#[tokio::test]
async fn the_invoice_comes_as_an_rfc_5322_message() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let (content_type, eml) = invoice(
        &sandbox,
        &client,
        &transaction_id,
        CorrespondenceFormat::Eml,
    )
    .await;
    assert_eq!(content_type, "message/rfc822");
    let eml = String::from_utf8(eml).unwrap();
    let (head, body) = eml
        .split_once("\r\n\r\n")
        .expect("headers, a blank line, the body");
    let headers: Vec<&str> = head.split("\r\n").collect();
    assert!(
        headers.contains(&"From: Sandbox shop <invoices@sandbox.example>"),
        "{head}"
    );
    assert!(
        headers.contains(&"To: Erika Mustermann <erika@example.com>"),
        "{head}"
    );
    assert!(
        headers
            .iter()
            .any(|h| h.starts_with("Subject: Invoice ") && h.ends_with("for order SO-100045")),
        "{head}"
    );
    let created = stored(&sandbox, &transaction_id).await.created;
    assert!(
        headers.contains(&format!("Date: {}", created.to_rfc2822()).as_str()),
        "{head}"
    );
    assert!(headers.contains(&"MIME-Version: 1.0"));
    assert!(headers.contains(&"Content-Type: text/plain; charset=utf-8"));
    let due_date = stored(&sandbox, &transaction_id).await.due_date;
    for expected in [
        "Hauptstraße 1".to_owned(),
        "2 x Cotton T-shirt at 18.45 EUR, discount -1.55 EUR per unit, VAT 19 % = 33.80 EUR"
            .to_owned(),
        "1 x Shipping at 10.00 EUR, VAT 19 % = 10.00 EUR".to_owned(),
        "VAT 19 %: net 36.80 EUR, tax 7.00 EUR".to_owned(),
        "Total gross: 43.80 EUR".to_owned(),
        format!("Due date: {due_date}"),
        format!("Transaction id: {transaction_id}"),
    ] {
        assert!(body.contains(&expected), "missing {expected:?} in\n{body}");
    }
}

#[tokio::test]
async fn the_invoice_comes_as_html() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let (content_type, html) = invoice(
        &sandbox,
        &client,
        &transaction_id,
        CorrespondenceFormat::Html,
    )
    .await;
    assert_eq!(content_type, "text/html; charset=utf-8");
    let html = String::from_utf8(html).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<td>Cotton T-shirt</td>"));
    assert!(html.contains("Total gross: 43.80 EUR"));
    assert!(html.contains(&transaction_id));
    assert!(html.trim_end().ends_with("</html>"));
}

#[tokio::test]
async fn the_invoice_names_the_seller_of_the_stored_shop_configuration() {
    let (sandbox, client) = sandbox().await;
    let configuration: psi::shop_config::types::ShopConfiguration = serde_json::from_value(json!({
        "name": "Example Moebel",
        "address": {"street": "Musterstrasse", "street_number": "12", "city": "Berlin", "postal_code": "10115", "country_code": "DE"},
        "legal": {"name": "Example Moebel GmbH", "legal_form": "GmbH", "commercial_register_number": "HRB 123456 B",
                  "registration_office": "Amtsgericht Charlottenburg", "vat_id_number": "DE123456789"},
        "contacts": {"customer_service": {"email": "service@example.com"}}
    }))
    .unwrap();
    super::client(&sandbox)
        .shop_config()
        .update_shop_configuration()
        .partner_profile_id("pp-4711")
        .shop_id("shop-1")
        .body(configuration)
        .send()
        .await
        .unwrap();
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let (_, eml) = invoice(
        &sandbox,
        &client,
        &transaction_id,
        CorrespondenceFormat::Eml,
    )
    .await;
    let eml = String::from_utf8(eml).unwrap();
    assert!(
        eml.contains("From: Example Moebel GmbH <service@example.com>\r\n"),
        "{eml}"
    );
    assert!(
        eml.contains("Musterstrasse 12\r\n10115 Berlin\r\nDE\r\nTax id: DE123456789\r\n"),
        "{eml}"
    );
}

#[tokio::test]
async fn a_wrong_correspondence_or_transaction_is_a_404() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let correspondence_id = stored(&sandbox, &transaction_id)
        .await
        .correspondence_id
        .to_string();
    let wrong_correspondence = client
        .order_status()
        .get_invoice_correspondence()
        .transaction_id(&transaction_id)
        .correspondence_id("00000000-0000-4000-8000-000000000000")
        .format(CorrespondenceFormat::Pdf)
        .send()
        .await;
    assert_declined(wrong_correspondence, 404, DeclineCategory::ResourceNotFound);
    let unknown_transaction = client
        .order_status()
        .get_invoice_correspondence()
        .transaction_id("12-00000000000000000")
        .correspondence_id(&correspondence_id)
        .format(CorrespondenceFormat::Eml)
        .send()
        .await;
    assert_declined(unknown_transaction, 404, DeclineCategory::ResourceNotFound);
    // A format outside the enumeration cannot be typed; sent raw, it is a 404 too.
    let path =
        format!("/api/order/{transaction_id}/correspondences/invoices/{correspondence_id}/txt");
    let (status, body) = raw_get(&sandbox, &client, &path).await;
    assert_eq!(status, 404);
    assert_eq!(body["decline"]["category"], "RESOURCE_NOT_FOUND");
}
