//! The spool through the public API, on real files and real SQLite databases: a short-lived
//! process's fires written to a spool file and read back exactly as the writer thread would
//! have written them; importers racing, dying after their claim or after their commit; a file
//! that does not parse; the permissions; a spool nobody reads staying bounded, and a locked
//! database losing nothing.

mod common;

use std::{
    os::unix::fs::PermissionsExt as _,
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use hook_store::{
    Filter, FireRecord, HookRun, IMPORT_ABOVE, Origin, Reader, Recorder, Spool, StoreConfig, StoredFire, spool_dir,
};

use common::Dir;

/// A fire with every field set, secrets in every text the store redacts, and two hook runs.
fn fire(session: &str, time_ms: i64) -> FireRecord {
    let run = |n: i64| HookRun {
        hook_id: format!("project:guard{n}:pre_tool_execution"),
        kind: Some("bash".into()),
        source_file: Some("/work/project/.hookwire.yaml".into()),
        source_line: Some(3 + n),
        outcome: if n == 0 { "failed".into() } else { "ok".into() },
        decision: (n == 1).then(|| "deny_tool".into()),
        latency_us: 700 + n,
        exit_code: (n == 0).then_some(3),
        stderr_tail: (n == 0).then(|| "boom: OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123".into()),
        error: (n == 0).then(|| format!("exited 3; token ghp_{}", "a".repeat(36))),
        rule: (n == 1).then(|| "git/reset-hard".into()),
        sandbox: Some("enforced (Landlock ABI 7)".into()),
    };
    FireRecord {
        time_ms,
        origin: Origin::Bridge,
        agent: Some("claude".into()),
        project: Some("/work/project".into()),
        session: Some(session.into()),
        event: "pre_tool_execution".into(),
        tool: Some("Bash".into()),
        input: Some(format!(
            r#"{{"command":"curl -H 'Authorization: Bearer abcdefghijklmnop0123' https://x/{}"}}"#,
            "é".repeat(3000)
        )),
        decision: "deny_tool".into(),
        verdict: "deny".into(),
        reason: Some("no curl here; key sk-ant-api03-abcdefghijklmnopqrstuvwx".into()),
        latency_us: 1500,
        hooks: vec![run(0), run(1)],
    }
}

fn config(db: &Path) -> StoreConfig {
    StoreConfig { write_bound: Duration::from_millis(400), ..StoreConfig::new(db.to_path_buf()) }
}

/// One short-lived process's worth: a spool with `fires`, flushed.
fn spool(db: &Path, fires: impl IntoIterator<Item = FireRecord>) -> hook_store::SpoolReport {
    let spool = Spool::new(config(db));
    for fire in fires {
        assert!(spool.record(fire));
    }
    spool.flush(Duration::from_secs(10))
}

fn all(db: &Path) -> Vec<StoredFire> {
    Reader::open(db).unwrap().fires(&Filter::default()).unwrap()
}

/// The names in the spool directory, sorted.
fn listing(db: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(spool_dir(db))
        .map(|entries| entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// The pid of a process that has exited (and been reaped).
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn spooled_fires_read_back_exactly_as_the_writer_thread_writes_them_and_no_secret_reaches_the_disk() {
    let dir = Dir::new("spool-roundtrip");
    let now = hook_store::now_ms();
    let fires = [fire("s1", now - 10), FireRecord { origin: Origin::Fire, agent: None, ..fire("s2", now) }];

    let direct = dir.0.join("direct.db");
    let recorder = Recorder::start(config(&direct));
    for f in &fires {
        assert!(recorder.record(f.clone()));
    }
    assert_eq!(recorder.flush(Duration::from_secs(10)).abandoned, 0);

    let report = spool(&dir.db(), fires.clone());
    assert_eq!(report.written, 2, "{report:?}");
    let file = report.file.unwrap();
    assert!(!dir.db().exists(), "a spool's writer opens no database");
    let text = std::fs::read_to_string(&file).unwrap();
    for secret in ["abcdefghijklmnop0123", "sk-ant-api03", "sk-proj-abcdefghij", "ghp_aaaa"] {
        assert!(!text.contains(secret), "{secret} reached the spool file: {text}");
    }
    assert!(text.contains("[REDACTED]"), "{text}");

    let spooled = all(&dir.db());
    let written = all(&direct);
    assert_eq!(spooled.len(), 2);
    let without_ids = |fires: Vec<StoredFire>| fires.into_iter().map(|f| StoredFire { id: 0, ..f }).collect::<Vec<_>>();
    assert_eq!(without_ids(spooled.clone()), without_ids(written), "every field as the writer thread's");
    // Redacted once and bounded once: not cut further than the writer thread cuts.
    let summary = spooled[1].input_summary.as_deref().unwrap();
    assert_eq!(summary.chars().count(), hook_store::MAX_SUMMARY_CHARS + 1, "{summary}");
    assert!(summary.ends_with('…') && !summary.ends_with("……"), "{summary}");
    assert!(summary.contains("Bearer [REDACTED]"), "{summary}");
    assert_eq!(spooled[1].hooks.len(), 2);
    assert_eq!(spooled[1].hooks[1].rule.as_deref(), Some("git/reset-hard"));
    assert_eq!(spooled[0].origin, "fire");
    assert_eq!(listing(&dir.db()), Vec::<String>::new(), "the imported file is gone");
    assert_eq!(Reader::open(&dir.db()).unwrap().drops(None).rows, 0);
}

#[test]
fn importers_racing_import_each_file_exactly_once() {
    let dir = Dir::new("spool-race");
    let db = dir.db();
    let now = hook_store::now_ms();
    // The database exists (with one fire), so the importers race on the files, not on its
    // creation.
    spool(&db, [fire("first", now)]);
    assert_eq!(all(&db).len(), 1);
    let mut expected = 1;
    for n in 0..60 {
        let count = 1 + n % 3;
        spool(&db, (0..count).map(|k| fire(&format!("s{n}-{k}"), now + n)));
        expected += count;
    }
    assert_eq!(listing(&db).len(), 60, "below the threshold no writer imports");
    // Eight readers opening (and so importing) at once, each then querying (importing again).
    let start = std::sync::Arc::new(std::sync::Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let db = db.clone();
            let start = std::sync::Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                let reader = Reader::open(&db).unwrap();
                reader.fires(&Filter::default()).unwrap().len()
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let fires = all(&db);
    assert_eq!(fires.len(), expected as usize, "each fire once");
    let mut sessions: Vec<_> = fires.iter().map(|f| f.session.clone().unwrap()).collect();
    sessions.sort();
    sessions.dedup();
    assert_eq!(sessions.len(), expected as usize, "no fire twice");
    assert_eq!(listing(&db), Vec::<String>::new());
    assert_eq!(Reader::open(&db).unwrap().drops(None).rows, 0, "no file was lost to the race");
}

/// More files than an import inserts in one transaction: importers racing over several batches
/// each still import every file exactly once.
#[test]
fn importers_racing_over_several_batches_import_each_file_exactly_once() {
    let dir = Dir::new("spool-batches");
    let db = dir.db();
    let now = hook_store::now_ms();
    for n in 0..200 {
        spool(&db, [fire(&format!("m{n}"), now + n)]);
    }
    let start = std::sync::Arc::new(std::sync::Barrier::new(4));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (db, start) = (db.clone(), std::sync::Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                Reader::open(&db).unwrap().fires(&Filter::default()).unwrap().len()
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let fires = all(&db);
    let mut sessions: Vec<_> = fires.iter().map(|f| f.session.clone().unwrap()).collect();
    sessions.sort();
    sessions.dedup();
    assert_eq!((fires.len(), sessions.len()), (200, 200), "each fire once");
    assert_eq!(listing(&db), Vec::<String>::new());
    assert_eq!(Reader::open(&db).unwrap().drops(None).rows, 0);
}

#[test]
fn a_claim_of_a_dead_importer_is_taken_over_and_a_live_fresh_one_left_alone() {
    let dir = Dir::new("spool-claims");
    let db = dir.db();
    let now = hook_store::now_ms();
    // The database exists, empty.
    spool(&db, [fire("first", now)]);
    assert_eq!(all(&db).len(), 1);
    let spooled = |session: &str, claim: &str| {
        let file = spool(&db, [fire(session, now)]).file.unwrap();
        let claimed = PathBuf::from(format!("{}.claim-{claim}", file.display()));
        std::fs::rename(&file, &claimed).unwrap();
        claimed
    };
    let dead = spooled("dead", &format!("{}-{now}", dead_pid()));
    let old = spooled("old", &format!("{}-{}", std::process::id(), now - 120_000));
    let live = spooled("live", &format!("{}-{now}", std::process::id()));
    let mut sessions: Vec<_> = all(&db).into_iter().map(|f| f.session.unwrap()).collect();
    sessions.sort();
    assert_eq!(sessions, ["dead", "first", "old"], "the dead importer's claim and the minute-old one are taken over");
    assert!(!dead.exists() && !old.exists());
    assert!(live.exists(), "a live importer's fresh claim is its own");
}

#[test]
fn an_importer_that_died_between_its_commit_and_its_unlink_imports_nothing_twice() {
    let dir = Dir::new("spool-crash");
    let db = dir.db();
    let now = hook_store::now_ms();
    let file = spool(&db, [fire("once", now), fire("once-too", now)]).file.unwrap();
    let text = std::fs::read(&file).unwrap();
    assert_eq!(all(&db).len(), 2);
    // The importer committed (its marker is in the database) and died with the file claimed,
    // or before even renaming it back: both come back.
    let claimed = PathBuf::from(format!("{}.claim-{}-{now}", file.display(), dead_pid()));
    std::fs::write(&claimed, &text).unwrap();
    std::fs::write(&file, &text).unwrap();
    assert_eq!(all(&db).len(), 2, "the marker makes the second import a no-op");
    assert_eq!(listing(&db), Vec::<String>::new(), "and the files are removed");
    assert_eq!(Reader::open(&db).unwrap().drops(None).rows, 0);
}

#[test]
fn a_file_that_does_not_parse_is_moved_aside_and_counted_while_the_others_import() {
    let dir = Dir::new("spool-bad");
    let db = dir.db();
    let now = hook_store::now_ms();
    let good = spool(&db, [fire("good", now)]).file.unwrap();
    let dir_of = good.parent().unwrap().to_path_buf();
    let garbage = format!("{}-{}-0badf00d.jsonl", now - 5, std::process::id());
    std::fs::write(dir_of.join(&garbage), "this is not json\n{\"end\":1}\n").unwrap();
    // A writer that died half-way (its file has no end line), a minute ago.
    let text = std::fs::read_to_string(&good).unwrap();
    let half = format!(".{}-{}-0000beef.jsonl.tmp", now - 90_000, dead_pid());
    std::fs::write(dir_of.join(&half), text.lines().next().unwrap()).unwrap();
    let reader = Reader::open(&db).unwrap();
    let sessions: Vec<_> = reader.fires(&Filter::default()).unwrap().into_iter().map(|f| f.session.unwrap()).collect();
    assert_eq!(sessions, ["good"]);
    let half_base = half.trim_start_matches('.').trim_end_matches(".tmp");
    assert_eq!(listing(&db), [format!("{half_base}.bad"), format!("{garbage}.bad")]);
    let drops = reader.drops(None);
    assert_eq!(drops.rows, 2, "{drops:?}");
    let reasons = format!("{:?}", drops.reasons);
    assert!(reasons.contains(&garbage) && reasons.contains("does not parse (line 1"), "{reasons}");
    assert!(reasons.contains(half_base) && reasons.contains("incomplete"), "{reasons}");
    // Nothing is imported from them later either.
    assert_eq!(all(&db).len(), 1);
}

#[test]
fn the_spool_is_private_and_a_planted_symlink_is_not_followed() {
    let dir = Dir::new("spool-perms");
    let db = dir.db();
    std::fs::create_dir_all(spool_dir(&db)).unwrap();
    std::fs::set_permissions(spool_dir(&db), std::fs::Permissions::from_mode(0o755)).unwrap();
    let file = spool(&db, [fire("p", hook_store::now_ms())]).file.unwrap();
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&spool_dir(&db)), 0o700, "a spool directory open to others is closed");
    assert_eq!(mode(&file), 0o600);
    assert_eq!(all(&db).len(), 1);

    // A symlink in the spool's place: nothing is written through it, and the row is counted.
    let other = dir.0.join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::remove_dir_all(spool_dir(&db)).unwrap();
    std::os::unix::fs::symlink(&other, spool_dir(&db)).unwrap();
    let report = spool(&db, [fire("through-link", hook_store::now_ms())]);
    assert_eq!(report.written, 0, "{report:?}");
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 0, "nothing written through the symlink");
    let reader = Reader::open(&db).unwrap();
    let drops = reader.drops(None);
    assert_eq!(drops.rows, 1, "{drops:?}");
    assert!(format!("{:?}", drops.reasons).contains("not a directory"), "{drops:?}");
}

#[test]
fn a_spool_nobody_reads_stays_bounded_and_loses_nothing() {
    let dir = Dir::new("spool-bound");
    let db = dir.db();
    let now = hook_store::now_ms();
    let mut most = 0;
    for n in 0..300 {
        spool(&db, [fire(&format!("b{n}"), now + n)]);
        most = most.max(listing(&db).len());
    }
    assert!(db.exists(), "some writer imported the spool");
    // Above the threshold, one writer in eight imports: a hundred files past it would take
    // (7/8)^100 bad draws in a row.
    assert!(most <= IMPORT_ABOVE + 100, "the spool grew to {most} files");
    assert_eq!(all(&db).len(), 300);
}

#[test]
fn a_locked_database_leaves_the_spool_in_place_and_drops_nothing() {
    let dir = Dir::new("spool-locked");
    let db = dir.db();
    let now = hook_store::now_ms();
    spool(&db, [fire("first", now)]);
    assert_eq!(all(&db).len(), 1);
    let lock = rusqlite::Connection::open(&db).unwrap();
    lock.execute_batch("BEGIN EXCLUSIVE; INSERT INTO meta (key, value) VALUES ('locker', '1');").unwrap();
    for n in 0..200 {
        spool(&db, [fire(&format!("l{n}"), now + n)]);
    }
    assert_eq!(listing(&db).len(), 200, "every file is still there");
    lock.execute_batch("ROLLBACK").unwrap();
    drop(lock);
    let reader = Reader::open(&db).unwrap();
    assert_eq!(reader.fires(&Filter::default()).unwrap().len(), 201);
    assert_eq!(reader.drops(None).rows, 0);
    assert_eq!(listing(&db), Vec::<String>::new());
}

#[test]
fn a_corrupt_database_is_moved_aside_by_a_spool_writer_that_imports() {
    let dir = Dir::new("spool-corrupt");
    let db = dir.db();
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::write(&db, vec![b'x'; 8192]).unwrap();
    let now = hook_store::now_ms();
    for n in 0..300 {
        spool(&db, [fire(&format!("c{n}"), now + n)]);
    }
    let aside: Vec<_> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("decisions.db.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "the corrupt file is kept aside");
    assert!(listing(&db).len() < 300, "and the spool was imported into a new database");
    assert_eq!(all(&db).len(), 300);
}
