//! Response enumerations accept values added later; unknown fields are ignored;
//! request-only enumerations stay closed.

use psi_pay_later::types::{PayLaterStatus, PayLaterStatusResponse};
use psi_payment_page::types::{DeclineCategory, DeclineResponse, SessionRecord, SessionStatus};

#[test]
fn an_unknown_status_is_kept_and_sent_back_unchanged() {
    let json =
        r#"{"pay_later_status":"PAUSED_BY_PROVIDER","transaction_id":"12-34567890123456789"}"#;
    let status: PayLaterStatusResponse = serde_json::from_str(json).unwrap();
    assert_eq!(
        status.pay_later_status,
        Some(PayLaterStatus::Unknown("PAUSED_BY_PROVIDER".into()))
    );
    assert!(!status.pay_later_status.as_ref().unwrap().is_known());
    assert_eq!(serde_json::to_string(&status).unwrap(), json);
}

#[test]
fn known_values_map_to_their_variants() {
    let status: PayLaterStatusResponse =
        serde_json::from_str(r#"{"pay_later_status":"ALREADY_WITHDRAWN"}"#).unwrap();
    assert_eq!(
        status.pay_later_status,
        Some(PayLaterStatus::AlreadyWithdrawn)
    );
    let record: SessionRecord =
        serde_json::from_str(r#"{"session_status":"OTP_PENDING"}"#).unwrap();
    assert_eq!(record.session_status, Some(SessionStatus::OtpPending));
}

#[test]
fn every_response_enum_of_the_decline_body_is_open() {
    let decline: DeclineResponse =
        serde_json::from_str(r#"{"decline":{"category":"NEW_CATEGORY","reasons":["X"]}}"#).unwrap();
    assert_eq!(
        decline.decline.unwrap().category,
        Some(DeclineCategory::Unknown("NEW_CATEGORY".into()))
    );
}

#[test]
fn unknown_fields_in_a_response_are_ignored() {
    let record: SessionRecord = serde_json::from_str(
        r#"{"session_id":"s-1","session_status":"COMPLETED","brand_new_field":{"nested":[1,2]}}"#,
    )
    .unwrap();
    assert_eq!(record.session_id.as_deref(), Some("s-1"));
}

#[test]
fn request_only_enumerations_reject_unknown_values_with_the_field() {
    let error = psi_runtime::parse_json::<psi_shop_config::types::BrandingSettings>(
        r#"{"logo_position":"TOP"}"#,
    )
    .unwrap_err();
    assert_eq!(error.field, "logo_position");
    assert!(error.rule.contains("TOP"), "{error}");
}
