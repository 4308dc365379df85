//! Where the request lines go: stderr, as text or JSON (`--log-format`),
//! INFO and above. stdout keeps the start-up banner alone, so a script can
//! read the address from its first line.
//!
//! The lines are `tracing-subscriber`'s text and JSON formats; the request
//! lines among them are written by [`RequestLines`], byte for byte the
//! same and much cheaper (a lookup is a few tens of microseconds).

use crate::args::LogFormat;
use crate::request_lines::{RequestLines, Style};
use tracing_subscriber::filter::LevelFilter;

pub fn install(format: LogFormat) {
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(LevelFilter::INFO)
        .with_ansi(false);
    match format {
        LogFormat::Text => builder
            .with_target(false)
            .map_event_format(|format| RequestLines::new(Style::Text, format))
            .init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .map_event_format(|format| RequestLines::new(Style::Json, format))
            .init(),
    }
}
