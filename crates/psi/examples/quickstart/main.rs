//! A merchant's day with psi, step by step.
//!
//!     cargo run --example quickstart
//!
//! Starts the embedded sandbox and runs every step against it. With the
//! `PSI_*` variables set (see `psi::Client::from_env`) it runs against that
//! environment instead; the steps only the sandbox can play (the buyer on
//! the hosted page, a seeded storefront order) then wait for you or are
//! skipped, and say so.

use psi::{Api, Client, Credentials, Environment};
use psi_sandbox::control::types::StorefrontOrderSeed;
use psi_sandbox::{Control, Sandbox};
use std::time::Duration;

/// The secret of the quickstart's invoice webhook subscription in the
/// sandbox (`PSI_INVOICE_WEBHOOK_SECRET` replaces it); the provider asks for
/// at least 64 characters.
const DEMO_SUBSCRIPTION_SECRET: &str =
    "quickstart-invoice-subscription-secret-0123456789abcdef0123456789abcdef";

mod webhook_receiver;

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

struct Day {
    client: Client,
    /// The sandbox's control API; `None` against a real environment.
    control: Option<Control>,
    receiver: webhook_receiver::Receiver,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("\nquickstart stopped: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result {
    let (client, sandbox) = if std::env::var_os("PSI_API_URL").is_some() {
        println!("Using the environment from PSI_* variables.\n");
        (Client::from_env()?, None)
    } else {
        let sandbox = Sandbox::start().await?;
        println!("Started the embedded sandbox at {}.\n", sandbox.url());
        (sandbox_client(&sandbox)?, Some(sandbox))
    };
    // Session notifications are signed with the webhook secret, invoice
    // notifications with the secret of the merchant's webhook subscription.
    let session_secret = std::env::var("PSI_WEBHOOK_SECRET")
        .unwrap_or_else(|_| psi_sandbox::DEMO_WEBHOOK_SECRET.to_owned());
    let invoice_secret = std::env::var("PSI_INVOICE_WEBHOOK_SECRET")
        .unwrap_or_else(|_| DEMO_SUBSCRIPTION_SECRET.to_owned());
    let day = Day {
        control: sandbox.as_ref().map(Sandbox::control),
        receiver: webhook_receiver::Receiver::start(&session_secret, &invoice_secret).await?,
        client,
    };
    if let Some(control) = &day.control {
        // The invoice notification goes to webhook subscriptions, which a
        // merchant registers with the provider, secret included; the
        // sandbox's control API plays that registration.
        control
            .subscribe_invoice_webhooks_with_secret(&day.receiver.invoice_url(), &invoice_secret)
            .await?;
    }
    day.run().await
}

/// A client of the embedded sandbox: its addresses and demo credentials.
fn sandbox_client(sandbox: &Sandbox) -> Result<Client> {
    let addresses = sandbox.addresses();
    // The shop configuration's address and audience are settings: the
    // specification states neither, and the sandbox publishes its own.
    let environment =
        Environment::new(&addresses.base_url, &addresses.api_url, &addresses.auth_url)?
            .with_platform_url(&addresses.platform_url)?
            .with_shop_config(&addresses.shop_config_url, &addresses.shop_config_audience)?;
    Ok(Client::builder()
        .environment(environment)
        .credentials(Credentials::new(
            psi_sandbox::DEMO_CLIENT_ID,
            psi_sandbox::DEMO_CLIENT_SECRET,
        ))
        .platform_credentials(Credentials::new(
            psi_sandbox::DEMO_PLATFORM_CLIENT_ID,
            psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET,
        ))
        .build()?)
}

fn step(number: u32, title: &str) {
    println!("{number:>2}. {title}");
}

fn show(label: &str, value: impl std::fmt::Display) {
    println!("      {label:<22} {value}");
}

impl Day {
    async fn run(&self) -> Result {
        step(1, "Token");
        let token = self.client.token(Api::PaymentPage).await?;
        show(
            "audience",
            Api::PaymentPage
                .audience(self.client.environment())
                .map(|a| a.to_string())
                .unwrap_or_default(),
        );
        show(
            "token",
            format!(
                "a JWT of {} characters (never printed)",
                token.expose().len()
            ),
        );

        step(2, "Session");
        let request = psi_sandbox::demo::session_request(&self.receiver.session_url());
        let session = self
            .client
            .payment_page()
            .create_session()
            .body(request)
            .send()
            .await?
            .into_inner();
        let session_id = session.session_id.clone().ok_or("no session id")?;
        show("session", &session_id);
        show(
            "landing page",
            session.landing_page.as_deref().unwrap_or("-"),
        );

        step(3, "The buyer completes the payment");
        let transaction_id = self.buyer_completes(&session_id).await?;
        show("transaction", &transaction_id);

        step(4, "The webhook is verified");
        match self
            .receiver
            .next_session_record(Duration::from_secs(10))
            .await
        {
            Some(record) => {
                show("signature", "valid (HMAC-SHA256, fresh timestamp)");
                show(
                    "session status",
                    record
                        .session_status
                        .map(|s| s.to_string())
                        .unwrap_or_default(),
                );
            }
            None => show(
                "webhook",
                "none arrived (a real environment cannot reach this machine)",
            ),
        }

        step(5, "Transaction status");
        let status = self
            .client
            .transaction_status()
            .get_transaction_status()
            .transaction_id(&transaction_id)
            .send()
            .await?
            .into_inner();
        for basket in &status.shop_baskets {
            show(
                "basket gross amount",
                format!(
                    "{} {}",
                    basket.gross_amount.unwrap_or_default(),
                    status
                        .currency
                        .as_ref()
                        .map(|c| c.to_string())
                        .unwrap_or_default()
                ),
            );
        }

        step(6, "Pay later offers and booking");
        self.pay_later(&transaction_id).await?;

        step(7, "Bank account: store, read, delete");
        self.bank_account().await?;

        step(8, "Order status with include=all, invoice saved as PDF");
        self.order_status(&transaction_id).await?;

        step(9, "Shop configuration update");
        let configuration = psi_sandbox::demo::shop_configuration();
        let updated = self
            .client
            .shop_config()
            .update_shop_configuration()
            .partner_profile_id("partner-1")
            .shop_id("shop-1")
            .body(configuration)
            .send()
            .await?
            .into_inner();
        // Any 2xx is success; the body (the shop id) may be absent.
        let shop_id = updated.0.and_then(|stored| stored.shop_id);
        show("stored shop", shop_id.unwrap_or_else(|| "(no body)".into()));

        step(10, "Storefront: deliver, return, add a credit");
        self.storefront(&transaction_id).await?;

        println!("\nDone.");
        Ok(())
    }

    async fn buyer_completes(&self, session_id: &str) -> Result<String> {
        if let Some(control) = &self.control {
            show(
                "as the buyer",
                "the sandbox's control API completes the session (open invoice)",
            );
            return Ok(control.complete_session(session_id, "OPEN_INVOICE").await?);
        }
        show(
            "waiting",
            "open the landing page above and complete the payment (10 minutes)",
        );
        for _ in 0..120 {
            let record = self
                .client
                .payment_page()
                .get_session_record()
                .session_id(session_id)
                .send()
                .await?
                .into_inner();
            if let Some(transaction) = record.transaction_id {
                return Ok(transaction);
            }
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
        Err("the session was not completed".into())
    }

    async fn pay_later(&self, transaction_id: &str) -> Result {
        let pay_later = self.client.pay_later();
        let status = pay_later
            .get_pay_later_status()
            .transaction_id(transaction_id)
            .send()
            .await?
            .into_inner();
        show(
            "status",
            status
                .pay_later_status
                .map(|s| s.to_string())
                .unwrap_or_default(),
        );
        let offers = pay_later
            .get_pay_later_offers()
            .transaction_id(transaction_id)
            .send()
            .await?
            .into_inner();
        for offer in &offers.pay_later_offers {
            show(
                &format!("offer {}", offer.offer_id.as_deref().unwrap_or("?")),
                format!(
                    "+{} days for {} {}, due {}",
                    offer.delta_due_date.unwrap_or_default(),
                    offer.price.unwrap_or_default(),
                    offer
                        .currency
                        .as_ref()
                        .map(|c| c.to_string())
                        .unwrap_or_default(),
                    offer
                        .new_due_date
                        .map(|d| d.to_string())
                        .unwrap_or_default()
                ),
            );
        }
        let Some(offer_id) = offers
            .pay_later_offers
            .first()
            .and_then(|o| o.offer_id.clone())
        else {
            show("booking", "no offer to book");
            return Ok(());
        };
        let booking = pay_later
            .book_pay_later_offer()
            .transaction_id(transaction_id)
            .body(psi::pay_later::types::PayLaterBookingRequest {
                offer_id,
                extra_members: Default::default(),
            })
            .send()
            .await?
            .into_inner();
        // Any 2xx is success; the booking body may be absent.
        match booking.0 {
            Some(booking) => show(
                "booked",
                format!(
                    "due {} instead of {}",
                    fmt_date(booking.new_due_date),
                    fmt_date(booking.original_due_date)
                ),
            ),
            None => show("booked", "(the service answered without a body)"),
        }
        Ok(())
    }

    async fn bank_account(&self) -> Result {
        let accounts = self.client.bank_accounts();
        let stored = accounts
            .store_bank_account()
            .partner_profile_id("partner-1")
            .shop_buyer_id("buyer-4711")
            .body(psi::bank_accounts::types::BankAccountStoreRequest {
                owner: "Erika Mustermann".try_into()?,
                iban: "DE89 3704 0044 0532 0130 00".try_into()?,
                bic: Some("COBADEFFXXX".try_into()?),
                extra_members: Default::default(),
            })
            .send()
            .await?
            .into_inner();
        let reference = stored.bank_account_reference.ok_or("no reference")?;
        show("stored", format!("reference {reference}"));
        let read = accounts
            .get_bank_account_by_reference()
            .partner_profile_id("partner-1")
            .shop_buyer_id("buyer-4711")
            .bank_account_reference(reference)
            .send()
            .await?;
        show("read", format!("HTTP {}", read.status()));
        accounts
            .delete_bank_account()
            .partner_profile_id("partner-1")
            .shop_buyer_id("buyer-4711")
            .bank_account_reference(reference)
            .send()
            .await?;
        show("deleted", "yes");
        Ok(())
    }

    async fn order_status(&self, transaction_id: &str) -> Result {
        use psi::order_status::types::IncludeOption;
        use psi::webhook::InvoiceFormat;
        let order = self
            .client
            .order_status()
            .get_order_status()
            .transaction_id(transaction_id)
            .include(vec![IncludeOption::All])
            .send()
            .await?
            .into_inner();
        if let Some(basket) = &order.basket {
            show(
                "current gross amount",
                basket.current_order_amount_gross.unwrap_or_default(),
            );
        }
        let Some(invoice) = self.receiver.next_invoice(Duration::from_secs(10)).await else {
            show("invoice", "no invoice notification arrived; skipped");
            return Ok(());
        };
        show(
            "invoice notification",
            format!(
                "verified (HMAC-SHA512 of the body), invoice {}",
                invoice.invoice_id.as_deref().unwrap_or("-")
            ),
        );
        // The file from the address the notification gives for it.
        let pdf = self
            .client
            .download_invoice(&invoice, InvoiceFormat::Pdf)
            .await?
            .into_inner();
        let bytes = collect(pdf).await?;
        let path = std::env::temp_dir().join(format!("invoice-{transaction_id}.pdf"));
        std::fs::write(&path, &bytes)?;
        show(
            "invoice",
            format!("{} ({} bytes)", path.display(), bytes.len()),
        );
        Ok(())
    }

    async fn storefront(&self, transaction_id: &str) -> Result {
        let Some(control) = &self.control else {
            show(
                "storefront",
                "skipped: needs an order of your platform (set up in the sandbox only)",
            );
            return Ok(());
        };
        let order_id = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
        // The order's lines are the transaction's first basket.
        let seed = StorefrontOrderSeed {
            order_id: Some(order_id.parse()?),
            transaction_id: Some(transaction_id.to_owned()),
            ..StorefrontOrderSeed::default()
        };
        control.seed_storefront_order(&seed).await?;
        let storefront = self.client.storefront()?;
        let info = storefront
            .get_order_info()
            .order_id(order_id)
            .send()
            .await?
            .into_inner();
        let first_item = first_line_item(&info).ok_or("the order has no items")?;
        let items = |quantity: i64| {
            serde_json::from_value::<psi::storefront::types::OrderItemsRequestV7>(
                serde_json::json!({
                    "items": [{"id": first_item, "quantity": quantity, "updateStock": true}]
                }),
            )
        };
        storefront
            .deliver_order_items_v7()
            .order_id(order_id)
            .body(items(2)?)
            .send()
            .await?;
        show("delivered", format!("2 x {first_item}"));
        storefront
            .refund_order_items_v7()
            .order_id(order_id)
            .body(items(1)?)
            .send()
            .await?;
        show("returned", format!("1 x {first_item}"));
        let credit = psi::storefront::types::AddItemRequest {
            gross_amount: "-5.50".parse()?,
            name: "Goodwill credit".to_owned(),
            tax_id: "0a1b2c3d4e5f60718293a4b5c6d7e8f9".try_into()?,
            extra_members: Default::default(),
        };
        storefront
            .add_order_item_v7()
            .order_id(order_id)
            .body(credit)
            .send()
            .await?;
        show("credit added", "-5.50");
        Ok(())
    }
}

fn fmt_date(date: Option<chrono::NaiveDate>) -> String {
    date.map(|d| d.to_string())
        .unwrap_or_else(|| "-".to_owned())
}

fn first_line_item(info: &psi::storefront::types::LoadResponse) -> Option<String> {
    let data = serde_json::to_value(&info.data).ok()?;
    let items: Vec<serde_json::Value> = match data {
        serde_json::Value::Array(items) => items,
        serde_json::Value::Object(map) => map.into_values().collect(),
        _ => return None,
    };
    items
        .iter()
        .filter_map(|item| item["id"].as_str())
        .find(|id| *id != "shipping")
        .map(str::to_owned)
}

async fn collect(stream: psi::order_status::ByteStream) -> Result<Vec<u8>> {
    use futures_util::TryStreamExt;
    let chunks: Vec<_> = stream.into_inner().try_collect().await?;
    Ok(chunks.concat())
}
