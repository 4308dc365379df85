//! Path parameters appended to a request's URL, percent-encoded on the way.
//!
//! progenitor's generated code builds each URL as
//! `format!("{}/x/{}", base, encode_path(&value.to_string()))`: a copy of
//! the value, a second `String` for its encoded form, and the `fmt`
//! machinery for the whole URL on every call. The generator builds the URL
//! by pushing its pieces instead, and for each path parameter writes
//! `value.push_path_segment(&mut url)` (from [`ToPathSegment`]): the value
//! is encoded straight into the URL, with exactly the bytes `encode_path`
//! encodes.

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
    /// `encode_path` encodes written as `%XX`.
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
/// controls, DEL, every non-ASCII byte, and ` "#<>?`{}/%`. A table, as this
/// runs for every byte of every path parameter.
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
                b' ' | b'"' | b'#' | b'<' | b'>' | b'?' | b'`' | b'{' | b'}' | b'/' | b'%'
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

    #[test]
    fn every_character_is_encoded_as_progenitor_encodes_it() {
        for code in (0..=0x7Fu32).chain([0x80, 0xE4, 0x7FF, 0x800, 0x20AC, 0x1F600]) {
            let code = char::from_u32(code).unwrap();
            let text = format!("a{code}b");
            let expected = encode_path(&text);
            assert_eq!(pushed(&text), expected, "String {code:?}");
            assert_eq!(pushed(text.as_str()), expected, "str {code:?}");
            let alone = code.to_string();
            assert_eq!(pushed(&alone), encode_path(&alone), "alone {code:?}");
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
}
