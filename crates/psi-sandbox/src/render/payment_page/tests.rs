//! The rendered pages: escaping, language, what the checkout shows.

use super::form::Entered;
use super::pages;
use super::text::Lang;
use crate::models::payment_page::methods::Method;
use crate::models::payment_page::session::Session;
use chrono::{FixedOffset, TimeZone};
use psi_payment_page::types::{SessionRequest, SessionStatus};
use serde_json::{json, Value};

fn session_of(request: Value) -> Session {
    let request: SessionRequest = serde_json::from_value(request).expect("a session request");
    let now = FixedOffset::east_opt(3600)
        .unwrap()
        .with_ymd_and_hms(2026, 5, 17, 10, 0, 0)
        .unwrap();
    Session::new(
        "5d0b5a1e-0000-4000-8000-000000000001".to_owned(),
        request,
        now,
    )
}

fn demo() -> Session {
    let request = crate::demo::session_request("http://127.0.0.1:9/webhook");
    session_of(serde_json::to_value(request).unwrap())
}

fn page(session: &Session, lang: Lang) -> String {
    pages::checkout(session, lang, &Entered::default())
}

#[test]
fn the_demo_order_shows_items_shipping_vat_and_totals_from_exact_decimals() {
    let html = page(&demo(), Lang::En);
    for expected in [
        "Cotton T-shirt",
        "ART-1001",
        "18.45",
        "-1.55",
        "33.80",
        "Shipping",
        "10.00",
        "36.80 EUR",
        "VAT 19 %",
        "7.00 EUR",
        "<span id=\"amount-due\">43.80 EUR</span>",
        "Erika Mustermann",
        "Hauptstraße 1",
        "10115 Berlin",
        "erika@example.com",
        "order-100045",
    ] {
        assert!(html.contains(expected), "{expected} missing in\n{html}");
    }
}

#[test]
fn the_page_is_self_contained_and_every_field_is_labelled() {
    let html = page(&demo(), Lang::En);
    assert!(!html.contains("<script"), "no script");
    assert!(!html.contains("src="), "no external asset");
    // The one link is the inline icon: no stylesheet or asset is fetched.
    for link in html.split("<link").skip(1) {
        assert!(
            link.starts_with(" rel=\"icon\" href=\"data:"),
            "only an inline icon: <link{}",
            link.split('>').next().unwrap_or_default()
        );
    }
    // Every input and select has an id with a matching <label for>.
    for tag in ["<input ", "<select "] {
        for piece in html.split(tag).skip(1) {
            let id = piece
                .split("id=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .expect("every field has an id");
            assert!(html.contains(&format!("for=\"{id}\"")), "no label for {id}");
        }
    }
}

#[test]
fn text_from_the_request_is_escaped_everywhere() {
    let evil = "<script>alert('x')</script>";
    let session = session_of(json!({
        "order_data": {
            "partner_transaction_id": evil,
            "currency": "EUR",
            "buyer": {"person": {"first_name": evil}, "billing_address": {"city": evil}, "contact": {"email": evil}},
            "delivery": {"full_name": evil},
            "shop_baskets": [
                {"partner_shop_id": evil, "shop_transaction_id": evil, "gross_amount": 1,
                 "items": [{"name": evil, "description": evil, "article_number": evil, "unit": evil, "gross_total_price": 1}],
                 "special_items": [{"name": evil}]},
                {"partner_shop_id": "b", "gross_amount": 2}
            ],
            "payment_method": {"payment_option": evil}
        },
        "url_data": {"success_url": evil, "failure_url": "javascript:alert(1)"}
    }));
    let html = page(&session, Lang::En);
    assert!(!html.contains("<script>"), "{html}");
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    assert!(!html.contains("href=\"javascript"), "{html}");

    let mut ended = session.clone();
    ended.status = SessionStatus::Error;
    let closed = pages::closed(&ended, Lang::En);
    assert!(
        !closed.contains("javascript:alert"),
        "not even as text: only http(s) links"
    );
}

#[test]
fn german_buyers_get_german_labels_and_decimal_commas() {
    let session = demo();
    assert_eq!(
        Lang::of(&session, None),
        Lang::De,
        "the demo buyer's language is de"
    );
    let html = page(&session, Lang::De);
    assert!(html.contains("<html lang=\"de\">"));
    for expected in [
        "Zahlungsart",
        "Kauf auf Rechnung",
        "Lastschrift",
        "Rechnungsadresse",
        "43,80 EUR bezahlen",
        "Sandbox: Ergebnis wählen",
    ] {
        assert!(html.contains(expected), "{expected} missing");
    }
    assert!(!html.contains("Payment method"));
    assert_eq!(Lang::of(&session, Some("en")), Lang::En, "the query wins");
    assert_eq!(
        Lang::of(&session, Some("")),
        Lang::De,
        "an empty query does not"
    );
}

#[test]
fn the_buyers_language_or_english() {
    let mut request = serde_json::to_value(crate::demo::session_request("http://x")).unwrap();
    request["order_data"]["buyer"]["language"] = json!("fr");
    assert_eq!(Lang::of(&session_of(request.clone()), None), Lang::En);
    request["order_data"]["buyer"]["language"] = Value::Null;
    assert_eq!(Lang::of(&session_of(request.clone()), None), Lang::En);
    assert_eq!(Lang::of(&session_of(request), Some("de")), Lang::De);
}

#[test]
fn a_restriction_limits_the_radio_buttons() {
    let mut request = serde_json::to_value(crate::demo::session_request("http://x")).unwrap();
    request["order_data"]["payment_method"] =
        json!({"payment_option": "PAY_NOW", "transfer_type": "SEPA_DIRECT_DEBIT"});
    let html = page(&session_of(request), Lang::En);
    assert_eq!(html.matches("type=\"radio\"").count(), 1, "{html}");
    assert!(html.contains("value=\"direct_debit\" checked"));
    assert!(html.contains("name=\"iban\""));

    let all = page(&demo(), Lang::En);
    assert_eq!(all.matches("type=\"radio\"").count(), 4);
    assert!(
        all.contains("value=\"open_invoice\" checked"),
        "the first is chosen"
    );
}

#[test]
fn a_refused_iban_is_shown_again_with_a_message_next_to_it() {
    let entered = Entered {
        method: Some(Method::DirectDebit),
        iban: "DE00 <b>".to_owned(),
        account_holder: "Erika".to_owned(),
        iban_invalid: true,
    };
    let html = pages::checkout(&demo(), Lang::En, &entered);
    assert!(html.contains("value=\"direct_debit\" checked"));
    assert!(html.contains("value=\"DE00 &lt;b&gt;\""));
    assert!(html.contains("aria-invalid=\"true\" aria-describedby=\"iban-error\""));
    assert!(html.contains("id=\"iban-error\" role=\"alert\">This is not a valid IBAN"));
}

#[test]
fn each_outcome_names_its_status_and_target() {
    let html = page(&demo(), Lang::En);
    assert!(html.contains("Sandbox: choose the outcome"));
    for (button, status, target) in [
        (
            "value=\"pay\"",
            "COMPLETED",
            "https://shop.example.com/success",
        ),
        (
            "value=\"decline\"",
            "ERROR",
            "https://shop.example.com/failure",
        ),
        (
            "value=\"cancel\"",
            "CANCELED",
            "https://shop.example.com/cancel",
        ),
        (
            "value=\"expire\"",
            "EXPIRED",
            "https://shop.example.com/failure",
        ),
        (
            "value=\"fraud_cancel\"",
            "FRAUD_CANCELLATION_REQUESTED",
            "https://shop.example.com/failure",
        ),
    ] {
        let row = html
            .split("<div class=\"outcome\">")
            .find(|row| row.contains(button))
            .unwrap_or_else(|| panic!("{button}"));
        assert!(row.contains(status) && row.contains(target), "{row}");
    }
    for category in [
        "BUYER_DATA",
        "BUYER_IDENTITY",
        "CONTRACT",
        "PAYMENT_ATTRIBUTE",
        "RISK_DECISION",
        "TRANSACTION_RISK",
        "UNPROCESSABLE_OPERATION",
    ] {
        assert!(
            html.contains(&format!("<option value=\"{category}\"")),
            "{category}"
        );
    }
}

#[test]
fn a_closed_session_links_back_to_the_matching_address() {
    let mut session = demo();
    for (status, url) in [
        (SessionStatus::Completed, "https://shop.example.com/success"),
        (SessionStatus::Canceled, "https://shop.example.com/cancel"),
        (SessionStatus::Expired, "https://shop.example.com/failure"),
    ] {
        session.status = status.clone();
        let html = pages::closed(&session, Lang::En);
        assert!(
            html.contains(&format!("<a href=\"{url}\">Back to the shop</a>")),
            "{html}"
        );
        assert!(html.contains(status.as_str()));
        assert!(!html.contains("<form"), "no form on a closed session");
    }
}
