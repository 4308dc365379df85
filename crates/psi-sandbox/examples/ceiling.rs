//! The ceiling of `benches/side-by-side/run`: the fastest an axum 0.8
//! server on the sandbox's runtime can answer, with nothing to do.
//!
//! cargo run --release -p psi-sandbox --example ceiling -- BYTES [PORT]
//!
//! Answers every GET with the same `BYTES`-long JSON body (a string of
//! spaces between quotes, so it stays valid JSON) and `application/json`,
//! from a constant: no routing work beyond one wildcard, no state, no
//! token. Port 0 (the default) picks a free one; the first line printed
//! names the address, as the sandbox's does. Same runtime as the
//! `psi-sandbox` binary: `#[tokio::main]` (multi-threaded, one worker per
//! core).

use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::serve::ListenerExt;
use std::io::Write;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let bytes: usize = args
        .next()
        .and_then(|text| text.parse().ok())
        .expect("usage: ceiling BYTES [PORT]: BYTES must be a whole number of at least 2");
    assert!(
        bytes >= 2,
        "BYTES must be at least 2 (a JSON string's quotes)"
    );
    let port: u16 = args
        .next()
        .map_or(0, |text| text.parse().expect("PORT must be a port number"));
    // `"` + spaces + `"`: exactly `bytes` long and valid JSON.
    let body: &'static [u8] = format!("\"{}\"", " ".repeat(bytes - 2)).into_bytes().leak();
    let answer =
        move || async move { ([(CONTENT_TYPE, "application/json")], body).into_response() };
    let app = axum::Router::new()
        .route("/", get(answer))
        .route("/{*path}", get(answer));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("the ceiling binds a loopback port");
    let address = listener.local_addr().expect("a bound address");
    // As the sandbox does for every connection: answers leave at once.
    let listener = listener.tap_io(|stream| {
        let _ = stream.set_nodelay(true);
    });
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "ceiling listening on http://{address}");
    let _ = stdout.flush();
    drop(stdout);
    axum::serve(listener, app)
        .await
        .expect("the ceiling serves");
}
