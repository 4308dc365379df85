//! Nanoseconds per operation, each in a loop of two million: a status
//! lookup's URL parsed whole (what reqwest does with a URL given as text),
//! its base address alone, a clone of the base parsed once with the path
//! set (the `parsed-base-url.patch` experiment), and the same text parsed
//! as an `http::Uri` (what reqwest does next, to hand it to hyper).

use std::hint::black_box;
use std::time::Instant;

const CALLS: u32 = 2_000_000;
const URL: &str = "http://127.0.0.1:41234/order/paylater/v1/12-34567890123456789/status";
const BASE: &str = "http://127.0.0.1:41234";
const PATH: &str = "/order/paylater/v1/12-34567890123456789/status";

/// Runs `step` CALLS times and prints the nanoseconds of one.
fn measure(name: &str, mut step: impl FnMut() -> usize) {
    let started = Instant::now();
    let mut kept = 0;
    for _ in 0..CALLS {
        kept += step();
    }
    let each = started.elapsed().as_nanos() as f64 / f64::from(CALLS);
    println!("{name:<32} {each:6.0} ns   ({})", black_box(kept) % 10);
}

fn main() {
    let base = url::Url::parse(BASE).unwrap();
    measure("Url::parse of the whole URL", || {
        url::Url::parse(black_box(URL)).unwrap().as_str().len()
    });
    measure("Url::parse of the base alone", || {
        url::Url::parse(black_box(BASE)).unwrap().as_str().len()
    });
    measure("clone of the base, set_path", || {
        let mut joined = black_box(&base).clone();
        joined.set_path(black_box(PATH));
        joined.as_str().len()
    });
    measure("http::Uri parse of the whole URL", || {
        black_box(URL).parse::<http::Uri>().unwrap().path().len()
    });
}
