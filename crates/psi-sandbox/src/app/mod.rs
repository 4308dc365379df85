//! The application assembled: everything the handlers and middleware share
//! ([`Shared`]), made once from the [`Settings`], and how each of them
//! reaches its part of it. Routes and middleware never name [`App`]: each
//! extracts the parts it needs as axum substates ([`FromRef`]), so the
//! floors below this one import nothing from it.

use crate::auth::control_door::ControlDoor;
use crate::auth::{Keys, Tokens};
use crate::control::Seeding;
use crate::examples::{Preferred, Served};
use crate::outbox::Outbox;
use crate::settings::{Limits, Settings, StartError};
use crate::state::tenants::{Credentials, TenantError};
use crate::state::{store, Tenants};
use axum::extract::FromRef;
use std::sync::Arc;

/// The router's state: the shared parts, cheap to clone.
#[derive(Clone)]
pub struct App(Arc<Shared>);

impl std::ops::Deref for App {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

pub struct Shared {
    /// `http://127.0.0.1:<port>`: base, api, auth and platform address at once.
    pub url: String,
    /// Every merchant served, each with its own data, faults, journal and
    /// clock.
    pub tenants: Arc<Tenants>,
    /// Issues and checks access tokens.
    pub tokens: Tokens,
    /// The caps on what requests can make the sandbox keep.
    pub limits: Limits,
    /// Sends the notifications.
    pub outbox: Outbox,
    /// What a control call must show ([`crate::auth::control_door`]).
    pub control_door: ControlDoor,
    /// How the `--seed` entries are stored into a tenant.
    pub seeding: Seeding,
    /// The hand-emulated APIs' documented examples (`Prefer: code=…`).
    pub preferred: Arc<Preferred>,
    /// The documents served from their examples.
    pub examples: Arc<Served>,
}

impl App {
    /// The application `settings` ask for, reached at `url` by clients and
    /// at `local_url` by itself: its tenants empty, or loaded from the state
    /// file. Fails when a document, the state file, a declared tenant or
    /// the HTTP client cannot be used.
    pub fn new(url: String, local_url: String, settings: &Settings) -> Result<Self, StartError> {
        let document_error = |(name, reason)| StartError::Document { name, reason };
        let examples = Served::compile(&url, &settings.documents).map_err(document_error)?;
        let preferred = Preferred::compile(&url).map_err(document_error)?;
        let refused = |path: &std::path::Path| {
            let path = path.to_owned();
            move |reason| StartError::State { path, reason }
        };
        let (loaded, keys, store) = match &settings.state {
            None => (Vec::new(), Keys::random(), None),
            Some(path) => {
                let opened = store::open(path).map_err(refused(path))?;
                let keys = Keys::from_secret(&opened.signing_key);
                (opened.tenants, keys, Some(Arc::new(opened.store)))
            }
        };
        let tenant_error = |error: TenantError| StartError::Tenants {
            reason: error.to_string(),
        };
        let tenants = Arc::new(
            Tenants::new(loaded, settings.limits.max_tenants, store).map_err(tenant_error)?,
        );
        for declared in &settings.tenants {
            tenants
                .declare(declared.tenant.clone(), Credentials::declared(declared))
                .map_err(|error| StartError::Tenants {
                    reason: format!("--tenants: tenant {}: {error}", declared.tenant),
                })?;
        }
        // Tokens are signed and checked through jsonwebtoken: give it its provider.
        crate::auth::jwt_hs256::install();
        let tokens = Tokens::new(&url, keys, settings.token_lifetime);
        let http = crate::tls::http_client().map_err(|reason| StartError::Tls { reason })?;
        let outbox = Outbox::new(
            http,
            settings.webhook_secret.clone(),
            url.clone(),
            settings.limits.max_deliveries,
            settings.webhook_allow.clone(),
        );
        Ok(App(Arc::new(Shared {
            tenants: tenants.clone(),
            tokens,
            limits: settings.limits,
            outbox,
            control_door: ControlDoor::new(&url, settings.control_token.clone(), tenants),
            seeding: Seeding {
                seed: settings.seed.clone(),
                control_token: settings.control_token.clone(),
                local_url,
            },
            examples: Arc::new(examples),
            preferred: Arc::new(preferred),
            url,
        })))
    }
}

/// The parts handlers and middleware extract.
macro_rules! parts {
    ($($part:ty => $field:ident),* $(,)?) => {$(
        impl FromRef<App> for $part {
            fn from_ref(app: &App) -> $part {
                app.$field.clone()
            }
        }
    )*};
}

parts! {
    Arc<Tenants> => tenants,
    Tokens => tokens,
    Limits => limits,
    Outbox => outbox,
    ControlDoor => control_door,
    Seeding => seeding,
    Arc<Served> => examples,
}

#[cfg(test)]
mod tests;
