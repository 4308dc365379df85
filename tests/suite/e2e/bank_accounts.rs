//! Bank account management against the sandbox: the store, read, read by
//! reference and delete round trip, overwriting, the bounds (400), IBAN and
//! BIC checks (422), unknown accounts (404) and foreign partner profiles (401).

use super::{declined, sandbox};
use psi::bank_accounts::types::{
    BankAccount, BankAccountReadResponse, BankAccountStoreRequest, Bic, DeclineCategory,
    DeclineResponse,
};
use psi::bank_accounts::{Error, ResponseValue};
use psi_sandbox::Sandbox;
use serde_json::json;
use uuid::Uuid;

const PARTNER: &str = "pp0123456789";
const BUYER: &str = "buyer-4711";
const IBAN: &str = "DE89 3704 0044 0532 0130 00";
/// The example IBAN with one check digit wrong: well formed, invalid.
const BAD_IBAN: &str = "DE88 3704 0044 0532 0130 00";

fn account(owner: &str, iban: &str, bic: Option<&str>) -> BankAccountStoreRequest {
    BankAccountStoreRequest {
        owner: owner.parse().expect("at most 1000 characters"),
        iban: iban.parse().expect("at most 50 characters"),
        bic: bic.map(|bic| bic.parse().expect("at most 50 characters")),
        extra_members: Default::default(),
    }
}

async fn store(
    client: &psi::Client,
    partner: &str,
    buyer: &str,
    request: BankAccountStoreRequest,
) -> Result<
    ResponseValue<psi::bank_accounts::types::BankAccountStoreResponse>,
    Error<DeclineResponse>,
> {
    client
        .bank_accounts()
        .store_bank_account()
        .partner_profile_id(partner)
        .shop_buyer_id(buyer)
        .body(request)
        .send()
        .await
}

/// Stores and returns the new reference.
async fn stored(client: &psi::Client, buyer: &str, request: BankAccountStoreRequest) -> Uuid {
    let response = store(client, PARTNER, buyer, request)
        .await
        .expect("the account is stored");
    assert_eq!(response.status().as_u16(), 201);
    response
        .into_inner()
        .bank_account_reference
        .expect("a reference")
}

async fn read(
    client: &psi::Client,
    partner: &str,
    buyer: &str,
) -> Result<ResponseValue<BankAccountReadResponse>, Error<DeclineResponse>> {
    client
        .bank_accounts()
        .get_bank_account()
        .partner_profile_id(partner)
        .shop_buyer_id(buyer)
        .send()
        .await
}

async fn read_by_reference(
    client: &psi::Client,
    partner: &str,
    buyer: &str,
    reference: Uuid,
) -> Result<ResponseValue<BankAccountReadResponse>, Error<DeclineResponse>> {
    client
        .bank_accounts()
        .get_bank_account_by_reference()
        .partner_profile_id(partner)
        .shop_buyer_id(buyer)
        .bank_account_reference(reference)
        .send()
        .await
}

async fn delete(
    client: &psi::Client,
    partner: &str,
    buyer: &str,
    reference: Uuid,
) -> Result<ResponseValue<()>, Error<DeclineResponse>> {
    client
        .bank_accounts()
        .delete_bank_account()
        .partner_profile_id(partner)
        .shop_buyer_id(buyer)
        .bank_account_reference(reference)
        .send()
        .await
}

/// The status and the decoded decline of an error answer.
fn assert_not_found<T: std::fmt::Debug>(result: Result<T, Error<DeclineResponse>>) {
    let (status, decline) = declined(result);
    assert_eq!(status, 404);
    assert_eq!(decline.category, Some(DeclineCategory::ResourceNotFound));
    assert_eq!(decline.reasons, ["BANK_ACCOUNT_NOT_FOUND"]);
}

/// POSTs a raw JSON body to the store operation, past the typed client.
async fn store_raw(
    sandbox: &Sandbox,
    client: &psi::Client,
    body: serde_json::Value,
) -> reqwest::Response {
    let token = client.token(psi::Api::BankAccounts).await.expect("a token");
    let url = format!(
        "{}/shop/consumer/v1/partners/{PARTNER}/consumer/{BUYER}/bank-accounts",
        sandbox.url()
    );
    reqwest::Client::new()
        .post(url)
        .bearer_auth(token.expose())
        .json(&body)
        .send()
        .await
        .expect("an answer")
}

#[tokio::test]
async fn store_read_read_by_reference_and_delete() {
    let (_sandbox, client) = sandbox().await;
    let reference = stored(
        &client,
        BUYER,
        account("Erika Mustermann", IBAN, Some("COBADEFFXXX")),
    )
    .await;
    let expected = BankAccount {
        bank_account_reference: Some(reference),
        owner: "Erika Mustermann".parse().unwrap(),
        iban: IBAN.parse().unwrap(),
        bic: Some("COBADEFFXXX".parse().unwrap()),
    };

    let listed = read(&client, PARTNER, BUYER)
        .await
        .expect("the account is read");
    assert_eq!(listed.status().as_u16(), 200);
    match listed.into_inner() {
        BankAccountReadResponse::Variant0(list) => {
            assert_eq!(list.0, std::slice::from_ref(&expected))
        }
        single => panic!("the read of a buyer's account is a list of one, got {single:?}"),
    }

    let by_reference = read_by_reference(&client, PARTNER, BUYER, reference)
        .await
        .expect("read by reference");
    assert_eq!(
        by_reference.into_inner(),
        BankAccountReadResponse::Variant1(expected)
    );

    let deleted = delete(&client, PARTNER, BUYER, reference)
        .await
        .expect("the account is deleted");
    assert_eq!(deleted.status().as_u16(), 204);
    assert_not_found(read(&client, PARTNER, BUYER).await);
    assert_not_found(read_by_reference(&client, PARTNER, BUYER, reference).await);
    assert_not_found(delete(&client, PARTNER, BUYER, reference).await);
}

#[tokio::test]
async fn an_iban_may_be_sent_with_or_without_spaces() {
    let (_sandbox, client) = sandbox().await;
    stored(
        &client,
        "compact",
        account("Erika Mustermann", "DE89370400440532013000", None),
    )
    .await;
    stored(
        &client,
        "grouped-oddly",
        account("Erika Mustermann", "DE89 37040044 0532013000", None),
    )
    .await;
    let read = read(&client, PARTNER, "compact")
        .await
        .expect("read")
        .into_inner();
    let BankAccountReadResponse::Variant0(list) = read else {
        panic!("a list")
    };
    assert_eq!(
        list.0[0].iban.as_str(),
        "DE89370400440532013000",
        "stored as sent"
    );
    assert_eq!(list.0[0].bic, None);
}

#[tokio::test]
async fn a_second_store_overwrites_with_a_new_reference() {
    let (_sandbox, client) = sandbox().await;
    let first = stored(&client, BUYER, account("Erika Mustermann", IBAN, None)).await;
    let second = stored(
        &client,
        BUYER,
        account("Max Mustermann", "GB82 WEST 1234 5698 7654 32", None),
    )
    .await;
    assert_ne!(first, second);

    let BankAccountReadResponse::Variant0(list) = read(&client, PARTNER, BUYER)
        .await
        .expect("read")
        .into_inner()
    else {
        panic!("a list of one");
    };
    assert_eq!(list.len(), 1, "one account per buyer");
    assert_eq!(list.0[0].bank_account_reference, Some(second));
    assert_eq!(list.0[0].owner.as_str(), "Max Mustermann");

    assert_not_found(read_by_reference(&client, PARTNER, BUYER, first).await);
    assert_not_found(delete(&client, PARTNER, BUYER, first).await);
    read_by_reference(&client, PARTNER, BUYER, second)
        .await
        .expect("the new reference is known");
}

#[tokio::test]
async fn accounts_belong_to_one_buyer_of_one_partner_profile() {
    let (_sandbox, client) = sandbox().await;
    let reference = stored(&client, BUYER, account("Erika Mustermann", IBAN, None)).await;

    assert_not_found(read(&client, PARTNER, "another-buyer").await);
    assert_not_found(read(&client, "pp-other", BUYER).await);
    assert_not_found(read_by_reference(&client, PARTNER, "another-buyer", reference).await);
    assert_not_found(delete(&client, "pp-other", BUYER, reference).await);
    read(&client, PARTNER, BUYER)
        .await
        .expect("still there for its own buyer");
}

#[tokio::test]
async fn unknown_accounts_are_404_and_a_malformed_reference_400() {
    let (sandbox, client) = sandbox().await;
    assert_not_found(read(&client, PARTNER, BUYER).await);
    assert_not_found(read_by_reference(&client, PARTNER, BUYER, Uuid::new_v4()).await);
    stored(&client, BUYER, account("Erika Mustermann", IBAN, None)).await;
    assert_not_found(read_by_reference(&client, PARTNER, BUYER, Uuid::new_v4()).await);
    assert_not_found(delete(&client, PARTNER, BUYER, Uuid::new_v4()).await);

    // The typed client only takes UUIDs; the service answers 400 to others.
    let token = client.token(psi::Api::BankAccounts).await.expect("a token");
    let url = format!(
        "{}/shop/consumer/v1/partners/{PARTNER}/consumer/{BUYER}/bank-accounts/not-a-uuid",
        sandbox.url()
    );
    let response = reqwest::Client::new()
        .delete(url)
        .bearer_auth(token.expose())
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 400);
    let decline: DeclineResponse = response.json().await.expect("a decline body");
    assert_eq!(
        decline.decline.unwrap().category,
        Some(DeclineCategory::Syntax)
    );
}

#[tokio::test]
async fn a_bic_longer_than_50_characters_is_400_and_never_leaves_the_typed_client() {
    let (sandbox, client) = sandbox().await;
    let long_bic = "B".repeat(51);

    // The generated type refuses it, built or read from the same JSON
    // (naming the field), so no request carrying it can be made.
    assert_eq!(
        long_bic.parse::<Bic>().unwrap_err().to_string(),
        "longer than 50 characters"
    );
    let body = json!({"owner": "Erika Mustermann", "iban": IBAN, "bic": long_bic});
    let refused =
        psi_runtime::parse_json::<BankAccountStoreRequest>(&body.to_string()).unwrap_err();
    assert_eq!(refused.field, "bic");
    assert!(
        refused.rule.contains("longer than 50 characters"),
        "{refused}"
    );

    // Sent raw, the service names the field.
    let response = store_raw(&sandbox, &client, body).await;
    assert_eq!(response.status().as_u16(), 400);
    let decline = response
        .json::<DeclineResponse>()
        .await
        .expect("a decline body")
        .decline
        .unwrap();
    assert_eq!(decline.category, Some(DeclineCategory::Syntax));
    assert_eq!(
        decline.invalid_fields[0].json_path.as_deref(),
        Some("$.bic")
    );
    let message = decline.invalid_fields[0]
        .message
        .as_deref()
        .unwrap_or_default();
    assert!(
        message.starts_with("longer than 50 characters"),
        "{message}"
    );
    assert_not_found(read(&client, PARTNER, BUYER).await);
}

#[tokio::test]
async fn an_owner_or_iban_out_of_bounds_is_400_naming_the_field() {
    let (sandbox, client) = sandbox().await;
    let long_iban = "DE89 3704 0044 0532 0130 00 DE89 3704 0044 0532 0130 00";

    // The typed builder refuses both before sending.
    let refused = client
        .bank_accounts()
        .store_bank_account()
        .partner_profile_id(PARTNER)
        .shop_buyer_id(BUYER)
        .body_map(|body| body.owner("E".repeat(1001)).iban(IBAN))
        .send()
        .await;
    assert!(
        matches!(refused, Err(Error::InvalidRequest(ref why)) if why.contains("owner")),
        "{refused:?}"
    );

    for (body, path) in [
        (json!({"owner": "E".repeat(1001), "iban": IBAN}), "$.owner"),
        (
            json!({"owner": "Erika Mustermann", "iban": long_iban}),
            "$.iban",
        ),
        (json!({"owner": "Erika Mustermann"}), "$"),
    ] {
        let response = store_raw(&sandbox, &client, body).await;
        assert_eq!(response.status().as_u16(), 400, "{path}");
        let text = response.text().await.expect("a body");
        assert!(!text.contains("3704"), "the IBAN is never echoed: {text}");
        let decline: DeclineResponse = serde_json::from_str(&text).expect("a decline body");
        assert_eq!(
            decline.decline.unwrap().invalid_fields[0]
                .json_path
                .as_deref(),
            Some(path)
        );
    }
}

#[tokio::test]
async fn an_invalid_iban_is_422_from_the_service_and_caught_by_the_client_first() {
    let (sandbox, client) = sandbox().await;

    // With pre-flight checks the request never leaves the client.
    let refused = store(
        &client,
        PARTNER,
        BUYER,
        account("Erika Mustermann", BAD_IBAN, None),
    )
    .await;
    let Err(psi::Error::Preflight(refused)) = refused.map_err(psi::Error::from) else {
        panic!("the pre-flight refuses it")
    };
    let violation = &refused.violations().0[0];
    assert_eq!(violation.path, "$.iban");
    assert_eq!(violation.rule, psi::preflight::Rule::IbanCheckDigits);
    assert!(!refused.to_string().contains("3704"), "{refused}");

    // Without them, the service answers 422 naming $.iban, not the IBAN.
    let unchecked = psi::Client::builder()
        .environment(super::environment(&sandbox))
        .credentials(super::credentials())
        .skip_preflight()
        .build()
        .expect("a client");
    let (status, decline) = declined(
        store(
            &unchecked,
            PARTNER,
            BUYER,
            account("Erika Mustermann", BAD_IBAN, None),
        )
        .await,
    );
    assert_eq!(status, 422);
    assert_eq!(decline.category, Some(DeclineCategory::PaymentAttribute));
    assert_eq!(decline.invalid_fields.len(), 1);
    assert_eq!(
        decline.invalid_fields[0].json_path.as_deref(),
        Some("$.iban")
    );
    assert!(!serde_json::to_string(&decline).unwrap().contains("3704"));
    assert_not_found(read(&client, PARTNER, BUYER).await);
}

#[tokio::test]
async fn a_bic_that_is_not_shaped_like_one_is_422() {
    let (sandbox, client) = sandbox().await;
    // ISO 9362 (8 or 11 characters): the client refuses it before sending ...
    let refused = store(
        &client,
        PARTNER,
        BUYER,
        account("Erika Mustermann", IBAN, Some("COBA")),
    )
    .await;
    let Err(psi::Error::Preflight(refused)) = refused.map_err(psi::Error::from) else {
        panic!("the pre-flight refuses it")
    };
    let violation = &refused.violations().0[0];
    assert_eq!(violation.path, "$.bic");
    assert_eq!(violation.rule, psi::preflight::Rule::BicFormat);
    assert!(violation.message.contains("ISO 9362"), "{violation}");

    // ... and the service, asked anyway, answers 422 naming $.bic.
    let unchecked = psi::Client::builder()
        .environment(super::environment(&sandbox))
        .credentials(super::credentials())
        .skip_preflight()
        .build()
        .expect("a client");
    let (status, decline) = declined(
        store(
            &unchecked,
            PARTNER,
            BUYER,
            account("Erika Mustermann", IBAN, Some("COBA")),
        )
        .await,
    );
    assert_eq!(status, 422);
    assert_eq!(
        decline.invalid_fields[0].json_path.as_deref(),
        Some("$.bic")
    );
    stored(
        &client,
        BUYER,
        account("Erika Mustermann", IBAN, Some("COBADEFF")),
    )
    .await;
}

#[tokio::test]
async fn a_bic_with_digits_in_its_party_prefix_is_sent_and_stored() {
    // ISO 9362:2014 allows letters or digits in the first four characters.
    let (_sandbox, client) = sandbox().await;
    stored(
        &client,
        BUYER,
        account("Erika Mustermann", IBAN, Some("C0BADEFF")),
    )
    .await;
    let read = read(&client, PARTNER, BUYER)
        .await
        .expect("read")
        .into_inner();
    let BankAccountReadResponse::Variant0(list) = read else {
        panic!("a list")
    };
    let bic = list.0[0].bic.as_ref().map(|bic| bic.as_str());
    assert_eq!(bic, Some("C0BADEFF"));
}

#[tokio::test]
async fn a_partner_profile_of_someone_else_is_401_on_every_operation() {
    let (_sandbox, client) = sandbox().await;
    let foreign = "unknown-pp42";
    let reference = stored(&client, BUYER, account("Erika Mustermann", IBAN, None)).await;

    let results = [
        declined(
            store(
                &client,
                foreign,
                BUYER,
                account("Erika Mustermann", IBAN, None),
            )
            .await,
        ),
        declined(read(&client, foreign, BUYER).await),
        declined(read_by_reference(&client, foreign, BUYER, reference).await),
        declined(delete(&client, foreign, BUYER, reference).await),
    ];
    for (status, decline) in results {
        assert_eq!(status, 401);
        assert_eq!(decline.reasons, ["PARTNER_PROFILE_NOT_OWNED"]);
    }
    read(&client, PARTNER, BUYER)
        .await
        .expect("the caller's own profile still works");
}

/// A BIC is compared without regard to case and spaces: psi's pre-flight
/// sends a lower-case or grouped BIC, and the sandbox stores it (as sent).
#[tokio::test]
async fn a_bic_in_lower_case_or_with_spaces_is_sent_and_stored() {
    let (sandbox, client) = sandbox().await;
    for (buyer, bic) in [
        ("buyer-lower", "cobadeffxxx"),
        ("buyer-spaced", "COBA DE FF XXX"),
        ("buyer-both", " coba deff "),
    ] {
        stored(&client, buyer, account("Erika Mustermann", IBAN, Some(bic))).await;
        let read = read(&client, PARTNER, buyer)
            .await
            .expect("read")
            .into_inner();
        let BankAccountReadResponse::Variant0(list) = read else {
            panic!("a list")
        };
        assert_eq!(list.0[0].bic.as_ref().map(|b| b.as_str()), Some(bic));
    }

    // The sandbox on its own, over plain HTTP.
    let token = client.token(psi::Api::BankAccounts).await.expect("a token");
    let answer = reqwest::Client::new()
        .post(format!(
            "{}/shop/consumer/v1/partners/{PARTNER}/consumer/buyer-http/bank-accounts",
            sandbox.url()
        ))
        .bearer_auth(token.expose())
        .json(&json!({"owner": "Erika Mustermann", "iban": IBAN, "bic": "coba DEFF"}))
        .send()
        .await
        .expect("an answer");
    assert_eq!(
        answer.status().as_u16(),
        201,
        "{}",
        answer.text().await.unwrap()
    );
}
