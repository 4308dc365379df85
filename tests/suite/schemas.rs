//! The published schemas (`schemas/`, `cargo xtask schemas`): checked in and
//! up to date, every example valid against the published JSON Schema of its
//! type, the Rust types accepting exactly what those schemas accept, and the
//! compatibility guard finding each kind of breaking change.

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use xtask::apis::workspace_apis as apis;
use xtask::bundle::bundle;
use xtask::conventions::COMMA_SEPARATED_SCHEMAS;
use xtask::examples::named_examples;
use xtask::schemas::compat::{self, breaking_changes};
use xtask::schemas::jsonschema::Validator;
use xtask::schemas::{outputs, type_schema_path, validator};

fn document(api: &str) -> Value {
    bundle(
        &crate::workspace_root()
            .join("openapi")
            .join(format!("{api}.yaml")),
    )
    .unwrap()
}

/// Validators of the published (checked-in) JSON Schema files, compiled once.
#[derive(Default)]
struct Published {
    validators: BTreeMap<(String, String), Validator>,
}

impl Published {
    fn validator(&mut self, api: &str, name: &str) -> &Validator {
        self.validators
            .entry((api.to_owned(), name.to_owned()))
            .or_insert_with(|| {
                let path = crate::workspace_root().join(type_schema_path(api, name));
                let text =
                    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let schema: Value = serde_json::from_str(&text).unwrap();
                validator(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            })
    }

    fn errors(&mut self, api: &str, name: &str, value: &Value) -> Vec<String> {
        self.validator(api, name)
            .iter_errors(value)
            .map(|error| format!("at {}: {error}", error.instance_path()))
            .collect()
    }

    fn accepts(&mut self, api: &str, name: &str, value: &Value) -> bool {
        self.validator(api, name).is_valid(value)
    }
}

/// What the published JSON Schema of `name` finds wrong with `value` (for
/// other modules' tests; compiles the schema each call).
pub fn published_errors(api: &str, name: &str, value: &Value) -> Vec<String> {
    Published::default().errors(api, name, value)
}

fn rust_accepts(api: &str, name: &str, value: &Value) -> Result<Value, String> {
    crate::generated_registry::round_trip(api, name, &value.to_string())
}

#[test]
fn published_schemas_are_deterministic_and_checked_in() {
    let root = crate::workspace_root();
    let first = outputs(&root).unwrap();
    assert_eq!(
        first,
        outputs(&root).unwrap(),
        "two runs gave different bytes"
    );
    for (relative, content) in &first {
        let checked_in = fs::read_to_string(root.join(relative)).unwrap_or_default();
        assert!(
            checked_in == *content,
            "{} is stale: run `cargo xtask schemas`",
            relative.display()
        );
        assert!(
            content.ends_with('\n'),
            "{} lacks a trailing newline",
            relative.display()
        );
    }
    for api in apis() {
        let bundled: Value = serde_json::from_str(
            &fs::read_to_string(root.join(xtask::schemas::bundle_path(&api.name, "json"))).unwrap(),
        )
        .unwrap();
        let yaml: Value = serde_yaml::from_str(
            &fs::read_to_string(root.join(xtask::schemas::bundle_path(&api.name, "yaml"))).unwrap(),
        )
        .unwrap();
        assert_eq!(
            bundled, yaml,
            "{}: openapi.json and openapi.yaml differ",
            api.name
        );
        let text = bundled.to_string();
        assert!(
            !text.contains("common.yaml"),
            "{}: the bundle still refers to common.yaml",
            api.name
        );
    }
}

#[test]
fn published_json_schemas_are_2020_12_and_self_contained() {
    let root = crate::workspace_root();
    for api in apis() {
        let names: BTreeSet<String> = document(&api.name)
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .unwrap()
            .keys()
            .cloned()
            .collect();
        for name in &names {
            let path = root.join(type_schema_path(&api.name, name));
            let schema: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(
                schema["$schema"],
                json!("https://json-schema.org/draft/2020-12/schema")
            );
            assert!(
                schema["$id"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("/{}/json-schema/{name}.json", api.name)),
                "{}",
                path.display()
            );
            let text = schema.to_string();
            for leftover in ["#/components/", "\"nullable\"", "\"example\""] {
                assert!(!text.contains(leftover), "{}: {leftover}", path.display());
            }
        }
    }
    // Decimals stay numbers; nullable becomes a type list.
    let booking: Value = serde_json::from_str(
        &fs::read_to_string(root.join(type_schema_path("pay-later", "PayLaterBooking"))).unwrap(),
    )
    .unwrap();
    // An optional field is nullable (null is absence).
    assert_eq!(
        booking["properties"]["fee"]["type"],
        json!(["number", "null"])
    );
    assert_eq!(booking["properties"]["fee"]["format"], json!("decimal"));
    let record: Value = serde_json::from_str(
        &fs::read_to_string(root.join(type_schema_path("payment-page", "SessionRecord"))).unwrap(),
    )
    .unwrap();
    assert_eq!(
        record["properties"]["transaction_id"]["type"],
        json!(["string", "null"])
    );
    // An optional reference: the schema or null.
    assert_eq!(
        record["properties"]["decline_reasons"]["anyOf"],
        json!([{"allOf": [{"$ref": "#/$defs/Decline"}]}, {"type": "null"}])
    );
    assert!(record["$defs"]["DeclineCategory"]["enum"].is_array());
}

#[test]
fn every_example_validates_against_its_published_json_schema() {
    let mut published = Published::default();
    let mut failures = Vec::new();
    let mut count = 0;
    for api in apis() {
        for (pointer, name, example) in named_examples(&document(&api.name)) {
            count += 1;
            let errors = published.errors(&api.name, &name, &example);
            if !errors.is_empty() {
                failures.push(format!(
                    "{}#{pointer} ({name}): {}",
                    api.name,
                    errors.join("; ")
                ));
            }
        }
    }
    assert!(count > 100, "only {count} examples found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// For every example the Rust type and the JSON Schema agree (both accept),
/// and what the Rust type writes back is valid too.
#[test]
fn rust_types_and_json_schemas_agree_on_every_example() {
    let mut published = Published::default();
    let mut disagreements = Vec::new();
    let mut count = 0;
    for api in apis() {
        for (pointer, name, example) in named_examples(&document(&api.name)) {
            if COMMA_SEPARATED_SCHEMAS.contains(&name.as_str()) {
                continue; // a joined string in Rust, an array on the wire (include.rs)
            }
            count += 1;
            let schema_ok = published.accepts(&api.name, &name, &example);
            match rust_accepts(&api.name, &name, &example) {
                Ok(back) => {
                    if !schema_ok {
                        disagreements.push(format!(
                            "{}#{pointer} ({name}): Rust accepts, schema rejects",
                            api.name
                        ));
                    }
                    let errors = published.errors(&api.name, &name, &back);
                    if !errors.is_empty() {
                        disagreements.push(format!(
                            "{}#{pointer} ({name}): what Rust writes back is invalid: {}",
                            api.name,
                            errors.join("; ")
                        ));
                    }
                }
                Err(error) if schema_ok => disagreements.push(format!(
                    "{}#{pointer} ({name}): schema accepts, Rust rejects: {error}",
                    api.name
                )),
                Err(_) => {}
            }
        }
    }
    assert!(count > 100, "only {count} examples found");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// Sets the value at `pointer` (`None` removes it).
fn mutated(mut value: Value, pointer: &str, new: Option<Value>) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let target = value
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("no {parent}"));
    match (target, new) {
        (Value::Object(map), Some(new)) => {
            map.insert(key.to_owned(), new);
        }
        (Value::Object(map), None) => {
            assert!(map.remove(key).is_some(), "nothing at {pointer}");
        }
        (Value::Array(items), Some(new)) => items[key.parse::<usize>().unwrap()] = new,
        (Value::Array(items), None) => {
            items.remove(key.parse::<usize>().unwrap());
        }
        _ => panic!("{parent} is not a container"),
    }
    value
}

/// The first example of `name` whose pointer contains `pointer_part`.
fn example(api: &str, name: &str, pointer_part: &str) -> Value {
    named_examples(&document(api))
        .into_iter()
        .find(|(pointer, n, _)| n == name && pointer.contains(pointer_part))
        .unwrap_or_else(|| panic!("{api} has no example of {name} at *{pointer_part}*"))
        .2
}

/// Deliberately invalid values: both the Rust type and the JSON Schema
/// reject each. Every required field of every example is also dropped in
/// turn.
#[test]
fn rust_types_and_json_schemas_reject_the_same_invalid_values() {
    let session = example("payment-page", "SessionRequest", "personBuyerNamedAddress");
    let store = example("bank-accounts", "BankAccountStoreRequest", "");
    let shop = example("shop-config", "ShopConfiguration", "/paths/");
    let add_item = example("storefront", "AddItemRequest", "");
    let token = example("token", "TokenRequest", "");
    let cases: Vec<(&str, &str, &str, Value)> = vec![
        // wrong pattern
        (
            "payment-page",
            "SessionRequest",
            "currency eur",
            mutated(session.clone(), "/order_data/currency", Some(json!("eur"))),
        ),
        (
            "payment-page",
            "SessionRequest",
            "country DEU",
            mutated(
                session.clone(),
                "/order_data/buyer/billing_address/country_code",
                Some(json!("DEU")),
            ),
        ),
        ("payment-page", "CurrencyCode", "lower case", json!("eur")),
        (
            "payment-page",
            "IdempotencyKey",
            "65 characters",
            json!("k".repeat(65)),
        ),
        (
            "storefront",
            "AddItemRequest",
            "taxId not hex",
            mutated(add_item.clone(), "/taxId", Some(json!("not-a-tax-id"))),
        ),
        ("shop-config", "HexColor", "not a colour", json!("#12345")),
        (
            "bank-accounts",
            "BankAccountStoreRequest",
            "iban too long",
            mutated(store.clone(), "/iban", Some(json!("D".repeat(51)))),
        ),
        // a shape's telling field, malformed: refused, never dropped
        (
            "payment-page",
            "SessionRequest",
            "pick-up box with a malformed country",
            mutated(
                session.clone(),
                "/order_data/delivery",
                Some(json!({"first_name": "Max", "pick_up_box": {"country_code": "Germany"}})),
            ),
        ),
        // missing required field (nested)
        (
            "shop-config",
            "ShopConfiguration",
            "address without city",
            mutated(shop.clone(), "/address/city", None),
        ),
        // unknown value of a closed (request-only) enum
        (
            "token",
            "TokenRequest",
            "grant_type password",
            mutated(token.clone(), "/grant_type", Some(json!("password"))),
        ),
        (
            "shop-config",
            "ShopConfiguration",
            "name_format FIRST",
            mutated(
                shop.clone(),
                "/correspondence_settings/slang/de/name_format",
                Some(json!("FIRST")),
            ),
        ),
        // wrong JSON type
        (
            "pay-later",
            "PayLaterBookingRequest",
            "offer_id number",
            json!({"offer_id": 2}),
        ),
        (
            "token",
            "TokenResponse",
            "expires_in text",
            json!({"access_token": "x", "expires_in": "soon"}),
        ),
        (
            "payment-page",
            "SessionRequest",
            "baskets object",
            mutated(session.clone(), "/order_data/shop_baskets", Some(json!({}))),
        ),
        // formats the Rust types check too
        (
            "payment-page",
            "SessionRequest",
            "impossible date",
            mutated(
                session.clone(),
                "/order_data/buyer/person/date_of_birth",
                Some(json!("1980-02-30")),
            ),
        ),
        (
            "pay-later",
            "PayLaterBooking",
            "timestamp without offset",
            json!({"booking_timestamp": "2020-03-13T16:42:59"}),
        ),
    ];

    let mut published = Published::default();
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for (api, name, what, value) in &cases {
        checked += 1;
        let schema_ok = published.accepts(api, name, value);
        let rust_ok = rust_accepts(api, name, value).is_ok();
        if schema_ok || rust_ok {
            disagreements.push(format!(
                "{api} {name} ({what}): schema {}, Rust {}",
                verdict(schema_ok),
                verdict(rust_ok)
            ));
        }
    }

    // Every required field of every example, dropped in turn.
    for api in apis() {
        let bundled = document(&api.name);
        for (pointer, name, example) in named_examples(&bundled) {
            let required = bundled
                .pointer(&format!("/components/schemas/{name}/required"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for field in required.iter().filter_map(Value::as_str) {
                if example.get(field).is_none() {
                    continue;
                }
                checked += 1;
                let value = mutated(example.clone(), &format!("/{field}"), None);
                let schema_ok = published.accepts(&api.name, &name, &value);
                let rust_ok = rust_accepts(&api.name, &name, &value).is_ok();
                if schema_ok || rust_ok {
                    disagreements.push(format!(
                        "{}#{pointer} ({name}) without {field}: schema {}, Rust {}",
                        api.name,
                        verdict(schema_ok),
                        verdict(rust_ok)
                    ));
                }
            }
        }
    }
    assert!(checked > 25, "only {checked} invalid values checked");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// Fields the specification does not mark required may be left out: both
/// the Rust type and the JSON Schema accept each value.
#[test]
fn what_the_specification_does_not_require_may_be_left_out() {
    let mut published = Published::default();
    let session = example("payment-page", "SessionRequest", "personBuyerNamedAddress");
    let token = example("token", "TokenRequest", "");
    let mut token_without = token.clone();
    let fields = token_without.as_object_mut().unwrap();
    fields.remove("audience");
    fields.remove("grant_type");
    let cases: Vec<(&str, &str, &str, Value)> = vec![
        (
            "payment-page",
            "SessionRequest",
            "a delivery naming no shape",
            mutated(
                session.clone(),
                "/order_data/delivery",
                Some(json!({"first_name": "Max", "last_name": "Mustermann"})),
            ),
        ),
        (
            "payment-page",
            "SessionRequest",
            "an empty delivery",
            mutated(session.clone(), "/order_data/delivery", Some(json!({}))),
        ),
        (
            "shop-config",
            "EmailContact",
            "a contact without email",
            json!({}),
        ),
        (
            "storefront",
            "OrderItemQuantity",
            "an item without id",
            json!({"quantity": 1}),
        ),
        (
            "token",
            "TokenRequest",
            "no audience, no grant_type",
            token_without,
        ),
    ];
    for (api, name, what, value) in cases {
        assert!(
            published.accepts(api, name, &value),
            "{api} {name} ({what}): the JSON Schema refuses"
        );
        assert_eq!(
            rust_accepts(api, name, &value).as_ref(),
            Ok(&value),
            "{api} {name} ({what}): the Rust type refuses or changes it"
        );
    }
}

fn verdict(accepted: bool) -> &'static str {
    if accepted {
        "accepts"
    } else {
        "rejects"
    }
}

/// The differences between the Rust types and the published JSON Schemas
/// that are there by design, pinned so that the README's description of
/// them stays true:
///
/// - an enumeration the service sends is open in Rust (`Unknown(String)`):
///   a value added later is kept, while the schema lists the known values;
///   a request-only enumeration is closed in both;
/// - a decimal given as a JSON string is read by `rust_decimal`, while the
///   schema says `type: number`;
/// - `format: uri` and `format: email` are plain `String`s in Rust, so only
///   the schema (with format validation on) checks them;
/// - `oneOf` is "exactly one variant" in JSON Schema but first-match-wins in
///   Rust (docs/document-rules.md rule 11): a value that fits two variants (a
///   buyer with both `company` and `person`) is rejected by the schema and
///   read as the first variant by Rust (a CompanyBuyer; `person` is dropped).
#[test]
fn differences_by_design_between_rust_types_and_json_schemas() {
    let mut published = Published::default();
    let mut open_and_closed = (0, 0);
    for api in apis() {
        let bundled = document(&api.name);
        let open: BTreeSet<String> = xtask::open_enums::open_enums(&bundled)
            .into_iter()
            .map(|e| e.name)
            .collect();
        let schemas = bundled
            .pointer("/components/schemas")
            .unwrap()
            .as_object()
            .unwrap();
        for (name, schema) in schemas.iter().filter(|(_, s)| s.get("enum").is_some()) {
            let unknown = json!("NOT_A_KNOWN_VALUE");
            assert!(
                !published.accepts(&api.name, name, &unknown),
                "{} {name}",
                api.name
            );
            let rust = rust_accepts(&api.name, name, &unknown);
            if open.contains(name) {
                open_and_closed.0 += 1;
                assert_eq!(rust, Ok(unknown.clone()), "{} {name} is open", api.name);
            } else {
                open_and_closed.1 += 1;
                assert!(rust.is_err(), "{} {name} is closed", api.name);
            }
            for known in schema["enum"].as_array().unwrap() {
                assert!(published.accepts(&api.name, name, known));
                assert_eq!(rust_accepts(&api.name, name, known).as_ref(), Ok(known));
            }
        }
    }
    assert!(
        open_and_closed.0 > 0 && open_and_closed.1 > 0,
        "{open_and_closed:?}"
    );

    let fee_as_text = json!({"fee": "4.95"});
    assert!(!published.accepts("pay-later", "PayLaterBooking", &fee_as_text));
    assert_eq!(
        rust_accepts("pay-later", "PayLaterBooking", &fee_as_text).unwrap()["fee"],
        json!(4.95)
    );

    let session = example("payment-page", "SessionRequest", "personBuyerNamedAddress");
    let bad_url = mutated(
        session.clone(),
        "/url_data/success_url",
        Some(json!("not a url")),
    );
    assert!(!published.accepts("payment-page", "SessionRequest", &bad_url));
    assert!(rust_accepts("payment-page", "SessionRequest", &bad_url).is_ok());
    let bad_email = json!({"email": "nobody"});
    assert!(!published.accepts("shop-config", "EmailContact", &bad_email));
    assert!(rust_accepts("shop-config", "EmailContact", &bad_email).is_ok());

    let both = json!({"company": {"name": "Example GmbH"}, "person": {"first_name": "Max"}});
    assert!(!published.accepts("payment-page", "Buyer", &both));
    assert_eq!(
        rust_accepts("payment-page", "Buyer", &both),
        Ok(json!({"company": {"name": "Example GmbH"}})),
        "read as CompanyBuyer, person dropped"
    );
    let two_shapes = json!({"in_store_collect": {}, "pick_up_box": {}});
    assert!(!published.accepts("payment-page", "Delivery", &two_shapes));
    assert!(rust_accepts("payment-page", "Delivery", &two_shapes).is_ok());
}

// ---------------------------------------------------------------------------
// The compatibility guard.

fn kinds(changes: &[compat::Change]) -> BTreeSet<&'static str> {
    changes.iter().map(|c| c.kind).collect()
}

fn has(changes: &[compat::Change], kind: &str, at: &str) -> bool {
    changes.iter().any(|c| c.kind == kind && c.at == at)
}

#[test]
fn compat_finds_nothing_between_equal_documents() {
    for api in apis() {
        let bundled = document(&api.name);
        assert_eq!(breaking_changes(&bundled, &bundled), vec![], "{}", api.name);
    }
}

#[test]
fn compat_finds_each_kind_of_breaking_change() {
    let old = document("payment-page");
    let mut new = old.clone();
    let schemas = new.pointer_mut("/components/schemas").unwrap();
    // removed field
    schemas["SessionRecord"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("partner_transaction_id");
    // changed type
    schemas["SessionRecord"]["properties"]["session_id"] =
        json!({"type": "integer", "nullable": true});
    // new required field (existing) and (new)
    schemas["UrlData"]["required"] = json!(["webhook_url", "locale"]);
    // narrowed enum
    schemas["SessionStatus"]["enum"]
        .as_array_mut()
        .unwrap()
        .pop();
    // narrowed type
    schemas["IdempotencyKey"]["maxLength"] = json!(32);
    schemas["SessionRecord"]["properties"]["transaction_id"]
        .as_object_mut()
        .unwrap()
        .remove("nullable");
    // removed type, and the oneOf variant that used it
    schemas
        .as_object_mut()
        .unwrap()
        .remove("PickUpShopDelivery");
    schemas["Delivery"]["oneOf"]
        .as_array_mut()
        .unwrap()
        .retain(|v| v["$ref"] != json!("#/components/schemas/PickUpShopDelivery"));
    // removed operation
    new["paths"]
        .as_object_mut()
        .unwrap()
        .remove("/pps/api/v1/session-record/{session_id}");

    let changes = breaking_changes(&old, &new);
    let listing: Vec<String> = changes.iter().map(ToString::to_string).collect();
    let listing = listing.join("\n");
    for (kind, at) in [
        (
            compat::REMOVED_FIELD,
            "SessionRecord.partner_transaction_id",
        ),
        (compat::CHANGED_TYPE, "SessionRecord.session_id"),
        (compat::NEW_REQUIRED, "UrlData.webhook_url"),
        (compat::NEW_REQUIRED, "UrlData.locale"),
        (compat::NARROWED_ENUM, "SessionStatus"),
        (compat::NARROWED_TYPE, "IdempotencyKey"),
        (compat::NARROWED_TYPE, "SessionRecord.transaction_id"),
        (compat::NARROWED_TYPE, "Delivery"),
        (compat::REMOVED_TYPE, "PickUpShopDelivery"),
        (
            compat::REMOVED_OPERATION,
            "GET /pps/api/v1/session-record/{session_id}",
        ),
    ] {
        assert!(
            has(&changes, kind, at),
            "missing {kind} at {at} in:\n{listing}"
        );
    }
    assert_eq!(changes.len(), 10, "unexpected extra changes:\n{listing}");

    // Parameters and media types (pay-later uses application/json;charset=UTF-8).
    let old = document("pay-later");
    let mut new = old.clone();
    let book = new
        .pointer_mut("/paths/~1order~1paylater~1v1~1{transaction_id}/post")
        .unwrap();
    book["parameters"].as_array_mut().unwrap().push(
        json!({"name": "channel", "in": "query", "required": true, "schema": {"type": "string"}}),
    );
    book["parameters"][0]["schema"]["maxLength"] = json!(19);
    new.pointer_mut("/components/schemas/PayLaterBookingResponse/properties/fee")
        .unwrap()["format"] = json!("double");
    let changes = breaking_changes(&old, &new);
    let post = "POST /order/paylater/v1/{transaction_id}";
    assert!(has(
        &changes,
        compat::NEW_REQUIRED,
        &format!("{post} query parameter channel")
    ));
    assert!(has(
        &changes,
        compat::NARROWED_TYPE,
        &format!("{post} path parameter transaction_id")
    ));
    assert!(has(
        &changes,
        compat::CHANGED_TYPE,
        "PayLaterBookingResponse.fee"
    ));
    assert_eq!(changes.len(), 3, "{changes:#?}");
}

#[test]
fn compat_accepts_additions() {
    let old = document("payment-page");
    let mut new = old.clone();
    let schemas = new.pointer_mut("/components/schemas").unwrap();
    schemas["SessionRecord"]["properties"]["channel"] = json!({"type": "string"});
    schemas["SessionStatus"]["enum"]
        .as_array_mut()
        .unwrap()
        .push(json!("ON_HOLD"));
    schemas["IdempotencyKey"]["maxLength"] = json!(128);
    schemas["Brand"] = json!({"type": "string"});
    schemas["SessionRecord"]["properties"]["shop_buyer_id"]["description"] = json!("changed text");
    new["paths"]["/pps/api/v1/ping"] =
        json!({"get": {"operationId": "ping", "responses": {"204": {"description": "ok"}}}});
    let changes = breaking_changes(&old, &new);
    assert!(changes.is_empty(), "{:?}", kinds(&changes));
}

#[test]
fn compat_runs_against_a_git_ref() {
    // The documents of HEAD bundle and compare; what they report depends on
    // the working tree, so only the run itself is checked here.
    let root = crate::workspace_root();
    xtask::schemas::compat_changes(&root, "HEAD").unwrap();
    assert!(xtask::schemas::compat_changes(&root, "no-such-ref-xyz").is_err());
}
