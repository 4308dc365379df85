//! The transaction status answer, written straight from the stored order's
//! compact form ([`crate::state::compact`]): no generated types are built,
//! no string or amount is copied.
//!
//! The compact form keeps each string and amount of the order as its JSON
//! text, as the sandbox serialised it from the generated session request
//! types, so it is already written exactly as serialising it again would
//! write it (amounts are `Decimal`s, whose text keeps its scale). The
//! answer writes those texts back unchanged; only the gross total is
//! parsed, to add it up.
//!
//! The answer is written by hand ([`write`]) with the generated
//! `TransactionStatusResponse`'s field names, in its order, with its rules
//! for leaving a field out, so the bytes are the ones serialising the
//! generated types gives (a test in `transaction_status` compares both).
//! serde's own serialiser cost more than half again: it escapes every key
//! and passes each raw value through a marker struct. The times, dates,
//! ids and strings of the record are written by hand too (chrono's
//! serialisation went through serde_json's escaping a few characters at a
//! time), each exactly as serde_json writes it, falling back to it for
//! what the hand-written forms do not cover.

use crate::state::compact::{string_of, Basket, Order, Text, ITEM_KEYS, SPECIAL_ITEM_KEYS};
use crate::state::{Label, TransactionId};
use axum::body::Bytes;
use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, Timelike};
use psi_runtime::Decimal;
use serde::Serialize;
use std::borrow::Cow;
use std::cell::RefCell;
use std::io::Write as _;
use std::sync::LazyLock;

/// The shop of the order's first basket, whose configuration names the seller.
pub fn first_shop_id<'a>(order: &Order<'a>) -> Option<Cow<'a, str>> {
    let text = order.shop_baskets.first()?.partner_shop_id?;
    string_of(text)
}

/// The same for every answer, so written once.
static MAXIMUM_PROCESSING_OFFSET: LazyLock<String> = LazyLock::new(|| {
    serde_json::to_string(&Decimal::from(super::MAXIMUM_PROCESSING_OFFSET_IN_HOURS))
        .expect("a decimal serialises")
});

/// Whether the answer's `CurrencyCode` takes `text`: its pattern is
/// `^[A-Z]{3}$` (checked here without its regular expression, which cost
/// a lookup more than the rest of its currency; a test compares both).
pub fn is_currency_code(text: &str) -> bool {
    text.len() == 3 && text.bytes().all(|b| b.is_ascii_uppercase())
}

/// What the answer shows of the transaction record itself.
pub struct Record<'a> {
    pub id: TransactionId,
    pub created: DateTime<FixedOffset>,
    pub due_date: NaiveDate,
    pub payment_option: &'a Label,
    pub transfer_type: &'a Label,
}

/// The answer's JSON: `record` with `order`, its baskets sold by
/// `shop_name`, its payment status as of `today`.
///
/// Written into a per-thread buffer that is reused, then copied out at its
/// exact length: one small allocation per answer. (A fresh 2 KB vector
/// cost more: an allocation of that size misses the allocator's per-thread
/// cache, and turning a vector whose capacity is not its length into
/// `Bytes` allocates once more.)
pub fn write(record: &Record<'_>, order: &Order<'_>, shop_name: &str, today: NaiveDate) -> Bytes {
    let reused = BUFFER.try_with(|buffer| {
        let mut buffer = buffer.try_borrow_mut().ok()?;
        buffer.clear();
        write_into(&mut buffer, record, order, shop_name, today);
        let answer = Bytes::copy_from_slice(&buffer);
        // An unusually large answer does not keep its memory.
        if buffer.capacity() > KEPT_BUFFER_BYTES {
            *buffer = Vec::new();
        }
        Some(answer)
    });
    reused.ok().flatten().unwrap_or_else(|| {
        let mut buffer = Vec::new();
        write_into(&mut buffer, record, order, shop_name, today);
        buffer.into()
    })
}

thread_local! {
    /// The answer being written ([`write`]).
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The most a thread's answer buffer keeps between answers (a usual
/// answer is about 1 KB).
const KEPT_BUFFER_BYTES: usize = 64 * 1024;

fn write_into(
    buffer: &mut Vec<u8>,
    record: &Record<'_>,
    order: &Order<'_>,
    shop_name: &str,
    today: NaiveDate,
) {
    let currency = order.currency.and_then(string_of);
    let currency = currency.as_deref().unwrap_or("EUR");
    // A usual answer is about 1 KB.
    buffer.reserve(2048);
    let mut out = Json(buffer);
    out.raw("{\"created\":");
    out.date_time(&record.created);
    if is_currency_code(currency) {
        out.raw(",\"currency\":");
        out.string(currency);
    }
    out.raw(",\"gateway_transaction_id\":\"12-");
    out.digits(record.id.number(), 17);
    out.raw("\"");
    if let Some(reference) = order.partner_transaction_id {
        out.raw(",\"partner_transaction_id\":");
        out.raw(reference);
    }
    out.raw(",\"payment_information\":{\"dunning_status\":{\"level\":0}");
    out.raw(",\"maximum_processing_offset_in_hours\":");
    out.raw(&MAXIMUM_PROCESSING_OFFSET);
    out.raw(",\"payment_method\":{\"payment_option\":");
    out.string(record.payment_option);
    out.raw(",\"transfer_type\":");
    out.string(record.transfer_type);
    out.raw("},\"payment_status\":{\"due_date\":");
    out.date(record.due_date);
    out.raw(",\"outstanding_amount\":");
    // What psi_runtime's Decimal writes: the decimal's own text.
    let _ = write!(out.0, "{}", order.gross_total());
    out.raw(",\"status\":");
    out.string(super::payment_status_label(record.due_date, today));
    out.raw("}}");
    if !order.shop_baskets.is_empty() {
        out.raw(",\"shop_baskets\":[");
        for (index, basket) in order.shop_baskets.iter().enumerate() {
            if index > 0 {
                out.raw(",");
            }
            out.basket(basket, shop_name);
        }
        out.raw("]");
    }
    out.raw("}");
}

/// The answer as it is written. The generated types serialise their
/// fields in declaration order (alphabetical), leaving out absent ones and
/// empty lists; the free-form payment sections are maps, whose keys
/// serde_json sorts. The keys below are written in that order, as plain
/// text (none needs escaping); values go through serde_json, or are the
/// stored order's own JSON text.
struct Json<'b>(&'b mut Vec<u8>);

impl Json<'_> {
    fn raw(&mut self, text: &str) {
        self.0.extend_from_slice(text.as_bytes());
    }

    fn value<T: Serialize + ?Sized>(&mut self, value: &T) {
        serde_json::to_writer(&mut self.0, value).expect("a value serialises");
    }

    /// A string as serde_json writes it: between quotes, as it is when
    /// nothing in it needs escaping (the usual case).
    fn string(&mut self, text: &str) {
        if text.bytes().any(|b| b < b' ' || b == b'"' || b == b'\\') {
            self.value(text);
        } else {
            self.raw("\"");
            self.raw(text);
            self.raw("\"");
        }
    }

    /// `value` in decimal, `width` digits with zeros in front.
    fn digits(&mut self, mut value: u64, width: usize) {
        let mut digits = [b'0'; 20];
        let mut start = digits.len();
        while value > 0 || digits.len() - start < width {
            start -= 1;
            digits[start] = b'0' + (value % 10) as u8;
            value /= 10;
        }
        self.0.extend_from_slice(&digits[start..]);
    }

    /// `"2026-11-20"`, as chrono serialises a date (years 0 to 9999).
    fn date(&mut self, date: NaiveDate) {
        if !(0..=9999).contains(&date.year()) {
            return self.value(&date);
        }
        self.raw("\"");
        self.plain_date(date);
        self.raw("\"");
    }

    fn plain_date(&mut self, date: NaiveDate) {
        self.digits(date.year() as u64, 4);
        self.raw("-");
        self.digits(u64::from(date.month()), 2);
        self.raw("-");
        self.digits(u64::from(date.day()), 2);
    }

    /// A time as chrono serialises it: RFC 3339, the fraction in 0, 3, 6
    /// or 9 digits, the offset to the nearest minute or `Z`; years outside
    /// 0 to 9999 and leap seconds through chrono itself.
    fn date_time(&mut self, time: &DateTime<FixedOffset>) {
        let naive = time.naive_local();
        let nanos = naive.nanosecond();
        if !(0..=9999).contains(&naive.year()) || nanos >= 1_000_000_000 {
            return self.value(time);
        }
        self.raw("\"");
        self.plain_date(naive.date());
        self.raw("T");
        self.digits(u64::from(naive.hour()), 2);
        self.raw(":");
        self.digits(u64::from(naive.minute()), 2);
        self.raw(":");
        self.digits(u64::from(naive.second()), 2);
        if nanos == 0 {
        } else if nanos % 1_000_000 == 0 {
            self.raw(".");
            self.digits(u64::from(nanos / 1_000_000), 3);
        } else if nanos % 1_000 == 0 {
            self.raw(".");
            self.digits(u64::from(nanos / 1_000), 6);
        } else {
            self.raw(".");
            self.digits(u64::from(nanos), 9);
        }
        let offset = time.offset().local_minus_utc();
        if offset == 0 {
            return self.raw("Z\"");
        }
        self.raw(if offset < 0 { "-" } else { "+" });
        let minutes = (offset.unsigned_abs() + 30) / 60;
        self.digits(u64::from(minutes / 60), 2);
        self.raw(":");
        self.digits(u64::from(minutes % 60), 2);
        self.raw("\"");
    }

    /// `{"key":value,...}` of the fields present, but those named in
    /// `left_out` (which the answer's type does not have).
    /// (Bytes of known length are pushed as such: the compiler writes
    /// them in place, where a piece of unknown length calls `memcpy`.)
    fn object(&mut self, keys: &[&str], fields: &[Text<'_>], left_out: &str) {
        self.0.push(b'{');
        let mut first = true;
        for (key, value) in keys.iter().zip(fields) {
            let Some(value) = value else {
                continue;
            };
            if key.len() == left_out.len() && *key == left_out {
                continue;
            }
            if !first {
                self.0.push(b',');
            }
            first = false;
            self.0.push(b'"');
            self.raw(key);
            self.0.extend_from_slice(b"\":");
            self.raw(value);
        }
        self.0.push(b'}');
    }

    fn basket(&mut self, basket: &Basket<'_>, shop_name: &str) {
        self.raw("{");
        if let Some(amount) = basket.gross_amount {
            self.raw("\"gross_amount\":");
            self.raw(amount);
            self.raw(",");
        }
        let items = &basket.items;
        if !items.is_empty() {
            self.raw("\"items\":[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    self.raw(",");
                }
                // The answer's item has every field of the order's item
                // but its description; its identification numbers (which
                // the order does not carry) stay absent and are left out.
                self.object(&ITEM_KEYS, item, "description");
            }
            self.raw("],");
        }
        if let Some(shop) = basket.partner_shop_id {
            self.raw("\"partner_shop_id\":");
            self.raw(shop);
            self.raw(",");
        }
        self.raw("\"partner_shop_name\":");
        self.string(shop_name);
        if let Some(reference) = basket.shop_transaction_id {
            self.raw(",\"shop_transaction_id\":");
            self.raw(reference);
        }
        let special_items = &basket.special_items;
        if !special_items.is_empty() {
            self.raw(",\"special_items\":[");
            for (index, item) in special_items.iter().enumerate() {
                if index > 0 {
                    self.raw(",");
                }
                self.object(&SPECIAL_ITEM_KEYS, item, "description");
            }
            self.raw("]");
        }
        self.raw("}");
    }
}
