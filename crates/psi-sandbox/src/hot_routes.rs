//! The sandbox's most frequent call, a transaction status lookup, served
//! without axum's router ([`crate::per_request`] asks [`HotRoutes`] first).
//!
//! Through the router a lookup paid for matching the path, a clone of the
//! boxed route and a boxed future per call, the path parameters inserted
//! into the request's extensions and the extractors reading them back:
//! about a tenth of its instructions. Here the path is compared with the
//! route's fixed part and the id taken as the rest.
//!
//! Only requests the router would send to the same handler with the same
//! id are taken: `GET`, one non-empty segment after the prefix, nothing in
//! it percent-encoded (so the id is the router's decoded id as it stands)
//! and nothing the path-id rule ([`crate::ids`]) refuses. Everything else
//! (a `HEAD`, an encoded or refused id, a trailing slash) goes through the
//! router as before, and so answers exactly as before. Every layer around
//! the router (the log line, the limits, the faults and the call notes)
//! is around this too; the handler's own work (faults, token check,
//! answer) is the same function the route calls.

use crate::apis::transaction_status::{look_up, LOOKUP_PATH_PREFIX};
use crate::AppState;
use axum::extract::Request;
use axum::http::Method;
use axum::response::Response;

/// The routes served directly, for one sandbox.
#[derive(Clone)]
pub struct HotRoutes {
    state: AppState,
    /// False when a document served from its examples has a route under
    /// the lookup's path: the router may then send some of these paths
    /// elsewhere, so it decides them all.
    lookup: bool,
}

impl HotRoutes {
    pub fn new(state: AppState) -> Self {
        let lookup = !state.examples.routes_under(LOOKUP_PATH_PREFIX);
        HotRoutes { state, lookup }
    }

    /// The lookup's transaction id when this serves `request` (see the
    /// module documentation).
    pub fn lookup_id<'r>(&self, request: &'r Request) -> Option<&'r str> {
        if !self.lookup || request.method() != Method::GET {
            return None;
        }
        let id = request.uri().path().strip_prefix(LOOKUP_PATH_PREFIX)?;
        let plain = !id.is_empty() && !id.bytes().any(|b| b == b'/' || b == b'%');
        (plain && crate::ids::refusal(id).is_none()).then_some(id)
    }

    /// Serves `request` if it is a hot route's, as its route would; gives
    /// it back otherwise.
    pub async fn serve(&self, request: Request) -> Result<Response, Request> {
        match self.lookup_id(&request) {
            Some(id) => Ok(look_up(&self.state, id, request.headers()).await),
            None => Err(request),
        }
    }
}
