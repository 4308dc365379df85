//! The lenient decoding of every answer type of every API: the JSON body
//! schemas of every response of every operation of the bundled documents
//! (the list below, checked against the documents on the first run; the
//! order status API's invoice file is bytes, not JSON, and is not decoded).
//!
//! Input: a JSON tree built with `arbitrary` (structure-aware: member names
//! and string values from the documents' own properties and enums, numbers
//! as text, among them texts no decimal holds), written out as text, and
//! decoded as the runtime decodes an answer (`serde_json::from_slice`
//! inside `psi_runtime::leniency::lenient`) and as the sandbox reads a
//! request (the same, outside it). Asserts:
//!
//! - neither decode panics;
//! - what decodes strictly decodes leniently, to the same value (compared
//!   as the JSON values of the texts each writes: maps are unordered);
//! - what decodes leniently, written and decoded leniently again, is the
//!   same value.
#![no_main]

#[path = "common/json.rs"]
#[allow(dead_code)]
mod json;

use arbitrary::Unstructured;
use json::{object, tree, Words, DOCUMENTS};
use libfuzzer_sys::fuzz_target;
use serde::{de::DeserializeOwned, Serialize};
use std::collections::BTreeSet;
use std::sync::OnceLock;

struct Answer {
    document: &'static str,
    schema: &'static str,
    check: fn(&[u8]),
}

macro_rules! answers {
    ($($document:literal: $krate:ident => [$($schema:ident),* $(,)?]),* $(,)?) => {
        [$($(Answer {
            document: $document,
            schema: stringify!($schema),
            check: check::<$krate::types::$schema>,
        }),*),*]
    };
}

fn answers() -> &'static [Answer] {
    static ANSWERS: OnceLock<Vec<Answer>> = OnceLock::new();
    ANSWERS.get_or_init(|| {
        let answers = answers![
            "bank-accounts": psi_bank_accounts => [BankAccountReadResponse, BankAccountStoreResponse, DeclineResponse],
            "order-status": psi_order_status => [OrderStatusResponse, DeclineResponse],
            "pay-later": psi_pay_later => [PayLaterBookingOutcome, PayLaterOffersResponse, PayLaterStatusResponse, DeclineResponse],
            "payment-page": psi_payment_page => [SessionRecord, SessionRecordList, SessionResponse, DeclineResponse],
            "shop-config": psi_shop_config => [ShopConfigurationOutcome, ShopConfigurationError],
            "storefront": psi_storefront => [LoadResponse, ModuleOutcome, PlatformTokenResponse, ModuleResult, PlatformTokenError],
            "token": psi_token => [TokenResponse, TokenError],
            "transaction-status": psi_transaction_status => [TransactionStatusResponse, DeclineResponse],
        ];
        let listed: BTreeSet<(&str, &str)> =
            answers.iter().map(|a| (a.document, a.schema)).collect();
        assert_eq!(
            listed,
            documented_answers(),
            "list every answer schema of the documents here"
        );
        answers.into_iter().collect()
    })
}

fn check<T: DeserializeOwned + Serialize>(text: &[u8]) {
    let strict = serde_json::from_slice::<T>(text);
    let lenient = psi_runtime::leniency::lenient(|| serde_json::from_slice::<T>(text));
    // Written as text (each `Decimal` with its own text) and compared as
    // the JSON values of those texts: a map member (`additionalProperties`)
    // is a HashMap, whose order in the text changes from one value to
    // another.
    let written = |value: &T| serde_json::to_string(value).expect("an answer is written");
    let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
    if let Ok(strict) = &strict {
        let lenient = lenient
            .as_ref()
            .unwrap_or_else(|e| panic!("decodes strictly, refused leniently: {e}"));
        assert_eq!(value(&written(strict)), value(&written(lenient)));
    }
    if let Ok(lenient) = &lenient {
        let once = written(lenient);
        let again = psi_runtime::leniency::lenient(|| serde_json::from_str::<T>(&once))
            .unwrap_or_else(|e| panic!("{once} does not decode again: {e}"));
        assert_eq!(value(&written(&again)), value(&once), "{once}");
    }
}

/// The answer schemas of every operation, by document.
fn documented_answers() -> BTreeSet<(&'static str, &'static str)> {
    let mut answers = BTreeSet::new();
    for (name, text) in DOCUMENTS {
        let document: serde_json::Value = serde_json::from_str(text).unwrap();
        let schema_of = |response: &serde_json::Value| -> Vec<String> {
            let response = match response["$ref"].as_str() {
                Some(reference) => {
                    &document["components"]["responses"][reference.rsplit('/').next().unwrap()]
                }
                None => response,
            };
            response["content"]
                .as_object()
                .into_iter()
                .flat_map(|content| content.values())
                .filter_map(|media| media["schema"]["$ref"].as_str())
                .map(|reference| reference.rsplit('/').next().unwrap().to_owned())
                .collect()
        };
        for operations in document["paths"].as_object().unwrap().values() {
            for operation in operations.as_object().unwrap().values() {
                for (_, response) in operation["responses"].as_object().into_iter().flatten() {
                    for schema in schema_of(response) {
                        answers.insert((name, &*String::leak(schema)));
                    }
                }
            }
        }
    }
    answers
}

fn words() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(Words::of_documents)
}

/// The bytes that mark a seed of the checked-in corpus: after them, an
/// answer schema's name, a line feed and a JSON text (fuzz/seeds.py: the
/// documents' response examples).
const SEED: &[u8] = b"\xff\xff\xff\xff";

fuzz_target!(|data: &[u8]| {
    let answers = answers();
    if let Some(seed) = data.strip_prefix(SEED) {
        let text = String::from_utf8_lossy(seed);
        let (schema, json) = text.split_once('\n').unwrap_or((&text, ""));
        for answer in answers.iter().filter(|a| a.schema == schema) {
            (answer.check)(json.as_bytes());
        }
        return;
    }
    let mut u = Unstructured::new(data);
    let Ok(which) = u.int_in_range(0..=answers.len() - 1) else {
        return;
    };
    // Every answer schema is an object: mostly one, sometimes any tree.
    let root = match u.ratio(1, 8) {
        Ok(true) => tree(&mut u, words(), 0),
        _ => object(&mut u, words(), 0),
    };
    let Ok(root) = root else { return };
    (answers[which].check)(root.text().as_bytes());
});
