//! The storefront platform's order-management module, both path sets:
//! quantities tracked per line, refusals that change nothing, addItem's
//! precondition, the orderId shape and the platform token's scope.

use super::{completed_transaction, sandbox};
use psi::storefront::types::{
    AddItemRequest, LoadData, LoadItem, LoadItemPosition, ModuleOutcome, ModuleResult,
    OrderItemQuantity, OrderItemsRequest, OrderItemsRequestV7,
};
use psi::storefront::{Error, ResponseValue};
use psi_runtime::Decimal;
use psi_sandbox::control::types::StorefrontOrderSeed;
use psi_sandbox::Sandbox;
use serde_json::json;
use std::collections::HashMap;

const ORDER: &str = "346caed4ced140c08a93f63538f75b13";
const UNKNOWN_ORDER: &str = "00000000000000000000000000000000";
const TABLE: &str = "c4fbb4dc62b240469efecad738853a76";
const LAMP: &str = "9b1f0e6a2c3d4e5f8a7b6c5d4e3f2a1b";
const TAX_ID: &str = "3a5c02946a144aeb801a79a119c6b246";

fn dec(text: &str) -> Decimal {
    text.parse().expect("a decimal")
}

/// A storefront order seed, written as the control API's JSON.
fn seed(order: serde_json::Value) -> StorefrontOrderSeed {
    serde_json::from_value(order).expect("a storefront order seed")
}

/// Two oak side tables at 16.9, one lamp at 5, shipping 10.
async fn seeded() -> (Sandbox, psi::Client, psi::storefront::Client) {
    let (sandbox, client) = sandbox().await;
    sandbox
        .control()
        .seed_storefront_order(&seed(json!({
            "order_id": ORDER,
            "items": [
                {"id": TABLE, "name": "Oak side table", "quantity": 2, "unit_price": 16.9},
                {"id": LAMP, "name": "Desk lamp", "quantity": 1, "unit_price": 5}
            ],
            "shipping": 10
        })))
        .await
        .expect("the order is seeded");
    let storefront = client
        .storefront()
        .expect("the sandbox client has the platform");
    (sandbox, client, storefront)
}

fn quantities(items: &[(&str, &str)]) -> Vec<OrderItemQuantity> {
    items
        .iter()
        .map(|(id, quantity)| OrderItemQuantity {
            id: Some((*id).to_owned()),
            quantity: Some(dec(quantity)),
            update_stock: Some(true),
            extra_members: Default::default(),
        })
        .collect()
}

fn v6(items: &[(&str, &str)]) -> OrderItemsRequest {
    OrderItemsRequest {
        items: quantities(items),
        update_stock: None,
        extra_members: Default::default(),
    }
}

fn v7(items: &[(&str, &str)]) -> OrderItemsRequestV7 {
    OrderItemsRequestV7 {
        items: quantities(items),
        update_stock: None,
        extra_members: Default::default(),
    }
}

fn add(gross_amount: &str) -> AddItemRequest {
    AddItemRequest {
        gross_amount: dec(gross_amount),
        name: "Goodwill".to_owned(),
        tax_id: TAX_ID.parse().expect("a tax id"),
        extra_members: Default::default(),
    }
}

/// 6.x load: the items keyed by line id.
async fn load_map(storefront: &psi::storefront::Client) -> HashMap<String, LoadItem> {
    let response = storefront
        .load_order_items()
        .order_id(ORDER)
        .send()
        .await
        .expect("load answers 200")
        .into_inner();
    assert!(response.success);
    match response.data {
        Some(LoadData::Map(map)) => map.0,
        other => panic!("6.x answers data keyed by line id, got {other:?}"),
    }
}

/// 7.x info: the items as a list.
async fn info_list(storefront: &psi::storefront::Client) -> Vec<LoadItem> {
    let response = storefront
        .get_order_info()
        .order_id(ORDER)
        .send()
        .await
        .expect("info answers 200")
        .into_inner();
    assert!(response.success);
    match response.data {
        Some(LoadData::List(list)) => list.0,
        other => panic!("7.x answers data as a list, got {other:?}"),
    }
}

fn position_of<'a>(items: &'a [LoadItem], id: &str) -> &'a LoadItemPosition {
    let item = items
        .iter()
        .find(|item| item.id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no line {id}"));
    item.position.as_ref().expect("a position")
}

/// (delivered, canceled, returned, maxDelivery, maxCancel, maxReturn).
fn counters(position: &LoadItemPosition) -> [Decimal; 6] {
    [
        position.delivered,
        position.canceled,
        position.returned,
        position.max_delivery,
        position.max_cancel,
        position.max_return,
    ]
    .map(|value| value.expect("every counter is present"))
}

fn counts(values: [&str; 6]) -> [Decimal; 6] {
    values.map(dec)
}

/// The decoded ModuleResult of an error answer, and its status.
fn module_error<T: std::fmt::Debug>(result: Result<T, Error<ModuleResult>>) -> (u16, ModuleResult) {
    match result {
        Err(Error::Declined(response)) => (response.status, response.body),
        other => panic!("expected a declared ModuleResult error, got {other:?}"),
    }
}

#[tokio::test]
async fn load_6x_answers_every_line_keyed_by_its_id() {
    let (_sandbox, _client, storefront) = seeded().await;
    let map = load_map(&storefront).await;
    let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, [LAMP, TABLE, "shipping"]);
    let table = &map[TABLE];
    assert_eq!(table.id.as_deref(), Some(TABLE));
    assert_eq!(table.name.as_deref(), Some("Oak side table"));
    assert_eq!(table.ordered, Some(dec("2")));
    assert_eq!(table.unit_price, Some(dec("16.9")));
    assert_eq!(table.total_price, Some(dec("33.8")));
    let position = table.position.as_ref().expect("a position");
    assert_eq!(position.id.as_ref().map(String::len), Some(32));
    assert_eq!(counters(position), counts(["0", "0", "0", "2", "2", "0"]));
    assert_eq!(map["shipping"].unit_price, Some(dec("10")));
    assert_eq!(map["shipping"].ordered, Some(dec("1")));
}

#[tokio::test]
async fn info_7x_answers_the_lines_as_a_list_in_order() {
    let (_sandbox, _client, storefront) = seeded().await;
    let list = info_list(&storefront).await;
    let ids: Vec<&str> = list.iter().filter_map(|item| item.id.as_deref()).collect();
    assert_eq!(ids, [TABLE, LAMP, "shipping"]);
    assert_eq!(list[1].total_price, Some(dec("5")));
    assert_eq!(
        counters(position_of(&list, LAMP)),
        counts(["0", "0", "0", "1", "1", "0"])
    );
}

#[tokio::test]
async fn deliver_cancel_and_return_6x_move_the_counters() {
    let (_sandbox, _client, storefront) = seeded().await;
    let deliver = storefront
        .deliver_order_items()
        .order_id(ORDER)
        .body(v6(&[(TABLE, "1")]))
        .send()
        .await
        .unwrap()
        .into_inner()
        .0
        .expect("6.x answers with a body");
    assert_eq!(
        (deliver.success, deliver.message.as_deref()),
        (Some(true), Some("Delivery reported."))
    );
    let cancel = storefront
        .cancel_order_items()
        .order_id(ORDER)
        .body(v6(&[(TABLE, "1")]))
        .send()
        .await
        .unwrap()
        .into_inner()
        .0
        .expect("6.x answers with a body");
    assert_eq!(cancel.success, Some(true));
    let returned = storefront
        .return_order_items()
        .order_id(ORDER)
        .body(v6(&[(TABLE, "1")]))
        .send()
        .await
        .unwrap()
        .into_inner()
        .0
        .expect("6.x answers with a body");
    assert_eq!(returned.success, Some(true));

    let map = load_map(&storefront).await;
    let table = map[TABLE].position.as_ref().unwrap();
    assert_eq!(counters(table), counts(["1", "1", "1", "0", "0", "0"]));
    let lamp = map[LAMP].position.as_ref().unwrap();
    assert_eq!(
        counters(lamp),
        counts(["0", "0", "0", "1", "1", "0"]),
        "other lines are untouched"
    );
}

#[tokio::test]
async fn deliver_cancel_and_refund_7x_answer_204_and_move_the_counters() {
    let (_sandbox, _client, storefront) = seeded().await;
    let deliver = storefront
        .deliver_order_items_v7()
        .order_id(ORDER)
        .body(v7(&[(TABLE, "1"), ("shipping", "1")]))
        .send()
        .await;
    assert_eq!(
        deliver.expect("delivery is reported").status().as_u16(),
        204
    );
    let cancel = storefront
        .cancel_order_items_v7()
        .order_id(ORDER)
        .body(v7(&[(TABLE, "1")]))
        .send()
        .await;
    assert_eq!(
        cancel
            .expect("the cancellation is accepted")
            .status()
            .as_u16(),
        204
    );
    let refund = storefront
        .refund_order_items_v7()
        .order_id(ORDER)
        .body(v7(&[(TABLE, "1")]))
        .send()
        .await;
    assert_eq!(
        refund.expect("the refund is accepted").status().as_u16(),
        204
    );

    let list = info_list(&storefront).await;
    assert_eq!(
        counters(position_of(&list, TABLE)),
        counts(["1", "1", "1", "0", "0", "0"])
    );
    assert_eq!(
        counters(position_of(&list, "shipping")),
        counts(["1", "0", "0", "0", "0", "1"])
    );
    // Both path sets read the same order.
    let map = load_map(&storefront).await;
    assert_eq!(
        map[TABLE].position.as_ref(),
        Some(position_of(&list, TABLE))
    );
}

#[tokio::test]
async fn refusals_6x_answer_200_with_success_false_and_change_nothing() {
    let (_sandbox, _client, storefront) = seeded().await;
    let before = load_map(&storefront).await;
    let refused = [
        v6(&[(TABLE, "3")]),
        // The lamp is within its open quantity, the table is not: all or nothing.
        v6(&[(LAMP, "1"), (TABLE, "3")]),
        // A repeated id keeps its last quantity: 3 exceeds the 2 ordered.
        v6(&[(TABLE, "1"), (TABLE, "3")]),
        v6(&[("not-a-line", "1")]),
    ];
    for body in refused {
        let answer = storefront
            .deliver_order_items()
            .order_id(ORDER)
            .body(body.clone())
            .send()
            .await;
        // 6.x answers 200 even when refused: psi reads it as the refusal it is.
        if let Err(error) = &answer {
            let printed = error.to_string();
            assert!(
                printed.starts_with("storefront deliverOrderItems declined with 200: "),
                "{printed}"
            );
        }
        let (status, answer) = module_error(answer);
        assert_eq!(status, 200);
        assert_eq!(answer.success, Some(false), "{body:?} is refused");
        assert!(answer.message.is_some_and(|m| m.contains("refused")));
    }
    // Nothing was delivered, so nothing can be returned.
    let returned = storefront
        .return_order_items()
        .order_id(ORDER)
        .body(v6(&[(TABLE, "1")]))
        .send()
        .await;
    let refused = psi::Error::from(returned.unwrap_err());
    let psi::Error::Declined(declined) = &refused else {
        panic!("not a decline: {refused:?}");
    };
    assert_eq!(declined.status(), 200);
    assert!(
        matches!(declined.answer(), psi::Answer::Storefront(result) if result.success == Some(false)),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("refused"), "{refused}");
    assert_eq!(load_map(&storefront).await, before);
}

#[tokio::test]
async fn refusals_7x_answer_500_and_change_nothing() {
    let (_sandbox, _client, storefront) = seeded().await;
    let before = info_list(&storefront).await;
    let deliver = storefront
        .deliver_order_items_v7()
        .order_id(ORDER)
        .body(v7(&[(LAMP, "1"), (TABLE, "3")]))
        .send()
        .await;
    let (status, body) = module_error(deliver);
    assert_eq!((status, body.success), (500, Some(false)));
    assert!(body
        .message
        .unwrap()
        .contains("3 of item c4fbb4dc62b240469efecad738853a76 requested, 2 open"));

    let cancel = storefront
        .cancel_order_items_v7()
        .order_id(ORDER)
        .body(v7(&[("not-a-line", "1")]))
        .send()
        .await;
    assert_eq!(module_error(cancel).0, 500);
    let refund = storefront
        .refund_order_items_v7()
        .order_id(ORDER)
        .body(v7(&[(TABLE, "1")]))
        .send()
        .await;
    assert_eq!(
        module_error(refund).0,
        500,
        "nothing delivered, nothing to refund"
    );
    assert_eq!(info_list(&storefront).await, before);
}

/// Each operation of a path set with `items`, sent to `order`.
async fn item_operations_6x(
    storefront: &psi::storefront::Client,
    order: &str,
    body: OrderItemsRequest,
) -> Vec<Result<ResponseValue<ModuleOutcome>, Error<ModuleResult>>> {
    vec![
        storefront
            .deliver_order_items()
            .order_id(order)
            .body(body.clone())
            .send()
            .await,
        storefront
            .cancel_order_items()
            .order_id(order)
            .body(body.clone())
            .send()
            .await,
        storefront
            .return_order_items()
            .order_id(order)
            .body(body)
            .send()
            .await,
    ]
}

async fn item_operations_7x(
    storefront: &psi::storefront::Client,
    order: &str,
    body: OrderItemsRequestV7,
) -> Vec<Result<ResponseValue<ModuleOutcome>, Error<ModuleResult>>> {
    vec![
        storefront
            .deliver_order_items_v7()
            .order_id(order)
            .body(body.clone())
            .send()
            .await,
        storefront
            .cancel_order_items_v7()
            .order_id(order)
            .body(body.clone())
            .send()
            .await,
        storefront
            .refund_order_items_v7()
            .order_id(order)
            .body(body)
            .send()
            .await,
    ]
}

/// The module drops a line whose quantity is 0 or less before asking the
/// payment service: the other lines go through, in both path sets.
#[tokio::test]
async fn a_line_with_a_quantity_of_0_or_less_is_dropped() {
    let (_sandbox, _client, storefront) = seeded().await;
    let deliver = storefront
        .deliver_order_items()
        .order_id(ORDER)
        .body(v6(&[(TABLE, "1"), (LAMP, "0")]))
        .send()
        .await
        .expect("6.x delivers the table");
    assert_eq!(deliver.status().as_u16(), 200);
    let items: Vec<LoadItem> = load_map(&storefront).await.into_values().collect();
    assert_eq!(
        counters(position_of(&items, TABLE)),
        counts(["1", "0", "0", "1", "1", "1"])
    );
    assert_eq!(
        counters(position_of(&items, LAMP)),
        counts(["0", "0", "0", "1", "1", "0"])
    );

    let deliver = storefront
        .deliver_order_items_v7()
        .order_id(ORDER)
        .body(v7(&[(LAMP, "-1"), (TABLE, "1")]))
        .send()
        .await
        .expect("7.x delivers the second table");
    assert_eq!(deliver.status().as_u16(), 204);
    let items = info_list(&storefront).await;
    assert_eq!(
        counters(position_of(&items, TABLE)),
        counts(["2", "0", "0", "0", "0", "2"])
    );
    assert_eq!(
        counters(position_of(&items, LAMP)),
        counts(["0", "0", "0", "1", "1", "0"])
    );

    // Nothing left once they are dropped: 6.x success false, 7.x 400.
    for answer in item_operations_6x(&storefront, ORDER, v6(&[(LAMP, "0"), (LAMP, "-2")])).await {
        let (status, body) = module_error(answer);
        assert_eq!((status, body.success), (200, Some(false)));
    }
    for answer in item_operations_7x(&storefront, ORDER, v7(&[(LAMP, "0")])).await {
        let (status, body) = module_error(answer);
        assert_eq!(
            (status, body.success, body.message.as_deref()),
            (400, Some(false), Some("No items given."))
        );
    }
    assert_eq!(
        counters(position_of(&info_list(&storefront).await, LAMP))[0],
        dec("0")
    );
}

/// The module keys the lines by id: a repeated id keeps its last quantity.
#[tokio::test]
async fn a_repeated_item_id_keeps_its_last_quantity() {
    let (_sandbox, _client, storefront) = seeded().await;
    storefront
        .deliver_order_items()
        .order_id(ORDER)
        .body(v6(&[(TABLE, "2"), (TABLE, "1")]))
        .send()
        .await
        .expect("6.x delivers one table, the last quantity");
    let items = info_list(&storefront).await;
    assert_eq!(
        counters(position_of(&items, TABLE)),
        counts(["1", "0", "0", "1", "1", "1"])
    );

    storefront
        .cancel_order_items_v7()
        .order_id(ORDER)
        .body(v7(&[(TABLE, "5"), (TABLE, "1")]))
        .send()
        .await
        .expect("7.x cancels one table, the last quantity");
    let items = info_list(&storefront).await;
    assert_eq!(
        counters(position_of(&items, TABLE)),
        counts(["1", "1", "0", "0", "0", "1"])
    );

    // A last quantity of 0 drops the line, whatever came before.
    let (status, _) = module_error(
        storefront
            .refund_order_items_v7()
            .order_id(ORDER)
            .body(v7(&[(TABLE, "1"), (TABLE, "0")]))
            .send()
            .await,
    );
    assert_eq!(status, 400);
}

#[tokio::test]
async fn an_empty_item_list_7x_is_400() {
    let (_sandbox, _client, storefront) = seeded().await;
    for result in [
        storefront
            .deliver_order_items_v7()
            .order_id(ORDER)
            .body(v7(&[]))
            .send()
            .await,
        storefront
            .cancel_order_items_v7()
            .order_id(ORDER)
            .body(v7(&[]))
            .send()
            .await,
        storefront
            .refund_order_items_v7()
            .order_id(ORDER)
            .body(v7(&[]))
            .send()
            .await,
    ] {
        let (status, body) = module_error(result);
        assert_eq!(
            (status, body.success, body.message.as_deref()),
            (400, Some(false), Some("No items given."))
        );
    }
}

#[tokio::test]
async fn add_item_6x_needs_a_shipped_item_and_appends_a_line() {
    let (_sandbox, _client, storefront) = seeded().await;
    let (status, early) = module_error(
        storefront
            .add_order_item()
            .order_id(ORDER)
            .body(add("-5.5"))
            .send()
            .await,
    );
    assert_eq!(status, 200);
    assert_eq!(early.success, Some(false), "nothing is shipped yet");
    assert_eq!(load_map(&storefront).await.len(), 3);

    storefront
        .deliver_order_items()
        .order_id(ORDER)
        .body(v6(&[(TABLE, "1")]))
        .send()
        .await
        .unwrap();
    let added = storefront
        .add_order_item()
        .order_id(ORDER)
        .body(add("-5.5"))
        .send()
        .await
        .unwrap()
        .into_inner()
        .0
        .expect("6.x answers with a body");
    assert_eq!(
        (added.success, added.message.as_deref()),
        (Some(true), Some("Item added."))
    );

    let map = load_map(&storefront).await;
    let (id, credit) = map
        .iter()
        .find(|(id, _)| ![TABLE, LAMP, "shipping"].contains(&id.as_str()))
        .expect("a new line");
    assert_eq!(id.len(), 32);
    assert_eq!(
        (
            credit.name.as_deref(),
            credit.unit_price,
            credit.total_price
        ),
        (Some("Goodwill"), Some(dec("-5.5")), Some(dec("-5.5")))
    );
    assert_eq!(
        counters(credit.position.as_ref().unwrap()),
        counts(["1", "0", "0", "0", "0", "1"])
    );

    // One table delivered (16.9), 5.5 credited: a credit of 20 exceeds what was captured.
    let (status, too_much) = module_error(
        storefront
            .add_order_item()
            .order_id(ORDER)
            .body(add("-20"))
            .send()
            .await,
    );
    assert_eq!(status, 200);
    assert_eq!(too_much.success, Some(false));
    assert_eq!(load_map(&storefront).await.len(), 4);
}

#[tokio::test]
async fn add_item_7x_is_400_before_delivery_204_after_and_500_when_refused() {
    let (_sandbox, _client, storefront) = seeded().await;
    let (status, body) = module_error(
        storefront
            .add_order_item_v7()
            .order_id(ORDER)
            .body(add("2.5"))
            .send()
            .await,
    );
    assert_eq!(
        (status, body.message.as_deref()),
        (400, Some("No shipped and not returned item in the order."))
    );

    storefront
        .deliver_order_items_v7()
        .order_id(ORDER)
        .body(v7(&[(LAMP, "1")]))
        .send()
        .await
        .unwrap();
    let debit = storefront
        .add_order_item_v7()
        .order_id(ORDER)
        .body(add("2.5"))
        .send()
        .await;
    assert_eq!(debit.expect("the debit is added").status().as_u16(), 204);
    let list = info_list(&storefront).await;
    assert_eq!(list.len(), 4);
    assert_eq!(
        list[3].unit_price,
        Some(dec("2.5")),
        "the added line comes last"
    );

    let (status, _) = module_error(
        storefront
            .add_order_item_v7()
            .order_id(ORDER)
            .body(add("-100"))
            .send()
            .await,
    );
    assert_eq!(status, 500, "a credit beyond the captured 7.5 is refused");
    let (status, _) = module_error(
        storefront
            .add_order_item_v7()
            .order_id(ORDER)
            .body(add("0"))
            .send()
            .await,
    );
    assert_eq!(status, 400, "an amount of zero is neither debit nor credit");

    // Once the lamp is returned, the added line alone does not qualify.
    storefront
        .refund_order_items_v7()
        .order_id(ORDER)
        .body(v7(&[(LAMP, "1")]))
        .send()
        .await
        .unwrap();
    let (status, _) = module_error(
        storefront
            .add_order_item_v7()
            .order_id(ORDER)
            .body(add("1"))
            .send()
            .await,
    );
    assert_eq!(status, 400);
    assert_eq!(info_list(&storefront).await.len(), 4);
}

/// As the module's source answers: load 400 (6.x), info 404 (7.x);
/// deliver, cancel and return/refund 400 in both path sets; addItem 404 in
/// both.
#[tokio::test]
async fn an_unknown_order_is_400_except_on_info_and_add_item() {
    let (_sandbox, _client, storefront) = seeded().await;
    let expected = format!("Order {UNKNOWN_ORDER} not found");
    let (status, body) = module_error(
        storefront
            .load_order_items()
            .order_id(UNKNOWN_ORDER)
            .send()
            .await,
    );
    assert_eq!(
        (status, body.success, body.message),
        (400, Some(false), Some(expected.clone()))
    );
    let (status, body) = module_error(
        storefront
            .get_order_info()
            .order_id(UNKNOWN_ORDER)
            .send()
            .await,
    );
    assert_eq!((status, body.message), (404, Some(expected.clone())));

    let mut answers = item_operations_6x(&storefront, UNKNOWN_ORDER, v6(&[(TABLE, "1")])).await;
    answers.extend(item_operations_7x(&storefront, UNKNOWN_ORDER, v7(&[(TABLE, "1")])).await);
    for answer in answers {
        let (status, body) = module_error(answer);
        assert_eq!(
            (status, body.success, body.message),
            (400, Some(false), Some(expected.clone()))
        );
    }

    for answer in [
        storefront
            .add_order_item()
            .order_id(UNKNOWN_ORDER)
            .body(add("1"))
            .send()
            .await,
        storefront
            .add_order_item_v7()
            .order_id(UNKNOWN_ORDER)
            .body(add("1"))
            .send()
            .await,
    ] {
        let (status, body) = module_error(answer);
        assert_eq!((status, body.success), (404, Some(false)));
    }
}

#[tokio::test]
async fn a_badly_shaped_order_id_is_stopped_by_the_client() {
    let (_sandbox, _client, storefront) = seeded().await;
    let upper = ORDER.to_uppercase();
    assert!(matches!(
        storefront
            .load_order_items()
            .order_id(upper.as_str())
            .send()
            .await,
        Err(Error::InvalidRequest(_))
    ));
    assert!(matches!(
        storefront
            .get_order_info()
            .order_id("346caed4")
            .send()
            .await,
        Err(Error::InvalidRequest(_))
    ));
    let deliver = storefront
        .deliver_order_items_v7()
        .order_id("order-1")
        .body(v7(&[(TABLE, "1")]))
        .send()
        .await;
    assert!(matches!(deliver, Err(Error::InvalidRequest(_))));
}

/// A raw call to the platform's API with `token`.
async fn raw(
    sandbox: &Sandbox,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
) -> (u16, ModuleResult) {
    let mut request =
        reqwest::Client::new().request(method.clone(), format!("{}/api{path}", sandbox.url()));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if method == reqwest::Method::POST {
        request = request.json(&v6(&[(TABLE, "1")]));
    }
    let response = request.send().await.expect("the sandbox answers");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a ModuleResult body"))
}

#[tokio::test]
async fn a_badly_shaped_order_id_sent_raw_is_rejected_by_the_sandbox() {
    let (sandbox, client, _storefront) = seeded().await;
    let token = client
        .token(psi::Api::Storefront)
        .await
        .expect("a platform token");
    let token = Some(token.expose());
    let upper = ORDER.to_uppercase();
    let cases = [
        (
            reqwest::Method::GET,
            format!("/gateway/order-management/load/{upper}"),
            400,
        ),
        (
            reqwest::Method::POST,
            "/gateway/order-management/deliver/order-1".to_owned(),
            400,
        ),
        (
            reqwest::Method::GET,
            format!("/_action/order/{upper}/gateway/info"),
            404,
        ),
        (
            reqwest::Method::POST,
            "/_action/order/346caed4/gateway/deliver".to_owned(),
            400,
        ),
    ];
    for (method, path, expected) in cases {
        let (status, body) = raw(&sandbox, method, &path, token).await;
        assert_eq!((status, body.success), (expected, Some(false)), "{path}");
        assert!(body.message.unwrap().starts_with("Invalid orderId"));
    }
    // The same call with a well-shaped id passes.
    let (status, body) = raw(
        &sandbox,
        reqwest::Method::POST,
        &format!("/gateway/order-management/deliver/{ORDER}"),
        token,
    )
    .await;
    assert_eq!((status, body.success), (200, Some(true)));
}

#[tokio::test]
async fn tokens_other_than_a_platform_token_with_scope_write_are_401() {
    let (sandbox, client, _storefront) = seeded().await;
    let provider = client
        .token(psi::Api::PayLater)
        .await
        .expect("a provider token");
    let scopeless = reqwest::Client::new()
        .post(format!("{}/api/oauth/token", sandbox.url()))
        .json(&json!({
            "grant_type": "client_credentials",
            "client_id": psi_sandbox::DEMO_PLATFORM_CLIENT_ID,
            "client_secret": psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET
        }))
        .send()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap()["access_token"]
        .as_str()
        .expect("a token without scope")
        .to_owned();
    let load = format!("/gateway/order-management/load/{ORDER}");
    let deliver = format!("/_action/order/{ORDER}/gateway/deliver");
    let cases = [
        (provider.expose(), "WRONG_AUDIENCE"),
        (scopeless.as_str(), "MISSING_SCOPE"),
        ("not-a-jwt", "INVALID_TOKEN"),
    ];
    for (token, reason) in cases {
        for (method, path) in [
            (reqwest::Method::GET, &load),
            (reqwest::Method::POST, &deliver),
        ] {
            let (status, body) = raw(&sandbox, method, path, Some(token)).await;
            assert_eq!(
                (status, body.success, body.message.as_deref()),
                (401, Some(false), Some(reason)),
                "{path}"
            );
        }
    }
    let (status, body) = raw(&sandbox, reqwest::Method::GET, &load, None).await;
    assert_eq!(
        (status, body.message.as_deref()),
        (401, Some("MISSING_TOKEN"))
    );
    // The refused delivery did not happen.
    let map = load_map(&client.storefront().unwrap()).await;
    assert_eq!(
        map[TABLE].position.as_ref().unwrap().delivered,
        Some(dec("0"))
    );
}

#[tokio::test]
async fn seeding_checks_its_input() {
    let (sandbox, _client, _storefront) = seeded().await;
    let control = sandbox.control();
    let again = control
        .seed_storefront_order(&seed(
            json!({"order_id": ORDER, "items": [{"quantity": 1, "unit_price": 1}]}),
        ))
        .await;
    assert!(
        again.unwrap_err().0.contains("409"),
        "an existing order is not overwritten"
    );
    // An order id the typed seed cannot hold goes as raw JSON.
    assert!(serde_json::from_value::<StorefrontOrderSeed>(json!({"order_id": "ABC"})).is_err());
    let bad_id = control
        .post(
            "storefront/orders",
            json!({"order_id": "ABC", "items": [{"quantity": 1, "unit_price": 1}]}),
        )
        .await;
    assert!(bad_id.unwrap_err().0.contains("400"));
    let no_lines = control
        .seed_storefront_order(&seed(json!({"items": []})))
        .await;
    assert!(no_lines.unwrap_err().0.contains("400"));
    let unknown = control
        .seed_storefront_order(&seed(json!({"transaction_id": "12-00000000000000000"})))
        .await;
    assert!(unknown.unwrap_err().0.contains("404"));

    let generated = control
        .seed_storefront_order(&seed(
            json!({"items": [{"name": "Mug", "quantity": 3, "unit_price": 4.5}]}),
        ))
        .await
        .unwrap();
    // A generated order id, of the module's shape (the type checks it).
    assert!(generated
        .order_id
        .parse::<psi::storefront::types::OrderId>()
        .is_ok());
    assert_eq!(generated.items[0].total_price, Some(dec("13.5")));
}

#[tokio::test]
async fn an_order_seeded_from_a_transaction_takes_its_first_basket() {
    let (sandbox, client) = sandbox().await;
    let transaction_id = completed_transaction(&sandbox, &client, "OPEN_INVOICE").await;
    let seeded = sandbox
        .control()
        .seed_storefront_order(&seed(
            json!({"order_id": ORDER, "transaction_id": transaction_id}),
        ))
        .await
        .expect("the order is seeded from the transaction");
    assert_eq!(seeded.transaction_id, Some(transaction_id));

    let list = info_list(&client.storefront().unwrap()).await;
    assert_eq!(list.len(), 2);
    // 18.45 with a unit discount of -1.55, twice.
    assert_eq!(
        (list[0].name.as_deref(), list[0].ordered),
        (Some("Cotton T-shirt"), Some(dec("2")))
    );
    assert_eq!(
        (list[0].unit_price, list[0].total_price),
        (Some(dec("16.9")), Some(dec("33.8")))
    );
    assert_eq!(
        (list[1].id.as_deref(), list[1].total_price),
        (Some("shipping"), Some(dec("10")))
    );
}

/// Every item operation of both path sets, through psi, after the sandbox
/// was told to answer its next call `200 {"success": false}` after
/// processing it: psi reports the refusal, never a success.
#[tokio::test]
async fn a_success_false_answer_is_a_decline_on_every_item_operation() {
    let (sandbox, _client, storefront) = seeded().await;
    let refusal =
        serde_json::json!({"success": false, "message": "refused by the payment service"});
    let operations = [
        "deliverOrderItems",
        "cancelOrderItems",
        "returnOrderItems",
        "addOrderItem",
        "deliverOrderItemsV7",
        "cancelOrderItemsV7",
        "refundOrderItemsV7",
        "addOrderItemV7",
    ];
    for operation in operations {
        sandbox
            .control()
            .answer_after_processing(operation, 200, Some(refusal.clone()), 1)
            .await
            .unwrap();
        let error = match operation {
            "deliverOrderItems" => storefront
                .deliver_order_items()
                .order_id(ORDER)
                .body(v6(&[(TABLE, "1")]))
                .send()
                .await
                .err(),
            "cancelOrderItems" => storefront
                .cancel_order_items()
                .order_id(ORDER)
                .body(v6(&[(LAMP, "1")]))
                .send()
                .await
                .err(),
            "returnOrderItems" => storefront
                .return_order_items()
                .order_id(ORDER)
                .body(v6(&[(TABLE, "1")]))
                .send()
                .await
                .err(),
            "addOrderItem" => storefront
                .add_order_item()
                .order_id(ORDER)
                .body(add("-1"))
                .send()
                .await
                .err(),
            "deliverOrderItemsV7" => storefront
                .deliver_order_items_v7()
                .order_id(ORDER)
                .body(v7(&[(TABLE, "1")]))
                .send()
                .await
                .err(),
            "cancelOrderItemsV7" => storefront
                .cancel_order_items_v7()
                .order_id(ORDER)
                .body(v7(&[(TABLE, "1")]))
                .send()
                .await
                .err(),
            "refundOrderItemsV7" => storefront
                .refund_order_items_v7()
                .order_id(ORDER)
                .body(v7(&[(TABLE, "1")]))
                .send()
                .await
                .err(),
            _ => storefront
                .add_order_item_v7()
                .order_id(ORDER)
                .body(add("-1"))
                .send()
                .await
                .err(),
        };
        let Some(psi::storefront::Error::Declined(declined)) = error else {
            panic!("{operation}: a success:false answer read as {error:?}");
        };
        assert_eq!(declined.call.operation_id, operation);
        assert_eq!(declined.status, 200, "{operation}");
        assert_eq!(declined.body.success, Some(false), "{operation}");
        assert_eq!(
            declined.body.message.as_deref(),
            Some("refused by the payment service"),
            "{operation}"
        );
    }
}
