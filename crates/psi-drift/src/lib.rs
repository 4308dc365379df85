//! What a Payment Services Interface service sends that the bundled OpenAPI
//! documents do not say.
//!
//! A [`Drift`] checks answers, requests and notifications against the
//! documents of `openapi/` (bundled into this crate as JSON by
//! `cargo xtask generate`) and aggregates what differs into [`Finding`]s:
//! an undeclared member (found without the documents saying
//! `additionalProperties: false`; a member of any branch of an `allOf`,
//! `oneOf` or `anyOf` is declared), a value of another type, outside its
//! format, pattern, length or bounds, or not in its enum, a missing required
//! member, an undeclared status or media type, a body that is not JSON.
//! Each finding names the document and the JSON pointer of the schema that
//! says otherwise, counts how often it was seen, and keeps up to three
//! example values, redacted: never a secret, a token or a signature, an IBAN
//! by its last four characters only.
//!
//! psi uses it in process (`psi::ClientBuilder::drift`), the sandbox's
//! `proxy` for clients in any language. Checking never changes what is
//! checked: it reads bytes and records.

mod compiled;
pub mod documents;
mod drift;
mod finding;
mod redact;
mod schema;
mod walk;

pub use compiled::{Api, Documents, Route, INVOICE_NOTIFICATION, SESSION_NOTIFICATION};
pub use drift::{Drift, Limits, Note};
pub use finding::{Direction, Finding, Kind, Report};
pub use redact::{example, last_four, looks_like_iban};

#[cfg(test)]
mod tests;
