//! The one line per request, written by hand: the same bytes
//! `tracing-subscriber`'s text and JSON formats write for the sandbox's
//! request events ([`psi_sandbox::REQUEST_LOG_TARGET`]), at a fraction of
//! the cost (its formatter went through `core::fmt` for every piece, and
//! formatted the whole date and time for every line).
//!
//! [`RequestLines`] wraps the subscriber's own format: a request event
//! outside any span is written here, into a per-thread buffer, with the
//! date and time to the second formatted once per second per thread;
//! every other event, and a request event whose fields this writer does
//! not know how to write exactly as the format would (a control
//! character in the message, a field type it does not handle), goes to
//! the wrapped format unchanged. The tests compare both on the same events.

use psi_sandbox::REQUEST_LOG_TARGET;
use std::cell::{Cell, RefCell};
use std::fmt::{self, Write as _};
use std::time::{SystemTime, UNIX_EPOCH};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// Which of `tracing-subscriber`'s formats the lines reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `fmt()` without the target: `time  INFO request name=value ...`.
    Text,
    /// `fmt().json().flatten_event(true).with_current_span(false)`.
    Json,
}

/// A [`FormatEvent`] writing request events itself and everything else
/// through `inner` (the format of the same `style`).
pub struct RequestLines<F> {
    style: Style,
    inner: F,
    clock: fn() -> SystemTime,
}

impl<F> RequestLines<F> {
    pub fn new(style: Style, inner: F) -> Self {
        RequestLines {
            style,
            inner,
            clock: SystemTime::now,
        }
    }

    /// The same, reading the time from `clock` (for the tests).
    #[cfg(test)]
    fn with_clock(mut self, clock: fn() -> SystemTime) -> Self {
        self.clock = clock;
        self
    }
}

thread_local! {
    /// The line being written; reused, so a line allocates nothing.
    static LINE: RefCell<String> = const { RefCell::new(String::new()) };
    /// The last second written and its text (`2026-11-23T07:15:44.`).
    static SECOND: Cell<(u64, [u8; SECOND_TEXT])> = const { Cell::new((u64::MAX, [0; SECOND_TEXT])) };
}

impl<S, N, F> FormatEvent<S, N> for RequestLines<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        // Inside a span both formats also write the span: leave that to them.
        if event.metadata().target() == REQUEST_LOG_TARGET && ctx.event_scope().is_none() {
            let written = LINE.try_with(|line| {
                let mut line = line.try_borrow_mut().ok()?;
                line.clear();
                write_line(&mut line, self.style, event, (self.clock)())
                    .then(|| writer.write_str(&line))
            });
            if let Ok(Some(result)) = written {
                return result;
            }
        }
        self.inner.format_event(ctx, writer, event)
    }
}

/// Writes the whole line of `event` at `now` into `line`; false when it
/// cannot be written exactly as the wrapped format would.
fn write_line(line: &mut String, style: Style, event: &Event<'_>, now: SystemTime) -> bool {
    let metadata = event.metadata();
    match style {
        Style::Text => {
            if !timestamp(line, now) {
                return false;
            }
            line.push(' ');
            line.push_str(text_level(metadata.level()));
            line.push(' ');
            let mut fields = TextFields {
                line,
                first: true,
                exact: true,
            };
            event.record(&mut fields);
            if !fields.exact {
                return false;
            }
            line.push('\n');
        }
        Style::Json => {
            line.push_str("{\"timestamp\":\"");
            if !timestamp(line, now) {
                return false;
            }
            line.push_str("\",\"level\":\"");
            line.push_str(metadata.level().as_str());
            line.push('"');
            let mut fields = JsonFields { line, exact: true };
            event.record(&mut fields);
            if !fields.exact {
                return false;
            }
            line.push_str(",\"target\":");
            json_string(line, metadata.target());
            line.push_str("}\n");
        }
    }
    true
}

/// The text format's level, padded to five characters.
fn text_level(level: &Level) -> &'static str {
    match *level {
        Level::TRACE => "TRACE",
        Level::DEBUG => "DEBUG",
        Level::INFO => " INFO",
        Level::WARN => " WARN",
        _ => "ERROR",
    }
}

/// `2026-11-23T07:15:44.` is 20 bytes for the years 0 to 9999.
const SECOND_TEXT: usize = 20;

/// `now` as the formats write it, `2026-11-23T07:15:44.870789Z` (UTC, to
/// the microsecond); the part to the second is formatted once per second.
fn timestamp(line: &mut String, now: SystemTime) -> bool {
    let Ok(since_epoch) = now.duration_since(UNIX_EPOCH) else {
        return false;
    };
    let second = since_epoch.as_secs();
    let Ok((cached, mut text)) = SECOND.try_with(Cell::get) else {
        return false;
    };
    if cached != second {
        let Some(formatted) = second_text(second) else {
            return false;
        };
        text = formatted;
        let _ = SECOND.try_with(|slot| slot.set((second, text)));
    }
    let Ok(text) = std::str::from_utf8(&text) else {
        return false;
    };
    line.push_str(text);
    push_padded(line, since_epoch.subsec_micros(), 6);
    line.push('Z');
    true
}

/// The date and time to the second, with the dot after it.
fn second_text(second: u64) -> Option<[u8; SECOND_TEXT]> {
    let time = chrono::DateTime::from_timestamp(i64::try_from(second).ok()?, 0)?;
    let text = time.format("%Y-%m-%dT%H:%M:%S.").to_string();
    text.as_bytes().try_into().ok()
}

/// `value` in decimal with at least `width` digits (zeros in front).
fn push_padded(line: &mut String, mut value: u32, width: usize) {
    let mut digits = [b'0'; 10];
    let mut start = digits.len();
    while value > 0 || digits.len() - start < width {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
    }
    for &digit in &digits[start..] {
        line.push(char::from(digit));
    }
}

fn push_u64(line: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for &digit in &digits[start..] {
        line.push(char::from(digit));
    }
}

/// A duration in milliseconds rounded to the microsecond (as the request
/// log gives it) the way both `{:?}` and serde_json write an `f64`:
/// `0.126`, `12.0`. False for any other value.
fn push_millis(line: &mut String, value: f64) -> bool {
    if !(0.0..1e9).contains(&value) {
        return false;
    }
    let thousandths = (value * 1000.0).round();
    if thousandths / 1000.0 != value {
        return false;
    }
    // Below 1e12 an f64 holds every integer exactly.
    let thousandths = thousandths as u64;
    push_u64(line, thousandths / 1000);
    line.push('.');
    let mut fraction = thousandths % 1000;
    if fraction == 0 {
        line.push('0');
        return true;
    }
    let mut digits = 3;
    while fraction % 10 == 0 {
        fraction /= 10;
        digits -= 1;
    }
    push_padded(line, fraction as u32, digits);
    true
}

/// What the text format writes, field by field (its `DefaultVisitor`):
/// the message as it is, then `name=value` with values as `{:?}`.
struct TextFields<'a> {
    line: &'a mut String,
    first: bool,
    exact: bool,
}

impl TextFields<'_> {
    /// The separator and `name=`; false to write nothing (or give up).
    fn start(&mut self, field: &Field) -> bool {
        let name = field.name();
        // Names the format treats apart: left to it.
        if !self.exact || name.starts_with("log.") || name.starts_with("r#") {
            self.exact = false;
            return false;
        }
        if !self.first {
            self.line.push(' ');
        }
        self.first = false;
        if name != "message" {
            self.line.push_str(name);
            self.line.push('=');
        }
        true
    }

    /// The format escapes terminal control characters in the message.
    fn check_message(&mut self, from: usize) {
        if self.line[from..].contains(|c: char| {
            matches!(
                c,
                '\x1b' | '\x07' | '\x08' | '\x0c' | '\x7f' | '\u{80}'..='\u{9f}'
            )
        }) {
            self.exact = false;
        }
    }
}

impl Visit for TextFields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if !self.start(field) {
            return;
        }
        let from = self.line.len();
        let _ = write!(self.line, "{value:?}");
        if field.name() == "message" {
            self.check_message(from);
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if !self.start(field) {
            return;
        }
        if field.name() == "message" {
            let from = self.line.len();
            self.line.push_str(value);
            self.check_message(from);
        } else if value
            .bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
        {
            // `{:?}` of a string that has nothing to escape.
            self.line.push('"');
            self.line.push_str(value);
            self.line.push('"');
        } else {
            let _ = write!(self.line, "{value:?}");
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if self.start(field) {
            push_u64(self.line, value);
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if self.start(field) {
            let _ = write!(self.line, "{value}");
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        if self.start(field) {
            self.line.push_str(if value { "true" } else { "false" });
        }
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if self.start(field) && !push_millis(self.line, value) {
            let _ = write!(self.line, "{value:?}");
        }
    }

    fn record_i128(&mut self, _: &Field, _: i128) {
        self.exact = false;
    }

    fn record_u128(&mut self, _: &Field, _: u128) {
        self.exact = false;
    }

    fn record_bytes(&mut self, _: &Field, _: &[u8]) {
        self.exact = false;
    }

    fn record_error(&mut self, _: &Field, _: &(dyn std::error::Error + 'static)) {
        self.exact = false;
    }
}

/// What the flattened JSON format writes (tracing-serde's map visitor):
/// `,"name":value`, strings and `{:?}` texts as JSON strings.
struct JsonFields<'a> {
    line: &'a mut String,
    exact: bool,
}

impl JsonFields<'_> {
    fn key(&mut self, field: &Field) -> bool {
        if !self.exact {
            return false;
        }
        self.line.push(',');
        json_string(self.line, field.name());
        self.line.push(':');
        true
    }
}

impl Visit for JsonFields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if !self.key(field) {
            return;
        }
        let from = self.line.len();
        let _ = write!(self.line, "\"{value:?}");
        if needs_json_escapes(&self.line[from + 1..]) {
            let text = self.line.split_off(from + 1);
            self.line.truncate(from);
            json_string(self.line, &text);
        } else {
            self.line.push('"');
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if self.key(field) {
            json_string(self.line, value);
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if self.key(field) {
            push_u64(self.line, value);
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if self.key(field) {
            let _ = write!(self.line, "{value}");
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        if self.key(field) {
            self.line.push_str(if value { "true" } else { "false" });
        }
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if self.key(field) && !push_millis(self.line, value) {
            match serde_json::to_string(&value) {
                Ok(text) => self.line.push_str(&text),
                Err(_) => self.exact = false,
            }
        }
    }

    fn record_i128(&mut self, _: &Field, _: i128) {
        self.exact = false;
    }

    fn record_u128(&mut self, _: &Field, _: u128) {
        self.exact = false;
    }

    fn record_bytes(&mut self, _: &Field, _: &[u8]) {
        self.exact = false;
    }

    fn record_error(&mut self, _: &Field, _: &(dyn std::error::Error + 'static)) {
        self.exact = false;
    }
}

fn needs_json_escapes(text: &str) -> bool {
    text.bytes().any(|b| b < b' ' || b == b'"' || b == b'\\')
}

/// `text` as serde_json writes a string.
fn json_string(line: &mut String, text: &str) {
    if needs_json_escapes(text) {
        let escaped = serde_json::to_string(text).expect("a string serialises");
        line.push_str(&escaped);
    } else {
        line.push('"');
        line.push_str(text);
        line.push('"');
    }
}

#[cfg(test)]
mod tests;
