//! Path segments and query values as a generated `send()` writes them.
//!
//! Path (`psi_runtime::ToPathSegment::push_checked_segment`, for a `String`
//! and for a value written through `Display` in pieces): an empty, `.` or
//! `..` value is refused and writes nothing; any other value is written so
//! that
//!
//! - it percent-decodes (the `percent-encoding` crate) back to the value;
//! - it carries no `/`, `?`, `#`, `\` and no byte a URL parser would encode
//!   (space, controls, non-ASCII, ...), so the `url` crate keeps it as is;
//! - it is no dot segment, in any spelling a URL parser resolves (`.`,
//!   `..`, `%2e`, `.%2E`, ...);
//! - the URL the generated code concatenates, and the base URL joined with
//!   `./<segment>`, parse to exactly the base's path, the segment and what
//!   follows it.
//!
//! Query (reqwest's `query` with progenitor's `QueryParam`, then the
//! runtime's rewrite to literal commas for comma-separated parameters,
//! `psi_runtime::literal_commas`): the URL carries exactly the pairs
//! given, no fragment, and each value decodes (`form_urlencoded`, as the
//! `url` crate reads a query) to the text given; a list of the order status
//! API's `include` options reads back as the same list.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use psi_order_status::types::IncludeOption;
use psi_runtime::__private::progenitor_client::QueryParam;
use psi_runtime::__private::reqwest;
use psi_runtime::{CommaSeparated, ToPathSegment};
use std::fmt;
use std::sync::OnceLock;

const BASE: &str = "https://psi.example/api/v1/";

/// A value written through `Display` a character at a time (as a date or an
/// enum writes itself), which takes the encoder's other path.
struct Pieces(String);

impl fmt::Display for Pieces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        self.0.chars().try_for_each(|c| f.write_char(c))
    }
}

#[derive(Debug, Arbitrary)]
struct Input {
    segment: String,
    /// Indexes of `include` options.
    include: Vec<u8>,
    /// A free-text query value and a comma-separated list of texts.
    note: String,
    texts: Vec<String>,
}

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(reqwest::Client::new)
}

/// A run's input: arbitrary, or a seed of the checked-in corpus (the four
/// bytes `ff ff ff ff` choose it): a text used as the segment, the note and
/// the comma-separated texts (fuzz/seeds.py: the documents' path examples).
#[derive(Debug, Arbitrary)]
enum Case {
    Fuzzed(Input),
    Seed(String),
}

fuzz_target!(|case: Case| {
    let input = match case {
        Case::Fuzzed(input) => input,
        Case::Seed(text) => Input {
            include: (0..5).collect(),
            note: text.clone(),
            texts: text.split(',').map(str::to_owned).collect(),
            segment: text,
        },
    };
    segment(&input.segment, |url| {
        input
            .segment
            .clone()
            .push_checked_segment("transaction_id", url)
    });
    segment(&input.segment, |url| {
        Pieces(input.segment.clone()).push_checked_segment("transaction_id", url)
    });
    query(&input);
});

fn segment<E: fmt::Debug>(value: &str, push: impl Fn(&mut String) -> Result<(), E>) {
    let mut url = String::from(BASE);
    let pushed = push(&mut url);
    if matches!(value, "" | "." | "..") {
        assert!(pushed.is_err(), "{value:?} is written");
        assert_eq!(url, BASE, "a refused segment writes nothing");
        return;
    }
    pushed.unwrap_or_else(|e| panic!("{value:?} refused: {e:?}"));
    let written = &url[BASE.len()..];
    let decoded = percent_encoding::percent_decode_str(written).collect::<Vec<u8>>();
    assert_eq!(
        decoded,
        value.as_bytes(),
        "{written} decodes to another value"
    );
    assert!(
        written
            .bytes()
            .all(|b| b.is_ascii_graphic() && !b"/?#\\\"<>`{}".contains(&b)),
        "{value:?} is written {written}"
    );
    let lower = written.to_ascii_lowercase().replace("%2e", ".");
    assert!(lower != "." && lower != "..", "{written} is a dot segment");

    let expected = format!("/api/v1/{written}/tail");
    let concatenated = url::Url::parse(&format!("{url}/tail")).expect("the URL parses");
    assert_eq!(concatenated.path(), expected, "{value:?}");
    assert_eq!(concatenated.query(), None);
    assert_eq!(concatenated.fragment(), None);
    let joined = url::Url::parse(BASE)
        .unwrap()
        .join(&format!("./{written}/tail"))
        .expect("the segment joins");
    assert_eq!(joined.path(), expected, "{value:?} joined");
    assert_eq!(joined.host_str(), Some("psi.example"));
}

fn query(input: &Input) {
    const OPTIONS: [IncludeOption; 5] = [
        IncludeOption::PaymentStatus,
        IncludeOption::PaymentMethod,
        IncludeOption::DunningStatus,
        IncludeOption::Basket,
        IncludeOption::All,
    ];
    let include: CommaSeparated<IncludeOption> = input
        .include
        .iter()
        .map(|i| OPTIONS[usize::from(*i) % OPTIONS.len()])
        .collect();
    let texts = CommaSeparated(input.texts.clone());
    let mut request = client()
        .get(format!("{BASE}order"))
        .query(&QueryParam::new("include", &include))
        .query(&QueryParam::new("note", &input.note))
        .query(&QueryParam::new("texts", &texts))
        .build()
        .expect("the request builds");
    psi_runtime::literal_commas(&mut request, |name| name == "include" || name == "texts");
    let url = request.url();
    assert_eq!(url.fragment(), None, "{url}");
    assert_eq!(url.path(), "/api/v1/order");
    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    let names: Vec<&str> = pairs.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["include", "note", "texts"], "{url}");
    assert_eq!(pairs[0].1, include.to_string(), "{url}");
    let read: CommaSeparated<IncludeOption> = pairs[0].1.parse().expect("the list reads");
    assert_eq!(read, include, "{url}");
    assert_eq!(pairs[1].1, input.note, "{url}");
    assert_eq!(pairs[2].1, texts.to_string(), "{url}");
    if input
        .texts
        .iter()
        .all(|t| !t.is_empty() && !t.contains(',') && t.trim() == t)
    {
        // A list of texts that are neither empty, nor hold a comma, nor
        // begin or end with white space reads back as itself.
        let read: CommaSeparated<String> = pairs[2].1.parse().expect("the list reads");
        assert_eq!(read, texts, "{url}");
    }
}
