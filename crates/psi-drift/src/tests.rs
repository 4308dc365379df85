//! The checker against the bundled documents: each kind of finding, and no
//! finding for what the documents say (their own examples included).

use super::*;
use serde_json::{json, Value};

fn answer(operation_id: &str, status: u16, body: Value) -> Report {
    let drift = Drift::new();
    drift.answer(
        operation_id,
        status,
        Some("application/json;charset=UTF-8"),
        body.to_string().as_bytes(),
    );
    drift.report()
}

fn only(report: &Report) -> &Finding {
    assert_eq!(report.findings.len(), 1, "{report:#?}");
    &report.findings[0]
}

#[test]
fn a_member_no_schema_declares_is_found_with_its_document() {
    let report = answer(
        "getPayLaterStatus",
        200,
        json!({"pay_later_status": "AVAILABLE", "transaction_id": "12-1", "surprise": {"a": 1}}),
    );
    let finding = only(&report);
    assert_eq!(finding.kind, Kind::UndeclaredMember);
    assert_eq!(finding.direction, Direction::Answer);
    assert_eq!(finding.operation_id.as_deref(), Some("getPayLaterStatus"));
    assert_eq!(finding.pointer, "/surprise");
    assert_eq!(finding.status, Some(200));
    assert_eq!(finding.examples, ["object {\"a\"}"]);
    assert_eq!(finding.document.as_deref(), Some("openapi/pay-later.yaml"));
    assert_eq!(
        finding.schema.as_deref(),
        Some("/components/schemas/PayLaterStatusResponse")
    );
}

#[test]
fn an_unknown_enum_value_names_the_enum() {
    let report = answer(
        "getPayLaterStatus",
        200,
        json!({"pay_later_status": "PAUSED"}),
    );
    let finding = only(&report);
    assert_eq!(finding.kind, Kind::EnumValue);
    assert_eq!(finding.pointer, "/pay_later_status");
    assert_eq!(finding.examples, ["\"PAUSED\""]);
    assert_eq!(
        finding.schema.as_deref(),
        Some("/components/schemas/PayLaterStatus")
    );
    assert!(finding
        .expected
        .as_deref()
        .unwrap()
        .contains("\"AVAILABLE\""));
}

#[test]
fn types_formats_and_bounds_collapse_array_indices() {
    let report = answer(
        "getPayLaterOffers",
        200,
        json!({
            "transaction_id": 42,
            "current_due_date": "27.03.2020",
            "pay_Later_offers": [{"delta_due_date": 14}, {"delta_due_date": 200}, {"delta_due_date": 300}]
        }),
    );
    let kinds: Vec<(Kind, &str)> = report
        .findings
        .iter()
        .map(|f| (f.kind, f.pointer.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (Kind::Type, "/transaction_id"),
            (Kind::Format, "/current_due_date"),
            (Kind::Format, "/pay_Later_offers/*/delta_due_date"),
        ],
        "{report:#?}"
    );
    let bounds = &report.findings[2];
    assert_eq!(bounds.count, 1, "one answer, one finding");
    assert_eq!(bounds.examples, ["200", "300"]);
}

#[test]
fn a_published_alias_is_declared() {
    let report = answer(
        "getPayLaterOffers",
        200,
        json!({"pay_later_offers": [{"delta_due_date": 14}]}),
    );
    assert!(report.findings.is_empty(), "{report:#?}");
    let report = answer(
        "getPayLaterOffers",
        200,
        json!({"pay_later_offers": [{"delta_due_date": 7}]}),
    );
    assert_eq!(only(&report).pointer, "/pay_later_offers/*/delta_due_date");
}

#[test]
fn a_missing_required_member_and_a_oneof_branch() {
    // The read answer is a list of one or one object (a oneOf): a member of
    // the object branch is declared; the object's required `iban` is missing.
    let report = answer(
        "getBankAccount",
        200,
        json!({"owner": "Erika Mustermann", "bic": "COBADEFFXXX"}),
    );
    let finding = only(&report);
    assert_eq!(finding.kind, Kind::MissingRequired);
    assert_eq!(finding.pointer, "/iban");
    let report = answer(
        "getBankAccount",
        200,
        json!([{"owner": "Erika Mustermann", "iban": "DE89 3704 0044 0532 0130 00", "new_member": 1}]),
    );
    assert_eq!(only(&report).pointer, "/*/new_member");
}

#[test]
fn an_undeclared_status_lists_the_documented_ones() {
    let report = answer("getPayLaterStatus", 418, json!({}));
    let finding = only(&report);
    assert_eq!(finding.kind, Kind::UndeclaredStatus);
    assert_eq!(finding.status, Some(418));
    assert_eq!(finding.pointer, "");
    assert!(finding.expected.as_deref().unwrap().contains("2XX"));
    assert_eq!(
        finding.schema.as_deref(),
        Some("/paths/~1order~1paylater~1v1~1{transaction_id}~1status/get/responses")
    );
}

#[test]
fn media_type_and_not_json() {
    let drift = Drift::new();
    drift.answer(
        "getPayLaterStatus",
        200,
        Some("text/html"),
        b"<html>busy</html>",
    );
    drift.answer(
        "getPayLaterStatus",
        404,
        Some("application/json"),
        b"{\"decline\":",
    );
    let report = drift.report();
    let kinds: Vec<(Kind, Option<u16>)> =
        report.findings.iter().map(|f| (f.kind, f.status)).collect();
    assert_eq!(
        kinds,
        [
            (Kind::MediaType, Some(200)),
            (Kind::NotJson, Some(200)),
            (Kind::NotJson, Some(404))
        ],
        "{report:#?}"
    );
    assert_eq!(report.findings[0].examples, ["\"text/html\""]);
    // The documented media type with other parameters, or none of a body-less answer: no finding.
    let drift = Drift::new();
    drift.answer("getPayLaterStatus", 200, Some("Application/JSON"), b"{}");
    drift.answer("getPayLaterStatus", 200, None, b"");
    assert!(drift.is_empty(), "{:#?}", drift.report());
}

#[test]
fn null_is_absence_for_optional_members_only() {
    let report = answer(
        "getPayLaterStatus",
        200,
        json!({"pay_later_status": null, "booking": null}),
    );
    assert!(report.findings.is_empty(), "{report:#?}");
    let drift = Drift::new();
    drift.request(
        "bookPayLaterOffer",
        Some("application/json"),
        br#"{"offer_id": null}"#,
    );
    let report = drift.report();
    let finding = only(&report);
    assert_eq!(
        (finding.kind, finding.direction, finding.pointer.as_str()),
        (Kind::Type, Direction::Request, "/offer_id")
    );
}

#[test]
fn notifications_are_checked_against_their_schemas() {
    let drift = Drift::new();
    // The invoice notification allows further members (the provider says
    // more may come); its declared ones keep their types.
    let invoice = json!({
        "id": 1, "shop_transaction_id": "s-1", "gateway_payment_reference": "GD1234567890",
        "invoice_id": 42, "eml_url": "https://x.example/a.eml", "new_member": true
    });
    drift.notification(
        INVOICE_NOTIFICATION,
        Some("application/json"),
        invoice.to_string().as_bytes(),
    );
    let session = json!({"session_id": "s", "iban": "DE02120300000000202051"});
    drift.notification(
        SESSION_NOTIFICATION,
        Some("application/json"),
        session.to_string().as_bytes(),
    );
    let report = drift.report();
    let found: Vec<(&str, Kind, &str)> = report
        .findings
        .iter()
        .map(|f| {
            (
                f.operation_id.as_deref().unwrap(),
                f.kind,
                f.pointer.as_str(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (INVOICE_NOTIFICATION, Kind::Type, "/invoice_id"),
            (SESSION_NOTIFICATION, Kind::UndeclaredMember, "/iban"),
        ],
        "{report:#?}"
    );
    assert!(report
        .findings
        .iter()
        .all(|f| f.direction == Direction::Notification));
    assert_eq!(
        report.findings[0].document.as_deref(),
        Some("openapi/order-status.yaml")
    );
    assert_eq!(
        report.findings[1].examples,
        ["\"******************2051\""],
        "an IBAN shows its last four only"
    );
}

#[test]
fn findings_aggregate_and_stay_bounded() {
    let drift = Drift::with_limits(Limits {
        max_findings: 2,
        max_examples: 3,
    });
    for value in ["A", "B", "C", "D", "A"] {
        drift.answer(
            "getPayLaterStatus",
            200,
            Some("application/json"),
            json!({"pay_later_status": value}).to_string().as_bytes(),
        );
    }
    let report = drift.report();
    let finding = only(&report);
    assert_eq!(finding.count, 5);
    assert_eq!(finding.examples, ["\"A\"", "\"B\"", "\"C\""]);
    assert!(finding.first_seen <= finding.last_seen);
    for member in ["x", "y", "z"] {
        drift.answer(
            "getPayLaterStatus",
            200,
            Some("application/json"),
            json!({ member: 1 }).to_string().as_bytes(),
        );
    }
    let report = drift.report();
    assert_eq!(report.findings.len(), 2);
    assert_eq!(report.dropped, 2);
    drift.clear();
    assert!(drift.is_empty());
}

#[test]
fn routes_name_the_operation_and_its_server() {
    let documents = Documents::bundled();
    let route = documents
        .route("GET", "/order/paylater/v1/12-3/status")
        .unwrap();
    assert_eq!(
        (route.operation_id, route.server),
        ("getPayLaterStatus", "api_url")
    );
    let route = documents.route("post", "/api/oauth/token").unwrap();
    assert_eq!(
        (route.operation_id, route.server),
        ("getPlatformToken", "platform_url")
    );
    let route = documents.route("POST", "/oauth/token").unwrap();
    assert_eq!((route.operation_id, route.server), ("getToken", "auth_url"));
    let route = documents.route("POST", "/pps/api/v1/session").unwrap();
    assert_eq!(route.server, "base_url");
    let route = documents.route("PUT", "/v2/partners/p/shops/s").unwrap();
    assert_eq!(route.server, "shop_config_url");
    assert!(
        documents
            .route("GET", "/order/paylater/v1//status")
            .is_none(),
        "an empty id is no id"
    );
    assert!(documents
        .route("DELETE", "/order/paylater/v1/12-3/status")
        .is_none());
    assert_eq!(documents.server_of("/pps/api/v2/other"), "base_url");
    assert_eq!(documents.server_of("/nowhere"), "api_url");
}

/// Every example the documents give for an answer, a request body or a
/// notification is what the documents say: checking it finds nothing.
#[test]
fn the_documents_own_examples_give_no_finding() {
    let documents = Documents::bundled();
    let mut checked = 0;
    for api in documents.apis() {
        let drift = Drift::new();
        for operation in &api.operations {
            let at: &Value = api.root.pointer(&operation.at).unwrap();
            let mut bodies: Vec<(Option<u16>, String, Value)> = Vec::new();
            let mut collect = |status: Option<u16>, content: Option<&Value>| {
                for (media, item) in content.and_then(Value::as_object).into_iter().flatten() {
                    if let Some(example) = item.get("example") {
                        bodies.push((status, media.clone(), example.clone()));
                    }
                    for (_, named) in item
                        .get("examples")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                    {
                        if let Some(value) = named.get("value") {
                            bodies.push((status, media.clone(), value.clone()));
                        }
                    }
                }
            };
            for (status, response) in at
                .get("responses")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let status = status.replace("XX", "00").parse().ok();
                collect(status, response.get("content"));
            }
            collect(None, at.pointer("/requestBody/content"));
            for (status, media, example) in bodies {
                let text = match &example {
                    Value::String(text) if !media.contains("json") => text.clone(),
                    _ => example.to_string(),
                };
                match (status, operation.notification) {
                    (_, true) => {
                        drift.notification(&operation.operation_id, Some(&media), text.as_bytes())
                    }
                    (Some(status), false) => drift.answer(
                        &operation.operation_id,
                        status,
                        Some(&media),
                        text.as_bytes(),
                    ),
                    (None, false) => {
                        drift.request(&operation.operation_id, Some(&media), text.as_bytes())
                    }
                }
                checked += 1;
            }
        }
        let report = drift.report();
        assert!(
            report.findings.is_empty(),
            "{}: {}",
            api.name,
            report.summary()
        );
    }
    assert!(checked > 100, "only {checked} examples checked");
}

/// A pattern that does not compile would be skipped silently: every
/// pattern of a schema the checker reads compiles.
#[test]
fn every_document_pattern_compiles() {
    let mut compiled = 0;
    for api in Documents::bundled().apis() {
        for node in &api.schemas.nodes {
            if let Some((pattern, regex)) = &node.pattern {
                assert!(regex.is_some(), "{}: {pattern} does not compile", node.at);
                compiled += 1;
            }
        }
    }
    assert!(compiled > 5, "only {compiled} patterns");
}

/// The streaming check finds what the walk of the parsed value finds: on
/// every documented example, and on each example changed in the ways
/// drift comes (a member added, a member removed, a value of another type,
/// a string where an enum is, null).
#[test]
fn the_streaming_check_finds_what_the_walk_finds() {
    fn mutations(value: &Value) -> Vec<Value> {
        let mut found = vec![value.clone()];
        match value {
            Value::Object(members) => {
                let mut added = members.clone();
                added.insert(
                    "undeclared_member".into(),
                    json!({"iban": "DE02120300000000202051"}),
                );
                found.push(Value::Object(added));
                for (name, member) in members {
                    let mut removed = members.clone();
                    removed.remove(name);
                    found.push(Value::Object(removed));
                    for changed in [
                        json!(12.5),
                        json!("UNKNOWN_VALUE"),
                        json!(null),
                        json!([1]),
                        json!({"x": 1}),
                    ] {
                        let mut replaced = members.clone();
                        replaced.insert(name.clone(), changed);
                        found.push(Value::Object(replaced));
                    }
                    for inner in mutations(member).into_iter().skip(1).take(12) {
                        let mut nested = members.clone();
                        nested.insert(name.clone(), inner);
                        found.push(Value::Object(nested));
                    }
                }
            }
            Value::Array(items) => {
                if let Some(first) = items.first() {
                    for inner in mutations(first).into_iter().skip(1).take(12) {
                        found.push(Value::Array(vec![first.clone(), inner]));
                    }
                }
                found.push(json!("not an array"));
            }
            _ => found.push(json!({"not": "a scalar"})),
        }
        found
    }
    fn sorted(mut found: Vec<crate::walk::Raw>) -> Vec<(Kind, String, String, Option<String>)> {
        let mut found: Vec<_> = found
            .drain(..)
            .map(|r| (r.kind, r.pointer, r.schema, r.example))
            .collect();
        found.sort();
        found.dedup();
        found
    }
    let mut compared = 0;
    for api in Documents::bundled().apis() {
        for node in 0..api.schemas.nodes.len() {
            let at = &api.schemas.nodes[node].at;
            let Some(schema) = api.root.pointer(at) else {
                continue;
            };
            let examples: Vec<&Value> = schema.get("example").into_iter().collect();
            for example in examples {
                for value in mutations(example) {
                    let mut walked = crate::walk::Walk::new(&api.schemas);
                    walked.body(node, &value);
                    let mut streamed = crate::walk::Walk::new(&api.schemas);
                    assert!(crate::stream::check(
                        &mut streamed,
                        node,
                        value.to_string().as_bytes()
                    ));
                    assert_eq!(
                        sorted(streamed.found),
                        sorted(walked.found),
                        "{}: {value}",
                        at
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 500, "only {compared} values compared");
}
