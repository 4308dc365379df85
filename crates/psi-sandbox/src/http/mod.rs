//! The HTTP pieces every API's routes use: the middleware around the one
//! axum `Router` ([`crate::router`] puts them together), the extractors,
//! and the connection server; the error bodies are [`crate::refusals`]'s.
//!
//! Around the router, before routing, outermost first (each an axum
//! middleware, a tower layer, wrapping the finished router once):
//!
//! 1. [`request_log`]: one INFO event per request, with the operationId
//!    the route declared ([`operation`]), also kept in the journal
//!    ([`crate::state::journal`]).
//! 2. [`panic`]: a handler's panic becomes a 500 in the owning API's error
//!    shape, so the client sees an answer and the sandbox keeps serving.
//! 3. [`crate::auth::control_door`]: what a control call must show.
//! 4. [`limits`]: size limits, and numbers with an exponent rewritten.
//! 5. [`tenant`]: the tenant the request belongs to, as a request extension
//!    (the control door has decided it for a control call).
//! 6. The documented answers as a request extension
//!    ([`operation::Operations`]), for the routes' declared operations
//!    ([`operation::declare`]), whose armed faults are the tenant's.
//! 7. [`save`]: what the request changed in its tenant's data is written to
//!    the state file before the answer leaves.
//!
//! Inside the router, after routing: the path-id rule ([`crate::ids`]) and
//! per route its operation ([`operation`]).

pub mod extract;
pub mod limits;
pub mod operation;
pub mod panic;
pub mod request_log;
pub mod save;
pub mod serve;
pub mod tenant;
