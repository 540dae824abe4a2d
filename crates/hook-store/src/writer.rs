//! The recorder: a bounded queue in front of a writer thread of its own.
//!
//! A fire only ever calls [`Recorder::record`], a `try_send`: a full queue drops the row (and
//! counts it) instead of waiting. The thread opens the database, writes what the queue holds in
//! one transaction per batch, and, while another process holds SQLite's write lock, retries on
//! its own time up to [`StoreConfig::write_bound`]; a batch it cannot write is dropped and
//! counted. Drops go to a side file next to the database ([`drops_path`]) rather than into it:
//! the database may be exactly what cannot be written.

use std::{
    io::Write as _,
    path::{Path, PathBuf},
    sync::{
        Arc, Condvar, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc::{self, Receiver, SyncSender, TrySendError},
    },
    time::{Duration, Instant},
};

use rusqlite::{Connection, TransactionBehavior, params};

use crate::{
    FireRecord,
    error::{StoreError, is_busy},
    record::{MAX_STDERR_CHARS, MAX_SUMMARY_CHARS},
    redact::redact,
    schema,
};

/// The default queue length: far more than any burst of fires one process makes.
const DEFAULT_QUEUE: usize = 1024;

/// Rows written per transaction at most.
const MAX_BATCH: usize = 256;

/// How often retention runs in a long-lived process (and across short-lived ones: the time of
/// the last run is kept in the database).
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

/// Rows deleted per transaction while pruning, so a prune never holds the write lock long.
const PRUNE_CHUNK: i64 = 500;

/// How long one prune may take before it stops (and goes on at the next).
const PRUNE_BUDGET: Duration = Duration::from_millis(200);

/// How old and how large the store may grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Fires older than this are deleted (default 30 days).
    pub max_age: Duration,
    /// When the rows take more than this, the oldest are deleted (default 200 MB).
    pub max_bytes: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention { max_age: Duration::from_secs(30 * 24 * 3600), max_bytes: 200 * 1024 * 1024 }
    }
}

impl Retention {
    /// The default, changed by `HOOKWIRE_STORE_MAX_AGE_DAYS` and `HOOKWIRE_STORE_MAX_MB`
    /// (decimals allowed); a value that is not a positive number is ignored.
    pub fn from_env() -> Retention {
        let mut retention = Retention::default();
        let number = |name: &str| {
            std::env::var(name).ok().and_then(|v| v.trim().parse::<f64>().ok()).filter(|v| v.is_finite() && *v > 0.0)
        };
        if let Some(days) = number("HOOKWIRE_STORE_MAX_AGE_DAYS") {
            retention.max_age = Duration::from_secs_f64(days * 86_400.0);
        }
        if let Some(mb) = number("HOOKWIRE_STORE_MAX_MB") {
            retention.max_bytes = (mb * 1024.0 * 1024.0) as u64;
        }
        retention
    }
}

/// Where and how a [`Recorder`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreConfig {
    /// The database.
    pub path: PathBuf,
    /// Rows waiting at most; more are dropped.
    pub queue: usize,
    /// Retention.
    pub retention: Retention,
    /// How long the writer retries a batch while the database is locked before dropping it.
    pub write_bound: Duration,
}

impl StoreConfig {
    /// The store at `path`, with the default queue, retention and write bound.
    pub fn new(path: PathBuf) -> StoreConfig {
        StoreConfig { path, queue: DEFAULT_QUEUE, retention: Retention::default(), write_bound: Duration::from_secs(5) }
    }

    /// The store this process's environment asks for: `None` when it is off
    /// ([`crate::STORE_ENV`]) or has no home. `HOOKWIRE_STORE_MAX_AGE_DAYS` and
    /// `HOOKWIRE_STORE_MAX_MB` (decimals allowed) change the retention; a value that is not a
    /// positive number is ignored.
    pub fn from_env() -> Option<StoreConfig> {
        Some(StoreConfig { retention: Retention::from_env(), ..StoreConfig::new(crate::configured_path()?) })
    }
}

/// The side file where dropped rows are counted: `<database>.drops`, one line per drop,
/// `<time_ms> <rows> <why>`.
pub fn drops_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".drops");
    PathBuf::from(name)
}

/// Appends a drop of `rows` to the side file of `db`. Best effort: when even that fails there
/// is nowhere left to say so.
pub(crate) fn append_drop(db: &Path, rows: u64, why: &str) {
    if rows == 0 {
        return;
    }
    let why: String = why.chars().map(|c| if c.is_control() { ' ' } else { c }).take(300).collect();
    let line = format!("{} {rows} {why}\n", crate::now_ms());
    if let Some(dir) = db.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(drops_path(db))
        .and_then(|mut file| file.write_all(line.as_bytes()));
}

/// What [`Recorder::flush`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlushReport {
    /// Rows written (or dropped by the writer and counted) since the recorder started.
    pub done: u64,
    /// Rows still queued or being written when the deadline passed: counted as dropped.
    pub abandoned: u64,
    /// How long the flush waited.
    pub waited: Duration,
}

#[derive(Debug)]
struct Shared {
    path: PathBuf,
    /// Rows accepted by the queue.
    queued: AtomicU64,
    /// Rows the writer is done with (written or dropped), behind the lock `flush` waits on.
    done: Mutex<u64>,
    progress: Condvar,
    /// Rows the full queue refused, not yet written to the side file.
    overflow: AtomicU64,
    /// Set by a flush that gave up: the writer commits nothing more, so what the flush counted
    /// as dropped stays dropped.
    abandoned: AtomicBool,
}

impl Shared {
    fn finish(&self, rows: u64) {
        let mut done = self.done.lock().unwrap_or_else(|p| p.into_inner());
        *done += rows;
        self.progress.notify_all();
    }
}

/// Records fires to the store without ever waiting on it (see the module's documentation).
#[derive(Debug)]
pub struct Recorder {
    sender: SyncSender<Box<FireRecord>>,
    shared: Arc<Shared>,
}

impl Recorder {
    /// Starts the writer thread, which opens the database at once (while the caller's hooks
    /// run). Never fails: a database that cannot be opened makes every row a counted drop.
    pub fn start(config: StoreConfig) -> Recorder {
        let (sender, receiver) = mpsc::sync_channel(config.queue.max(1));
        let shared = Arc::new(Shared {
            path: config.path.clone(),
            queued: AtomicU64::new(0),
            done: Mutex::new(0),
            progress: Condvar::new(),
            overflow: AtomicU64::new(0),
            abandoned: AtomicBool::new(false),
        });
        let thread_shared = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("hookwire-store".to_owned())
            .spawn(move || Writer::new(config, thread_shared).run(&receiver));
        // Without a thread the receiver is gone, and every `record` counts a drop.
        drop(spawned);
        Recorder { sender, shared }
    }

    /// The database this recorder writes.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// Queues `record`; `false` (and a counted drop) when the queue is full. Never blocks.
    pub fn record(&self, record: FireRecord) -> bool {
        match self.sender.try_send(Box::new(record)) {
            Ok(()) => {
                self.shared.queued.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.shared.overflow.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// Waits at most `deadline` for every queued row to be written. Rows still waiting then are
    /// counted as dropped (with the rows the full queue refused), and the writer commits
    /// nothing more: call it as a process ends.
    pub fn flush(&self, deadline: Duration) -> FlushReport {
        let started = Instant::now();
        let queued = self.shared.queued.load(Ordering::Relaxed);
        let mut done = self.shared.done.lock().unwrap_or_else(|p| p.into_inner());
        while *done < queued {
            let Some(left) = deadline.checked_sub(started.elapsed()) else { break };
            done = self.shared.progress.wait_timeout(done, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        let abandoned = queued.saturating_sub(*done);
        let finished = *done;
        if abandoned > 0 {
            self.shared.abandoned.store(true, Ordering::SeqCst);
        }
        drop(done);
        if abandoned > 0 {
            append_drop(
                &self.shared.path,
                abandoned,
                &format!("not written within the exit deadline of {} ms (database busy or slow)", deadline.as_millis()),
            );
        }
        let overflow = self.shared.overflow.swap(0, Ordering::Relaxed);
        append_drop(&self.shared.path, overflow, "the queue was full");
        FlushReport { done: finished, abandoned, waited: started.elapsed() }
    }
}

/// The writer thread's state.
struct Writer {
    config: StoreConfig,
    shared: Arc<Shared>,
    conn: Option<Connection>,
    /// Why the database could not be opened, last time it was tried.
    broken: Option<String>,
    next_prune: Instant,
}

impl Writer {
    fn new(config: StoreConfig, shared: Arc<Shared>) -> Writer {
        Writer { config, shared, conn: None, broken: None, next_prune: Instant::now() }
    }

    fn run(mut self, receiver: &Receiver<Box<FireRecord>>) {
        self.ensure_open(Instant::now());
        self.import_spool();
        self.maybe_prune();
        while let Ok(first) = receiver.recv() {
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH {
                match receiver.try_recv() {
                    Ok(record) => batch.push(record),
                    Err(_) => break,
                }
            }
            let rows = batch.len() as u64;
            if let Err(why) = self.write(&batch)
                && !self.shared.abandoned.load(Ordering::SeqCst)
            {
                append_drop(&self.config.path, rows, &why);
            }
            self.shared.finish(rows);
            let overflow = self.shared.overflow.swap(0, Ordering::Relaxed);
            append_drop(&self.config.path, overflow, "the queue was full");
            self.import_spool();
            self.maybe_prune();
        }
    }

    /// Opens the database when it is not, retrying while it is locked until `bound_start +
    /// write_bound`; a corrupt file is moved aside and a new one created.
    fn ensure_open(&mut self, bound_start: Instant) -> bool {
        if self.conn.is_some() {
            return true;
        }
        let path = self.config.path.clone();
        let mut pause = Duration::from_millis(2);
        let mut moved_aside = false;
        loop {
            match schema::open(&path, true) {
                Ok(conn) => {
                    self.conn = Some(conn);
                    self.broken = None;
                    return true;
                }
                Err(e) if e.is_busy() && bound_start.elapsed() < self.config.write_bound => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(StoreError::Sqlite { source, .. }) if is_corrupt(&source) && !moved_aside => {
                    moved_aside = true;
                    move_aside(&path);
                }
                Err(e) => {
                    self.broken = Some(e.to_string());
                    return false;
                }
            }
        }
    }

    /// Writes `batch` in one transaction, retrying while another process holds the lock.
    fn write(&mut self, batch: &[Box<FireRecord>]) -> Result<(), String> {
        let started = Instant::now();
        // Redacted before the transaction: the write lock is held for the inserts only.
        let batch: Vec<FireRecord> = batch.iter().map(|record| redacted_record(record)).collect();
        let mut pause = Duration::from_millis(2);
        loop {
            if !self.ensure_open(started) {
                return Err(self.broken.clone().unwrap_or_else(|| "cannot open the database".to_owned()));
            }
            let Some(conn) = self.conn.as_mut() else { continue };
            let abandoned = &self.shared.abandoned;
            match insert(conn, &batch, abandoned) {
                Ok(()) => return Ok(()),
                Err(e) if is_busy(&e) && started.elapsed() < self.config.write_bound => {
                    if abandoned.load(Ordering::SeqCst) {
                        return Err("abandoned at exit".to_owned());
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(e) => {
                    let why = if is_busy(&e) {
                        format!("database locked for more than {} ms: {e}", self.config.write_bound.as_millis())
                    } else {
                        // A connection that failed otherwise is reopened for the next batch.
                        self.conn = None;
                        e.to_string()
                    };
                    return Err(why);
                }
            }
        }
    }

    /// Imports what short-lived processes left in the spool ([`crate::Spool`]), after this
    /// process's own rows: a long-lived process that records is one of the spool's importers.
    /// A busy database leaves the files for the next batch (or another importer).
    fn import_spool(&mut self) {
        if self.shared.abandoned.load(Ordering::SeqCst) {
            return;
        }
        let Some(conn) = self.conn.as_ref() else { return };
        if let Err(e) = crate::spool::import(conn, &self.config.path, None)
            && !e.is_busy()
        {
            // A connection that failed otherwise is reopened for the next batch.
            self.conn = None;
        }
    }

    /// Runs retention when it is due (across processes: the last run's time is in `meta`).
    fn maybe_prune(&mut self) {
        if Instant::now() < self.next_prune || self.shared.abandoned.load(Ordering::SeqCst) {
            return;
        }
        self.next_prune = Instant::now() + PRUNE_EVERY;
        let Some(conn) = self.conn.as_ref() else { return };
        let _ = prune_if_due(conn, &self.config.retention, &self.shared.abandoned, PRUNE_BUDGET);
    }
}

pub(crate) fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt))
}

/// Moves a corrupt database (and its WAL files) aside as `<name>.corrupt-<time_ms>`, so the
/// next open starts a new one and the old one stays for a person to look at.
pub(crate) fn move_aside(path: &Path) {
    let stamp = crate::now_ms();
    for suffix in ["", "-wal", "-shm"] {
        let mut from = path.as_os_str().to_owned();
        from.push(suffix);
        let mut to = path.as_os_str().to_owned();
        to.push(format!(".corrupt-{stamp}{suffix}"));
        let _ = std::fs::rename(&from, &to);
    }
}

/// `record` with its texts redacted and bounded, ready to insert: the input summary, the
/// reason, and each hook run's stderr tail and error. Applied once per row, by whoever writes it
/// first: the writer thread before its transaction, or a spool's writer before its file
/// ([`crate::Spool`]), whose importer then inserts the row as it finds it.
pub(crate) fn redacted_record(record: &FireRecord) -> FireRecord {
    let mut row = record.clone();
    row.input = redacted(record.input.as_deref(), MAX_SUMMARY_CHARS);
    row.reason = redacted(record.reason.as_deref(), MAX_STDERR_CHARS);
    for hook in &mut row.hooks {
        hook.stderr_tail = redacted(hook.stderr_tail.as_deref(), MAX_STDERR_CHARS);
        hook.error = redacted(hook.error.as_deref(), MAX_STDERR_CHARS);
    }
    row
}

/// `text` with its secrets masked, then cut to `max` characters.
fn redacted(text: Option<&str>, max: usize) -> Option<String> {
    text.map(|t| hook_core::head_chars(&redact(t), max))
}

fn insert(conn: &mut Connection, batch: &[FireRecord], abandoned: &AtomicBool) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    insert_rows(&tx, batch.iter().map(|record| (record, std::process::id())))?;
    if abandoned.load(Ordering::SeqCst) {
        // The process is ending and has counted these rows as dropped: keep it true.
        return tx.rollback();
    }
    tx.commit()
}

/// Inserts `rows` (already redacted, [`redacted_record`]), each with the pid of the process
/// that fired it, in the caller's transaction.
pub(crate) fn insert_rows<'a>(
    tx: &rusqlite::Transaction<'_>,
    rows: impl IntoIterator<Item = (&'a FireRecord, u32)>,
) -> rusqlite::Result<()> {
    let mut fire = tx.prepare(
        "INSERT INTO fires (time_ms, origin, agent, project, session, event, tool, input_summary, decision, verdict, \
         reason, latency_us, pid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?;
    let mut run = tx.prepare(
        "INSERT INTO hook_runs (fire_id, seq, hook_id, kind, source_file, source_line, outcome, decision, latency_us, \
         exit_code, stderr_tail, error, rule, sandbox) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, \
         ?14)",
    )?;
    for (record, pid) in rows {
        fire.execute(params![
            record.time_ms,
            record.origin.as_str(),
            record.agent,
            record.project,
            record.session,
            record.event,
            record.tool,
            record.input,
            record.decision,
            record.verdict,
            record.reason,
            record.latency_us,
            pid,
        ])?;
        let fire_id = tx.last_insert_rowid();
        for (seq, hook) in record.hooks.iter().enumerate() {
            run.execute(params![
                fire_id,
                seq as i64,
                hook.hook_id,
                hook.kind,
                hook.source_file,
                hook.source_line,
                hook.outcome,
                hook.decision,
                hook.latency_us,
                hook.exit_code,
                hook.stderr_tail,
                hook.error,
                hook.rule,
                hook.sandbox,
            ])?;
        }
    }
    Ok(())
}

/// Deletes fires older than the retention's age, then the oldest while the rows take more
/// than its size, in chunks of [`PRUNE_CHUNK`], within `budget` (at most [`PRUNE_BUDGET`]),
/// and the spool's import markers as old as those fires (a marker only has to outlive the
/// claimed file it guards, which the next import removes). Records the time of a run that
/// finished in `meta`.
pub(crate) fn prune_if_due(
    conn: &Connection,
    retention: &Retention,
    abandoned: &AtomicBool,
    budget: Duration,
) -> rusqlite::Result<bool> {
    let budget = budget.min(PRUNE_BUDGET);
    let now = crate::now_ms();
    let last: Option<i64> = conn
        .query_row("SELECT value FROM meta WHERE key = 'pruned_ms'", [], |row| row.get::<_, String>(0))
        .ok()
        .and_then(|v| v.parse().ok());
    let every = i64::try_from(PRUNE_EVERY.as_millis()).unwrap_or(i64::MAX);
    if last.is_some_and(|last| now.saturating_sub(last) < every && last <= now) {
        return Ok(false);
    }
    let started = Instant::now();
    let cutoff = now.saturating_sub(i64::try_from(retention.max_age.as_millis()).unwrap_or(i64::MAX));
    loop {
        if started.elapsed() > budget || abandoned.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let deleted = delete_chunk(conn, "WHERE time_ms < ?1", cutoff)?;
        if deleted < PRUNE_CHUNK as usize {
            break;
        }
    }
    loop {
        if used_bytes(conn)? <= retention.max_bytes {
            break;
        }
        if started.elapsed() > budget || abandoned.load(Ordering::SeqCst) {
            return Ok(false);
        }
        if delete_chunk(conn, "", 0)? == 0 {
            break;
        }
    }
    conn.execute("DELETE FROM spool_imports WHERE time_ms < ?1", params![cutoff])?;
    conn.execute_batch("PRAGMA incremental_vacuum")?;
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('pruned_ms', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        params![now.to_string()],
    )?;
    Ok(true)
}

/// Deletes the oldest [`PRUNE_CHUNK`] fires matching `condition` (which may use `?1`), with
/// their hook runs; how many.
fn delete_chunk(conn: &Connection, condition: &str, value: i64) -> rusqlite::Result<usize> {
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let ids: Vec<i64> = {
        let sql = format!("SELECT id FROM fires {condition} ORDER BY time_ms, id LIMIT {PRUNE_CHUNK}");
        let mut statement = tx.prepare(&sql)?;
        if condition.contains("?1") {
            statement.query_map(params![value], |row| row.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?
        } else {
            statement.query_map([], |row| row.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?
        }
    };
    {
        let mut runs = tx.prepare("DELETE FROM hook_runs WHERE fire_id = ?1")?;
        let mut fires = tx.prepare("DELETE FROM fires WHERE id = ?1")?;
        for id in &ids {
            runs.execute(params![id])?;
            fires.execute(params![id])?;
        }
    }
    tx.commit()?;
    Ok(ids.len())
}

/// The bytes the database's pages in use take (free pages excluded).
fn used_bytes(conn: &Connection) -> rusqlite::Result<u64> {
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |row| row.get(0))?;
    let free: i64 = conn.query_row("PRAGMA freelist_count", [], |row| row.get(0))?;
    let size: i64 = conn.query_row("PRAGMA page_size", [], |row| row.get(0))?;
    Ok(u64::try_from((pages - free).max(0) * size).unwrap_or(0))
}
