//! The hand-written lines against `tracing-subscriber`'s own formats, on
//! the same events at the same (fixed) time.

use super::*;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracing_subscriber::fmt::time::FormatTime;
use tracing_subscriber::fmt::MakeWriter;

/// 2026-11-23T07:15:44.870789Z, with nanoseconds the formats cut off.
fn fixed_time() -> SystemTime {
    UNIX_EPOCH + Duration::new(1_795_418_144, 870_789_123)
}

/// The reference formats' timer: the fixed time, as chrono writes it.
struct FixedTimer;

impl FormatTime for FixedTimer {
    fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
        let time: chrono::DateTime<chrono::Utc> = fixed_time().into();
        write!(w, "{}", time.format("%Y-%m-%dT%H:%M:%S%.6fZ"))
    }
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Captured {
    type Writer = Captured;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// What `emit` logs in `style`: through the formats as configured before
/// (`reference`), and through [`RequestLines`] around them (`ours`).
fn both(style: Style, emit: impl Fn()) -> (String, String) {
    let reference = Captured::default();
    let ours = Captured::default();
    let builder = |writer: Captured| {
        tracing_subscriber::fmt()
            .with_writer(writer)
            .with_max_level(tracing::level_filters::LevelFilter::TRACE)
            .with_ansi(false)
            .with_timer(FixedTimer)
    };
    match style {
        Style::Text => {
            let plain = builder(reference.clone()).with_target(false).finish();
            tracing::subscriber::with_default(plain, &emit);
            let wrapped = builder(ours.clone())
                .with_target(false)
                .map_event_format(|format| {
                    RequestLines::new(Style::Text, format).with_clock(fixed_time)
                })
                .finish();
            tracing::subscriber::with_default(wrapped, &emit);
        }
        Style::Json => {
            let plain = builder(reference.clone())
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .finish();
            tracing::subscriber::with_default(plain, &emit);
            let wrapped = builder(ours.clone())
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .map_event_format(|format| {
                    RequestLines::new(Style::Json, format).with_clock(fixed_time)
                })
                .finish();
            tracing::subscriber::with_default(wrapped, &emit);
        }
    }
    (reference.text(), ours.text())
}

fn assert_same(emit: impl Fn()) {
    for style in [Style::Text, Style::Json] {
        let (reference, ours) = both(style, &emit);
        assert!(!reference.is_empty());
        assert_eq!(ours, reference, "{style:?}");
    }
}

/// The request event as `psi_sandbox`'s request log writes it.
fn request(method: &str, path: &str, operation: &'static str, status: u16, millis: f64) {
    tracing::info!(
        target: REQUEST_LOG_TARGET,
        method = %method,
        path = %path,
        operation_id = operation,
        status = status,
        duration_ms = millis,
        "request"
    );
}

#[test]
fn request_lines_are_the_formats_own() {
    assert_same(|| {
        request(
            "GET",
            "/transaction/status/v2/transactions/12-00000000000000001",
            "getTransactionStatus",
            200,
            0.126,
        );
        request("POST", "/x/DE89…3000?a=%22b%0a", "-", 404, 12.0);
        // What only escaping gets right.
        request("GET", "/a\"b\\c\u{7f}\u{85}", "op \"quoted\"\\", 500, 0.0);
        request("PATCH", "/ü/€", "é\u{1b}", 201, 999_999.999);
    });
}

#[test]
fn durations_are_written_as_the_formats_write_them() {
    let millis: Vec<f64> = (0..2_000u64)
        .map(|i| (i * 7_919 % 1_000_003) as f64 / 1e3)
        .chain([0.001, 0.01, 0.1, 1.0, 1.5, 100.25, 1e6, 1e8 + 0.001])
        .chain([1e9, 1e12, 1e-4, 1.0 / 3.0, f64::NAN, f64::INFINITY, -1.0])
        .collect();
    assert_same(|| {
        for &value in &millis {
            request("GET", "/", "-", 200, value);
        }
    });
}

#[test]
fn other_events_and_fields_are_left_to_the_format() {
    assert_same(|| {
        // Other targets.
        tracing::info!(stored = 3, kept = 1, "seeded");
        tracing::warn!(target: "elsewhere", path = "/x", "request");
        // A request event with fields of every kind, and odd ones.
        tracing::info!(
            target: REQUEST_LOG_TARGET,
            flag = true,
            negative = -5i64,
            big = 1u128 << 100,
            text = "plain",
            r#type = "raw name",
            "request \u{1b}[31m red"
        );
        let error = io::Error::other("broken");
        tracing::error!(target: REQUEST_LOG_TARGET, error = &error as &dyn std::error::Error, "failed");
        tracing::debug!(target: REQUEST_LOG_TARGET, bytes = 5u64, "message with a \"quote\"");
        // Inside a span both formats write the span.
        let span = tracing::info_span!("connection", peer = "x");
        let _entered = span.enter();
        request("GET", "/in/a/span", "-", 200, 1.0);
    });
}

#[test]
fn the_time_is_formatted_once_per_second_and_exactly() {
    for nanos in [0, 999, 1_000, 870_789_123, 999_999_999] {
        for second in [0, 59, 1_795_418_144, 1_795_418_145, 253_402_300_799] {
            let now = UNIX_EPOCH + Duration::new(second, nanos);
            let mut line = String::new();
            assert!(timestamp(&mut line, now));
            let time: chrono::DateTime<chrono::Utc> = now.into();
            assert_eq!(line, time.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string());
        }
    }
    // Year 10000 and before 1970: left to the format.
    assert!(!timestamp(
        &mut String::new(),
        UNIX_EPOCH + Duration::from_secs(253_402_300_800)
    ));
    assert!(!timestamp(
        &mut String::new(),
        UNIX_EPOCH - Duration::from_secs(1)
    ));
}
