//! The test-control API under `/__sandbox` ([`wire::PREFIX`]): its server
//! ([`server`], with the control routes each API adds for itself), the
//! door every control call passes first ([`door`]), and the typed Rust
//! client ([`client`]), which shares its shapes with the server through
//! [`wire`].

mod client;
pub(crate) mod door;
pub mod health;
pub(crate) mod server;
mod wire;

pub use client::{Control, ControlError};
pub use wire::{JournalEntry, StoredTransaction, PREFIX};
