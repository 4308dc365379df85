//! `psi-sandbox health`: one GET of a running sandbox's health check
//! (`/__sandbox/health`), for a container's `HEALTHCHECK`, where there is
//! no shell or curl.
//!
//! The sandbox serves plain HTTP/1.1 only, so one request written to a TCP
//! stream is the whole client: nothing from the environment (a proxy, the
//! TLS store a slim image lacks) stands between the check and the sandbox.
//! It blocks: the command does nothing else meanwhile.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The most of an answer read: the status line comes first.
const MOST_READ: u64 = 64 * 1024;

/// `Ok` when the sandbox at `url` answers its health check with 200 within
/// `timeout` (connecting, sending and reading together); else what
/// happened instead.
pub fn check(url: &str, timeout: Duration) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("--url {url}: {e}"))?;
    if parsed.scheme() != "http" {
        return Err(format!(
            "--url {url}: give an http:// address (the sandbox serves plain HTTP)"
        ));
    }
    let host = parsed
        .host_str()
        .ok_or_else(|| format!("--url {url}: no host"))?;
    let port = parsed.port_or_known_default().unwrap_or(80);
    let authority = format!("{host}:{port}");
    let target = format!("{url}{}", psi_sandbox::health::PATH);
    let failed = |error: std::io::Error| format!("{target}: {error}");
    let left = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|left| !left.is_zero())
            .ok_or_else(|| {
                format!(
                    "{target}: no answer within {}",
                    humantime::format_duration(timeout)
                )
            })
    };

    let address = authority
        .to_socket_addrs()
        .map_err(failed)?
        .next()
        .ok_or_else(|| format!("{target}: {host} has no address"))?;
    let mut stream = TcpStream::connect_timeout(&address, left()?).map_err(failed)?;
    stream.set_write_timeout(Some(left()?)).map_err(failed)?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: psi-sandbox-health\r\n\
         Connection: close\r\n\r\n",
        path = psi_sandbox::health::PATH
    );
    stream.write_all(request.as_bytes()).map_err(failed)?;
    stream.set_read_timeout(Some(left()?)).map_err(failed)?;
    let mut answer = Vec::new();
    stream
        .take(MOST_READ)
        .read_to_end(&mut answer)
        .map_err(failed)?;
    left()?;

    let status_line = answer
        .split(|&byte| byte == b'\r' || byte == b'\n')
        .next()
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    match status_line.split(' ').nth(1) {
        Some("200") => Ok(()),
        _ if status_line.is_empty() => Err(format!("{target}: closed without an answer")),
        _ => Err(format!("{target}: {status_line}")),
    }
}
