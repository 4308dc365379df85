//! `cargo xtask lint` names the document, the JSON pointer and the rule of
//! every violation; the checked-in documents have none.

use serde_json::{json, Value};
use xtask::apis::workspace_apis as apis;
use xtask::bundle::bundle;
use xtask::lint::lint_document;

fn pay_later() -> Value {
    bundle(&crate::workspace_root().join("openapi/pay-later.yaml")).unwrap()
}

fn findings_after(edit: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut document = pay_later();
    edit(&mut document);
    lint_document("openapi/pay-later.yaml", &document)
        .into_iter()
        .map(|finding| finding.to_string())
        .collect()
}

fn assert_found(findings: &[String], pointer: &str, rule: &str) {
    assert!(
        findings.iter().any(
            |f| f.starts_with(&format!("openapi/pay-later.yaml#{pointer}")) && f.contains(rule)
        ),
        "no finding at {pointer} for {rule}; got {findings:#?}"
    );
}

#[test]
fn the_documents_follow_every_rule() {
    for api in apis() {
        let document = bundle(&api.document(&crate::workspace_root())).unwrap();
        let findings = lint_document(&api.document_label(), &document);
        assert!(findings.is_empty(), "{findings:#?}");
    }
}

#[test]
fn a_float_is_reported() {
    let findings = findings_after(|d| {
        d["components"]["schemas"]["PayLaterBooking"]["properties"]["fee"]["format"] =
            json!("double")
    });
    assert_found(
        &findings,
        "/components/schemas/PayLaterBooking/properties/fee",
        "rule 7",
    );
}

#[test]
fn a_decimal_with_a_bound_is_reported() {
    let findings = findings_after(|d| {
        d["components"]["schemas"]["PayLaterBooking"]["properties"]["fee"]["minimum"] = json!(0)
    });
    assert_found(
        &findings,
        "/components/schemas/PayLaterBooking/properties/fee/minimum",
        "rule 7",
    );
}

#[test]
fn an_inline_enum_and_a_closed_response_are_reported() {
    let findings = findings_after(|d| {
        let booking = &mut d["components"]["schemas"]["PayLaterBooking"];
        booking["properties"]["currency"] = json!({"type": "string", "enum": ["EUR"]});
        booking["additionalProperties"] = json!(false);
    });
    assert_found(
        &findings,
        "/components/schemas/PayLaterBooking/properties/currency/enum",
        "rule 8",
    );
    assert_found(
        &findings,
        "/components/schemas/PayLaterBooking/additionalProperties",
        "rule 6",
    );
}

#[test]
fn two_success_schemas_two_error_schemas_and_two_tags_are_reported() {
    let op = "/paths/~1order~1paylater~1v1~1{transaction_id}~1offers/get";
    let findings = findings_after(|d| {
        let operation = d.pointer_mut(op).unwrap();
        operation["tags"] = json!(["a", "b"]);
        let mut created = operation["responses"]["2XX"].clone();
        created["content"]["application/json;charset=UTF-8"]["schema"] =
            json!({"$ref": "#/components/schemas/PayLaterBooking"});
        operation["responses"]["201"] = created;
        operation["responses"]["500"]["content"]["application/json"]["schema"] =
            json!({"$ref": "#/components/schemas/PayLaterBooking"});
    });
    assert_found(&findings, &format!("{op}/tags"), "rule 1");
    assert_found(&findings, &format!("{op}/responses"), "rule 3");
    assert_found(&findings, &format!("{op}/responses"), "rule 4");
}

#[test]
fn an_invalid_example_and_an_inline_body_are_reported() {
    let op = "/paths/~1order~1paylater~1v1~1{transaction_id}/post";
    let findings = findings_after(|d| {
        let operation = d.pointer_mut(op).unwrap();
        let media = &mut operation["responses"]["2XX"]["content"]["application/json;charset=UTF-8"];
        media["example"]["new_due_date"] = json!("2020-02-30");
        operation["requestBody"]["content"]["application/json;charset=UTF-8"]["schema"] =
            json!({"type": "object"});
    });
    assert_found(
        &findings,
        &format!("{op}/responses/2XX/content/application~1json;charset=UTF-8/example"),
        "rule 16",
    );
    assert_found(
        &findings,
        &format!("{op}/requestBody/content/application~1json;charset=UTF-8/schema"),
        "rule 2",
    );
}

#[test]
fn a_numeric_success_status_is_reported() {
    let op = "/paths/~1order~1paylater~1v1~1{transaction_id}~1offers/get";
    let findings = findings_after(|d| {
        let responses = d.pointer_mut(&format!("{op}/responses")).unwrap();
        let success = responses.as_object_mut().unwrap().remove("2XX").unwrap();
        responses["200"] = success;
    });
    assert_found(&findings, &format!("{op}/responses"), "rule 3");
}

#[test]
fn a_required_flag_without_its_source_is_reported() {
    let findings = findings_after(|d| {
        d["components"]["schemas"]["PayLaterBookingRequest"]["description"] =
            json!("Booking of a pay later offer.");
    });
    assert_found(
        &findings,
        "/components/schemas/PayLaterBookingRequest",
        "names its source",
    );
}

#[test]
fn an_optional_property_that_is_not_nullable_is_reported() {
    let findings = findings_after(|d| {
        let fee = d
            .pointer_mut("/components/schemas/PayLaterBookingResponse/properties/fee")
            .unwrap();
        fee.as_object_mut().unwrap().remove("nullable");
    });
    assert_found(
        &findings,
        "/components/schemas/PayLaterBookingResponse/properties/fee",
        "rule 18",
    );
}

#[test]
fn an_undeclared_401_413_414_415_or_431_is_reported() {
    let op = "/paths/~1order~1paylater~1v1~1{transaction_id}/post";
    for status in ["401", "413", "414", "415", "431"] {
        let findings = findings_after(|d| {
            let responses = d.pointer_mut(&format!("{op}/responses")).unwrap();
            responses.as_object_mut().unwrap().remove(status);
        });
        assert_found(
            &findings,
            &format!("{op}/responses"),
            &format!("does not declare {status} (rule 19)"),
        );
    }
}

/// The x-psi block: what `cargo xtask generate` derives everything from.
mod x_psi {
    use super::pay_later;
    use serde_json::json;
    use xtask::apis::{workspace_apis, Api, Audience};
    use xtask::audience_table::{check, AUDIENCES};

    fn error_after(edit: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut document = pay_later();
        edit(&mut document);
        Api::from_document("pay-later", &document).unwrap_err()
    }

    /// What lint reports on the pay later document after `edit`.
    fn findings_after(edit: impl FnOnce(&mut serde_json::Value)) -> Vec<String> {
        let mut document = pay_later();
        edit(&mut document);
        let api = Api::from_document("pay-later", &document).unwrap().unwrap();
        check(&api, &document)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn an_unknown_key_a_missing_key_and_a_wrong_crate_are_refused() {
        let error = error_after(|d| d["x-psi"]["colour"] = json!("blue"));
        assert!(
            error.contains("openapi/pay-later.yaml#/x-psi/colour: unknown key"),
            "{error}"
        );
        let error = error_after(|d| {
            d["x-psi"].as_object_mut().unwrap().remove("audience");
        });
        assert!(
            error.contains("openapi/pay-later.yaml#/x-psi/audience: missing"),
            "{error}"
        );
        let error = error_after(|d| d["x-psi"]["crate"] = json!("psi-paylater"));
        assert!(
            error.contains("/x-psi/crate: must be psi-pay-later"),
            "{error}"
        );
        let error = error_after(|d| d["x-psi"]["address"] = json!("elsewhere"));
        assert!(error.contains("/x-psi/address: must be one of"), "{error}");
    }

    #[test]
    fn an_audience_outside_the_specification_table_is_reported() {
        let findings = findings_after(|d| d["x-psi"]["audience"] = json!("{api_url}/pay-later"));
        assert!(
            findings.iter().any(|f| f
                .starts_with("openapi/pay-later.yaml#/x-psi/audience: {api_url}/pay-later is not in the specification's Authentication table")),
            "{findings:#?}"
        );
    }

    #[test]
    fn a_server_that_disagrees_with_the_block_is_reported() {
        let findings = findings_after(|d| d["x-psi"]["base_path"] = json!("/v9"));
        assert!(
            findings
                .iter()
                .any(|f| f
                    .starts_with("openapi/pay-later.yaml#/servers/0/url: must be `{api_url}/v9`")),
            "{findings:#?}"
        );
    }

    #[test]
    fn the_table_holds_the_apis_without_operations_and_every_document_passes() {
        for path in [
            "/transaction/management",
            "/dispute/management",
            "/webhook/management",
        ] {
            let audience = format!("{{api_url}}{path}");
            assert!(
                AUDIENCES.iter().any(|(_, row)| *row == audience),
                "{audience} is missing from the table"
            );
        }
        let root = crate::workspace_root();
        for api in workspace_apis() {
            let document = xtask::bundle::bundle(&api.document(&root)).unwrap();
            assert_eq!(check(api, &document), vec![], "{}", api.name);
        }
        let pay_later = workspace_apis()
            .iter()
            .find(|api| api.name == "pay-later")
            .unwrap();
        assert_eq!(pay_later.variant(), "PayLater");
        assert_eq!(pay_later.snake(), "pay_later");
        assert_eq!(
            pay_later.audience,
            Audience::Table("{api_url}/paylater".to_owned())
        );
    }
}
