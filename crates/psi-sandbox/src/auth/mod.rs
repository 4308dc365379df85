//! Who may call: access tokens and their audiences, the control door, and
//! the signatures of the webhooks the sandbox sends.
//!
//! A token is issued for one audience of the sandbox's own table
//! ([`crate::audiences`]) and every API accepts only a token whose `aud` is
//! exactly its own audience: a token for one API is refused (401) by every
//! other. A missing, unsigned (`alg: none`), wrongly signed or expired
//! token is refused with 401 too ([`Tokens::check`], through the
//! [`crate::http::extract::Bearer`] extractor).

pub(crate) mod control_door;
pub(crate) mod jwt_hs256;
pub mod signature;
mod tokens;

pub use tokens::{Claims, Keys, Refusal, Tokens, Verified};
