//! The store through its public API, on real SQLite files: rows written and read back, a
//! database locked by another connection, a full queue, retention, a corrupt file, and a
//! database of schema version 1 migrated in place.

mod common;

use std::{
    path::Path,
    time::{Duration, Instant},
};

use hook_store::{Filter, FireRecord, HookRun, Origin, Reader, Recorder, Retention, StoreConfig, drops_path};

use common::Dir;

fn fire(session: &str, verdict: &str, time_ms: i64) -> FireRecord {
    FireRecord {
        time_ms,
        origin: Origin::Bridge,
        agent: Some("claude".into()),
        project: Some("/work/project".into()),
        session: Some(session.into()),
        event: "pre_tool_execution".into(),
        tool: Some("Bash".into()),
        input: Some(r#"{"command":"curl -H 'Authorization: Bearer abcdefghijklmnop0123' https://x"}"#.into()),
        decision: if verdict == "deny" { "deny_tool".into() } else { "continue".into() },
        verdict: verdict.into(),
        reason: Some("no curl here; key sk-ant-api03-abcdefghijklmnopqrstuvwx".into()),
        latency_us: 1500,
        hooks: vec![HookRun {
            hook_id: "user:guard:pre_tool_execution".into(),
            kind: Some("claude-command".into()),
            source_file: Some("/home/me/settings.json".into()),
            source_line: Some(7),
            outcome: "ok".into(),
            decision: (verdict == "deny").then(|| "deny_tool".into()),
            latency_us: 1200,
            exit_code: None,
            stderr_tail: None,
            error: None,
            rule: None,
            sandbox: None,
        }],
    }
}

fn config(db: &Path) -> StoreConfig {
    StoreConfig { write_bound: Duration::from_millis(400), ..StoreConfig::new(db.to_path_buf()) }
}

fn all(db: &Path) -> Vec<hook_store::StoredFire> {
    Reader::open(db).unwrap().fires(&Filter::default()).unwrap()
}

#[test]
fn fires_are_written_redacted_and_read_back_with_their_hook_runs() {
    let dir = Dir::new("roundtrip");
    let recorder = Recorder::start(config(&dir.db()));
    let now = hook_store::now_ms();
    assert!(recorder.record(fire("s1", "deny", now - 10)));
    assert!(recorder.record(fire("s2", "continue", now)));
    let report = recorder.flush(Duration::from_secs(10));
    assert_eq!((report.done, report.abandoned), (2, 0), "{report:?}");
    let fires = all(&dir.db());
    assert_eq!(fires.len(), 2);
    assert_eq!(fires[0].session.as_deref(), Some("s2"), "newest first");
    let denied = &fires[1];
    assert_eq!(denied.verdict, "deny");
    assert_eq!(denied.hooks.len(), 1);
    assert_eq!(denied.hooks[0].source_file.as_deref(), Some("/home/me/settings.json"));
    assert_eq!(denied.hooks[0].source_line, Some(7));
    let summary = denied.input_summary.as_deref().unwrap();
    assert!(summary.contains("Bearer [REDACTED]") && !summary.contains("abcdefghijklmnop0123"), "{summary}");
    let reason = denied.reason.as_deref().unwrap();
    assert!(reason.contains("no curl here") && !reason.contains("sk-ant-api03"), "{reason}");

    let reader = Reader::open(&dir.db()).unwrap();
    let only =
        |filter: Filter| reader.fires(&filter).unwrap().iter().map(|f| f.session.clone().unwrap()).collect::<Vec<_>>();
    assert_eq!(only(Filter { decision: Some("deny".into()), ..Filter::default() }), ["s1"]);
    assert_eq!(only(Filter { decision: Some("deny_tool".into()), ..Filter::default() }), ["s1"]);
    assert_eq!(only(Filter { session: Some("s2".into()), ..Filter::default() }), ["s2"]);
    assert_eq!(only(Filter { hook: Some("guard".into()), ..Filter::default() }), ["s2", "s1"]);
    assert_eq!(only(Filter { hook: Some("other".into()), ..Filter::default() }), Vec::<String>::new());
    assert_eq!(only(Filter { since_ms: Some(now - 5), ..Filter::default() }), ["s2"]);
    let first = reader.fires(&Filter { session: Some("s1".into()), ..Filter::default() }).unwrap()[0].id;
    assert_eq!(only(Filter { after_id: Some(first), ..Filter::default() }), ["s2"]);
    let stats = reader.stats(None).unwrap();
    assert_eq!(stats.len(), 1);
    assert_eq!((stats[0].runs, stats[0].denies, stats[0].errors), (2, 1, 0));
    assert_eq!(stats[0].source.as_deref(), Some("/home/me/settings.json:7"));
    assert!((stats[0].max_ms - 1.2).abs() < 1e-9, "{stats:?}");
}

#[test]
fn a_locked_database_never_blocks_record_and_the_rows_it_costs_are_counted() {
    let dir = Dir::new("locked");
    // Create the store, then hold its write lock from another connection.
    let recorder = Recorder::start(config(&dir.db()));
    recorder.record(fire("before", "continue", hook_store::now_ms()));
    assert_eq!(recorder.flush(Duration::from_secs(10)).abandoned, 0);
    let holder = rusqlite::Connection::open(dir.db()).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE; INSERT INTO meta (key, value) VALUES ('held', '1');").unwrap();

    let recorder = Recorder::start(StoreConfig { queue: 2, write_bound: Duration::from_secs(30), ..config(&dir.db()) });
    let started = Instant::now();
    let accepted = (0..10).filter(|_| recorder.record(fire("during", "deny", hook_store::now_ms()))).count();
    let recording = started.elapsed();
    assert!(recording < Duration::from_secs(2), "10 records took {recording:?} while the database was locked");
    assert!((1..=3).contains(&accepted), "a queue of 2 (plus one batch in the writer) took {accepted} rows");
    let report = recorder.flush(Duration::from_millis(200));
    assert!(report.waited < Duration::from_secs(5), "{report:?}");
    assert_eq!(report.abandoned, accepted as u64, "{report:?}");
    let drops = Reader::open(&dir.db()).unwrap().drops(None);
    assert_eq!(drops.rows, 10, "every refused or abandoned row is counted: {drops:?}");
    assert!(drops.reasons.keys().any(|r| r.contains("queue was full")), "{drops:?}");
    assert!(drops.reasons.keys().any(|r| r.contains("exit deadline")), "{drops:?}");

    holder.execute_batch("COMMIT").unwrap();
    drop(holder);
    std::thread::sleep(Duration::from_millis(300));
    let sessions: Vec<_> = all(&dir.db()).into_iter().map(|f| f.session.unwrap()).collect();
    assert_eq!(sessions, ["before"], "an abandoned batch is not committed later");
}

#[test]
fn a_lock_released_within_the_bound_loses_nothing() {
    let dir = Dir::new("released");
    let recorder = Recorder::start(config(&dir.db()));
    recorder.record(fire("before", "continue", hook_store::now_ms()));
    recorder.flush(Duration::from_secs(10));
    let holder = rusqlite::Connection::open(dir.db()).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let recorder = Recorder::start(StoreConfig { write_bound: Duration::from_secs(30), ..config(&dir.db()) });
    recorder.record(fire("during", "continue", hook_store::now_ms()));
    std::thread::sleep(Duration::from_millis(300));
    holder.execute_batch("COMMIT").unwrap();
    let report = recorder.flush(Duration::from_secs(20));
    assert_eq!(report.abandoned, 0, "{report:?}");
    assert_eq!(all(&dir.db()).len(), 2);
    assert!(!drops_path(&dir.db()).exists());
}

#[test]
fn retention_prunes_fires_older_than_the_age_and_the_oldest_beyond_the_size() {
    let dir = Dir::new("retention");
    let day = 86_400_000;
    let now = hook_store::now_ms();
    let recorder = Recorder::start(config(&dir.db()));
    for n in 0..5 {
        recorder.record(fire(&format!("old{n}"), "continue", now - 40 * day));
    }
    for n in 0..5 {
        recorder.record(fire(&format!("new{n}"), "continue", now - n));
    }
    recorder.flush(Duration::from_secs(10));
    assert_eq!(all(&dir.db()).len(), 10, "the first writer pruned before anything was old");
    // An hour later (as far as the store knows), another process records a fire.
    let conn = rusqlite::Connection::open(dir.db()).unwrap();
    conn.execute("UPDATE meta SET value = ?1 WHERE key = 'pruned_ms'", [(now - 2 * 3_600_000).to_string()]).unwrap();
    let recorder = Recorder::start(config(&dir.db()));
    recorder.record(fire("later", "continue", now));
    recorder.flush(Duration::from_secs(10));
    let sessions: Vec<_> = all(&dir.db()).into_iter().map(|f| f.session.unwrap()).collect();
    assert!(sessions.iter().all(|s| !s.starts_with("old")), "{sessions:?}");
    assert_eq!(sessions.len(), 6, "{sessions:?}");
    let runs: i64 = conn.query_row("SELECT count(*) FROM hook_runs", [], |r| r.get(0)).unwrap();
    assert_eq!(runs, 6, "the pruned fires' hook runs go with them");

    // Size: a bound smaller than the rows keeps deleting the oldest.
    conn.execute("UPDATE meta SET value = ?1 WHERE key = 'pruned_ms'", [(now - 2 * 3_600_000).to_string()]).unwrap();
    let tiny = Retention { max_bytes: 1, ..Retention::default() };
    let recorder = Recorder::start(StoreConfig { retention: tiny, ..config(&dir.db()) });
    recorder.flush(Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(all(&dir.db()).len(), 0, "a store over its size bound is pruned from the oldest");
}

#[test]
fn a_corrupt_database_is_moved_aside_and_a_new_one_written() {
    let dir = Dir::new("corrupt");
    std::fs::create_dir_all(dir.db().parent().unwrap()).unwrap();
    std::fs::write(dir.db(), vec![b'x'; 8192]).unwrap();
    let recorder = Recorder::start(config(&dir.db()));
    recorder.record(fire("s", "deny", hook_store::now_ms()));
    assert_eq!(recorder.flush(Duration::from_secs(10)).abandoned, 0);
    assert_eq!(all(&dir.db()).len(), 1);
    let aside = std::fs::read_dir(dir.db().parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| e.file_name().to_string_lossy().starts_with("decisions.db.corrupt-"));
    assert!(aside, "the corrupt file is kept aside");
}

#[test]
fn reading_a_store_that_does_not_exist_names_it() {
    let dir = Dir::new("missing");
    let err = Reader::open(&dir.db()).unwrap_err();
    assert!(err.to_string().contains("decisions.db") && err.to_string().contains("HOOKWIRE_STORE"), "{err}");
}

/// The schema of version 1, as hookwire 0.1 wrote it, frozen here: migrations 2 and 3 must take a
/// database that already has rows in it (a minute old, so that retention keeps them).
const SCHEMA_V1: &str = "CREATE TABLE fires (
        id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, origin TEXT NOT NULL, agent TEXT, project TEXT,
        session TEXT, event TEXT NOT NULL, tool TEXT, input_summary TEXT, decision TEXT NOT NULL,
        verdict TEXT NOT NULL, reason TEXT, latency_us INTEGER NOT NULL, pid INTEGER);
    CREATE INDEX fires_time ON fires (time_ms);
    CREATE INDEX fires_session ON fires (session, time_ms);
    CREATE TABLE hook_runs (
        fire_id INTEGER NOT NULL, seq INTEGER NOT NULL, hook_id TEXT NOT NULL, kind TEXT, source_file TEXT,
        source_line INTEGER, outcome TEXT NOT NULL, decision TEXT, latency_us INTEGER NOT NULL, exit_code INTEGER,
        stderr_tail TEXT, error TEXT, rule TEXT, PRIMARY KEY (fire_id, seq)) WITHOUT ROWID;
    CREATE INDEX hook_runs_hook ON hook_runs (hook_id);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO fires (time_ms, origin, agent, event, decision, verdict, latency_us)
        VALUES (CAST(strftime('%s', 'now') AS INTEGER) * 1000 - 60000, 'bridge', 'claude', 'pre_tool_execution', 'deny_tool', 'deny', 900);
    INSERT INTO hook_runs (fire_id, seq, hook_id, kind, outcome, decision, latency_us)
        VALUES (1, 0, 'project:fmt:pre_tool_execution', 'bash', 'ok', 'deny_tool', 800);
    PRAGMA user_version = 1;";

#[test]
fn a_version_1_database_is_migrated_its_old_rows_read_back_without_a_sandbox_and_new_ones_with_it() {
    let dir = Dir::new("migrate-v1");
    std::fs::create_dir_all(dir.db().parent().unwrap()).unwrap();
    rusqlite::Connection::open(dir.db()).unwrap().execute_batch(SCHEMA_V1).unwrap();

    // A reader opens it first (`hookwire log` after an upgrade): it migrates.
    let old = all(&dir.db());
    assert_eq!(old.len(), 1);
    assert_eq!(old[0].hooks[0].hook_id, "project:fmt:pre_tool_execution");
    assert_eq!(old[0].hooks[0].sandbox, None, "a row written before version 2 has no sandbox");
    let version: i64 =
        rusqlite::Connection::open(dir.db()).unwrap().query_row("PRAGMA user_version", [], |row| row.get(0)).unwrap();
    assert_eq!(version, hook_store::SCHEMA_VERSION);
    assert_eq!(version, 3);
    let markers: i64 = rusqlite::Connection::open(dir.db())
        .unwrap()
        .query_row("SELECT count(*) FROM spool_imports", [], |row| row.get(0))
        .unwrap();
    assert_eq!(markers, 0, "version 3 adds the spool's import markers");

    // The writer adds to the migrated database, the sandbox included.
    let recorder = Recorder::start(config(&dir.db()));
    let mut record = fire("after", "deny", hook_store::now_ms());
    record.hooks[0].sandbox = Some("best-effort: Landlock ABI 3, not enforced: TCP rules (Landlock ABI 4)".into());
    assert!(recorder.record(record));
    assert_eq!(recorder.flush(Duration::from_secs(10)).abandoned, 0);
    let fires = all(&dir.db());
    assert_eq!(fires.len(), 2);
    assert_eq!(
        fires[0].hooks[0].sandbox.as_deref(),
        Some("best-effort: Landlock ABI 3, not enforced: TCP rules (Landlock ABI 4)")
    );
    assert_eq!(fires[1].hooks[0].sandbox, None);
}
