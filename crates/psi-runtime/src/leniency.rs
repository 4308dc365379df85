//! Lenient on what arrives: the constrained types of the generated crates
//! (a `pattern`, a length) check their rule when a value is built or parsed,
//! except inside [`lenient`], where they keep any value as received.
//!
//! The rules of the documents are rules for what psi sends. An answer whose
//! value is outside its stated format (Payment API 1.8's order status with
//! the numeric currency `"978"`) is still the service's answer: failing the
//! whole call over one field would lose it. So the runtime decodes every
//! answer inside [`lenient`], and the generated `Deserialize` of each
//! constrained type asks [`is_lenient`]. The sandbox, which reads requests
//! with the same types, decodes outside it and so refuses what breaks a rule.
//!
//! A flag of the current thread, set only for the duration of one
//! synchronous decode (`serde_json::from_slice` does not yield), rather than
//! a second set of types for answers: the types of requests and answers are
//! the same in the documents, and stay the same in Rust.

use std::cell::Cell;

thread_local! {
    static LENIENT: Cell<bool> = const { Cell::new(false) };
}

/// Runs `decode` with every constrained type keeping any value as received.
pub fn lenient<R>(decode: impl FnOnce() -> R) -> R {
    /// Restores the flag however `decode` ends (a panic included).
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            LENIENT.with(|flag| flag.set(self.0));
        }
    }
    let _restore = Restore(LENIENT.with(|flag| flag.replace(true)));
    decode()
}

/// Whether the current thread is decoding inside [`lenient`]: the generated
/// `Deserialize` of a constrained type then keeps the value unchecked.
pub fn is_lenient() -> bool {
    LENIENT.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_inside_lenient_and_restored_after() {
        assert!(!is_lenient());
        assert!(lenient(is_lenient));
        assert!(lenient(|| lenient(is_lenient)));
        assert!(!is_lenient());
        let panicked = std::panic::catch_unwind(|| lenient(|| panic!("in a decode")));
        assert!(panicked.is_err());
        assert!(!is_lenient(), "a panic restores the flag");
    }
}
