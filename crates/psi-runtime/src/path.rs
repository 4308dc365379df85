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

/// Passes text through to `0`, percent-encoding what a path segment must not carry.
struct Encoding<'a, 'b>(&'a mut fmt::Formatter<'b>);

impl Write for Encoding<'_, '_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let bytes = text.as_bytes();
        let mut plain = 0; // start of the run of bytes written as they are
        for (at, &byte) in bytes.iter().enumerate() {
            if must_encode(byte) {
                // `text` splits only at ASCII bytes here, so both runs are whole UTF-8.
                self.0.write_str(&text[plain..at])?;
                let hex = b"0123456789ABCDEF";
                let escaped = [
                    b'%',
                    hex[usize::from(byte >> 4)],
                    hex[usize::from(byte & 0xF)],
                ];
                // Three ASCII bytes: always valid UTF-8.
                self.0
                    .write_str(std::str::from_utf8(&escaped).map_err(|_| fmt::Error)?)?;
                plain = at + 1;
            }
        }
        self.0.write_str(&text[plain..])
    }
}

/// The bytes of the WHATWG URL path-segment percent-encode set as
/// progenitor-client 0.15 defines it (`PATH_SET`): C0 controls, DEL,
/// every non-ASCII byte, and ` "#<>?`{}/%`.
fn must_encode(byte: u8) -> bool {
    !(0x20..0x7F).contains(&byte)
        || matches!(
            byte,
            b' ' | b'"' | b'#' | b'<' | b'>' | b'?' | b'`' | b'{' | b'}' | b'/' | b'%'
        )
}

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
    fn every_byte_is_encoded_as_progenitor_encodes_it() {
        for code in 0..=0x7Fu8 {
            let text = format!("a{}b", code as char);
            assert_eq!(
                PathSegment(&text).to_string(),
                encode_path(&text),
                "byte {code:#04x}"
            );
        }
    }

    #[test]
    fn multi_byte_text_and_other_types_match_progenitor() {
        for text in ["12-34567890123456789", "ä/ö ü%2F", "", "/", "naïve?x=1#f", "€"] {
            assert_eq!(PathSegment(text).to_string(), encode_path(text), "{text:?}");
        }
        assert_eq!((-42i64).path_segment().to_string(), encode_path("-42"));
    }
}
