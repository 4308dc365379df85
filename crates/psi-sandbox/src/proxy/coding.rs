//! A body's content coding undone for checking only (the bytes pass on as
//! they came): gzip and deflate with miniz_oxide (already in the build for
//! the invoice PDF), br with brotli-decompressor (pure Rust), bounded by
//! the size the proxy reads.

use miniz_oxide::inflate::{decompress_to_vec_with_limit, decompress_to_vec_zlib_with_limit};
use std::borrow::Cow;
use std::io::Read;

/// What a body is for the checker.
#[derive(Debug, PartialEq, Eq)]
pub enum Decoded<'a> {
    /// The bytes to check: the body itself when it has no coding.
    Body(Cow<'a, [u8]>),
    /// Larger than `limit` once decoded.
    TooLarge,
    /// A coding this proxy does not undo (`zstd`), or bytes that are not
    /// what the coding says: the body is not checked. Says which and why.
    Unreadable(String),
}

/// `body` with the `Content-Encoding` `coding` undone, at most `limit` bytes.
pub fn decode<'a>(coding: Option<&str>, body: &'a [u8], limit: usize) -> Decoded<'a> {
    let codings: Vec<String> = coding
        .unwrap_or("")
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    let mut bytes = Cow::Borrowed(body);
    // Codings are listed in the order they were applied: undone last first.
    for coding in codings.iter().rev() {
        let result = match coding.as_str() {
            "gzip" | "x-gzip" => gunzip(&bytes, limit),
            // `deflate` is zlib-wrapped by the RFC; some servers send it raw.
            "deflate" => decompress_to_vec_zlib_with_limit(&bytes, limit)
                .or_else(|_| decompress_to_vec_with_limit(&bytes, limit))
                .map_err(|e| e.status),
            "br" => match unbrotli(&bytes, limit) {
                Ok(decoded) => Ok(decoded),
                Err(Unbrotli::TooLarge) => return Decoded::TooLarge,
                Err(Unbrotli::Invalid) => {
                    return Decoded::Unreadable(format!("{coding}: the bytes are not {coding}"))
                }
            },
            _ => return Decoded::Unreadable(format!("{coding}: a coding the proxy does not undo")),
        };
        match result {
            Ok(decoded) => bytes = Cow::Owned(decoded),
            Err(miniz_oxide::inflate::TINFLStatus::HasMoreOutput) => return Decoded::TooLarge,
            Err(_) => return Decoded::Unreadable(format!("{coding}: the bytes are not {coding}")),
        }
    }
    if bytes.len() > limit {
        return Decoded::TooLarge;
    }
    Decoded::Body(bytes)
}

enum Unbrotli {
    TooLarge,
    Invalid,
}

/// RFC 7932: at most `limit` bytes read out; one more means too large.
fn unbrotli(bytes: &[u8], limit: usize) -> Result<Vec<u8>, Unbrotli> {
    let mut out = Vec::new();
    brotli_decompressor::Decompressor::new(bytes, 4096)
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|_| Unbrotli::Invalid)?;
    if out.len() > limit {
        return Err(Unbrotli::TooLarge);
    }
    Ok(out)
}

/// RFC 1952: the header (with its optional fields) skipped, the deflate
/// data inflated; the trailer's CRC is not checked (the bytes are not
/// changed, only read).
fn gunzip(bytes: &[u8], limit: usize) -> Result<Vec<u8>, miniz_oxide::inflate::TINFLStatus> {
    use miniz_oxide::inflate::TINFLStatus::Failed;
    if bytes.len() < 18 || bytes[0] != 0x1f || bytes[1] != 0x8b || bytes[2] != 8 {
        return Err(Failed);
    }
    let flags = bytes[3];
    let mut at = 10;
    if flags & 0x04 != 0 {
        let extra = usize::from(u16::from_le_bytes([
            *bytes.get(at).ok_or(Failed)?,
            *bytes.get(at + 1).ok_or(Failed)?,
        ]));
        at += 2 + extra;
    }
    for flag in [0x08, 0x10] {
        if flags & flag != 0 {
            let end = bytes.get(at..).ok_or(Failed)?.iter().position(|b| *b == 0);
            at += end.ok_or(Failed)? + 1;
        }
    }
    if flags & 0x02 != 0 {
        at += 2;
    }
    let data = bytes.get(at..).ok_or(Failed)?;
    decompress_to_vec_with_limit(data, limit).map_err(|e| e.status)
}

/// `body` gzip-encoded (for tests of the proxy and its upstreams).
pub fn gzip(body: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.extend(miniz_oxide::deflate::compress_to_vec(body, 6));
    // CRC-32 is not read by `decode`; a real one for other readers.
    out.extend(crc32(body).to_le_bytes());
    out.extend((body.len() as u32).to_le_bytes());
    out
}

/// `body` brotli-encoded as stored (uncompressed) meta-blocks, RFC 7932
/// 9.2 (for tests of the proxy and its upstreams).
pub fn brotli(body: &[u8]) -> Vec<u8> {
    let mut out = Bits::default();
    out.push(0, 1); // WBITS: 16
    for chunk in body.chunks(1 << 16) {
        out.push(0, 1); // ISLAST
        out.push(0, 2); // MNIBBLES: 4
        out.push(chunk.len() as u32 - 1, 16); // MLEN - 1
        out.push(1, 1); // ISUNCOMPRESSED
        out.bytes.extend_from_slice(chunk); // byte-aligned
        out.used = 8;
    }
    out.push(1, 1); // ISLAST
    out.push(1, 1); // ISLASTEMPTY
    out.bytes
}

/// Bits written least significant first; `used` bits of the last byte taken.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    used: u8,
}

impl Bits {
    fn push(&mut self, value: u32, count: u8) {
        for bit in 0..count {
            if self.bytes.is_empty() || self.used == 8 {
                self.bytes.push(0);
                self.used = 0;
            }
            if value >> bit & 1 == 1 {
                if let Some(last) = self.bytes.last_mut() {
                    *last |= 1 << self.used;
                }
            }
            self.used += 1;
        }
    }
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_and_deflate_are_undone_within_the_limit() {
        let body = br#"{"status":"OPEN"}"#;
        assert_eq!(
            decode(Some("gzip"), &gzip(body), 100),
            Decoded::Body(body[..].into())
        );
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(body, 6);
        assert_eq!(
            decode(Some("deflate"), &zlib, 100),
            Decoded::Body(body[..].into())
        );
        assert_eq!(decode(None, body, 100), Decoded::Body(body[..].into()));
        assert_eq!(
            decode(Some("gzip"), &gzip(&[b' '; 1000]), 100),
            Decoded::TooLarge
        );
        assert!(
            matches!(decode(Some("zstd"), body, 100), Decoded::Unreadable(why) if why.starts_with("zstd"))
        );
        assert!(matches!(
            decode(Some("gzip"), body, 100),
            Decoded::Unreadable(_)
        ));
        assert!(matches!(
            decode(Some("br"), body, 100),
            Decoded::Unreadable(_)
        ));
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn br_is_undone_within_the_limit() {
        let body = br#"{"status":"OPEN"}"#;
        assert_eq!(
            decode(Some("br"), &brotli(body), 100),
            Decoded::Body(body[..].into())
        );
        assert_eq!(decode(Some("br"), &brotli(body), 10), Decoded::TooLarge);
        let long = vec![b'x'; 70_000];
        assert_eq!(
            decode(Some("br"), &brotli(&long), 100_000),
            Decoded::Body(long[..].into())
        );
        assert_eq!(
            decode(Some("br"), &brotli(b""), 10),
            Decoded::Body(b""[..].into())
        );
    }
}
