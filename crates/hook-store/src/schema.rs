//! The database's schema, versioned by SQLite's `user_version`: each migration takes the
//! schema one version up, in one transaction; a database of a newer version is refused rather
//! than written to.

use std::{path::Path, time::Duration};

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::error::StoreError;

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i64 = 3;

/// Migration `n` takes a database from version `n` to `n + 1`.
const MIGRATIONS: &[&str] = &[
    // 0 -> 1: fires and their hook runs.
    "CREATE TABLE IF NOT EXISTS fires (
        id INTEGER PRIMARY KEY,
        time_ms INTEGER NOT NULL,
        origin TEXT NOT NULL,
        agent TEXT,
        project TEXT,
        session TEXT,
        event TEXT NOT NULL,
        tool TEXT,
        input_summary TEXT,
        decision TEXT NOT NULL,
        verdict TEXT NOT NULL,
        reason TEXT,
        latency_us INTEGER NOT NULL,
        pid INTEGER
    );
    CREATE INDEX IF NOT EXISTS fires_time ON fires (time_ms);
    CREATE INDEX IF NOT EXISTS fires_session ON fires (session, time_ms);
    CREATE TABLE IF NOT EXISTS hook_runs (
        fire_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        hook_id TEXT NOT NULL,
        kind TEXT,
        source_file TEXT,
        source_line INTEGER,
        outcome TEXT NOT NULL,
        decision TEXT,
        latency_us INTEGER NOT NULL,
        exit_code INTEGER,
        stderr_tail TEXT,
        error TEXT,
        rule TEXT,
        PRIMARY KEY (fire_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS hook_runs_hook ON hook_runs (hook_id);
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    // 1 -> 2: the sandbox each hook run had, so that a run confined less than its hook
    // declared shows in `log` and the dashboard. Older rows keep it NULL: not recorded.
    "ALTER TABLE hook_runs ADD COLUMN sandbox TEXT;",
    // 2 -> 3: one row per spool file imported (crates/hook-store/src/spool.rs), written in the
    // transaction of its rows, so that a file whose importer died before unlinking it is never
    // imported twice; pruned with the fires.
    "CREATE TABLE IF NOT EXISTS spool_imports (name TEXT PRIMARY KEY, time_ms INTEGER NOT NULL) WITHOUT ROWID;",
];

/// How long one SQLite call waits on another process's lock before returning SQLITE_BUSY:
/// short, so that the writer thread's own bounded retry loop stays in charge.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_millis(50);

/// Opens (creating when `create`) the database at `path`, in WAL mode, migrated to
/// [`SCHEMA_VERSION`].
pub(crate) fn open(path: &Path, create: bool) -> Result<Connection, StoreError> {
    if !create && !path.exists() {
        return Err(StoreError::Missing { path: path.to_path_buf() });
    }
    if create && let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Directory { path: path.to_path_buf(), source })?;
    }
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let sqlite = StoreError::sqlite(path);
    let mut conn = Connection::open_with_flags(path, flags).map_err(sqlite)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(StoreError::sqlite(path))?;
    // WAL: readers (`log`, the dashboard) never block the writers, nor writers the readers;
    // NORMAL sync is durable across a process crash, which is what a decision log needs.
    // A file system without shared memory keeps the old journal mode, which works too.
    let _mode: String =
        conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)).map_err(StoreError::sqlite(path))?;
    conn.execute_batch("PRAGMA synchronous = NORMAL").map_err(StoreError::sqlite(path))?;
    migrate(&mut conn, path)?;
    Ok(conn)
}

/// The database's schema version.
pub(crate) fn version(conn: &Connection, path: &Path) -> Result<i64, StoreError> {
    conn.query_row("PRAGMA user_version", [], |row| row.get(0)).map_err(StoreError::sqlite(path))
}

fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let found = version(conn, path)?;
    if found == SCHEMA_VERSION {
        return Ok(());
    }
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew { path: path.to_path_buf(), found, supported: SCHEMA_VERSION });
    }
    if found == 0 {
        // Before the first table, or never: pruned rows' pages go back to the file system
        // (`PRAGMA incremental_vacuum` after a prune) instead of only to a free list.
        conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL").map_err(StoreError::sqlite(path))?;
    }
    // IMMEDIATE: two processes creating the store at once migrate it one after the other; the
    // second finds the version already up to date.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(StoreError::sqlite(path))?;
    let mut at: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0)).map_err(StoreError::sqlite(path))?;
    while at < SCHEMA_VERSION {
        let step = usize::try_from(at).unwrap_or(usize::MAX);
        let Some(sql) = MIGRATIONS.get(step) else { break };
        tx.execute_batch(sql).map_err(StoreError::sqlite(path))?;
        at += 1;
    }
    tx.execute_batch(&format!("PRAGMA user_version = {at}")).map_err(StoreError::sqlite(path))?;
    tx.commit().map_err(StoreError::sqlite(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_database_is_migrated_and_a_newer_one_refused() {
        let dir = std::env::temp_dir().join(format!("hook-store-schema-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("d.db");
        let conn = open(&path, true).unwrap();
        assert_eq!(version(&conn, &path).unwrap(), SCHEMA_VERSION);
        conn.execute_batch(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1)).unwrap();
        drop(conn);
        let err = open(&path, true).unwrap_err();
        assert!(matches!(err, StoreError::TooNew { .. }), "{err}");
        assert!(err.to_string().contains("d.db"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
