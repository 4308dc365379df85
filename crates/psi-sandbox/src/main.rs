//! `cargo run -p psi-sandbox`: the sandbox on 127.0.0.1:8787 (or `--port N`).

use std::time::Duration;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut port = psi_sandbox::DEFAULT_PORT;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next().and_then(|p| p.parse().ok()).unwrap_or(port),
            _ => {
                eprintln!(
                    "usage: psi-sandbox [--port N]   (default {})",
                    psi_sandbox::DEFAULT_PORT
                );
                std::process::exit(2);
            }
        }
    }
    let sandbox =
        psi_sandbox::Sandbox::start_on(([127, 0, 0, 1], port).into(), Duration::from_secs(1800))
            .await?;
    let url = sandbox.url();
    println!("psi sandbox listening on {url}");
    println!();
    // The shop configuration API has no address in the specification: the
    // sandbox serves it under {url}/shop-config with that audience.
    println!("{}", sandbox.addresses().exports());
    println!(
        "export PSI_CLIENT_ID={} PSI_CLIENT_SECRET={}",
        psi_sandbox::DEMO_CLIENT_ID,
        psi_sandbox::DEMO_CLIENT_SECRET
    );
    println!(
        "export PSI_PLATFORM_CLIENT_ID={} PSI_PLATFORM_CLIENT_SECRET={}",
        psi_sandbox::DEMO_PLATFORM_CLIENT_ID,
        psi_sandbox::DEMO_PLATFORM_CLIENT_SECRET
    );
    println!("webhook secret: {}", psi_sandbox::DEMO_WEBHOOK_SECRET);
    println!("test-control API: {url}{}", psi_sandbox::control::PREFIX);
    tokio::signal::ctrl_c().await?;
    drop(sandbox);
    Ok(())
}
