//! The save step: after the handler, what the request changed in its
//! tenant's data is handed to the state file's writer, and the answer
//! waits until it is written (with everything handed over before it: the
//! tenant's record, a clock advance, an emptied tenant). So an answer never
//! acknowledges a change that a killed sandbox would lose. Without a state
//! file it does nothing.
//!
//! The rows are serialised under the tenant's data lock, in the order the
//! changes were made; the SQLite work runs on the writer's own thread
//! ([`crate::state::store`]), never on the async workers.

use crate::state::Tenant;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use std::sync::Arc;

/// Around the routes ([`crate::router`]): the answer of `request`, once its
/// tenant's changes are in the state file.
pub async fn after(request: Request, next: Next) -> Response {
    let tenant = request.extensions().get::<Arc<Tenant>>().cloned();
    let response = next.run(request).await;
    if let Some(tenant) = tenant {
        tenant.save().wait().await;
    }
    response
}
