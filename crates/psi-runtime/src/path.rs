//! Path parameters written into a request's URL, percent-encoded on the way.
//!
//! progenitor's generated code builds each URL as
//! `format!("{}/x/{}", base, encode_path(&value.to_string()))`: a copy of
//! the value, then a second `String` for its encoded form, both allocated
//! and freed on every call. The generator writes `value.path_segment()`
//! (from [`ToPathSegment`]) in that place instead: the value is formatted
//! straight into the URL being built and encoded as it goes, with exactly
//! the bytes `encode_path` encodes.

use std::fmt::{self, Display, Write};

/// A path parameter as it appears in a URL: `value`'s `Display`, with every
/// byte progenitor's `encode_path` encodes written as `%XX`.
#[doc(hidden)]
pub struct PathSegment<'a, T: ?Sized>(pub &'a T);

impl<T: Display + ?Sized> Display for PathSegment<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(Encoding(f), "{}", self.0)
    }
}

/// `value.path_segment()`: a method, so that it finds `Display` through
/// `Deref` exactly as the `value.to_string()` it replaces does (a newtype
/// over `String` without `Display` of its own is written as its `String`).
#[doc(hidden)]
pub trait ToPathSegment: Display {
    /// This value as a percent-encoded path segment.
    fn path_segment(&self) -> PathSegment<'_, Self> {
        PathSegment(self)
    }
}

impl<T: Display + ?Sized> ToPathSegment for T {}

/// A request's URL written into one allocation of `capacity` bytes: the
/// generated `send()` passes the base URL's length plus what its path
/// needs. (`format!` sizes its string from the literal pieces only, none
/// when the format starts with the base URL's `{}`, and then grows it two
/// or three times per call.) The same text as `format!`, and like it a
/// panic if a `Display` fails.
#[doc(hidden)]
pub fn format_url(capacity: usize, parts: fmt::Arguments<'_>) -> String {
    let mut url = String::with_capacity(capacity);
    url.write_fmt(parts)
        .expect("a formatting trait implementation returned an error");
    url
}

/// Passes text through to `0`, percent-encoding what a path segment must not carry.
struct Encoding<'a, 'b>(&'a mut fmt::Formatter<'b>);

impl Write for Encoding<'_, '_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let bytes = text.as_bytes();
        let mut plain = 0; // start of the run of bytes written as they are
        for (at, &byte) in bytes.iter().enumerate() {
            if must_encode(byte) {
                self.0.write_str(ascii(&bytes[plain..at])?)?;
                let hex = b"0123456789ABCDEF";
                let escaped = [
                    b'%',
                    hex[usize::from(byte >> 4)],
                    hex[usize::from(byte & 0xF)],
                ];
                self.0.write_str(ascii(&escaped)?)?;
                plain = at + 1;
            }
        }
        if plain == 0 {
            // Nothing encoded (nearly every id): the text as it is.
            return self.0.write_str(text);
        }
        self.0.write_str(ascii(&bytes[plain..])?)
    }
}

/// A run of bytes written as they are: ASCII only, as every non-ASCII byte
/// is encoded (so it may start inside a multi-byte character of `text`
/// without being one).
fn ascii(run: &[u8]) -> Result<&str, fmt::Error> {
    std::str::from_utf8(run).map_err(|_| fmt::Error)
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
    use super::{PathSegment, ToPathSegment};
    use progenitor_client::encode_path;

    /// A newtype that only derefs to `String`, as typify writes constrained strings.
    struct Id(String);
    impl std::ops::Deref for Id {
        type Target = String;
        fn deref(&self) -> &String {
            &self.0
        }
    }

    #[test]
    fn a_newtype_is_written_through_its_deref_like_to_string() {
        let id = Id("a b".to_owned());
        assert_eq!(id.path_segment().to_string(), encode_path(&id.to_string()));
    }

    #[test]
    fn every_character_is_encoded_as_progenitor_encodes_it() {
        for code in (0..=0x7Fu32).chain([0x80, 0xE4, 0x7FF, 0x800, 0x20AC, 0x1F600]) {
            let code = char::from_u32(code).unwrap();
            let text = format!("a{code}b");
            assert_eq!(
                PathSegment(&text).to_string(),
                encode_path(&text),
                "{code:?}"
            );
        }
    }

    #[test]
    fn multi_byte_text_and_other_types_match_progenitor() {
        for text in [
            "12-34567890123456789",
            "ä/ö ü%2F",
            "",
            "/",
            "naïve?x=1#f",
            "€",
        ] {
            assert_eq!(PathSegment(text).to_string(), encode_path(text), "{text:?}");
        }
        assert_eq!((-42i64).path_segment().to_string(), encode_path("-42"));
    }
}
