//! A body's content coding undone for checking only (the bytes pass on as
//! they came): gzip and deflate, with miniz_oxide (already in the build for
//! the invoice PDF), bounded by the size the proxy reads.

use miniz_oxide::inflate::{decompress_to_vec_with_limit, decompress_to_vec_zlib_with_limit};

/// What a body is for the checker.
#[derive(Debug, PartialEq, Eq)]
pub enum Decoded {
    /// The bytes to check.
    Body(Vec<u8>),
    /// Larger than `limit` once decoded.
    TooLarge,
    /// A coding this proxy does not undo (`br`, `zstd`), or bytes that are
    /// not what the coding says: the body is not checked.
    Unreadable,
}

/// `body` with the `Content-Encoding` `coding` undone, at most `limit` bytes.
pub fn decode(coding: Option<&str>, body: &[u8], limit: usize) -> Decoded {
    let codings: Vec<String> = coding
        .unwrap_or("")
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    let mut bytes = body.to_vec();
    // Codings are listed in the order they were applied: undone last first.
    for coding in codings.iter().rev() {
        let result = match coding.as_str() {
            "gzip" | "x-gzip" => gunzip(&bytes, limit),
            // `deflate` is zlib-wrapped by the RFC; some servers send it raw.
            "deflate" => decompress_to_vec_zlib_with_limit(&bytes, limit)
                .or_else(|_| decompress_to_vec_with_limit(&bytes, limit))
                .map_err(|e| e.status),
            _ => return Decoded::Unreadable,
        };
        match result {
            Ok(decoded) => bytes = decoded,
            Err(miniz_oxide::inflate::TINFLStatus::HasMoreOutput) => return Decoded::TooLarge,
            Err(_) => return Decoded::Unreadable,
        }
    }
    if bytes.len() > limit {
        return Decoded::TooLarge;
    }
    Decoded::Body(bytes)
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
            Decoded::Body(body.to_vec())
        );
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(body, 6);
        assert_eq!(
            decode(Some("deflate"), &zlib, 100),
            Decoded::Body(body.to_vec())
        );
        assert_eq!(decode(None, body, 100), Decoded::Body(body.to_vec()));
        assert_eq!(
            decode(Some("gzip"), &gzip(&[b' '; 1000]), 100),
            Decoded::TooLarge
        );
        assert_eq!(decode(Some("br"), body, 100), Decoded::Unreadable);
        assert_eq!(decode(Some("gzip"), body, 100), Decoded::Unreadable);
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }
}
