//! Inflating stored requests into a per-thread buffer.
//!
//! `miniz_oxide::inflate::decompress_to_vec` allocates and zeroes an 11 KB
//! decompressor and a fresh output vector on every call, then grows the
//! vector by doubling (each step a copy). Readers of a whole stored request
//! (invoices, order status, ...) inflate its rest, the part without the
//! baskets, so the sandbox keeps both per worker thread instead: after the
//! first call an inflation allocates nothing.

use miniz_oxide::inflate::core::inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
use miniz_oxide::inflate::core::{decompress, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;
use std::cell::RefCell;

/// The output buffer a thread starts with: a usual stored request's rest
/// (well under 1.7 KB of JSON) fits; larger ones grow it once, and it stays grown.
const FIRST_BUFFER_BYTES: usize = 8 * 1024;

/// A buffer that grew past this is given back after use, so one very
/// large request does not stay resident in every worker thread.
const KEPT_BUFFER_BYTES: usize = 256 * 1024;

struct Inflater {
    decompressor: Box<DecompressorOxide>,
    /// Always fully initialised (its length is its capacity): the
    /// decompressor writes into it as a slice.
    buffer: Vec<u8>,
}

thread_local! {
    static INFLATER: RefCell<Option<Inflater>> = const { RefCell::new(None) };
}

/// Calls `read` with `deflated` inflated; `None` when the bytes are not
/// raw deflate data. Re-entrant: a `read` that inflates again gets its own
/// (allocated) buffer.
pub fn with_inflated<R>(deflated: &[u8], read: impl FnOnce(&[u8]) -> R) -> Option<R> {
    INFLATER.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            // Nested use within `read`: inflate the plain way.
            let json = miniz_oxide::inflate::decompress_to_vec(deflated).ok()?;
            return Some(read(&json));
        };
        let inflater = slot.get_or_insert_with(|| Inflater {
            decompressor: Box::default(),
            buffer: vec![0; FIRST_BUFFER_BYTES],
        });
        let length = inflate_into(inflater, deflated)?;
        let answer = read(&inflater.buffer[..length]);
        if inflater.buffer.len() > KEPT_BUFFER_BYTES {
            inflater.buffer = vec![0; FIRST_BUFFER_BYTES];
        }
        Some(answer)
    })
}

/// Inflates `input` into the inflater's buffer, doubling it while the
/// output does not fit; answers the output's length.
fn inflate_into(inflater: &mut Inflater, mut input: &[u8]) -> Option<usize> {
    let decompressor = &mut *inflater.decompressor;
    decompressor.init();
    let mut out_pos = 0;
    loop {
        let (status, consumed, written) = decompress(
            decompressor,
            input,
            &mut inflater.buffer,
            out_pos,
            TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
        );
        out_pos += written;
        match status {
            TINFLStatus::Done => return Some(out_pos),
            TINFLStatus::HasMoreOutput => {
                input = input.get(consumed..)?;
                let doubled = inflater.buffer.len() * 2;
                inflater.buffer.resize(doubled, 0);
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::with_inflated;

    #[test]
    fn inflates_small_large_and_nested_data() {
        for size in [0, 10, 5_000, 100_000, 600_000] {
            let data: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
            let deflated = miniz_oxide::deflate::compress_to_vec(&data, 6);
            let again = with_inflated(&deflated, |json| json.to_vec());
            assert_eq!(again.as_deref(), Some(&data[..]), "{size} bytes");
        }
        let outer = miniz_oxide::deflate::compress_to_vec(b"outer", 6);
        let inner = miniz_oxide::deflate::compress_to_vec(b"inner", 6);
        let both = with_inflated(&outer, |o| {
            let i = with_inflated(&inner, |i| i.to_vec()).unwrap();
            (o.to_vec(), i)
        });
        assert_eq!(both, Some((b"outer".to_vec(), b"inner".to_vec())));
    }

    #[test]
    fn refuses_what_is_not_deflate_data() {
        assert_eq!(with_inflated(&[0xff; 16], |_| ()), None);
    }
}
