//! Writes `docs/hosted-payment-page.png`: the demo session's hosted payment
//! page (in English) in headless Chromium, as the documents show it.
//!
//! ```text
//! cargo run -p psi-tests --example page_screenshot
//! ```
//!
//! Needs Debian's `chromium` and `chromium-driver` (`bash .ci/browser`).

#[path = "../suite/browser/driver.rs"]
mod driver;

use driver::{Browser, Tools};
use std::error::Error;
use std::path::PathBuf;

/// The width of the picture; its height is the page's.
const WIDTH: u32 = 1280;
/// The window's height before it is fitted to the page.
const START_HEIGHT: u32 = 900;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let tools = Tools::find()?;
    let sandbox = psi_sandbox::Sandbox::start().await?;
    let addresses = sandbox.addresses();
    let client = psi::Client::builder()
        .environment(psi::Environment::new(
            &addresses.base_url,
            &addresses.api_url,
            &addresses.auth_url,
        )?)
        .credentials(psi::Credentials::new(
            psi_sandbox::DEMO_CLIENT_ID,
            psi_sandbox::DEMO_CLIENT_SECRET,
        ))
        .build()?;
    let request = psi_sandbox::demo::session_request("http://127.0.0.1:9/webhook");
    let session = client
        .payment_page()
        .create_session()
        .body(request)
        .send()
        .await?
        .into_inner();
    let landing_page = session.landing_page.ok_or("no landing page")?;

    let browser = Browser::start(&tools, WIDTH, START_HEIGHT).await?;
    browser
        .client
        .goto(&format!("{landing_page}?lang=en"))
        .await?;
    // The whole page in one picture: grow the window to the page's height
    // (measured again after each resize, as the viewport settles).
    let mut height = 0;
    for _ in 0..5 {
        let page_height = browser
            .client
            .execute("return document.documentElement.scrollHeight", Vec::new())
            .await?
            .as_u64()
            .ok_or("no page height")?;
        let viewport = browser
            .client
            .execute("return window.innerHeight", Vec::new())
            .await?
            .as_u64()
            .ok_or("no viewport height")?;
        if page_height <= viewport {
            break;
        }
        // The window is taller than its viewport by the browser's own frame.
        let frame = height.max(START_HEIGHT) - u32::try_from(viewport)?;
        height = u32::try_from(page_height)? + frame;
        browser.client.set_window_size(WIDTH, height).await?;
    }
    let png = browser.client.screenshot().await?;
    browser.close().await;

    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let path = root
        .parent()
        .ok_or("tests/ lives in the workspace")?
        .join("docs/hosted-payment-page.png");
    std::fs::write(&path, png)?;
    println!("wrote {}", path.display());
    Ok(())
}
