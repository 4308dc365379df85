//! Where the log lines go: stderr, as tracing-subscriber's text or JSON
//! format (`--log-format`), INFO and above. stdout keeps the start-up
//! banner alone, so a script can read the address from its first line.

use crate::args::LogFormat;
use tracing_subscriber::filter::LevelFilter;

pub fn install(format: LogFormat) {
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
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
}
