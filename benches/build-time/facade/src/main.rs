//! Looks up one transaction's status through psi's client.

use psi::{Client, Credentials, Environment};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let environment = Environment::new(
        "https://example.invalid",
        "https://api.example.invalid",
        "https://auth.example.invalid",
    )?;
    let client = Client::builder()
        .environment(environment)
        .credentials(Credentials::new("client-id", "client-secret"))
        .build()?;
    let status = client
        .transaction_status()
        .get_transaction_status()
        .transaction_id("T-1")
        .send()
        .await?
        .into_inner();
    println!("{} baskets", status.shop_baskets.len());
    Ok(())
}
