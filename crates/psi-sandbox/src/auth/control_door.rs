//! What a control call must show before it is served, since the control API
//! can end sessions, move the clock, arm faults and read buyers' data:
//!
//! | check | refusal |
//! |---|---|
//! | the `Host` names this sandbox: the public URL's host or a loopback name (`localhost`, `*.localhost`, `127.x.x.x`, `[::1]`) | 403 |
//! | `Authorization: Bearer <token>` names the operator's `--control-token` or a tenant's control token; without the header, the sandbox has no `--control-token` (it then listens on loopback only) | 401 |
//! | a `tenant` query parameter is the caller's own tenant when the caller is a tenant | 403 |
//! | a write (`POST`, `PUT`, `PATCH`, `DELETE`) says `Content-Type: application/json` | 415 |
//!
//! The door also decides whose data the call acts on, and puts it on the
//! request as extensions: the tenant (`Arc<Tenant>`) and who called
//! ([`ControlCaller`]). A tenant's control token acts on that tenant alone;
//! the operator's token and a tokenless call act on the tenant the `tenant`
//! query parameter names, the demo tenant without one. A `tenant` no tenant
//! has is answered 404 by the route (after routing, so an undeclared method
//! is still a 405).
//!
//! The `Host` check keeps a web page whose name is rebound to 127.0.0.1
//! (DNS rebinding) from reading the answers; the content type keeps a page
//! the developer opens from writing with a no-cors `fetch`, which can send
//! only `text/plain`, form or multipart bodies without the browser asking
//! first (and the sandbox never answers such a question with CORS headers).
//! Every refusal is `{"error"}`, the control API's shape. The health check
//! (`/__sandbox/health`, [`crate::control::health`]) passes without any of these.

use crate::refusals::control_error;
use crate::state::{Tenant, Tenants};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// Path prefix of the control API.
pub const PREFIX: &str = "/__sandbox";

/// The health check's path: under the prefix, but past no door.
pub const HEALTH_PATH: &str = "/__sandbox/health";

/// What the door checks against: the name this sandbox answers to, the
/// operator's control token, when there is one, and the tenants' tokens.
/// Cheap to clone; the middleware reaches it as a substate of the
/// application state.
#[derive(Clone)]
pub struct ControlDoor(Arc<Keys>);

struct Keys {
    /// The public URL's host name: a control call's `Host` names it or a
    /// loopback name.
    host: String,
    /// The operator's token (`--control-token`).
    token: Option<String>,
    tenants: Arc<Tenants>,
}

/// Who made a control call; a request extension the door adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlCaller {
    /// With the operator's `--control-token`: every tenant.
    Operator,
    /// Without a token, on a sandbox without `--control-token`: every
    /// tenant, as the operator.
    Tokenless,
    /// With a tenant's control token: that tenant alone.
    Tenant,
}

impl ControlCaller {
    /// Whether the caller may act on every tenant (create, list, delete
    /// them, reset all).
    pub fn sees_all(self) -> bool {
        self != ControlCaller::Tenant
    }
}

/// The tenant a call's `tenant` parameter names and no tenant has; a request
/// extension in place of the tenant, so that the route answers 404
/// ([`crate::http::extract::Current`]) once routing has found it.
#[derive(Debug, Clone)]
pub struct UnknownTenant(pub String);

/// Whether the call named its tenant with the `tenant` query parameter; a
/// request extension beside [`ControlCaller`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TenantNamed(pub bool);

/// Whether `path` is the control API's (`/__sandbox` or below it).
pub fn is_control_path(path: &str) -> bool {
    path.strip_prefix(PREFIX)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

impl ControlDoor {
    /// The door of a sandbox reached at `url` (`http://host[:port]`).
    pub fn new(url: &str, token: Option<String>, tenants: Arc<Tenants>) -> Self {
        let host = host_name(url.strip_prefix("http://").unwrap_or(url));
        ControlDoor(Arc::new(Keys {
            host,
            token,
            tenants,
        }))
    }

    /// The token control calls must carry, when there is one.
    pub fn token(&self) -> Option<&str> {
        self.0.token.as_deref()
    }
}

/// Before routing ([`crate::http`]): a control call that fails a check is
/// refused; every other request goes on.
pub async fn guard(State(door): State<ControlDoor>, mut request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if !is_control_path(path) || path == HEALTH_PATH {
        return next.run(request).await;
    }
    match admit(&door.0, &request) {
        Ok(Admitted {
            tenant,
            caller,
            named,
        }) => {
            let extensions = request.extensions_mut();
            match tenant {
                Ok(tenant) => {
                    extensions.insert(tenant);
                }
                Err(unknown) => {
                    extensions.insert(unknown);
                }
            }
            extensions.insert(caller);
            extensions.insert(TenantNamed(named));
            next.run(request).await
        }
        Err(refused) => refused,
    }
}

/// A control call the door lets through.
struct Admitted {
    /// The tenant it acts on, or the unknown one it names.
    tenant: Result<Arc<Tenant>, UnknownTenant>,
    caller: ControlCaller,
    /// Whether it named its tenant (`?tenant=`).
    named: bool,
}

/// What the door knows of a control call; the refusal when it may not be
/// served.
fn admit(door: &Keys, request: &Request) -> Result<Admitted, Response> {
    let refuse = |status: StatusCode, message: String| Err(control_error(status, message));
    let headers = request.headers();
    if !host_is_this_sandbox(headers, &door.host) {
        return refuse(
            StatusCode::FORBIDDEN,
            format!(
                "Host: the control API answers only its own name ({}) or a loopback name such as localhost",
                door.host
            ),
        );
    }
    let (caller, own) = match bearer(headers) {
        Some(given) if door.token.as_deref().is_some_and(|token| same(given, token)) => {
            (ControlCaller::Operator, None)
        }
        Some(given) => match door.tenants.by_control_token(given) {
            Some(tenant) => (ControlCaller::Tenant, Some(tenant)),
            None => {
                return refuse(
                    StatusCode::UNAUTHORIZED,
                    "Authorization: the token is neither the operator's (--control-token) nor a tenant's control token"
                        .to_owned(),
                )
            }
        },
        None if door.token.is_none() => (ControlCaller::Tokenless, None),
        None => {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "Authorization: the control API needs `Bearer <control token>` (--control-token, or a tenant's control_token)"
                    .to_owned(),
            )
        }
    };
    let named = tenant_parameter(request.uri().query());
    let tenant = match (own, named) {
        (Some(own), None) => Ok(own),
        (Some(own), Some(name)) if name == own.id => Ok(own),
        (Some(_), Some(name)) => {
            return refuse(
                StatusCode::FORBIDDEN,
                format!("tenant: {name} is not the tenant of this control token"),
            )
        }
        (None, None) => Ok(door.tenants.demo()),
        // Refused by the route (404), after an unknown method's 405.
        (None, Some(name)) => door
            .tenants
            .get(name)
            .ok_or_else(|| UnknownTenant(name.to_owned())),
    };
    let writes = matches!(
        *request.method(),
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    );
    if writes && !is_json(headers) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type: a control API write must be application/json".to_owned(),
        );
    }
    Ok(Admitted {
        tenant,
        caller,
        named: named.is_some(),
    })
}

/// The value of the query's `tenant` parameter (tenant names need no
/// percent-decoding: `^[a-z0-9][a-z0-9-]{0,39}$`).
fn tenant_parameter(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("tenant="))
}

/// The host part of a `Host` value (`name`, `name:port`, `[::1]:port`),
/// lowercased, without a trailing dot.
fn host_name(value: &str) -> String {
    let value = value.trim();
    let host = if value.starts_with('[') {
        value.find(']').map_or(value, |end| &value[..=end])
    } else {
        match value.rsplit_once(':') {
            Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
            _ => value,
        }
    };
    host.trim_end_matches('.').to_ascii_lowercase()
}

fn host_is_this_sandbox(headers: &HeaderMap, own: &str) -> bool {
    let Some(value) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let host = host_name(value);
    host == own || is_loopback_name(&host)
}

fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "[::1]"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The bearer token of the call, when it has one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

/// Compared as digests, so the time taken says nothing about the token.
fn same(given: &str, token: &str) -> bool {
    Sha256::digest(given.as_bytes()) == Sha256::digest(token.as_bytes())
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_without_port_and_loopback_names() {
        assert_eq!(host_name("Sandbox.Internal:8787"), "sandbox.internal");
        assert_eq!(host_name("localhost."), "localhost");
        assert_eq!(host_name("[::1]:8787"), "[::1]");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
        for loopback in [
            "localhost",
            "app.localhost",
            "127.0.0.1",
            "127.1.2.3",
            "[::1]",
        ] {
            assert!(is_loopback_name(loopback), "{loopback}");
        }
        for foreign in [
            "evil.example",
            "localhost.evil.example",
            "10.0.0.1",
            "[::2]",
        ] {
            assert!(!is_loopback_name(foreign), "{foreign}");
        }
    }
}
