//! Reading the store: the fires `hookwire log` and the dashboard list, per-hook statistics,
//! and the drops counted in the side file.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::atomic::AtomicBool,
    time::Duration,
};

use rusqlite::{Connection, params_from_iter, types::Value as Sql};
use serde::Serialize;

use crate::{
    error::StoreError,
    schema, spool,
    writer::{Retention, drops_path, prune_if_due},
};

/// How long a reader waits on another process's write lock: it is a person's command, not a
/// fire.
const READ_WAIT: Duration = Duration::from_secs(2);

/// Which fires to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// This session only.
    pub session: Option<String>,
    /// This agent only (`claude`, `gemini`, `codex`).
    pub agent: Option<String>,
    /// Projects whose directory contains this text.
    pub project: Option<String>,
    /// This decision: a verdict (`deny`, `ask`, `allow`, `continue`) or an engine decision
    /// (`deny_tool`, `stop`, ...).
    pub decision: Option<String>,
    /// Fires where a hook whose id contains this text ran.
    pub hook: Option<String>,
    /// Fires where a rule whose name contains this text decided.
    pub rule: Option<String>,
    /// Fires at or after this time (ms since the epoch).
    pub since_ms: Option<i64>,
    /// Fires with a larger id than this one, oldest first (`--follow`); without it, newest
    /// first.
    pub after_id: Option<i64>,
    /// At most this many (0: no limit).
    pub limit: usize,
}

/// A recorded hook run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredHookRun {
    /// The hook's id.
    pub hook_id: String,
    /// Its executor kind.
    pub kind: Option<String>,
    /// The configuration file that declared it.
    pub source_file: Option<String>,
    /// The line there.
    pub source_line: Option<i64>,
    /// How its run ended.
    pub outcome: String,
    /// The action it returned that took effect.
    pub decision: Option<String>,
    /// Its duration in microseconds.
    pub latency_us: i64,
    /// Its exit code, when it failed as a process.
    pub exit_code: Option<i64>,
    /// Its stderr's last lines, when it failed (redacted).
    pub stderr_tail: Option<String>,
    /// Its error, or why it was filtered out (redacted).
    pub error: Option<String>,
    /// The rule that decided.
    pub rule: Option<String>,
    /// The sandbox the run had (`none`, `enforced (Landlock ABI 7)`, `best-effort: ..., not
    /// enforced: ...`); `None` for kinds that start no process, and for rows written before
    /// schema version 2.
    pub sandbox: Option<String>,
}

/// A recorded fire with its hook runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredFire {
    /// Row id: increases with every fire written.
    pub id: i64,
    /// When, ms since the epoch.
    pub time_ms: i64,
    /// Which command fired (`bridge`, `daemon`, `chat`, `fire`, `serve`, `host`).
    pub origin: String,
    /// The agent.
    pub agent: Option<String>,
    /// The project directory.
    pub project: Option<String>,
    /// The session id.
    pub session: Option<String>,
    /// The event.
    pub event: String,
    /// The tool.
    pub tool: Option<String>,
    /// The start of the input, secrets masked.
    pub input_summary: Option<String>,
    /// The engine's decision.
    pub decision: String,
    /// The decision as a person names it.
    pub verdict: String,
    /// Why (redacted).
    pub reason: Option<String>,
    /// The fire's duration in microseconds.
    pub latency_us: i64,
    /// Its hook runs, in order.
    pub hooks: Vec<StoredHookRun>,
}

/// Per-hook statistics over a window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookStats {
    /// The hook's id.
    pub hook_id: String,
    /// Where it was declared (`file:line`), as last recorded.
    pub source: Option<String>,
    /// Runs recorded (filtered and disabled ones included).
    pub runs: u64,
    /// Runs that failed (timed out, crashed, invalid output, ...).
    pub errors: u64,
    /// Runs that denied (`deny_tool`).
    pub denies: u64,
    /// Median duration of the runs that ran, in milliseconds.
    pub p50_ms: f64,
    /// 95th percentile, in milliseconds.
    pub p95_ms: f64,
    /// Longest, in milliseconds.
    pub max_ms: f64,
}

/// Rows dropped instead of written, from the side file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Drops {
    /// Rows dropped in the window.
    pub rows: u64,
    /// Why, with the rows per reason.
    pub reasons: BTreeMap<String, u64>,
}

/// A read connection to the store.
#[derive(Debug)]
pub struct Reader {
    conn: Connection,
    path: PathBuf,
}

const FIRE_COLUMNS: &str = "id, time_ms, origin, agent, project, session, event, tool, input_summary, decision, verdict, \
                            reason, latency_us";

impl Reader {
    /// Opens the store at `path`, importing its spool first (creating the database when only
    /// the spool holds rows yet); [`StoreError::Missing`] when nothing was recorded there.
    pub fn open(path: &Path) -> Result<Reader, StoreError> {
        let create = !path.exists() && spool::spool_pending(path);
        // Opening waits on another process's lock only briefly (it may be a migration, or the
        // switch to WAL of a database being created by several readers at once): a reader
        // tries again for as long as it waits on a lock otherwise.
        let started = std::time::Instant::now();
        let conn = loop {
            match schema::open(path, create) {
                Err(e) if e.is_busy() && started.elapsed() < READ_WAIT => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                opened => break opened?,
            }
        };
        conn.busy_timeout(READ_WAIT).map_err(StoreError::sqlite(path))?;
        let reader = Reader { conn, path: path.to_path_buf() };
        reader.import_spool();
        Ok(reader)
    }

    /// Imports the spool ([`crate::Spool`]) so the queries that follow see the fires of the
    /// short-lived processes, and runs retention (when due) after an import that brought rows.
    /// Best effort: a busy database leaves the files for the next query, and what cannot be
    /// imported is counted in the drops file by the import.
    fn import_spool(&self) {
        let Ok(report) = spool::import_briefly(&self.conn, &self.path, READ_WAIT, None) else { return };
        if report.files > 0 {
            let _ = prune_if_due(&self.conn, &Retention::from_env(), &AtomicBool::new(false), Duration::MAX);
        }
    }

    /// The database path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The fires `filter` selects, with their hook runs (the spool imported first).
    pub fn fires(&self, filter: &Filter) -> Result<Vec<StoredFire>, StoreError> {
        self.import_spool();
        let mut sql_conditions: Vec<&str> = Vec::new();
        let mut bound: Vec<Sql> = Vec::new();
        // Each condition with the value its placeholders (one or more) take.
        let mut add = |condition: &'static str, value: Option<Sql>| {
            if let Some(value) = value {
                sql_conditions.push(condition);
                bound.extend(std::iter::repeat_n(value, condition.matches('?').count()));
            }
        };
        add("session = ?", filter.session.clone().map(Sql::Text));
        add("agent = ?", filter.agent.clone().map(Sql::Text));
        add("instr(project, ?) > 0", filter.project.clone().map(Sql::Text));
        add("(verdict = ? OR decision = ?)", filter.decision.clone().map(Sql::Text));
        add("id IN (SELECT fire_id FROM hook_runs WHERE instr(hook_id, ?) > 0)", filter.hook.clone().map(Sql::Text));
        add(
            "id IN (SELECT fire_id FROM hook_runs WHERE rule IS NOT NULL AND instr(rule, ?) > 0)",
            filter.rule.clone().map(Sql::Text),
        );
        add("time_ms >= ?", filter.since_ms.map(Sql::Integer));
        add("id > ?", filter.after_id.map(Sql::Integer));
        let mut sql = format!("SELECT {FIRE_COLUMNS} FROM fires");
        if !sql_conditions.is_empty() {
            sql.push_str(" WHERE ");
            sql.push_str(&sql_conditions.join(" AND "));
        }
        sql.push_str(if filter.after_id.is_some() { " ORDER BY id ASC" } else { " ORDER BY id DESC" });
        if filter.limit > 0 {
            sql.push_str(&format!(" LIMIT {}", filter.limit));
        }
        let sqlite = |e| StoreError::Sqlite { path: self.path.clone(), source: e };
        let mut statement = self.conn.prepare(&sql).map_err(sqlite)?;
        let mut fires = statement
            .query_map(params_from_iter(bound), |row| {
                Ok(StoredFire {
                    id: row.get(0)?,
                    time_ms: row.get(1)?,
                    origin: row.get(2)?,
                    agent: row.get(3)?,
                    project: row.get(4)?,
                    session: row.get(5)?,
                    event: row.get(6)?,
                    tool: row.get(7)?,
                    input_summary: row.get(8)?,
                    decision: row.get(9)?,
                    verdict: row.get(10)?,
                    reason: row.get(11)?,
                    latency_us: row.get(12)?,
                    hooks: Vec::new(),
                })
            })
            .map_err(sqlite)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(sqlite)?;
        let mut runs = self
            .conn
            .prepare(
                "SELECT hook_id, kind, source_file, source_line, outcome, decision, latency_us, exit_code, stderr_tail, \
                 error, rule, sandbox FROM hook_runs WHERE fire_id = ?1 ORDER BY seq",
            )
            .map_err(sqlite)?;
        for fire in &mut fires {
            fire.hooks = runs
                .query_map([fire.id], |row| {
                    Ok(StoredHookRun {
                        hook_id: row.get(0)?,
                        kind: row.get(1)?,
                        source_file: row.get(2)?,
                        source_line: row.get(3)?,
                        outcome: row.get(4)?,
                        decision: row.get(5)?,
                        latency_us: row.get(6)?,
                        exit_code: row.get(7)?,
                        stderr_tail: row.get(8)?,
                        error: row.get(9)?,
                        rule: row.get(10)?,
                        sandbox: row.get(11)?,
                    })
                })
                .map_err(sqlite)?
                .collect::<rusqlite::Result<Vec<_>>>()
                .map_err(sqlite)?;
        }
        Ok(fires)
    }

    /// The largest fire id (0 when there is none).
    pub fn last_id(&self) -> Result<i64, StoreError> {
        self.import_spool();
        self.conn
            .query_row("SELECT coalesce(max(id), 0) FROM fires", [], |row| row.get(0))
            .map_err(StoreError::sqlite(&self.path))
    }

    /// Per-hook statistics over the fires at or after `since_ms`, by hook id.
    pub fn stats(&self, since_ms: Option<i64>) -> Result<Vec<HookStats>, StoreError> {
        self.import_spool();
        let sqlite = |e| StoreError::Sqlite { path: self.path.clone(), source: e };
        let mut statement = self
            .conn
            .prepare(
                "SELECT r.hook_id, r.outcome, r.decision, r.latency_us, r.source_file, r.source_line FROM hook_runs r \
                 JOIN fires f ON f.id = r.fire_id WHERE f.time_ms >= ?1 ORDER BY f.id",
            )
            .map_err(sqlite)?;
        #[derive(Default)]
        struct Acc {
            source: Option<String>,
            runs: u64,
            errors: u64,
            denies: u64,
            latencies: Vec<i64>,
        }
        let mut by_hook: BTreeMap<String, Acc> = BTreeMap::new();
        let rows = statement
            .query_map([since_ms.unwrap_or(i64::MIN)], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, Option<String>>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, Option<String>>(4)?,
                    row.get::<_, Option<i64>>(5)?,
                ))
            })
            .map_err(sqlite)?;
        for row in rows {
            let (hook_id, outcome, decision, latency, file, line) = row.map_err(sqlite)?;
            let acc = by_hook.entry(hook_id).or_default();
            acc.runs += 1;
            if let Some(file) = file {
                acc.source = Some(match line {
                    Some(line) => format!("{file}:{line}"),
                    None => file,
                });
            }
            match outcome.as_str() {
                "filtered" | "disabled" => continue,
                "ok" | "no_change" => {}
                _ => acc.errors += 1,
            }
            if decision.as_deref() == Some("deny_tool") {
                acc.denies += 1;
            }
            acc.latencies.push(latency);
        }
        Ok(by_hook
            .into_iter()
            .map(|(hook_id, mut acc)| {
                acc.latencies.sort_unstable();
                let ms = |q: f64| quantile(&acc.latencies, q) as f64 / 1000.0;
                HookStats {
                    hook_id,
                    source: acc.source,
                    runs: acc.runs,
                    errors: acc.errors,
                    denies: acc.denies,
                    p50_ms: ms(0.5),
                    p95_ms: ms(0.95),
                    max_ms: ms(1.0),
                }
            })
            .collect())
    }

    /// The rows dropped at or after `since_ms`, from the side file.
    pub fn drops(&self, since_ms: Option<i64>) -> Drops {
        read_drops(&self.path, since_ms)
    }
}

/// The `q`-quantile (0..=1) of sorted values, nearest rank; 0 when there is none.
fn quantile(sorted: &[i64], q: f64) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The drops counted in the side file of `db` at or after `since_ms`.
pub(crate) fn read_drops(db: &Path, since_ms: Option<i64>) -> Drops {
    let mut drops = Drops::default();
    let Ok(text) = std::fs::read_to_string(drops_path(db)) else { return drops };
    for line in text.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(time), Some(rows)) = (parts.next(), parts.next()) else { continue };
        let (Ok(time), Ok(rows)) = (time.parse::<i64>(), rows.parse::<u64>()) else { continue };
        if since_ms.is_some_and(|since| time < since) {
            continue;
        }
        drops.rows += rows;
        *drops.reasons.entry(parts.next().unwrap_or("").to_owned()).or_default() += rows;
    }
    drops
}
