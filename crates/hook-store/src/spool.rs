//! The spool: how a short-lived process (the bridge, `hookwire fire`) records without opening
//! SQLite. Opening the database, writing one row and closing it costs such a process several
//! milliseconds as it exits (the last connection's close checkpoints the WAL and syncs), which
//! an agent waits on at every tool call; appending a file costs microseconds.
//!
//! A [`Spool`] keeps its process's records in memory and, as the process ends, writes them to a
//! file of its own in `<database>.spool/` ([`spool_dir`]): `<time_ms>-<pid>-<random>.jsonl`,
//! one JSON line per fire (already redacted and bounded, exactly as the writer thread would
//! insert it) and a last line `{"end":N}` saying how many came before, written under the hidden
//! name `.<name>.tmp` and renamed into place once complete, so an importer never sees half a
//! file. The directory is 0700 and the files 0600, like the rest of the store.
//!
//! Whoever uses the database imports the spool first ([`import`]): the [`crate::Reader`] (on
//! open and before each query, so a dashboard's poll shows a bridge call), the writer thread of
//! a long-lived process (on open and after each batch), and now and then a spool's own writer
//! when nobody else reads. Each file is imported exactly once, even with importers racing and
//! crashing:
//!
//! 1. an importer claims a file by renaming it to `<name>.claim-<pid>-<time_ms>`: a rename is
//!    atomic, so one importer wins and the others find the file gone;
//! 2. it inserts the file's rows together with a marker of `<name>` in the `spool_imports`
//!    table, and only when no such marker is there yet, in one transaction with the other
//!    files of its batch (up to [`IMPORT_BATCH`]);
//! 3. then it unlinks the claimed files.
//!
//! A claim whose importer died (its pid is gone, or the claim is older than [`STALE`]) is
//! claimed again by the next importer; when the first had committed already, the marker makes
//! the second import a no-op and only the unlink is left to do. A file that does not parse is
//! renamed `<name>.bad` and its rows counted in the drops file ([`crate::drops_path`]) with its
//! name: kept for a person to look at, never silently lost, never in the way of the others.
//! A database that is busy leaves the files where they are, for the next importer.

use std::{
    fs,
    hash::{BuildHasher as _, Hasher as _},
    io::Write as _,
    os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _},
    path::{Path, PathBuf},
    sync::{Mutex, atomic::AtomicBool},
    time::{Duration, Instant},
};

use rusqlite::{Connection, OptionalExtension as _, Transaction, TransactionBehavior, params};
use serde::{Deserialize, Serialize};

use crate::{
    FireRecord,
    error::{StoreError, is_busy},
    schema,
    writer::{StoreConfig, append_drop, insert_rows, is_corrupt, move_aside, prune_if_due, redacted_record},
};

/// A claim (or a file being written) older than this is its owner's no longer: the owner died,
/// or its pid was reused. Importing one file takes milliseconds, writing one microseconds.
pub(crate) const STALE: Duration = Duration::from_secs(60);

/// A spool's writer imports the spool itself only when it holds more files than this: below it,
/// the next `hookwire log` or dashboard poll imports them anyway.
pub const IMPORT_ABOVE: usize = 64;

/// ... and then only one writer in this many (chosen by the random part of its file's name).
/// Counting the directory is cheap (one `read_dir` of a few dozen names); the sampling is for the
/// import itself, which opens the database: when the spool crosses [`IMPORT_ABOVE`] while a
/// burst of bridge calls runs, one call in eight pays for an import rather than all of them
/// racing for the write lock, and the spool stays near [`IMPORT_ABOVE`] files when nobody reads.
pub const IMPORT_ONE_IN: u64 = 8;

/// How many spool files an import inserts in one transaction (at most 64 spool files of at most
/// 16 MB each are read into memory at once; a bridge call's file is a kilobyte).
const IMPORT_BATCH: usize = 64;

/// A spool file larger than this is not read into memory (one process's fires take kilobytes).
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// How long an importer that is not the writer thread waits on another process's write lock per
/// statement before leaving the files for later.
const IMPORT_WAIT: Duration = Duration::from_millis(100);

/// The spool directory of the database at `db`: `<db>.spool`.
pub fn spool_dir(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".spool");
    PathBuf::from(name)
}

/// Whether the spool of `db` holds files to import (written, being written, or claimed): a
/// database that does not exist yet then has rows to show.
pub fn spool_pending(db: &Path) -> bool {
    let Ok(entries) = fs::read_dir(spool_dir(db)) else { return false };
    entries.flatten().any(|entry| !matches!(classify(&entry.file_name().to_string_lossy()), Entry::Other))
}

/// One line of a spool file: a fire and the pid of the process that fired it, or the last
/// line, which counts the fires before it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fire: Option<FireRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    end: Option<u64>,
}

/// Records of a short-lived process, written to the spool as it ends (see the module's
/// documentation). The counterpart of [`crate::Recorder`] for a process that makes one or two
/// fires and exits.
#[derive(Debug)]
pub struct Spool {
    config: StoreConfig,
    records: Mutex<Vec<FireRecord>>,
}

/// What [`Spool::flush`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpoolReport {
    /// Fires written to the spool file.
    pub written: u64,
    /// That file, when one was written.
    pub file: Option<PathBuf>,
    /// The import this writer did, when the spool was full enough and the draw fell on it.
    pub imported: Option<ImportReport>,
}

/// What one import of the spool did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Files imported (their rows are in the database now).
    pub files: u64,
    /// Fires inserted from them.
    pub rows: u64,
    /// Files found imported already (an importer died between its commit and its unlink):
    /// removed without inserting anything.
    pub repeated: u64,
    /// Files that did not parse, moved aside as `*.bad` and counted as drops.
    pub bad: u64,
    /// Files left for a later import (database busy, or the deadline passed).
    pub left: u64,
}

impl Spool {
    /// A spool next to the database of `config`; nothing is created before [`Spool::flush`].
    pub fn new(config: StoreConfig) -> Spool {
        Spool { config, records: Mutex::new(Vec::new()) }
    }

    /// The database this spool is imported into.
    pub fn path(&self) -> &Path {
        &self.config.path
    }

    /// Keeps `record` for [`Spool::flush`]. Never blocks on anything but this process.
    pub fn record(&self, record: FireRecord) -> bool {
        self.records.lock().unwrap_or_else(|p| p.into_inner()).push(record);
        true
    }

    /// Writes the records kept so far to a spool file of their own (redacted and bounded first);
    /// a file that cannot be written is counted as dropped. Then, when the spool holds more than
    /// [`IMPORT_ABOVE`] files and this writer's draw says so ([`IMPORT_ONE_IN`]), imports the
    /// spool into the database within `deadline` (from the call), leaving what a busy database
    /// or the deadline does not let through for later.
    pub fn flush(&self, deadline: Duration) -> SpoolReport {
        let started = Instant::now();
        let records = std::mem::take(&mut *self.records.lock().unwrap_or_else(|p| p.into_inner()));
        let mut report = SpoolReport::default();
        if records.is_empty() {
            return report;
        }
        let db = &self.config.path;
        let draw = random();
        match write_file(db, &records, draw) {
            Ok(file) => {
                report.written = records.len() as u64;
                report.file = Some(file);
            }
            Err(e) => {
                append_drop(
                    db,
                    records.len() as u64,
                    &format!("cannot write a spool file in {}: {e}", spool_dir(db).display()),
                );
                return report;
            }
        }
        if draw.is_multiple_of(IMPORT_ONE_IN) && holds_more_than(&spool_dir(db), IMPORT_ABOVE) {
            report.imported = self.import_within(started + deadline);
        }
        report
    }

    /// Imports the spool (and runs retention when due) until `until`; `None` when the database
    /// could not be opened (busy, or broken: the writer thread of the next long-lived process
    /// deals with that), which leaves every file in place.
    fn import_within(&self, until: Instant) -> Option<ImportReport> {
        let db = &self.config.path;
        // As the writer thread does: a file that is not a database is moved aside for a person
        // to look at, else a store only one-shot processes write would never take a row again.
        let conn = match schema::open(db, true) {
            Ok(conn) => conn,
            Err(StoreError::Sqlite { source, .. }) if is_corrupt(&source) => {
                move_aside(db);
                schema::open(db, true).ok()?
            }
            Err(_) => return None,
        };
        let imported = import(&conn, db, Some(until)).ok()?;
        if let Some(left) = until.checked_duration_since(Instant::now()) {
            let _ = prune_if_due(&conn, &self.config.retention, &AtomicBool::new(false), left);
        }
        Some(imported)
    }
}

/// A random number for a file's name (and a writer's draw), from the standard library's
/// randomly keyed hasher: no dependency for a few bits that need not be secret, only unlikely
/// to repeat within one millisecond and one pid.
fn random() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    hasher.write_u32(std::process::id());
    hasher.finish()
}

/// Creates the spool directory (0700) when it is not there, and refuses one that is a symlink
/// or not a directory; one open to others is closed (which only its owner can do).
fn ensure_dir(dir: &Path) -> std::io::Result<()> {
    if let Some(parent) = dir.parent() {
        fs::create_dir_all(parent)?;
    }
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = fs::symlink_metadata(dir)?;
    if !meta.file_type().is_dir() {
        return Err(std::io::Error::other(format!("{} is not a directory (a symlink or a file)", dir.display())));
    }
    if meta.permissions().mode() & 0o777 != 0o700 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Writes `records`, redacted, to a new spool file of `db` named after now, this pid and
/// `draw`; its path.
fn write_file(db: &Path, records: &[FireRecord], draw: u64) -> std::io::Result<PathBuf> {
    let dir = spool_dir(db);
    ensure_dir(&dir)?;
    let name = format!("{}-{}-{draw:016x}.jsonl", crate::now_ms(), std::process::id());
    let mut text = String::new();
    let pid = std::process::id();
    for record in records {
        let line = Line { pid: Some(pid), fire: Some(redacted_record(record)), end: None };
        text.push_str(&serde_json::to_string(&line).map_err(std::io::Error::other)?);
        text.push('\n');
    }
    text.push_str(&serde_json::to_string(&Line { pid: None, fire: None, end: Some(records.len() as u64) })?);
    text.push('\n');
    let temporary = dir.join(format!(".{name}.tmp"));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)
        .and_then(|mut file| file.write_all(text.as_bytes()));
    // No fsync: the database's own writes are durable across a process crash, not a power cut
    // (WAL, synchronous NORMAL), and the spool keeps that promise without the sync's cost.
    if let Err(e) = written.and_then(|()| fs::rename(&temporary, dir.join(&name))) {
        let _ = fs::remove_file(&temporary);
        return Err(e);
    }
    Ok(dir.join(name))
}

/// Whether `dir` holds more than `limit` entries (counting stops there).
fn holds_more_than(dir: &Path, limit: usize) -> bool {
    fs::read_dir(dir).is_ok_and(|entries| entries.take(limit + 1).count() > limit)
}

/// A spool directory's entry, by its name.
#[derive(Debug, PartialEq, Eq)]
enum Entry {
    /// `<base>`: complete, waiting.
    Ready { base: String },
    /// `.<base>.tmp`: being written by the pid in `base` (or left by it).
    Writing { base: String, pid: u32, time_ms: i64 },
    /// `<base>.claim-<pid>-<time_ms>`: an importer's.
    Claimed { base: String, pid: u32, time_ms: i64 },
    /// `*.bad` and anything else: not ours to import.
    Other,
}

/// `<time_ms>-<pid>-<random>.jsonl`: its time and pid.
fn parse_base(base: &str) -> Option<(i64, u32)> {
    let stem = base.strip_suffix(".jsonl")?;
    let mut parts = stem.splitn(3, '-');
    let time_ms = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    let random = parts.next()?;
    (!random.is_empty() && random.bytes().all(|b| b.is_ascii_hexdigit())).then_some((time_ms, pid))
}

fn classify(name: &str) -> Entry {
    if let Some(base) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp"))
        && let Some((time_ms, pid)) = parse_base(base)
    {
        return Entry::Writing { base: base.to_owned(), pid, time_ms };
    }
    if let Some((base, claim)) = name.split_once(".claim-")
        && parse_base(base).is_some()
        && let Some((pid, time_ms)) = claim.split_once('-')
        && let (Ok(pid), Ok(time_ms)) = (pid.parse(), time_ms.parse())
    {
        return Entry::Claimed { base: base.to_owned(), pid, time_ms };
    }
    if parse_base(name).is_some() {
        return Entry::Ready { base: name.to_owned() };
    }
    Entry::Other
}

/// Whether the process `pid` is gone; `false` when this system cannot tell (no `/proc`), which
/// leaves [`STALE`] to decide.
fn gone(pid: u32) -> bool {
    Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
}

fn stale(pid: u32, time_ms: i64) -> bool {
    gone(pid) || crate::now_ms().saturating_sub(time_ms) > i64::try_from(STALE.as_millis()).unwrap_or(i64::MAX)
}

/// Imports the spool of `db` over `conn` (see the module's documentation), file by file in the
/// order they were written, until `deadline` when there is one. A busy database stops the
/// import and leaves the files; another SQLite failure is returned (with the file it hit left
/// in place).
pub(crate) fn import(conn: &Connection, db: &Path, deadline: Option<Instant>) -> Result<ImportReport, StoreError> {
    let mut report = ImportReport::default();
    let dir = spool_dir(db);
    let Ok(entries) = fs::read_dir(&dir) else { return Ok(report) };
    // The spool is ours only as a real directory (a symlink planted there is not followed).
    if !fs::symlink_metadata(&dir).is_ok_and(|meta| meta.file_type().is_dir()) {
        return Ok(report);
    }
    let mut todo: Vec<(String, String)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let base = match classify(&name) {
                Entry::Ready { base } => base,
                Entry::Writing { base, pid, time_ms } | Entry::Claimed { base, pid, time_ms }
                    if stale(pid, time_ms) =>
                {
                    base
                }
                _ => return None,
            };
            Some((base, name))
        })
        .collect();
    todo.sort();
    let mut todo = todo.into_iter().peekable();
    while todo.peek().is_some() {
        // Claimed a batch at a time and inserted in one transaction: a transaction a file
        // rewrote the same index pages once per file (a thousand page writes for a spool of
        // 64 files, most of what an import cost a bridge call).
        let mut batch: Vec<Claimed> = Vec::new();
        let mut late = false;
        while batch.len() < IMPORT_BATCH {
            if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                late = true;
                break;
            }
            let Some((base, name)) = todo.next() else { break };
            let claimed = dir.join(format!("{base}.claim-{}-{}", std::process::id(), crate::now_ms()));
            // Another importer won this one.
            if fs::rename(dir.join(&name), &claimed).is_err() {
                continue;
            }
            match read(&claimed) {
                Ok(lines) => batch.push((base, claimed, lines)),
                Err((rows, why)) => {
                    let bad = dir.join(format!("{base}.bad"));
                    let _ = fs::rename(&claimed, &bad);
                    append_drop(db, rows.max(1), &format!("spool file {base} {why}: moved aside as {}", bad.display()));
                    report.bad += 1;
                }
            }
        }
        match insert_files(conn, &batch) {
            Ok(inserted) => {
                for ((_, claimed, lines), new) in batch.iter().zip(inserted) {
                    if new {
                        report.files += 1;
                        report.rows += lines.len() as u64;
                    } else {
                        report.repeated += 1;
                    }
                    let _ = fs::remove_file(claimed);
                }
            }
            Err(e) => {
                // Unclaimed again at once, so the next importer need not wait for them to go stale.
                for (base, claimed, _) in &batch {
                    let _ = fs::rename(claimed, dir.join(base));
                }
                report.left += (batch.len() + todo.len()) as u64;
                if is_busy(&e) {
                    return Ok(report);
                }
                return Err(StoreError::Sqlite { path: db.to_path_buf(), source: e });
            }
        }
        if late {
            report.left += todo.len() as u64;
            break;
        }
    }
    Ok(report)
}

/// A claimed spool file: its base name, its path while claimed, and its fires with their pids.
type Claimed = (String, PathBuf, Vec<(FireRecord, u32)>);

/// The fires of a claimed spool file with their pids, or how many rows it seemed to hold and
/// why it cannot be imported.
fn read(path: &Path) -> Result<Vec<(FireRecord, u32)>, (u64, String)> {
    let meta = fs::symlink_metadata(path).map_err(|e| (1, format!("cannot be read: {e}")))?;
    if !meta.file_type().is_file() {
        return Err((1, "is not a regular file".to_owned()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err((1, format!("is larger than {MAX_FILE_BYTES} bytes")));
    }
    let text = fs::read_to_string(path).map_err(|e| (1, format!("cannot be read: {e}")))?;
    let count = text.lines().filter(|line| !line.trim().is_empty() && !line.starts_with("{\"end\"")).count() as u64;
    let mut fires = Vec::new();
    let mut end = None;
    for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        if end.is_some() {
            return Err((count, format!("has a line after its end (line {})", number + 1)));
        }
        match serde_json::from_str::<Line>(line) {
            Ok(Line { pid: Some(pid), fire: Some(fire), end: None }) => fires.push((fire, pid)),
            Ok(Line { pid: None, fire: None, end: Some(n) }) => end = Some(n),
            Ok(_) => return Err((count, format!("does not parse (line {}: neither a fire nor the end)", number + 1))),
            Err(e) => return Err((count, format!("does not parse (line {}: {e})", number + 1))),
        }
    }
    match end {
        Some(n) if n == fires.len() as u64 => Ok(fires),
        Some(n) => Err((count, format!("says it holds {n} fires but holds {}", fires.len()))),
        None => Err((count, "is incomplete (its writer stopped before the end)".to_owned())),
    }
}

/// Inserts the fires of each file of `files` with its marker, all in one transaction; for each
/// file, `false` when its marker was there already (imported before, by an importer that died
/// before its unlink), in which case nothing of it is inserted again.
fn insert_files(conn: &Connection, files: &[Claimed]) -> rusqlite::Result<Vec<bool>> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let mut inserted = Vec::with_capacity(files.len());
    for (base, _, fires) in files {
        let seen: Option<i64> = tx
            .query_row("SELECT time_ms FROM spool_imports WHERE name = ?1", params![base], |row| row.get(0))
            .optional()?;
        if seen.is_some() {
            inserted.push(false);
            continue;
        }
        insert_rows(&tx, fires.iter().map(|(fire, pid)| (fire, *pid)))?;
        tx.execute("INSERT INTO spool_imports (name, time_ms) VALUES (?1, ?2)", params![base, crate::now_ms()])?;
        inserted.push(true);
    }
    tx.commit()?;
    Ok(inserted)
}

/// Imports with a short wait on another process's lock (an importer that is not the writer
/// thread: a reader, a spool's writer), restoring `restore` as the connection's busy timeout.
pub(crate) fn import_briefly(
    conn: &Connection,
    db: &Path,
    restore: Duration,
    deadline: Option<Instant>,
) -> Result<ImportReport, StoreError> {
    let _ = conn.busy_timeout(IMPORT_WAIT);
    let report = import(conn, db, deadline);
    let _ = conn.busy_timeout(restore);
    report
}

#[cfg(test)]
mod tests {
    use super::{Entry, classify};

    #[test]
    fn spool_names_are_told_apart() {
        assert_eq!(
            classify("1700000000000-42-00ff.jsonl"),
            Entry::Ready { base: "1700000000000-42-00ff.jsonl".into() }
        );
        assert_eq!(
            classify(".1700000000000-42-00ff.jsonl.tmp"),
            Entry::Writing { base: "1700000000000-42-00ff.jsonl".into(), pid: 42, time_ms: 1_700_000_000_000 }
        );
        assert_eq!(
            classify("1700000000000-42-00ff.jsonl.claim-7-1700000000001"),
            Entry::Claimed { base: "1700000000000-42-00ff.jsonl".into(), pid: 7, time_ms: 1_700_000_000_001 }
        );
        for other in ["1700000000000-42-00ff.jsonl.bad", "notes.txt", "1-2-xyz.jsonl", "a-2-ff.jsonl", ".x.tmp"] {
            assert_eq!(classify(other), Entry::Other, "{other}");
        }
    }
}
