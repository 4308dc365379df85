//! Looks up one transaction's status with the generated client alone.

#[tokio::main]
async fn main() {
    // reqwest's rustls-no-provider needs the provider installed first.
    #[cfg(feature = "graviola")]
    let _ = rustls_graviola::default_provider().install_default();
    let client = psi_transaction_status::Client::new(
        "https://api.example.invalid",
        psi_runtime::Context::new("transaction-status"),
    );
    match client.get_transaction_status().transaction_id("T-1").send().await {
        Ok(status) => println!("{} baskets", status.into_inner().shop_baskets.len()),
        Err(error) => println!("{error}"),
    }
}
