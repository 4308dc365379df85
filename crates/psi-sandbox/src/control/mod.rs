//! The test-control API under `/__sandbox` ([`wire::PREFIX`]): its server
//! ([`server`], with the control routes each API adds for itself), the
//! typed Rust client the typed Rust
//! client ([`client`]), which shares its shapes with the server through
//! [`wire`].

mod client;
pub mod health;
pub(crate) mod server;
mod tenants;
mod wire;

pub use client::{Control, ControlError};
pub use wire::{JournalEntry, StoredTransaction, PREFIX};
