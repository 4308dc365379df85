//! Headless Chromium driven through chromedriver (WebDriver), for the
//! browser tests and the page screenshot (`examples/page_screenshot.rs`
//! includes this file). Self-contained: it uses no other suite module.

use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Attempts to reach a starting chromedriver, 50 ms apart (10 s in all).
const DRIVER_ATTEMPTS: usize = 200;

/// Where Debian's `chromium` and `chromium-driver` put their programs;
/// `CHROMIUM` and `CHROMEDRIVER` override.
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The two programs a browser run needs.
#[derive(Debug, Clone)]
pub struct Tools {
    pub chromium: PathBuf,
    pub chromedriver: PathBuf,
}

impl Tools {
    /// Both programs, or which one is missing.
    pub fn find() -> Result<Tools, String> {
        let program = |variable: &str, default: &str| {
            let path = std::env::var_os(variable)
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(default));
            if path.is_file() {
                Ok(path)
            } else {
                Err(format!(
                    "{} not found (set {variable} to use another path)",
                    path.display()
                ))
            }
        };
        Ok(Tools {
            chromium: program("CHROMIUM", CHROMIUM)?,
            chromedriver: program("CHROMEDRIVER", CHROMEDRIVER)?,
        })
    }
}

/// A chromedriver child process with one headless Chromium session.
pub struct Browser {
    pub client: Client,
    _driver: Driver,
}

/// The chromedriver process and the profile directory: on drop, also when
/// a test panics before the session is closed, the driver's process group
/// (chromedriver and the Chromium it started) is killed and the directory
/// removed.
struct Driver {
    child: Child,
    profile: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // chromedriver leads its own process group (see `Browser::start`),
        // so its id names the group of it and its browser.
        #[cfg(unix)]
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Browser {
    /// Starts chromedriver on a free loopback port and opens a headless
    /// Chromium with a fresh profile and a `width` x `height` window.
    pub async fn start(tools: &Tools, width: u32, height: u32) -> Result<Browser, String> {
        let port = free_port().map_err(|e| format!("no free port: {e}"))?;
        let mut command = Command::new(&tools.chromedriver);
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{} did not start: {e}", tools.chromedriver.display()))?;
        let driver = Driver {
            child,
            profile: fresh_profile(),
        };
        let capabilities = capabilities(tools, &driver.profile, width, height);
        let client = connect(port, &capabilities).await?;
        client
            .set_window_size(width, height)
            .await
            .map_err(|e| format!("window size: {e}"))?;
        Ok(Browser {
            client,
            _driver: driver,
        })
    }

    /// Ends the browser session; the driver ends when `self` is dropped.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }
}

/// Connects to the driver once it listens; it needs a moment after spawn.
async fn connect(port: u16, capabilities: &Capabilities) -> Result<Client, String> {
    let address = format!("http://127.0.0.1:{port}");
    let mut last_error = String::new();
    for _ in 0..DRIVER_ATTEMPTS {
        if std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok() {
            match ClientBuilder::new(HttpConnector::new())
                .capabilities(capabilities.clone())
                .connect(&address)
                .await
            {
                Ok(client) => return Ok(client),
                Err(error) => last_error = error.to_string(),
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!(
        "chromedriver on port {port} did not open a session: {last_error}"
    ))
}

fn capabilities(tools: &Tools, profile: &Path, width: u32, height: u32) -> Capabilities {
    let options = json!({
        "binary": tools.chromium,
        "args": [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--disable-crash-reporter",
            "--disable-breakpad",
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", profile.display()),
        ],
    });
    let mut capabilities = Capabilities::new();
    capabilities.insert("goog:chromeOptions".to_owned(), options);
    capabilities
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

/// A new, empty profile directory for one browser.
fn fresh_profile() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("psi-chromium-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
