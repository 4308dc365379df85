//! Path parameters appended to a request's URL, percent-encoded on the way.
//!
//! progenitor's generated code builds each URL as
//! `format!("{}/x/{}", base, encode_path(&value.to_string()))`: a copy of
//! the value, a second `String` for its encoded form, and the `fmt`
//! machinery for the whole URL on every call. The generator builds the URL
//! by pushing its pieces instead, and for each path parameter writes
//! `value.push_path_segment(&mut url)` (from [`ToPathSegment`]): the value
//! is encoded straight into the URL, with the bytes `encode_path` encodes
//! and the backslash (see `must_encode`).

use crate::error::InvalidPathSegment;
use std::any::Any;
use std::fmt::{self, Display, Write};

/// `value.push_path_segment(&mut url)`: a method, so that it finds `Display`
/// through `Deref` exactly as the `value.to_string()` it replaces does (a
/// newtype over `String` without `Display` of its own is written as its
/// `String`).
#[doc(hidden)]
pub trait ToPathSegment {
    /// Appends this value's `Display` to `url`, with every byte progenitor's
    /// `encode_path` encodes, and `\\`, written as `%XX`.
    fn push_path_segment(&self, url: &mut String);

    /// [`push_path_segment`](Self::push_path_segment), refusing a segment
    /// that is empty, `.` or `..`: a URL parser removes dot segments, so
    /// such a value would send the call (and its bearer token) to another
    /// resource. `parameter` names the parameter in the error.
    fn push_checked_segment(
        &self,
        parameter: &'static str,
        url: &mut String,
    ) -> Result<(), InvalidPathSegment> {
        let start = url.len();
        self.push_path_segment(url);
        let rule = match &url[start..] {
            "" => "must not be empty",
            "." => "must not be `.`",
            ".." => "must not be `..`",
            _ => return Ok(()),
        };
        url.truncate(start);
        Err(InvalidPathSegment { parameter, rule })
    }
}

impl ToPathSegment for str {
    fn push_path_segment(&self, url: &mut String) {
        push_encoded(url, self);
    }
}

/// `'static` for the check that finds a `String` (path parameters are
/// owned values).
impl<T: Display + 'static> ToPathSegment for T {
    fn push_path_segment(&self, url: &mut String) {
        // A `String` displays as its text: encode that without `fmt` (the
        // check is on the type, decided at compile time).
        if let Some(text) = (self as &dyn Any).downcast_ref::<String>() {
            return push_encoded(url, text);
        }
        write!(Encoding(url), "{self}")
            .expect("a formatting trait implementation returned an error");
    }
}

/// Appends `text` to `url`, percent-encoding what a path segment must not carry.
fn push_encoded(url: &mut String, text: &str) {
    let mut plain = 0; // start of the run of bytes written as they are
    for (at, &byte) in text.as_bytes().iter().enumerate() {
        if must_encode(byte) {
            // A non-empty run is ASCII only (every other byte is encoded),
            // so both its ends are character boundaries.
            if plain < at {
                url.push_str(&text[plain..at]);
            }
            url.push('%');
            url.push(char::from(HEX[usize::from(byte >> 4)]));
            url.push(char::from(HEX[usize::from(byte & 0xF)]));
            plain = at + 1;
        }
    }
    if plain < text.len() {
        url.push_str(&text[plain..]);
    }
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// A `Display` written into the URL being built, encoded as it goes.
struct Encoding<'a>(&'a mut String);

impl Write for Encoding<'_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        push_encoded(self.0, text);
        Ok(())
    }
}

/// Whether `byte` is written as `%XX`: the WHATWG URL path-segment
/// percent-encode set as progenitor-client 0.15 defines it (`PATH_SET`): C0
/// controls, DEL, every non-ASCII byte, and ` "#<>?`{}/%`; and, beyond
/// progenitor's set, `\`, which a URL parser reads as `/` in an `http` or
/// `https` URL, so a value `a\..\..\x` would leave its segment and send the
/// call (and its bearer token) to another resource. A table, as this runs
/// for every byte of every path parameter.
fn must_encode(byte: u8) -> bool {
    ENCODED[usize::from(byte)]
}

const ENCODED: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = byte < 0x20
            || byte >= 0x7F
            || matches!(
                byte as u8,
                b' ' | b'"' | b'#' | b'<' | b'>' | b'?' | b'`' | b'{' | b'}' | b'/' | b'%' | b'\\'
            );
        byte += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::ToPathSegment;
    use progenitor_client::encode_path;
    use std::fmt::{self, Write as _};

    /// A newtype that only derefs to `String`, as typify writes constrained strings.
    struct Id(String);
    impl std::ops::Deref for Id {
        type Target = String;
        fn deref(&self) -> &String {
            &self.0
        }
    }

    /// Derefs to `String` but displays otherwise: its own `Display` is the
    /// one `to_string()` uses, so it is the one written.
    struct Shown(String);
    impl std::ops::Deref for Shown {
        type Target = String;
        fn deref(&self) -> &String {
            &self.0
        }
    }
    impl fmt::Display for Shown {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "<{}>/{}", self.0, 7)
        }
    }

    /// Text through `Display` in pieces (as a date or an enum writes it).
    struct Pieces(&'static str);
    impl fmt::Display for Pieces {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.chars().try_for_each(|c| f.write_char(c))
        }
    }

    /// What the generated `send()` appends after its base URL.
    fn pushed<T: ToPathSegment + ?Sized>(value: &T) -> String {
        let mut url = String::from("https://h/x/");
        value.push_path_segment(&mut url);
        url.strip_prefix("https://h/x/").unwrap().to_owned()
    }

    #[test]
    fn empty_and_dot_segments_are_refused_naming_the_parameter() {
        for value in ["", ".", ".."] {
            let mut url = String::from("https://h/x/");
            let refused = value
                .to_owned()
                .push_checked_segment("transaction_id", &mut url)
                .unwrap_err();
            assert_eq!(refused.parameter, "transaction_id");
            assert_eq!(url, "https://h/x/", "nothing of {value:?} is written");
        }
        // Dots among other text, and an encoded dot, are data.
        for value in ["...", ".a", "%2E%2E", "a..b"] {
            let mut url = String::new();
            value
                .to_owned()
                .push_checked_segment("transaction_id", &mut url)
                .unwrap();
        }
    }

    #[test]
    fn a_newtype_is_written_through_its_deref_like_to_string() {
        let id = Id("a b/ä%".to_owned());
        let mut url = String::new();
        id.push_path_segment(&mut url); // as generated: method-call syntax
        assert_eq!(url, encode_path(&id.to_string()));

        let shown = Shown("a b".to_owned());
        let mut url = String::new();
        shown.push_path_segment(&mut url);
        assert_eq!(url, encode_path(&shown.to_string()));
        assert_eq!(url, "%3Ca%20b%3E%2F7");
    }

    /// progenitor's encoding, and a backslash as `%5C`.
    fn expected(text: &str) -> String {
        encode_path(text).replace('\\', "%5C")
    }

    #[test]
    fn every_character_is_encoded_as_progenitor_encodes_it_and_a_backslash() {
        for code in (0..=0x7Fu32).chain([0x80, 0xE4, 0x7FF, 0x800, 0x20AC, 0x1F600]) {
            let code = char::from_u32(code).unwrap();
            let text = format!("a{code}b");
            let expected = expected(&text);
            assert_eq!(pushed(&text), expected, "String {code:?}");
            assert_eq!(pushed(text.as_str()), expected, "str {code:?}");
            let alone = code.to_string();
            assert_eq!(pushed(&alone), self::expected(&alone), "alone {code:?}");
        }
    }

    #[test]
    fn multi_byte_text_and_other_types_match_progenitor() {
        for text in [
            "12-34567890123456789",
            "ä/ö ü%2F",
            "",
            "/",
            "%",
            "naïve?x=1#f",
            "€",
            "ä€😀",
        ] {
            assert_eq!(pushed(text), encode_path(text), "{text:?}");
            assert_eq!(pushed(&text.to_owned()), encode_path(text), "{text:?}");
            assert_eq!(pushed(&Pieces(text)), encode_path(text), "Display {text:?}");
        }
        assert_eq!(pushed(&-42i64), encode_path("-42"));
        assert_eq!(pushed(&-42i64), "-42");
    }
    /// Found by the property below: a backslash is a `/` to a URL parser in
    /// an `https` URL, so `..\\..\\admin` left its segment.
    #[test]
    fn a_backslash_stays_in_its_segment() {
        let mut url = String::from("https://api.example.com/order/");
        r"..\..\admin".push_checked_segment("id", &mut url).unwrap();
        assert_eq!(url, "https://api.example.com/order/..%5C..%5Cadmin");
        let parsed = reqwest::Url::parse(&url).unwrap();
        assert_eq!(parsed.path(), "/order/..%5C..%5Cadmin");
    }

    /// The bytes of a `%XX`-encoded segment, decoded.
    fn decoded(segment: &str) -> Vec<u8> {
        let bytes = segment.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at] == b'%' {
                let hex = std::str::from_utf8(&bytes[at + 1..at + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                at += 3;
            } else {
                out.push(bytes[at]);
                at += 1;
            }
        }
        out
    }

    proptest::proptest! {
        /// Whatever the value, what is sent decodes back to it and never
        /// leaves its segment; only the values a URL parser would treat as
        /// no segment or a dot segment are refused.
        #[test]
        fn a_segment_decodes_back_to_its_value_and_stays_one_segment(value in ".*") {
            let mut url = String::from("https://api.example.com/x/");
            let start = url.len();
            match value.push_checked_segment("id", &mut url) {
                Ok(()) => {
                    let segment = &url[start..];
                    proptest::prop_assert!(!segment.contains(['/', '?', '#', '\\']), "{}", segment);
                    proptest::prop_assert!(segment.is_ascii());
                    proptest::prop_assert_eq!(decoded(segment), value.as_bytes());
                    proptest::prop_assert_eq!(segment, expected(&value));
                    // And a URL parser keeps it as the one last segment.
                    let parsed = reqwest::Url::parse(&url).unwrap();
                    let last = parsed.path_segments().unwrap().next_back().unwrap().to_owned();
                    proptest::prop_assert_eq!(parsed.path().matches('/').count(), 2);
                    proptest::prop_assert_eq!(last, segment);
                }
                Err(_) => {
                    proptest::prop_assert!(matches!(value.as_str(), "" | "." | ".."));
                    proptest::prop_assert_eq!(url.len(), start, "nothing is left behind");
                }
            }
        }
    }
}
