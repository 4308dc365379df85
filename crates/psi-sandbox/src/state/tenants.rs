//! Tenants: the merchants one sandbox serves, each with its own data.
//!
//! A tenant is one merchant of the service: its API client credentials, its
//! platform credentials and its control token. Everything it does is its
//! own: its [`Data`] (sessions and their Idempotency-Keys, transactions,
//! bookings, bank accounts, shop configurations, storefront orders, webhook
//! subscriptions and deliveries), its armed [`Faults`], its request
//! [`Journal`] and its [`Clock`]. The demo tenant ([`DEMO_TENANT`]) always
//! exists and answers to the `DEMO_*` credentials; others are created by
//! the control API (`POST /__sandbox/tenants`), declared at start
//! (`--tenants FILE`) or loaded from the state file.
//!
//! Which tenant a request belongs to is decided once, before routing
//! ([`crate::http::tenant`] for the APIs, [`crate::auth::control_door`]
//! for the control API), from the credentials it carries.

use super::clock::Clock;
use super::journal::Journal;
use super::store::{Persisted, Store, Written};
use super::Data;
use crate::faults::Faults;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

pub use crate::demo::DEMO_TENANT;

/// What a tenant shows to be served: the credentials of its API clients
/// and of its control calls. Never printed (its `Debug` shows ids only).
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    pub client_id: String,
    pub client_secret: String,
    pub platform_client_id: String,
    pub platform_client_secret: String,
    /// The bearer token of its control calls; the demo tenant has none
    /// (its control calls carry no token, or the operator's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("client_id", &self.client_id)
            .field("platform_client_id", &self.platform_client_id)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// The demo tenant's: the `DEMO_*` constants.
    pub fn demo() -> Self {
        Self {
            client_id: crate::demo::DEMO_CLIENT_ID.to_owned(),
            client_secret: crate::demo::DEMO_CLIENT_SECRET.to_owned(),
            platform_client_id: crate::demo::DEMO_PLATFORM_CLIENT_ID.to_owned(),
            platform_client_secret: crate::demo::DEMO_PLATFORM_CLIENT_SECRET.to_owned(),
            control_token: None,
        }
    }

    /// The credentials of a tenant declared at start (`--tenants`).
    pub fn declared(tenant: &crate::settings::DeclaredTenant) -> Self {
        Self {
            client_id: tenant.client_id.clone(),
            client_secret: tenant.client_secret.clone(),
            platform_client_id: tenant.platform_client_id.clone(),
            platform_client_secret: tenant.platform_client_secret.clone(),
            control_token: Some(tenant.control_token.clone()),
        }
    }

    /// Fresh random credentials for tenant `id`: ids that name it, secrets
    /// of 32 random bytes.
    pub fn random(id: &str) -> Self {
        Self {
            client_id: format!("{id}-{}", random_text(6)),
            client_secret: random_text(32),
            platform_client_id: format!("{id}-platform-{}", random_text(6)),
            platform_client_secret: random_text(32),
            control_token: Some(format!("ctl-{}", random_text(32))),
        }
    }
}

/// `bytes` random bytes as unpadded base64url.
fn random_text(bytes: usize) -> String {
    use base64::Engine;
    let mut buffer = vec![0; bytes];
    getrandom::fill(&mut buffer).expect("the operating system's random source answers");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buffer)
}

/// A tenant's row in the state file.
#[derive(Serialize, Deserialize)]
pub struct Record {
    /// Absent for the demo tenant (its credentials are the constants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<Credentials>,
    #[serde(default)]
    pub clock_offset_seconds: i64,
}

/// One merchant of the sandbox and everything it keeps.
pub struct Tenant {
    pub id: String,
    pub credentials: Credentials,
    pub clock: Clock,
    pub faults: Faults,
    pub journal: Journal,
    data: Mutex<Data>,
    /// The state file, when there is one.
    store: Option<Arc<Store>>,
}

impl std::fmt::Debug for Tenant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tenant")
            .field("id", &self.id)
            .field("credentials", &self.credentials)
            .finish_non_exhaustive()
    }
}

impl Tenant {
    fn new(
        id: String,
        credentials: Credentials,
        clock_offset_seconds: i64,
        data: Data,
        store: Option<Arc<Store>>,
    ) -> Self {
        let offset = chrono::Duration::seconds(clock_offset_seconds);
        let clock = match &store {
            Some(store) => Clock::saved(offset, store.clone(), id.clone()),
            None => Clock::ahead_by(offset),
        };
        Self {
            id,
            credentials,
            clock,
            faults: Faults::default(),
            journal: Journal::default(),
            data: Mutex::new(data),
            store,
        }
    }

    /// Whether this is the demo tenant.
    pub fn is_demo(&self) -> bool {
        self.id == DEMO_TENANT
    }

    /// The tenant's data, locked. Handlers hold it briefly and never across
    /// an await; what they change is written to the state file by the
    /// request's save step ([`Tenant::save`]).
    pub fn data(&self) -> DataGuard<'_> {
        self.data.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands what changed in the tenant's data to the state file's writer
    /// (nothing without one); awaiting the answer waits until it is written.
    pub fn save(&self) -> Written {
        let Some(store) = &self.store else {
            return Written::done();
        };
        let mut data = self.data();
        store.save(&self.id, &mut *data)
    }

    /// Empties every collection of the tenant, in memory and in the state
    /// file, disarms its faults and empties its journal. Its credentials
    /// and clock stay.
    pub fn empty(&self) -> Written {
        let written = {
            let mut data = self.data();
            match self.store.as_deref() {
                None => {
                    *data = Data::default();
                    Written::done()
                }
                Some(store) => {
                    let (emptied, written) = store.empty(&self.id);
                    *data = emptied;
                    written
                }
            }
        };
        self.faults.clear();
        self.journal.clear();
        written
    }

    fn record(&self) -> Record {
        Record {
            credentials: (!self.is_demo()).then(|| self.credentials.clone()),
            clock_offset_seconds: self.clock.offset_seconds(),
        }
    }
}

/// A tenant's locked data.
pub type DataGuard<'a> = MutexGuard<'a, Data>;

/// Why a tenant was not created or deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TenantError {
    /// The name does not match [`NAME_RULE`].
    Name(String),
    /// A tenant of this name exists.
    Exists(String),
    /// `--max-tenants` tenants exist.
    Full(usize),
    /// A credential another tenant uses (the field named).
    Taken(&'static str),
    /// No tenant of this name.
    Unknown(String),
    /// The demo tenant cannot be deleted.
    Demo,
    /// The state file refused the write.
    Store(String),
}

/// What a tenant's name must look like.
pub const NAME_RULE: &str = "^[a-z0-9][a-z0-9-]{0,39}$";

/// Whether `name` matches [`NAME_RULE`].
pub fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=40).contains(&bytes.len())
        && bytes[0] != b'-'
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
}

impl std::fmt::Display for TenantError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TenantError::Name(name) => write!(f, "name: {name:?} must match {NAME_RULE}"),
            TenantError::Exists(name) => write!(f, "name: a tenant {name} exists"),
            TenantError::Full(max) => write!(
                f,
                "at most {max} tenants exist at once (--max-tenants); DELETE /__sandbox/tenants/{{tenant}} removes one"
            ),
            TenantError::Taken(field) => write!(f, "{field}: another tenant has it"),
            TenantError::Unknown(name) => write!(f, "no tenant {name}"),
            TenantError::Demo => f.write_str("the demo tenant always exists"),
            TenantError::Store(reason) => write!(f, "the state file: {reason}"),
        }
    }
}

impl std::error::Error for TenantError {}

/// Every tenant, found by id, by client id and by control token.
pub struct Tenants {
    inner: RwLock<Directory>,
    /// `--max-tenants`, the demo tenant included.
    max: usize,
    store: Option<Arc<Store>>,
}

/// Each tenant once, by id, and its id by each credential.
#[derive(Default)]
struct Directory {
    by_id: BTreeMap<String, Arc<Tenant>>,
    by_client_id: HashMap<String, String>,
    by_platform_client_id: HashMap<String, String>,
    /// By the SHA-256 of the control token, so a lookup compares digests.
    by_control_token: HashMap<[u8; 32], String>,
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl Directory {
    fn insert(&mut self, tenant: Arc<Tenant>) {
        let credentials = &tenant.credentials;
        self.by_client_id
            .insert(credentials.client_id.clone(), tenant.id.clone());
        self.by_platform_client_id
            .insert(credentials.platform_client_id.clone(), tenant.id.clone());
        if let Some(token) = &credentials.control_token {
            self.by_control_token
                .insert(digest(token), tenant.id.clone());
        }
        self.by_id.insert(tenant.id.clone(), tenant);
    }

    fn remove(&mut self, id: &str) -> Option<Arc<Tenant>> {
        let tenant = self.by_id.remove(id)?;
        let credentials = &tenant.credentials;
        self.by_client_id.remove(&credentials.client_id);
        self.by_platform_client_id
            .remove(&credentials.platform_client_id);
        if let Some(token) = &credentials.control_token {
            self.by_control_token.remove(&digest(token));
        }
        Some(tenant)
    }

    /// The tenant of `id`, when there is an id.
    fn found(&self, id: Option<&String>) -> Option<Arc<Tenant>> {
        id.and_then(|id| self.by_id.get(id)).cloned()
    }

    /// The field of `credentials` another tenant than `id` already uses.
    fn taken(&self, id: &str, credentials: &Credentials) -> Option<&'static str> {
        let other = |tenant: Option<&String>| tenant.is_some_and(|other| other != id);
        if other(self.by_client_id.get(&credentials.client_id))
            || other(self.by_platform_client_id.get(&credentials.client_id))
        {
            return Some("client_id");
        }
        if other(
            self.by_platform_client_id
                .get(&credentials.platform_client_id),
        ) || other(self.by_client_id.get(&credentials.platform_client_id))
        {
            return Some("platform_client_id");
        }
        match &credentials.control_token {
            Some(token) if other(self.by_control_token.get(&digest(token))) => {
                Some("control_token")
            }
            _ => None,
        }
    }
}

impl Tenants {
    /// The tenants of a state file (or none), with the demo tenant added
    /// when missing.
    pub fn new(
        loaded: Vec<(String, Record, Data)>,
        max: usize,
        store: Option<Arc<Store>>,
    ) -> Result<Self, TenantError> {
        let tenants = Tenants {
            inner: RwLock::new(Directory::default()),
            max: max.max(1),
            store,
        };
        let mut has_demo = false;
        for (id, record, data) in loaded {
            has_demo |= id == DEMO_TENANT;
            let credentials = match (id == DEMO_TENANT, record.credentials) {
                (true, _) => Credentials::demo(),
                (false, Some(credentials)) => credentials,
                (false, None) => {
                    return Err(TenantError::Store(format!(
                        "tenant {id} has no credentials"
                    )))
                }
            };
            let tenant = Tenant::new(
                id,
                credentials,
                record.clock_offset_seconds,
                data,
                tenants.store.clone(),
            );
            tenants.write().insert(Arc::new(tenant));
        }
        if !has_demo {
            tenants.add(DEMO_TENANT.to_owned(), Credentials::demo())?;
        }
        Ok(tenants)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Directory> {
        self.inner.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Directory> {
        self.inner.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The demo tenant.
    pub fn demo(&self) -> Arc<Tenant> {
        self.get(DEMO_TENANT)
            .expect("the demo tenant always exists")
    }

    /// The tenant `id`.
    pub fn get(&self, id: &str) -> Option<Arc<Tenant>> {
        self.read().by_id.get(id).cloned()
    }

    /// The tenant whose API client is `client_id`.
    pub fn by_client_id(&self, client_id: &str) -> Option<Arc<Tenant>> {
        let directory = self.read();
        directory.found(directory.by_client_id.get(client_id))
    }

    /// The tenant whose platform client is `client_id`.
    pub fn by_platform_client_id(&self, client_id: &str) -> Option<Arc<Tenant>> {
        let directory = self.read();
        directory.found(directory.by_platform_client_id.get(client_id))
    }

    /// The tenant whose control token is `token`.
    pub fn by_control_token(&self, token: &str) -> Option<Arc<Tenant>> {
        let directory = self.read();
        directory.found(directory.by_control_token.get(&digest(token)))
    }

    /// Every tenant, by id.
    pub fn all(&self) -> Vec<Arc<Tenant>> {
        self.read().by_id.values().cloned().collect()
    }

    /// Creates tenant `id` with `credentials`, empty; written to the state
    /// file before it is served.
    pub fn add(&self, id: String, credentials: Credentials) -> Result<Arc<Tenant>, TenantError> {
        if !valid_name(&id) {
            return Err(TenantError::Name(id));
        }
        let mut directory = self.write();
        if directory.by_id.contains_key(&id) {
            return Err(TenantError::Exists(id));
        }
        if directory.by_id.len() >= self.max {
            return Err(TenantError::Full(self.max));
        }
        if let Some(field) = directory.taken(&id, &credentials) {
            return Err(TenantError::Taken(field));
        }
        // With a state file, the new tenant's collections note their
        // changes from the start (an untracked table would never be saved).
        let data = match &self.store {
            Some(_) => Data::tracked_empty(),
            None => Data::default(),
        };
        let tenant = Arc::new(Tenant::new(id, credentials, 0, data, self.store.clone()));
        self.save(&tenant)?;
        directory.insert(tenant.clone());
        Ok(tenant)
    }

    /// Declares tenant `id` with `credentials` (`--tenants`): created when
    /// missing, its credentials replaced when it exists (its data stay).
    pub fn declare(&self, id: String, credentials: Credentials) -> Result<(), TenantError> {
        let Some(existing) = self.get(&id) else {
            return self.add(id, credentials).map(|_| ());
        };
        if existing.credentials == credentials {
            return Ok(());
        }
        let mut directory = self.write();
        if let Some(field) = directory.taken(&id, &credentials) {
            return Err(TenantError::Taken(field));
        }
        directory.remove(&id);
        let data = std::mem::take(&mut *existing.data());
        let tenant = Arc::new(Tenant::new(
            id,
            credentials,
            existing.clock.offset_seconds(),
            data,
            self.store.clone(),
        ));
        self.save(&tenant)?;
        directory.insert(tenant);
        Ok(())
    }

    /// Deletes tenant `id` and all it keeps (in the state file too).
    pub fn remove(&self, id: &str) -> Result<(), TenantError> {
        if id == DEMO_TENANT {
            return Err(TenantError::Demo);
        }
        let mut directory = self.write();
        if !directory.by_id.contains_key(id) {
            return Err(TenantError::Unknown(id.to_owned()));
        }
        if let Some(store) = &self.store {
            drop(store.delete_tenant(id));
        }
        directory.remove(id);
        Ok(())
    }

    fn save(&self, tenant: &Tenant) -> Result<(), TenantError> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let record = serde_json::to_string(&tenant.record())
            .map_err(|error| TenantError::Store(error.to_string()))?;
        // Written before any job the tenant's requests hand over later.
        drop(store.save_tenant(&tenant.id, &record));
        Ok(())
    }

    /// The state file (for the tests: what it has written).
    #[cfg(test)]
    pub fn store(&self) -> Option<Arc<Store>> {
        self.store.clone()
    }

    /// The id of a new tenant: `t-` and 12 hex digits.
    pub fn fresh_id() -> String {
        let mut bytes = [0; 6];
        getrandom::fill(&mut bytes).expect("the operating system's random source answers");
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("t-{hex}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(prefix: &str) -> Credentials {
        Credentials {
            client_id: format!("{prefix}-client"),
            client_secret: format!("{prefix}-secret"),
            platform_client_id: format!("{prefix}-platform"),
            platform_client_secret: format!("{prefix}-platform-secret"),
            control_token: Some(format!("{prefix}-control")),
        }
    }

    #[test]
    fn a_declared_tenant_takes_the_new_credentials_and_keeps_its_data_and_clock() {
        let tenants = Tenants::new(Vec::new(), 10, None).expect("tenants");
        let ci = tenants
            .add("ci".to_owned(), credentials("old"))
            .expect("added");
        let template = crate::demo::session_request("https://shop.example.com/webhook");
        let now = ci.clock.now_local();
        ci.data()
            .transactions
            .insert(crate::models::transaction::demo_transaction(
                0, &template, now,
            ));
        ci.clock.advance(3600).expect("moved");

        tenants
            .declare("ci".to_owned(), credentials("new"))
            .expect("declared");
        assert!(tenants.by_client_id("old-client").is_none());
        assert!(tenants.by_control_token("old-control").is_none());
        let declared = tenants.by_client_id("new-client").expect("the new id");
        assert_eq!(declared.id, "ci");
        assert_eq!(declared.data().transactions.len(), 1, "its data stay");
        assert_eq!(declared.clock.offset_seconds(), 3600, "its clock stays");
        let by_token = tenants
            .by_control_token("new-control")
            .expect("the new token");
        assert_eq!(by_token.id, "ci");
    }

    #[test]
    fn credentials_another_tenant_has_are_refused() {
        let tenants = Tenants::new(Vec::new(), 10, None).expect("tenants");
        tenants
            .add("a".to_owned(), credentials("a"))
            .expect("added");
        let mut taken = credentials("b");
        taken.client_id = "a-platform".to_owned();
        assert_eq!(
            tenants.add("b".to_owned(), taken).map(|_| ()),
            Err(TenantError::Taken("client_id"))
        );
        let demo = Credentials::demo();
        let mut taken = credentials("c");
        taken.platform_client_id = demo.platform_client_id;
        assert_eq!(
            tenants.add("c".to_owned(), taken).map(|_| ()),
            Err(TenantError::Taken("platform_client_id"))
        );
    }
}
