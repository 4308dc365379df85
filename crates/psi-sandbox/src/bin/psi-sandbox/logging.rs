//! Where the log lines go: stderr, as tracing-subscriber's text or JSON
//! format (`--log-format`), INFO and above. stdout keeps the start-up
//! banner alone, so a script can read the address from its first line.
//!
//! Lines are written by tracing-appender's writer thread through a buffer
//! that it flushes whenever no line is waiting: under load many lines go
//! out in one write, and a request's handler never waits on the terminal
//! or the file behind stderr. It never drops a line (not lossy); the
//! returned guard flushes what is left when `main` returns.

use crate::args::LogFormat;
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::filter::LevelFilter;

pub fn install(format: LogFormat) -> WorkerGuard {
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("psi-sandbox-log")
        .finish(std::io::BufWriter::new(std::io::stderr()));
    let builder = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_max_level(LevelFilter::INFO)
        .with_ansi(false);
    match format {
        LogFormat::Text => builder.with_target(false).init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .init(),
    }
    guard
}
