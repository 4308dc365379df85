//! The state file (`--state PATH`): an embedded SQLite database.
//!
//! # Schema (version [`SCHEMA_VERSION`])
//!
//! The file says what it is in its header: `PRAGMA application_id` is
//! [`APPLICATION_ID`] (`psix`) and `PRAGMA user_version` the schema version.
//!
//! | table | key | value (JSON text) |
//! |---|---|---|
//! | `meta` | `name`: `signing_key` (base64) | `value` |
//! | `tenants` | `id` | the tenant's credentials and its clock's `clock_offset_seconds` |
//! | `sessions` | session id | a payment page session |
//! | `idempotency_keys` | `[token subject, Idempotency-Key]` | the remembered creation |
//! | `transactions` | `12-...` id | a transaction (its request deflated, base64) |
//! | `pay_later_bookings` | transaction id | a booking |
//! | `bank_accounts` | `{partner_profile_id, shop_buyer_id}` | the account |
//! | `shop_configurations` | `[partner_profile_id, shop_id]` | the configuration |
//! | `storefront_orders` | order id | the order and its lines |
//! | `webhook_subscriptions` | `position` (integer) | `{url}` |
//! | `webhook_deliveries` | `position` (integer) | a notification and its attempts |
//!
//! Every table but `meta` and `tenants` holds the rows of all tenants,
//! told apart by their first column, `tenant TEXT` (the tenant's id).
//! Keyed tables hold `tenant`, `key TEXT` (the key as JSON) and
//! `value TEXT`, with `(tenant, key)` the primary key; logs hold `tenant`,
//! `position INTEGER` and `value TEXT`, with `(tenant, position)` the
//! primary key. Armed faults are not kept: they are test misbehaviour of
//! one run.
//!
//! A file of schema version 1 (before tenants) is migrated when opened:
//! its rows become the demo tenant's, its clock offset the demo tenant's
//! clock.
//!
//! # The writer
//!
//! One thread owns the SQLite connection and writes every change, in the
//! order the changes were handed to it ([`Store`]'s jobs go through one
//! channel), each in one SQLite transaction. The rows are serialised by
//! whoever hands them over, under the tenant's data lock, so the order of
//! the jobs is the order of the changes; the async workers never wait on
//! SQLite. Whoever must not answer before a change is on disk awaits the
//! job's [`Written`] (the request's save step, `http/save.rs`): since the
//! jobs are written in order, that also covers every job handed over
//! before it. A failed write stops the sandbox ([`fail`]).
//!
//! # Durability
//!
//! WAL journal with `synchronous=NORMAL`: a commit survives the sandbox
//! process being killed (the requirement), since the WAL is in the
//! operating system's hands once written. It may not survive a power loss
//! or an operating system crash (the last commits before it can be lost):
//! a sandbox does not need to pay an fsync per request for that.
//!
//! The file is opened with `locking_mode=EXCLUSIVE`: a second sandbox on
//! the same file is refused at start-up instead of both writing their own
//! view of it. The lock goes with the process, also when it is killed.

use super::table::{Log, Table};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

/// The version of the schema above; a file of another version is refused.
pub const SCHEMA_VERSION: i64 = 2;

/// `psix` in the file header, so a foreign SQLite file is refused.
pub const APPLICATION_ID: i64 = 0x7073_6978;

/// Names of the tables.
pub mod tables {
    pub const SESSIONS: &str = "sessions";
    pub const IDEMPOTENCY_KEYS: &str = "idempotency_keys";
    pub const TRANSACTIONS: &str = "transactions";
    pub const PAY_LATER_BOOKINGS: &str = "pay_later_bookings";
    pub const BANK_ACCOUNTS: &str = "bank_accounts";
    pub const SHOP_CONFIGURATIONS: &str = "shop_configurations";
    pub const STOREFRONT_ORDERS: &str = "storefront_orders";
    /// Keyed tables: `key TEXT PRIMARY KEY, value TEXT`.
    pub const KEYED: [&str; 7] = [
        SESSIONS,
        IDEMPOTENCY_KEYS,
        TRANSACTIONS,
        PAY_LATER_BOOKINGS,
        BANK_ACCOUNTS,
        SHOP_CONFIGURATIONS,
        STOREFRONT_ORDERS,
    ];

    pub const WEBHOOK_SUBSCRIPTIONS: &str = "webhook_subscriptions";
    pub const WEBHOOK_DELIVERIES: &str = "webhook_deliveries";
    /// Logs: `position INTEGER PRIMARY KEY, value TEXT`.
    pub const LOGS: [&str; 2] = [WEBHOOK_SUBSCRIPTIONS, WEBHOOK_DELIVERIES];
}

const SIGNING_KEY: &str = "signing_key";
/// Where schema version 1 kept the one clock's offset.
const CLOCK_OFFSET_V1: &str = "clock_offset_seconds";
/// The table of tenants: `id TEXT PRIMARY KEY, value TEXT`.
const TENANTS: &str = "tenants";

/// An open state file: the sender of its writer's jobs.
pub struct Store {
    path: PathBuf,
    /// `None` once the store is dropped (which ends the writer).
    jobs: Option<mpsc::Sender<(Job, Option<tokio::sync::oneshot::Sender<()>>)>>,
    writer: Option<std::thread::JoinHandle<()>>,
    /// Jobs handed to the writer so far.
    handed: AtomicU64,
    /// What the writer has done so far.
    progress: Arc<Progress>,
}

/// The writer's progress, read without waiting for it.
#[derive(Default)]
struct Progress {
    /// Jobs done, in the order handed over.
    jobs: AtomicU64,
    /// Rows written since the file was opened (read by the tests: reads
    /// write none).
    #[cfg_attr(not(test), allow(dead_code))]
    rows: AtomicU64,
}

/// One change, its rows already serialised.
enum Op {
    /// A keyed table's row, written or (`None`) deleted.
    Row {
        table: &'static str,
        key: String,
        value: Option<String>,
    },
    /// Every row of a log goes (before its rows are written again).
    ClearLog { table: &'static str },
    /// A log's row at `position`.
    LogRow {
        table: &'static str,
        position: i64,
        value: String,
    },
}

/// What the writer does, in one SQLite transaction each.
enum Job {
    /// A tenant's changed rows.
    Rows { tenant: String, ops: Vec<Op> },
    /// Every row of a tenant goes.
    Empty { tenant: String },
    /// A tenant's record, new or replacing its old one.
    Tenant { id: String, record: String },
    /// A tenant and all its rows go.
    DeleteTenant { id: String },
    /// A tenant's clock offset.
    ClockOffset { id: String, seconds: i64 },
    /// Nothing: done once every job before it is.
    Barrier,
}

/// A job handed to the writer; awaiting it waits until it (and every job
/// before it) is in the file.
#[must_use = "await it before answering, or drop it when nothing waits for the write"]
pub struct Written(Option<tokio::sync::oneshot::Receiver<()>>);

impl Written {
    /// Nothing to wait for (no state file).
    pub fn done() -> Self {
        Written(None)
    }

    /// Waits until the job is written. A failed write stops the sandbox,
    /// so this returns only once the job is in the file.
    pub async fn wait(self) {
        if let Some(done) = self.0 {
            let _ = done.await;
        }
    }

    /// [`Written::wait`] outside any async runtime (the tests of the store).
    #[cfg(test)]
    pub fn wait_blocking(self) {
        if let Some(done) = self.0 {
            let _ = done.blocking_recv();
        }
    }
}

/// A part of the data kept in the state file: it says whether it changed,
/// writes its changed rows and reads itself back.
pub trait Persisted: Sized {
    fn has_changes(&self) -> bool;
    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()>;
    fn load(loader: &Loader) -> Result<Self, String>;

    /// Empty, every collection noting its changes from now on.
    fn tracked_empty() -> Self {
        Self::load(&Loader {
            connection: None,
            tenant: "",
        })
        .expect("empty collections load")
    }
}

/// What a state file held at start-up: each tenant's record (`R`) and
/// data (`D`), by tenant id.
pub struct Opened<R, D> {
    pub store: Store,
    pub tenants: Vec<(String, R, D)>,
    pub signing_key: [u8; 32],
}

/// Opens (or creates) the state file at `path` and loads everything in it.
///
/// The file is created when missing, its directory is not: a mistyped
/// directory should be an error, not a new tree of folders. The error says
/// why the file cannot be used (the caller names the file).
pub fn open<R: DeserializeOwned, D: Persisted>(path: &Path) -> Result<Opened<R, D>, String> {
    check_location(path)?;
    private_file(path)?;
    let connection = connect(path)?;
    let fresh = prepare_schema(&connection)?;
    let signing_key = signing_key(&connection, fresh)?;
    let mut tenants = Vec::new();
    for (id, record) in tenant_rows(&connection)? {
        let record = serde_json::from_str(&record)
            .map_err(|e| format!("table {TENANTS}, id {id}: the row cannot be read: {e}"))?;
        let data = D::load(&Loader {
            connection: Some(&connection),
            tenant: &id,
        })?;
        tenants.push((id, record, data));
    }
    Ok(Opened {
        store: Store::start(path, connection),
        tenants,
        signing_key,
    })
}

/// Every row of the tenants table: id and record (JSON text).
fn tenant_rows(connection: &Connection) -> Result<Vec<(String, String)>, String> {
    let failed = |error: rusqlite::Error| format!("table {TENANTS}: {}", explain(&error));
    let mut statement = connection
        .prepare(&format!("SELECT id, value FROM {TENANTS} ORDER BY id"))
        .map_err(failed)?;
    let rows = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .map_err(failed)?;
    rows.collect::<Result<_, _>>().map_err(failed)
}

fn check_location(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err("it is a directory; give a file".to_owned());
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    match parent {
        Some(directory) if !directory.is_dir() => Err(format!(
            "the directory {} does not exist (the sandbox creates the file, not its directory)",
            directory.display()
        )),
        _ => Ok(()),
    }
}

/// The state file holds the token-signing key and buyers' data: a missing
/// one is created readable and writable by its owner only (0600), and
/// SQLite gives its `-wal` and `-shm` files the database file's mode. An
/// existing file that others may read or write is used as it is, with a
/// warning (its mode is the operator's choice).
#[cfg(unix)]
fn private_file(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path);
    match created {
        Ok(_) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            let mode = std::fs::metadata(path)
                .map_err(|e| format!("cannot read its mode: {e}"))?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                tracing::warn!(
                    path = %path.display(),
                    mode = format_args!("{:04o}", mode & 0o7777),
                    "the state file holds the token-signing key and buyers' data, \
                     and users other than its owner may read or write it (chmod 600 keeps it private)"
                );
            }
            Ok(())
        }
        Err(error) => Err(format!("cannot create it: {error}")),
    }
}

#[cfg(not(unix))]
fn private_file(_path: &Path) -> Result<(), String> {
    Ok(())
}

/// The connection, in WAL mode, holding the file's lock.
fn connect(path: &Path) -> Result<Connection, String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection =
        Connection::open_with_flags(path, flags).map_err(|e| format!("cannot open it: {e}"))?;
    if connection
        .is_readonly(rusqlite::MAIN_DB)
        .map_err(|e| e.to_string())?
    {
        return Err("the file is not writable".to_owned());
    }
    // A locked file is another process's: answer at once, do not wait.
    connection
        .busy_timeout(std::time::Duration::ZERO)
        .map_err(|e| e.to_string())?;
    let explain = |error: rusqlite::Error| explain(&error);
    connection
        .pragma_update(None, "locking_mode", "EXCLUSIVE")
        .map_err(explain)?;
    let mode: String = connection
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(explain)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(format!(
            "SQLite cannot keep a write-ahead log for it (journal mode {mode})"
        ));
    }
    connection
        .pragma_update(None, "synchronous", "NORMAL")
        .map_err(explain)?;
    Ok(connection)
}

/// SQLite's error, in the words a user of `--state` needs.
fn explain(error: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode;
    match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => format!("it is not a SQLite database ({error})"),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            format!("another process (another sandbox?) has it open ({error})")
        }
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            format!("it cannot be written ({error})")
        }
        _ => error.to_string(),
    }
}

/// Checks the header of an existing file or writes the schema into a new
/// (empty) one; answers whether it was new. Takes the exclusive lock.
fn prepare_schema(connection: &Connection) -> Result<bool, String> {
    let explain = |error: rusqlite::Error| explain(&error);
    // Takes the write lock now (kept: locking_mode=EXCLUSIVE), so a second
    // sandbox fails here rather than at its first write.
    connection
        .execute_batch("BEGIN EXCLUSIVE")
        .map_err(explain)?;
    let checked = check_or_create(connection);
    let end = if checked.is_ok() {
        "COMMIT"
    } else {
        "ROLLBACK"
    };
    connection.execute_batch(end).map_err(explain)?;
    checked
}

fn check_or_create(connection: &Connection) -> Result<bool, String> {
    let explain = |error: rusqlite::Error| explain(&error);
    let pragma = |name: &str| -> Result<i64, String> {
        connection
            .pragma_query_value(None, name, |row| row.get(0))
            .map_err(explain)
    };
    let application_id = pragma("application_id")?;
    let version = pragma("user_version")?;
    let objects: i64 = connection
        .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
        .map_err(explain)?;
    if application_id == 0 && version == 0 && objects == 0 {
        create_schema(connection).map_err(explain)?;
        return Ok(true);
    }
    if application_id != APPLICATION_ID {
        return Err(format!(
            "it is a SQLite database, but not a psi-sandbox state file (application_id {application_id}, expected {APPLICATION_ID})"
        ));
    }
    if version == 1 {
        migrate_from_v1(connection).map_err(explain)?;
        return Ok(false);
    }
    if version != SCHEMA_VERSION {
        return Err(format!(
            "its schema version is {version}; this psi-sandbox reads version {SCHEMA_VERSION} only"
        ));
    }
    Ok(false)
}

fn create_schema(connection: &Connection) -> rusqlite::Result<()> {
    let mut sql = String::from("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);\n");
    sql += &tenant_tables();
    sql += &format!(
        "PRAGMA application_id = {APPLICATION_ID};\nPRAGMA user_version = {SCHEMA_VERSION};\n"
    );
    connection.execute_batch(&sql)
}

/// The tenants table and every data table, keyed by tenant.
fn tenant_tables() -> String {
    // Rowid tables, not WITHOUT ROWID: the values (a session is about
    // 2.5 KB of JSON) are far larger than what WITHOUT ROWID suits.
    let mut sql = format!("CREATE TABLE {TENANTS} (id TEXT PRIMARY KEY, value TEXT NOT NULL);\n");
    for table in tables::KEYED {
        sql += &format!(
            "CREATE TABLE {table} (tenant TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (tenant, key));\n"
        );
    }
    for table in tables::LOGS {
        sql += &format!(
            "CREATE TABLE {table} (tenant TEXT NOT NULL, position INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (tenant, position));\n"
        );
    }
    sql
}

/// Schema version 1 had one tenant: its rows become the demo tenant's
/// (the demo tenant's record is written when the sandbox starts), its
/// clock offset the demo tenant's clock. Runs inside the exclusive
/// transaction of [`prepare_schema`].
fn migrate_from_v1(connection: &Connection) -> rusqlite::Result<()> {
    let demo = crate::demo::DEMO_TENANT;
    let mut sql = String::new();
    for table in tables::KEYED.iter().chain(tables::LOGS.iter()) {
        sql += &format!("ALTER TABLE {table} RENAME TO {table}_v1;\n");
    }
    sql += &tenant_tables();
    for table in tables::KEYED {
        sql += &format!(
            "INSERT INTO {table} (tenant, key, value) SELECT '{demo}', key, value FROM {table}_v1;\nDROP TABLE {table}_v1;\n"
        );
    }
    for table in tables::LOGS {
        sql += &format!(
            "INSERT INTO {table} (tenant, position, value) SELECT '{demo}', position, value FROM {table}_v1;\nDROP TABLE {table}_v1;\n"
        );
    }
    connection.execute_batch(&sql)?;
    let offset: i64 = meta(connection, CLOCK_OFFSET_V1)
        .ok()
        .flatten()
        .and_then(|text| text.parse().ok())
        .unwrap_or(0);
    connection.execute(
        &format!("INSERT INTO {TENANTS} (id, value) VALUES (?1, ?2)"),
        params![
            demo,
            serde_json::json!({ "clock_offset_seconds": offset }).to_string()
        ],
    )?;
    connection.execute("DELETE FROM meta WHERE name = ?1", [CLOCK_OFFSET_V1])?;
    connection.pragma_update(None, "user_version", SCHEMA_VERSION)
}

fn meta(connection: &Connection, name: &str) -> Result<Option<String>, String> {
    connection
        .query_row("SELECT value FROM meta WHERE name = ?1", [name], |row| {
            row.get(0)
        })
        .optional()
        .map_err(|e| format!("table meta: {}", explain(&e)))
}

fn set_meta(connection: &Connection, name: &str, value: &str) -> rusqlite::Result<()> {
    connection
        .prepare_cached("INSERT OR REPLACE INTO meta (name, value) VALUES (?1, ?2)")?
        .execute(params![name, value])?;
    Ok(())
}

/// The key tokens are signed with: made once per state file, so tokens
/// issued before a restart stay valid after it.
fn signing_key(connection: &Connection, fresh: bool) -> Result<[u8; 32], String> {
    use base64::Engine;
    let engine = base64::engine::general_purpose::STANDARD;
    if let Some(text) = meta(connection, SIGNING_KEY)? {
        let bytes = engine
            .decode(text.trim())
            .map_err(|e| format!("meta {SIGNING_KEY} is not base64: {e}"))?;
        return bytes
            .try_into()
            .map_err(|_| format!("meta {SIGNING_KEY} is not 32 bytes"));
    }
    if !fresh {
        return Err(format!("meta {SIGNING_KEY} is missing"));
    }
    let mut key = [0; 32];
    getrandom::fill(&mut key).map_err(|e| format!("no random signing key: {e}"))?;
    set_meta(connection, SIGNING_KEY, &engine.encode(key)).map_err(|e| explain(&e))?;
    Ok(key)
}

impl Store {
    /// The store of the file at `path`, its writer owning `connection`.
    fn start(path: &Path, connection: Connection) -> Store {
        let (jobs, received) = mpsc::channel();
        let progress = Arc::new(Progress::default());
        let reported = progress.clone();
        let file = path.to_owned();
        let writer = std::thread::Builder::new()
            .name("psi-sandbox-store".to_owned())
            .spawn(move || write_jobs(&file, connection, received, &reported))
            .expect("the store's writer thread starts");
        Store {
            path: path.to_owned(),
            jobs: Some(jobs),
            writer: Some(writer),
            handed: AtomicU64::new(0),
            progress,
        }
    }

    /// Hands `job` to the writer.
    fn send(&self, job: Job) -> Written {
        self.handed.fetch_add(1, Ordering::SeqCst);
        let (done, wait) = tokio::sync::oneshot::channel();
        match self.jobs.as_ref().map(|jobs| jobs.send((job, Some(done)))) {
            Some(Ok(())) => Written(Some(wait)),
            // The writer ended: it stopped the sandbox after a failed write.
            _ => Written::done(),
        }
    }

    /// Hands what changed in the data of `tenant` to the writer; the rows
    /// are serialised now, so call it under the data lock. With nothing
    /// changed it is a [`Store::barrier`].
    pub fn save(&self, tenant: &str, data: &mut impl Persisted) -> Written {
        if !data.has_changes() {
            return self.barrier();
        }
        let batch = Batch {
            ops: RefCell::new(Vec::new()),
        };
        if let Err(error) = data.save(&batch) {
            fail(&self.path, &explain(&error));
        }
        self.send(Job::Rows {
            tenant: tenant.to_owned(),
            ops: batch.ops.into_inner(),
        })
    }

    /// Rows written since the file was opened (for the tests: reads write none).
    #[cfg(test)]
    pub fn total_changes(&self) -> u64 {
        self.progress.rows.load(Ordering::SeqCst)
    }

    /// Every row of `tenant` in every data table goes; answers its data
    /// emptied (tracked, so later changes are saved). Its record
    /// (credentials, clock offset) and the signing key stay.
    pub fn empty<D: Persisted>(&self, tenant: &str) -> (D, Written) {
        let written = self.send(Job::Empty {
            tenant: tenant.to_owned(),
        });
        (D::tracked_empty(), written)
    }

    /// The record of tenant `id` (JSON text), new or replacing its old one.
    pub fn save_tenant(&self, id: &str, record: &str) -> Written {
        self.send(Job::Tenant {
            id: id.to_owned(),
            record: record.to_owned(),
        })
    }

    /// Tenant `id` goes: its record and all its rows.
    pub fn delete_tenant(&self, id: &str) -> Written {
        self.send(Job::DeleteTenant { id: id.to_owned() })
    }

    /// The clock offset of tenant `id`, into its record.
    pub fn save_clock_offset(&self, id: &str, seconds: i64) -> Written {
        self.send(Job::ClockOffset {
            id: id.to_owned(),
            seconds,
        })
    }

    /// Done once every job handed over before it is: at once when the
    /// writer has done them all (a read after writes waits for them; a read
    /// alone never reaches the writer).
    pub fn barrier(&self) -> Written {
        // Done is read before handed: when done covers handed, it covers
        // every job handed before this call.
        let done = self.progress.jobs.load(Ordering::SeqCst);
        if done >= self.handed.load(Ordering::SeqCst) {
            return Written::done();
        }
        self.send(Job::Barrier)
    }
}

impl Drop for Store {
    /// Ends the writer once it has written every job, which closes the
    /// file (and releases its lock).
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The writer: each job in one SQLite transaction, in the order they came;
/// a failed one stops the sandbox.
fn write_jobs(
    path: &Path,
    mut connection: Connection,
    jobs: mpsc::Receiver<(Job, Option<tokio::sync::oneshot::Sender<()>>)>,
    progress: &Progress,
) {
    for (job, done) in jobs {
        if !matches!(job, Job::Barrier) {
            let result = connection.transaction().and_then(|transaction| {
                write(&transaction, job)?;
                transaction.commit()
            });
            if let Err(error) = result {
                fail(path, &explain(&error));
            }
            progress
                .rows
                .store(connection.total_changes(), Ordering::SeqCst);
        }
        progress.jobs.fetch_add(1, Ordering::SeqCst);
        if let Some(done) = done {
            let _ = done.send(());
        }
    }
}

fn write(connection: &Connection, job: Job) -> rusqlite::Result<()> {
    match job {
        Job::Rows { tenant, ops } => {
            for op in ops {
                match op {
                    Op::Row {
                        table,
                        key,
                        value: Some(value),
                    } => connection
                        .prepare_cached(&format!(
                            "INSERT OR REPLACE INTO {table} (tenant, key, value) VALUES (?1, ?2, ?3)"
                        ))?
                        .execute(params![tenant, key, value])?,
                    Op::Row {
                        table,
                        key,
                        value: None,
                    } => connection
                        .prepare_cached(&format!(
                            "DELETE FROM {table} WHERE tenant = ?1 AND key = ?2"
                        ))?
                        .execute(params![tenant, key])?,
                    Op::ClearLog { table } => connection
                        .prepare_cached(&format!("DELETE FROM {table} WHERE tenant = ?1"))?
                        .execute([&tenant])?,
                    Op::LogRow {
                        table,
                        position,
                        value,
                    } => connection
                        .prepare_cached(&format!(
                            "INSERT OR REPLACE INTO {table} (tenant, position, value) VALUES (?1, ?2, ?3)"
                        ))?
                        .execute(params![tenant, position, value])?,
                };
            }
        }
        Job::Empty { tenant } => delete_rows(connection, &tenant)?,
        Job::Tenant { id, record } => {
            connection
                .prepare_cached(&format!(
                    "INSERT OR REPLACE INTO {TENANTS} (id, value) VALUES (?1, ?2)"
                ))?
                .execute(params![id, record])?;
        }
        Job::DeleteTenant { id } => {
            delete_rows(connection, &id)?;
            connection.execute(&format!("DELETE FROM {TENANTS} WHERE id = ?1"), [&id])?;
        }
        Job::ClockOffset { id, seconds } => {
            connection
                .prepare_cached(&format!(
                    "UPDATE {TENANTS} SET value = json_set(value, '$.clock_offset_seconds', ?2) WHERE id = ?1"
                ))?
                .execute(params![id, seconds])?;
        }
        Job::Barrier => {}
    }
    Ok(())
}

/// Stops the sandbox after a failed write of the state file at `path`. A
/// change that is not in the file must not be acknowledged: its answer
/// waits for the write, and never comes.
fn fail(path: &Path, reason: &str) -> ! {
    let message = format!(
        "psi-sandbox: --state {}: cannot write ({reason}); stopping, so that no change is acknowledged that is not saved",
        path.display(),
    );
    tracing::error!("{message}");
    eprintln!("{message}");
    std::process::exit(1)
}

/// Deletes every row of `tenant` in every data table.
fn delete_rows(connection: &Connection, tenant: &str) -> rusqlite::Result<()> {
    for table in tables::KEYED.iter().chain(tables::LOGS.iter()) {
        connection.execute(&format!("DELETE FROM {table} WHERE tenant = ?1"), [tenant])?;
    }
    Ok(())
}

/// One tenant's changed rows, serialised for the writer ([`Store::save`]).
pub struct Batch {
    ops: RefCell<Vec<Op>>,
}

fn to_json(value: &impl Serialize) -> rusqlite::Result<String> {
    serde_json::to_string(value).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

impl Batch {
    /// The changed rows of `table`: written, or deleted when gone.
    pub fn table<K, V>(&self, name: &'static str, table: &mut Table<K, V>) -> rusqlite::Result<()>
    where
        K: Serialize + Hash + Eq + Clone,
        V: Serialize,
    {
        if !table.has_changes() {
            return Ok(());
        }
        let mut ops = self.ops.borrow_mut();
        for (key, value) in table.take_changes() {
            ops.push(Op::Row {
                table: name,
                key: to_json(&key)?,
                value: value.map(to_json).transpose()?,
            });
        }
        Ok(())
    }

    /// The appended or changed rows of `log`, after deleting every row when
    /// it was cleared.
    pub fn log<V: Serialize>(&self, name: &'static str, log: &mut Log<V>) -> rusqlite::Result<()> {
        if !log.has_changes() {
            return Ok(());
        }
        let changes = log.take_changes();
        let mut ops = self.ops.borrow_mut();
        if changes.cleared {
            ops.push(Op::ClearLog { table: name });
        }
        for (position, value) in changes.rows {
            ops.push(Op::LogRow {
                table: name,
                position: position as i64,
                value: to_json(value)?,
            });
        }
        Ok(())
    }
}

/// Reads one tenant's rows back at start-up; without a connection, every
/// table is empty ([`Persisted::tracked_empty`]).
pub struct Loader<'a> {
    connection: Option<&'a Connection>,
    tenant: &'a str,
}

impl Loader<'_> {
    /// Every row of `name`; a row that does not parse is an error naming
    /// the table and the key.
    pub fn table<K, V>(&self, name: &str) -> Result<Table<K, V>, String>
    where
        K: DeserializeOwned + Hash + Eq + Clone,
        V: DeserializeOwned,
    {
        let failed = |error: rusqlite::Error| format!("table {name}: {}", explain(&error));
        let Some(connection) = self.connection else {
            return Ok(Table::tracked(HashMap::new()));
        };
        let mut statement = connection
            .prepare(&format!("SELECT key, value FROM {name} WHERE tenant = ?1"))
            .map_err(failed)?;
        let mut rows = statement.query([self.tenant]).map_err(failed)?;
        let mut table = HashMap::new();
        while let Some(row) = rows.next().map_err(failed)? {
            let key: String = row.get(0).map_err(failed)?;
            let value: String = row.get(1).map_err(failed)?;
            let parsed_key = serde_json::from_str(&key).map_err(|e| {
                format!(
                    "table {name}, tenant {}: the key {key} cannot be read: {e}",
                    self.tenant
                )
            })?;
            let parsed_value = serde_json::from_str(&value).map_err(|e| {
                format!(
                    "table {name}, tenant {}, key {key}: the row cannot be read: {e}",
                    self.tenant
                )
            })?;
            table.insert(parsed_key, parsed_value);
        }
        Ok(Table::tracked(table))
    }

    /// Every row of the log `name`, in position order; the positions must
    /// run 0, 1, 2, ... as the sandbox writes them.
    pub fn log<V: DeserializeOwned>(&self, name: &str) -> Result<Log<V>, String> {
        let failed = |error: rusqlite::Error| format!("table {name}: {}", explain(&error));
        let Some(connection) = self.connection else {
            return Ok(Log::tracked(Vec::new()));
        };
        let mut statement = connection
            .prepare(&format!(
                "SELECT position, value FROM {name} WHERE tenant = ?1 ORDER BY position"
            ))
            .map_err(failed)?;
        let mut rows = statement.query([self.tenant]).map_err(failed)?;
        let mut log = Vec::new();
        while let Some(row) = rows.next().map_err(failed)? {
            let position: i64 = row.get(0).map_err(failed)?;
            if position != log.len() as i64 {
                return Err(format!(
                    "table {name}: position {position} follows {} (the positions must run 0, 1, 2, ...)",
                    log.len() as i64 - 1
                ));
            }
            let value: String = row.get(1).map_err(failed)?;
            let parsed = serde_json::from_str(&value).map_err(|e| {
                format!(
                    "table {name}, tenant {}, position {position}: the row cannot be read: {e}",
                    self.tenant
                )
            })?;
            log.push(parsed);
        }
        Ok(Log::tracked(log))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state file's tenants: each record as JSON (the store reads any
    /// record type; the tenants' own is theirs) and its data.
    type Opened = super::Opened<serde_json::Value, crate::state::Data>;

    /// The sandbox's data from the state file at `path`.
    fn open(path: &Path) -> Result<Opened, String> {
        super::open(path)
    }

    /// The demo tenant's row, as a starting sandbox writes it.
    fn with_demo(opened: &Opened) {
        opened
            .store
            .save_tenant(crate::demo::DEMO_TENANT, r#"{"clock_offset_seconds":0}"#)
            .wait_blocking();
    }

    fn offset(opened: &Opened) -> i64 {
        let (id, record, _) = &opened.tenants[0];
        assert_eq!(id, crate::demo::DEMO_TENANT);
        record["clock_offset_seconds"]
            .as_i64()
            .expect("a clock offset")
    }

    #[test]
    fn a_version_1_file_becomes_the_demo_tenants() {
        let path = temporary("version-1");
        let v1 = Connection::open(&path).expect("a database");
        v1.execute_batch(&format!(
            "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE sessions (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE transactions (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE pay_later_bookings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE bank_accounts (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE shop_configurations (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE storefront_orders (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE webhook_subscriptions (position INTEGER PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE webhook_deliveries (position INTEGER PRIMARY KEY, value TEXT NOT NULL);
             INSERT INTO meta VALUES ('signing_key', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
             INSERT INTO meta VALUES ('clock_offset_seconds', '3600');
             INSERT INTO webhook_subscriptions VALUES (0, '{{\"url\": \"https://shop.example.com/invoices\"}}');
             PRAGMA application_id = {APPLICATION_ID};
             PRAGMA user_version = 1;"
        ))
        .expect("a version 1 file");
        drop(v1);
        let opened = open(&path).expect("migrated");
        assert_eq!(
            offset(&opened),
            3600,
            "the clock offset is the demo tenant's"
        );
        let (_, _, data) = &opened.tenants[0];
        let urls = data.webhook_subscriptions.urls();
        assert_eq!(urls, ["https://shop.example.com/invoices"], "its rows too");
        drop(opened);
        assert_eq!(schema_version(&path), SCHEMA_VERSION);
    }

    fn temporary(name: &str) -> PathBuf {
        let directory = std::env::temp_dir().join(format!(
            "psi-sandbox-store-{name}-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4()
        ));
        std::fs::create_dir_all(&directory).expect("a temporary directory");
        directory.join("state.db")
    }

    /// The schema version the file at `path` records.
    fn schema_version(path: &Path) -> i64 {
        let connection = Connection::open(path).expect("the file");
        connection
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .expect("a version")
    }

    /// The reason `open` refuses `path` with; panics when it opens.
    fn refusal(path: &Path) -> String {
        match open(path) {
            Err(reason) => reason,
            Ok(_) => panic!("{} was accepted", path.display()),
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_new_state_file_and_its_wal_are_private_to_their_owner() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| {
            std::fs::metadata(path)
                .map(|m| m.permissions().mode() & 0o777)
                .ok()
        };
        let path = temporary("private");
        let opened = open(&path).expect("a new file opens");
        with_demo(&opened);
        opened
            .store
            .save_clock_offset(crate::demo::DEMO_TENANT, 7)
            .wait_blocking();
        assert_eq!(mode(&path), Some(0o600));
        let mut companions = 0;
        for suffix in ["-wal", "-shm"] {
            let companion = PathBuf::from(format!("{}{suffix}", path.display()));
            if let Some(mode) = mode(&companion) {
                assert_eq!(mode, 0o600, "{}", companion.display());
                companions += 1;
            }
        }
        assert!(companions > 0, "a WAL file exists while the file is open");
        drop(opened);
        // A file others may read is still used (with a warning).
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let again = open(&path).expect("a wider file still opens");
        assert_eq!(offset(&again), 7);
        assert_eq!(mode(&path), Some(0o644), "the operator's mode is kept");
    }

    #[test]
    fn a_new_file_gets_the_schema_and_keeps_its_signing_key() {
        let path = temporary("new");
        let first = open(&path).expect("a new file opens");
        assert!(first.tenants.is_empty());
        with_demo(&first);
        first
            .store
            .save_clock_offset(crate::demo::DEMO_TENANT, -42)
            .wait_blocking();
        let key = first.signing_key;
        drop(first);
        let again = open(&path).expect("the file opens again");
        assert_eq!(again.signing_key, key, "tokens stay valid across restarts");
        assert_eq!(offset(&again), -42);
        drop(again);
        assert_eq!(schema_version(&path), SCHEMA_VERSION);
    }

    #[test]
    fn a_file_that_is_not_sqlite_is_refused() {
        let path = temporary("garbage");
        std::fs::write(
            &path,
            b"this is not a database, just some text\n".repeat(200),
        )
        .expect("written");
        let reason = refusal(&path);
        assert!(reason.contains("not a SQLite database"), "{reason}");
    }

    #[test]
    fn a_foreign_database_and_an_unknown_schema_version_are_refused() {
        let path = temporary("foreign");
        let other = Connection::open(&path).expect("a database");
        other
            .execute_batch("CREATE TABLE notes (text TEXT)")
            .expect("a table");
        drop(other);
        let reason = refusal(&path);
        assert!(reason.contains("not a psi-sandbox state file"), "{reason}");

        let path = temporary("future");
        drop(open(&path).expect("a new file"));
        let connection = Connection::open(&path).expect("the file");
        connection
            .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .expect("set");
        drop(connection);
        let reason = refusal(&path);
        assert!(
            reason.contains(&format!("schema version is {}", SCHEMA_VERSION + 1)),
            "{reason}"
        );
    }

    #[test]
    fn a_row_that_does_not_parse_is_refused_naming_table_and_key() {
        let path = temporary("bad-row");
        drop(open(&path).expect("a new file"));
        let connection = Connection::open(&path).expect("the file");
        connection
            .execute("INSERT INTO tenants (id, value) VALUES ('demo', '{}')", [])
            .expect("a tenant");
        connection
            .execute(
                "INSERT INTO sessions (tenant, key, value) VALUES ('demo', ?1, ?2)",
                ["\"s-1\"", "{\"id\": 7}"],
            )
            .expect("a row");
        drop(connection);
        let reason = refusal(&path);
        assert!(
            reason.contains("table sessions, tenant demo, key \"s-1\""),
            "{reason}"
        );
    }

    #[test]
    fn a_missing_directory_or_a_directory_is_refused() {
        let missing = std::env::temp_dir()
            .join(format!("psi-sandbox-missing-{}", uuid::Uuid::new_v4()))
            .join("state.db");
        let reason = refusal(&missing);
        let directory = missing.parent().expect("a parent").display().to_string();
        assert!(reason.contains(&directory), "{reason}");
        assert!(!missing.parent().expect("a parent").exists(), "not created");

        let path = temporary("directory");
        let directory = path.parent().expect("a parent");
        assert!(refusal(directory).contains("is a directory"));
    }

    #[test]
    fn a_second_sandbox_on_the_same_file_is_refused() {
        let path = temporary("locked");
        let first = open(&path).expect("the first opens");
        let reason = refusal(&path);
        assert!(reason.contains("another process"), "{reason}");
        drop(first);
        open(&path).expect("free again once the first is closed");
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_file_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let path = temporary("read-only");
        drop(open(&path).expect("a new file"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
        if std::fs::OpenOptions::new().write(true).open(&path).is_ok() {
            return; // running as root: nothing is read-only
        }
        let reason = refusal(&path);
        assert!(reason.contains("not writable"), "{reason}");
    }
}
