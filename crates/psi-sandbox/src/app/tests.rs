//! Every kind of record survives a save and a load: one sandbox writes each
//! through its handlers, a second one loads the same file and must serve
//! the same answers. Runs the router in this process, so the first sandbox
//! can be dropped (its file closed) before the second opens the file.

use super::App;
use crate::audiences::{audience_of, Service};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{json, Value};
use std::sync::Arc;
use tower::ServiceExt;

const KEY: [(&str, &str); 1] = [("idempotency-key", "key-1")];
const URL: &str = "http://sandbox.test";
/// Nothing listens here: notifications fail at once and are retried.
const UNREACHABLE: &str = "http://127.0.0.1:9";

fn state_file(name: &str) -> std::path::PathBuf {
    let directory = std::env::temp_dir().join(format!(
        "psi-sandbox-state-{name}-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4()
    ));
    std::fs::create_dir_all(&directory).expect("a temporary directory");
    directory.join("state.db")
}

fn start(path: &std::path::Path) -> App {
    let settings = crate::settings::Settings::default().state(path);
    let state = App::new(URL.to_owned(), URL.to_owned(), &settings).expect("the state file opens");
    // The notifications' scheduler, as a sandbox starts it, in a test
    // with a runtime; it holds the state only while it looks, so `settle`
    // still sees the state alone.
    if tokio::runtime::Handle::try_current().is_ok() {
        crate::apis::payment_page::schedule_notifications(&state.tenants, &state.outbox);
    }
    state
}

/// One call through the whole router; answers the status and the JSON body
/// (`null` when there is none).
async fn call(
    state: &App,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
    headers: &[(&str, &str)],
) -> (StatusCode, Value) {
    // A loopback name, as a client of a local sandbox sends (the control
    // API answers only its own name).
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "localhost");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    // Control writes say JSON even without a body, as the control door asks.
    if body.is_some() || (path.starts_with("/__sandbox") && method != "GET") {
        request = request.header("content-type", "application/json;charset=UTF-8");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = body.map_or_else(Body::empty, |body| Body::from(body.to_string()));
    let response = crate::router::app(state.clone())
        .oneshot(request.body(body).expect("a request"))
        .await
        .expect("the router answers");
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("a body");
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, json)
}

async fn token(state: &App, service: Service) -> String {
    let (status, answer) = if service == Service::Storefront {
        let body = json!({"client_id": crate::demo::DEMO_PLATFORM_CLIENT_ID, "client_secret": crate::demo::DEMO_PLATFORM_CLIENT_SECRET, "grant_type": "client_credentials", "scope": "write"});
        call(state, "POST", "/api/oauth/token", None, Some(body), &[]).await
    } else {
        let body = json!({"client_id": crate::demo::DEMO_CLIENT_ID, "client_secret": crate::demo::DEMO_CLIENT_SECRET, "audience": audience_of(URL, service), "grant_type": "client_credentials"});
        call(state, "POST", "/oauth/token", None, Some(body), &[]).await
    };
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer["access_token"].as_str().expect("a token").to_owned()
}

struct Tokens {
    payment_page: String,
    pay_later: String,
    bank_accounts: String,
    shop_config: String,
    storefront: String,
}

/// What the sandbox serves about every record, read through its own API.
async fn snapshot(state: &App, tokens: &Tokens, transaction: &str, order: &str) -> Value {
    let get = |path: String, token: Option<String>| async move {
        let (status, body) = call(state, "GET", &path, token.as_deref(), None, &[]).await;
        assert!(status.is_success(), "GET {path}: {status} {body}");
        body
    };
    json!({
        "sessions": get("/__sandbox/sessions".into(), None).await,
        "webhooks": get("/__sandbox/webhooks".into(), None).await,
        "subscriptions": get("/__sandbox/webhook-subscriptions".into(), None).await,
        "transaction": get(format!("/__sandbox/transactions/{transaction}"), None).await,
        "transaction_status": get(format!("/transaction/status/v2/transactions/{transaction}"), Some(token(state, Service::TransactionStatus).await)).await,
        "pay_later": get(format!("/order/paylater/v1/{transaction}/status"), Some(tokens.pay_later.clone())).await,
        "bank_account": get("/shop/consumer/v1/partners/p-1/consumer/b-1/bank-accounts".into(), Some(tokens.bank_accounts.clone())).await,
        "shop_config": get("/__sandbox/shop-config/p-1/shop-1".into(), None).await,
        "order": get(format!("/api/gateway/order-management/load/{order}"), Some(tokens.storefront.clone())).await,
    })
}

/// Waits (counting polls, not timing) until every notification has used
/// its attempts and no background task holds a tenant any more.
async fn settle(state: &App) {
    for _ in 0..600 {
        let (_, webhooks) = call(state, "GET", "/__sandbox/webhooks", None, None, &[]).await;
        let done = webhooks
            .as_array()
            .expect("a list")
            .iter()
            .all(|delivery| delivery["attempts"].as_array().map_or(0, Vec::len) == 5);
        // No attempt task holds a tenant (and with it the state file):
        // each is held by the directory and the list just made alone.
        let idle = state
            .tenants
            .all()
            .iter()
            .all(|tenant| Arc::strong_count(tenant) == 2);
        if done && idle {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let counts: Vec<usize> = state.tenants.all().iter().map(Arc::strong_count).collect();
    panic!("the notifications did not finish (tenants held {counts:?} times)");
}

#[tokio::test]
async fn every_kind_of_record_is_served_again_after_a_restart() {
    let path = state_file("round-trip");
    let state = start(&path);
    let tokens = Tokens {
        payment_page: token(&state, Service::PaymentPage).await,
        pay_later: token(&state, Service::PayLater).await,
        bank_accounts: token(&state, Service::BankAccounts).await,
        shop_config: token(&state, Service::ShopConfig).await,
        storefront: token(&state, Service::Storefront).await,
    };
    let subscription = json!({"url": format!("{UNREACHABLE}/invoices")});
    let (status, _) = call(
        &state,
        "POST",
        "/__sandbox/webhook-subscriptions",
        None,
        Some(subscription),
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);

    let request =
        serde_json::to_value(crate::demo::session_request(&format!("{UNREACHABLE}/hook")))
            .expect("a request");
    let create = |state: App, headers: &'static [(&'static str, &'static str)]| {
        let token = tokens.payment_page.clone();
        let request = request.clone();
        async move {
            call(
                &state,
                "POST",
                "/pps/api/v1/session",
                Some(&token),
                Some(request),
                headers,
            )
            .await
        }
    };
    let (status, created) = create(state.clone(), &KEY).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let completed_id = created["session_id"].as_str().expect("an id").to_owned();
    let (_, other) = create(state.clone(), &[]).await;
    let canceled_id = other["session_id"].as_str().expect("an id").to_owned();
    let (status, _) = call(
        &state,
        "GET",
        &format!("/pps/landing/{canceled_id}"),
        None,
        None,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, third) = create(state.clone(), &[]).await;
    let open_id = third["session_id"].as_str().expect("an id").to_owned();

    let (status, completed) = call(
        &state,
        "POST",
        &format!("/__sandbox/sessions/{completed_id}/complete"),
        None,
        None,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{completed}");
    let transaction = completed["transaction_id"]
        .as_str()
        .expect("a transaction")
        .to_owned();
    let (status, _) = call(
        &state,
        "POST",
        &format!("/__sandbox/sessions/{canceled_id}/cancel"),
        None,
        None,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    let (status, booked) = call(
        &state,
        "POST",
        &format!("/order/paylater/v1/{transaction}"),
        Some(&tokens.pay_later),
        Some(json!({"offer_id": "payl-2"})),
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{booked}");
    let account = json!({"owner": "Erika Mustermann", "iban": "DE89370400440532013000"});
    let (status, stored) = call(
        &state,
        "POST",
        "/shop/consumer/v1/partners/p-1/consumer/b-1/bank-accounts",
        Some(&tokens.bank_accounts),
        Some(account),
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{stored}");
    let configuration =
        serde_json::to_value(crate::demo::shop_configuration()).expect("a configuration");
    let (status, put) = call(
        &state,
        "PUT",
        "/shop-config/v2/partners/p-1/shops/shop-1",
        Some(&tokens.shop_config),
        Some(configuration),
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{put}");
    let (status, seeded) = call(
        &state,
        "POST",
        "/__sandbox/storefront/orders",
        None,
        Some(json!({"transaction_id": transaction})),
        &[],
    )
    .await;
    assert!(status.is_success(), "{seeded}");
    let order = seeded["order_id"].as_str().expect("an order").to_owned();
    let (status, advanced) = call(
        &state,
        "POST",
        "/__sandbox/clock/advance",
        None,
        Some(json!({"seconds": 600})),
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let now_before: chrono::DateTime<chrono::FixedOffset> =
        serde_json::from_value(advanced["now"].clone()).expect("a time");

    settle(&state).await;
    let before = snapshot(&state, &tokens, &transaction, &order).await;
    assert_eq!(
        before["webhooks"].as_array().map(Vec::len),
        Some(3),
        "session (2) and invoice (1) notifications"
    );
    let open = |snapshot: &Value| {
        snapshot["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .any(|s| s["session_id"] == open_id.as_str())
    };
    assert!(open(&before));
    drop(state);

    let state = start(&path);
    let store = state.tenants.store().expect("a state file");
    let written = store.total_changes();
    let after = snapshot(&state, &tokens, &transaction, &order).await;
    assert_eq!(after, before, "the same answers after the restart");
    assert_eq!(store.total_changes(), written, "reading writes nothing");

    // The idempotency key is remembered: the same call gets the same session.
    let (status, replay) = create(state.clone(), &KEY).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(replay["session_id"], completed_id.as_str());
    // The clock kept its ten minutes ahead (tokens live 30).
    let (_, about) = call(&state, "GET", "/__sandbox", None, None, &[]).await;
    let now_after: chrono::DateTime<chrono::FixedOffset> =
        serde_json::from_value(about["now"].clone()).expect("a time");
    let moved = (now_after - now_before).num_seconds();
    let real = (chrono::Utc::now() - now_after.with_timezone(&chrono::Utc)).num_seconds();
    assert!(real <= -590, "the offset is kept: {real} s from real time");
    assert!(
        (0..600).contains(&moved),
        "the clock moved {moved} s across the restart"
    );
    drop(state);
    let _ = std::fs::remove_dir_all(path.parent().expect("a directory"));
}

/// A stored order longer than the inflate buffer a thread starts with
/// (4 KiB) comes back whole, and a short one read after it is not mixed
/// with the long one's leftovers.
#[test]
fn a_long_stored_order_is_read_back_whole() {
    let short = crate::demo::session_request("https://shop.example.com/webhook");
    let mut long = short.clone();
    let order = long.order_data.as_mut().expect("the demo has an order");
    let item = order.shop_baskets[0].items[0].clone();
    order.shop_baskets[0].items = (0..100)
        .map(|index| {
            let mut item = item.clone();
            item.article_number = Some(format!("ART-{index}"));
            item
        })
        .collect();
    let json_length = serde_json::to_vec(&long).unwrap().len();
    assert!(json_length > 4096, "{json_length} bytes is not longer");
    for request in [&long, &short, &long] {
        let stored = crate::models::transaction::StoredRequest::new(request);
        assert_eq!(stored.get().order_data, request.order_data);
        let summary = stored.summary();
        let order = request.order_data.as_ref().unwrap();
        assert_eq!(summary.shop_baskets, order.shop_baskets);
        assert_eq!(summary.partner_transaction_id, order.partner_transaction_id);
    }
}

#[test]
fn a_panic_holding_the_data_lock_leaves_it_usable() {
    let path = state_file("poison");
    let state = start(&path);
    let panicking = state.clone();
    let outcome = std::thread::spawn(move || {
        let demo = panicking.tenants.demo();
        let _data = demo.data();
        panic!("a handler's bug while holding the lock");
    })
    .join();
    assert!(outcome.is_err(), "the thread panicked");
    // The next holder gets the data, and its changes still reach the file.
    let demo = state.tenants.demo();
    {
        let template = crate::demo::session_request(UNREACHABLE);
        let now = demo.clock.now_local();
        let mut data = demo.data();
        data.transactions
            .insert(crate::models::transaction::demo_transaction(
                0, &template, now,
            ));
    }
    // Handed to the writer; dropping the state writes what it was handed.
    drop(demo.save());
    drop(demo);
    drop(state);
    let again = start(&path);
    assert_eq!(again.tenants.demo().data().transactions.len(), 1);
}

/// One step of a sandbox's life, for the round trip of the state file below.
/// Sessions are named by their index among those created so far (modulo).
#[derive(Debug, Clone)]
enum Step {
    /// A session of the demo request, with an idempotency key or without.
    Session { keyed: bool },
    /// What the buyer or the provider does to a session: `complete`,
    /// `cancel`, `fail`, `expire` or `fraud-cancel`.
    Outcome { session: usize, how: &'static str },
    /// A pay later booking of a session's transaction.
    Book { session: usize, offer: u8 },
    /// A bank account stored for a partner's buyer.
    BankAccount { partner: u8, buyer: u8, iban: usize },
    /// A shop's configuration.
    ShopConfig { partner: u8, shop: u8 },
    /// A storefront order of a session's transaction.
    Order { session: usize },
    /// An invoice webhook subscription.
    Subscribe { path: u8 },
    /// The clock moved ahead.
    Advance { seconds: u16 },
}

fn step() -> impl proptest::strategy::Strategy<Value = Step> {
    use proptest::prelude::*;
    let session = 0..8usize;
    prop_oneof![
        3 => any::<bool>().prop_map(|keyed| Step::Session { keyed }),
        3 => (session.clone(), prop::sample::select(&["complete", "cancel", "fail", "expire", "fraud-cancel"][..]))
            .prop_map(|(session, how)| Step::Outcome { session, how }),
        1 => (session.clone(), 1..4u8).prop_map(|(session, offer)| Step::Book { session, offer }),
        1 => (0..3u8, 0..3u8, 0..IBANS.len()).prop_map(|(partner, buyer, iban)| Step::BankAccount { partner, buyer, iban }),
        1 => (0..3u8, 0..3u8).prop_map(|(partner, shop)| Step::ShopConfig { partner, shop }),
        1 => session.prop_map(|session| Step::Order { session }),
        1 => any::<u8>().prop_map(|path| Step::Subscribe { path }),
        1 => any::<u16>().prop_map(|seconds| Step::Advance { seconds }),
    ]
}

const IBANS: [&str; 3] = [
    "DE89370400440532013000",
    "GB82WEST12345698765432",
    "NL91ABNA0417164300",
];

/// A sandbox on `path` without the notifications' scheduler: its queued
/// notifications stay as they are, so two snapshots can be compared.
fn start_quiet(path: &std::path::Path) -> App {
    let settings = crate::settings::Settings::default().state(path);
    App::new(URL.to_owned(), URL.to_owned(), &settings).expect("the state file opens")
}

/// The records a play made, by the paths or ids that read them.
#[derive(Default)]
struct Records {
    transactions: Vec<String>,
    orders: Vec<String>,
    accounts: Vec<String>,
    shops: Vec<String>,
}

/// Plays `steps`; answers the records they made.
async fn play(state: &App, steps: &[Step]) -> Records {
    let mut sessions: Vec<String> = Vec::new();
    let Records {
        mut transactions,
        mut orders,
        mut accounts,
        mut shops,
    } = Records::default();
    let request =
        serde_json::to_value(crate::demo::session_request(&format!("{UNREACHABLE}/hook")))
            .expect("a request");
    let nth = |list: &[String], index: usize| list.get(index % list.len().max(1)).cloned();
    for (number, step) in steps.iter().enumerate() {
        match step {
            Step::Session { keyed } => {
                let key = format!("key-{number}");
                let headers: &[(&str, &str)] = if *keyed {
                    &[("idempotency-key", &key)]
                } else {
                    &[]
                };
                let (status, created) = call(
                    state,
                    "POST",
                    "/pps/api/v1/session",
                    Some(&token(state, Service::PaymentPage).await),
                    Some(request.clone()),
                    headers,
                )
                .await;
                assert_eq!(status, StatusCode::CREATED, "{created}");
                sessions.push(created["session_id"].as_str().expect("an id").to_owned());
            }
            Step::Outcome { session, how } => {
                let Some(session) = nth(&sessions, *session) else {
                    continue;
                };
                let path = format!("/__sandbox/sessions/{session}/{how}");
                let (status, answer) = call(state, "POST", &path, None, None, &[]).await;
                // A session already ended refuses another outcome.
                assert!(
                    status.is_success() || status == StatusCode::CONFLICT,
                    "{path}: {status} {answer}"
                );
                if let Some(transaction) = answer["transaction_id"].as_str() {
                    if !transactions.iter().any(|t| t == transaction) {
                        transactions.push(transaction.to_owned());
                    }
                }
            }
            Step::Book { session, offer } => {
                let Some(transaction) = nth(&transactions, *session) else {
                    continue;
                };
                let path = format!("/order/paylater/v1/{transaction}");
                let body = json!({ "offer_id": format!("payl-{offer}") });
                let (status, answer) = call(
                    state,
                    "POST",
                    &path,
                    Some(&token(state, Service::PayLater).await),
                    Some(body),
                    &[],
                )
                .await;
                assert!(status.as_u16() < 500, "{path}: {status} {answer}");
            }
            Step::BankAccount {
                partner,
                buyer,
                iban,
            } => {
                let path = format!(
                    "/shop/consumer/v1/partners/p-{partner}/consumer/b-{buyer}/bank-accounts"
                );
                let body = json!({"owner": "Erika Mustermann", "iban": IBANS[*iban]});
                let (status, answer) = call(
                    state,
                    "POST",
                    &path,
                    Some(&token(state, Service::BankAccounts).await),
                    Some(body),
                    &[],
                )
                .await;
                assert!(status.as_u16() < 500, "{path}: {status} {answer}");
                accounts.push(path);
            }
            Step::ShopConfig { partner, shop } => {
                let configuration = serde_json::to_value(crate::demo::shop_configuration())
                    .expect("a configuration");
                let path = format!("/shop-config/v2/partners/p-{partner}/shops/shop-{shop}");
                let (status, answer) = call(
                    state,
                    "PUT",
                    &path,
                    Some(&token(state, Service::ShopConfig).await),
                    Some(configuration),
                    &[],
                )
                .await;
                assert_eq!(status, StatusCode::OK, "{answer}");
                shops.push(format!("/__sandbox/shop-config/p-{partner}/shop-{shop}"));
            }
            Step::Order { session } => {
                let Some(transaction) = nth(&transactions, *session) else {
                    continue;
                };
                let body = json!({ "transaction_id": transaction });
                let (status, seeded) = call(
                    state,
                    "POST",
                    "/__sandbox/storefront/orders",
                    None,
                    Some(body),
                    &[],
                )
                .await;
                assert!(status.as_u16() < 500, "{status} {seeded}");
                if let Some(order) = seeded["order_id"].as_str() {
                    orders.push(order.to_owned());
                }
            }
            Step::Subscribe { path } => {
                let body = json!({ "url": format!("{UNREACHABLE}/invoices/{path}") });
                let (status, answer) = call(
                    state,
                    "POST",
                    "/__sandbox/webhook-subscriptions",
                    None,
                    Some(body),
                    &[],
                )
                .await;
                assert!(status.as_u16() < 500, "{status} {answer}");
            }
            Step::Advance { seconds } => {
                let body = json!({ "seconds": seconds });
                let (status, _) = call(
                    state,
                    "POST",
                    "/__sandbox/clock/advance",
                    None,
                    Some(body),
                    &[],
                )
                .await;
                assert_eq!(status, StatusCode::OK);
            }
        }
    }
    Records {
        transactions,
        orders,
        accounts,
        shops,
    }
}

/// The answers of every read endpoint about `records`, read through the
/// sandbox's own API (with tokens of now: a play may move the clock past a
/// token's life).
async fn served(state: &App, records: &Records) -> Value {
    let Records {
        transactions,
        orders,
        accounts,
        shops,
    } = records;
    let get = |path: String, token: Option<String>| async move {
        let (status, body) = call(state, "GET", &path, token.as_deref(), None, &[]).await;
        json!({ "path": path, "status": status.as_u16(), "body": body })
    };
    let mut answers = vec![
        get("/__sandbox/sessions".into(), None).await,
        get("/__sandbox/webhooks".into(), None).await,
        get("/__sandbox/webhook-subscriptions".into(), None).await,
    ];
    let status_token = token(state, Service::TransactionStatus).await;
    let pay_later = token(state, Service::PayLater).await;
    let bank_accounts = token(state, Service::BankAccounts).await;
    let storefront = token(state, Service::Storefront).await;
    for transaction in transactions {
        answers.push(get(format!("/__sandbox/transactions/{transaction}"), None).await);
        answers.push(
            get(
                format!("/transaction/status/v2/transactions/{transaction}"),
                Some(status_token.clone()),
            )
            .await,
        );
        answers.push(
            get(
                format!("/order/paylater/v1/{transaction}/status"),
                Some(pay_later.clone()),
            )
            .await,
        );
    }
    for account in accounts {
        answers.push(get(account.clone(), Some(bank_accounts.clone())).await);
    }
    for shop in shops {
        answers.push(get(shop.clone(), None).await);
    }
    for order in orders {
        answers.push(
            get(
                format!("/api/gateway/order-management/load/{order}"),
                Some(storefront.clone()),
            )
            .await,
        );
    }
    Value::Array(answers)
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        cases: 24,
        ..proptest::test_runner::Config::default()
    })]

    /// Whatever a sandbox went through, a second one loading its state file
    /// serves the same answers about every record: sessions in every state,
    /// transactions, bookings, bank accounts, shop configurations, orders,
    /// subscriptions and queued notifications.
    #[test]
    fn a_state_file_saved_and_loaded_serves_the_same_answers(
        steps in proptest::collection::vec(step(), 1..24)
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let path = state_file("proptest");
            let state = start_quiet(&path);
            let records = play(&state, &steps).await;
            let before = served(&state, &records).await;
            drop(state);
            let state = start_quiet(&path);
            let after = served(&state, &records).await;
            drop(state);
            let _ = std::fs::remove_dir_all(path.parent().expect("a directory"));
            assert_eq!(after, before, "the same answers after a save and a load");
        });
    }
}
