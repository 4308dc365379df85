//! Looks up one transaction's status with reqwest and serde by hand.

#[derive(serde::Deserialize)]
struct TransactionStatus {
    #[serde(default)]
    shop_baskets: Vec<serde_json::Value>,
}

#[tokio::main]
async fn main() -> Result<(), reqwest::Error> {
    #[cfg(feature = "graviola")]
    let _ = rustls_graviola::default_provider().install_default();
    let status: TransactionStatus = reqwest::Client::new()
        .get("https://api.example.invalid/transaction/status/v2/transactions/T-1")
        .bearer_auth("token")
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    println!("{} baskets", status.shop_baskets.len());
    Ok(())
}
