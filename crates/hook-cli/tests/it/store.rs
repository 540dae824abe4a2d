//! The decision store through real processes: bridge calls record their fires (twenty at
//! once lose none) through the spool without opening the database, a database locked by
//! another process changes no answer and loses no row, retention prunes old rows,
//! `HOOKWIRE_STORE=off` writes nothing, and `hookwire log --follow` streams new fires.

use std::{
    io::{BufRead as _, BufReader, Write as _},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::common::{
    agent::{AgentProject, Run, command, run, settings_one, stdin_line},
    json_stdout, python,
};

/// A project whose bridge records to `state/hookwire/decisions.db` of its scratch directory.
pub(crate) struct Recorded {
    pub(crate) project: AgentProject,
    pub(crate) settings: PathBuf,
}

impl Recorded {
    /// A project with one Claude Code PreToolUse hook on Bash that denies commands containing
    /// `curl` (its stderr is the reason) and lets the others through.
    pub(crate) fn new(tag: &str) -> Recorded {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bridge");
        let project = AgentProject::new(tag, "7c1f3a52-9d0e-4b6a-8e21-5f4d3c2b1a09", &fixtures);
        let guard = "if grep -q curl; then echo 'curl is not allowed here: use the fetch tool' >&2; exit 2; fi";
        let settings = project.settings("guard.json", &settings_one("PreToolUse", Some("Bash"), vec![command(guard)]));
        Recorded { project, settings }
    }

    pub(crate) fn state(&self) -> PathBuf {
        self.project.path("state")
    }

    pub(crate) fn db(&self) -> PathBuf {
        self.state().join("hookwire/decisions.db")
    }

    /// The bridge for a Bash call of `session`.
    pub(crate) fn bridge(&self, session: &str, shell_command: &str) -> (Command, String) {
        let mut bridge = self.project.command("claude", &[&self.settings], &[]);
        bridge.env("XDG_STATE_HOME", self.state()).env("HOOKWIRE_NO_DAEMON", "1");
        // Rows are read back: a loaded machine must not make one miss the 200 ms exit deadline
        // (the locked-database test sets the default back for the call it is about).
        bridge.env("HOOKWIRE_STORE_FLUSH_MS", "10000");
        let input = json!({
            "session_id": session,
            "transcript_path": self.project.path("home/t.jsonl"),
            "cwd": self.project.project_str(),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": { "command": shell_command, "description": "Run a command" },
            "tool_use_id": "toolu_01A2b3C4d5E6f7G8h9J0kLmN",
        });
        (bridge, stdin_line(&input))
    }

    /// Runs the bridge for a Bash call of `session`.
    pub(crate) fn call(&self, session: &str, shell_command: &str) -> Run {
        let (bridge, stdin) = self.bridge(session, shell_command);
        run(bridge, &stdin)
    }

    /// `hookwire ARGS` reading this project's store.
    pub(crate) fn hookwire(&self, args: &[&str]) -> Command {
        let mut command = self.project.hookwire("project", args);
        command.env("XDG_STATE_HOME", self.state());
        command
    }

    /// `hookwire log --format json` (plus `args`): the fires, newest first.
    pub(crate) fn log(&self, args: &[&str]) -> Vec<Value> {
        let mut all = vec!["log", "--format", "json", "-n", "1000"];
        all.extend_from_slice(args);
        let output = self.hookwire(&all).output().unwrap();
        assert!(output.status.success(), "{}", crate::common::both(&output));
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
            .collect()
    }
}

#[test]
fn twenty_concurrent_bridge_calls_record_twenty_fires_with_hook_source_and_latency() {
    let recorded = Recorded::new("store-twenty");
    let calls: Vec<(Command, String)> = (0..20usize)
        .map(|n| {
            let shell =
                if n.is_multiple_of(2) { format!("curl https://example.invalid/{n}") } else { format!("echo {n}") };
            recorded.bridge(&format!("session-{n:02}"), &shell)
        })
        .collect();
    let runs: Vec<Run> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            calls.into_iter().map(|(bridge, stdin)| scope.spawn(move || run(bridge, &stdin))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (n, run) in runs.iter().enumerate() {
        assert!(!run.stderr.to_lowercase().contains("locked"), "call {n}: {}", run.describe());
        if n.is_multiple_of(2) {
            assert!(run.deny_reason().contains("curl is not allowed"), "call {n}: {}", run.describe());
        } else {
            assert_eq!(run.permission(), None, "call {n}: {}", run.describe());
        }
    }
    let fires = recorded.log(&[]);
    let mut sessions: Vec<&str> = fires.iter().map(|f| f["session"].as_str().unwrap()).collect();
    sessions.sort_unstable();
    let expected: Vec<String> = (0..20).map(|n| format!("session-{n:02}")).collect();
    assert_eq!(sessions, expected, "one fire per bridge call, none lost");
    let settings = recorded.settings.display().to_string();
    for fire in &fires {
        let n: usize = fire["session"].as_str().unwrap()[8..].parse().unwrap();
        assert_eq!(fire["agent"], "claude");
        assert_eq!(fire["origin"], "bridge");
        assert_eq!(fire["event"], "pre_tool_execution");
        assert_eq!(fire["verdict"], if n.is_multiple_of(2) { "deny" } else { "continue" }, "{fire}");
        assert!(fire["latency_us"].as_i64().unwrap() > 0, "{fire}");
        let hook = &fire["hooks"][0];
        assert_eq!(hook["source_file"], settings.as_str(), "{fire}");
        assert!(hook["source_line"].as_i64().unwrap() > 1, "the line of the handler in the pretty file: {fire}");
        assert!(hook["latency_us"].as_i64().unwrap() > 0, "{fire}");
        if n.is_multiple_of(2) {
            assert!(fire["reason"].as_str().unwrap().contains("curl is not allowed"), "{fire}");
            assert_eq!(hook["decision"], "deny_tool", "{fire}");
        }
    }
    let denied = recorded.log(&["--decision", "deny"]);
    assert_eq!(denied.len(), 10);
    let one = recorded.log(&["--session", "session-03"]);
    assert_eq!(one.len(), 1);
    let stats = json_stdout(&recorded.hookwire(&["stats", "--format", "json"]).output().unwrap());
    let hook = &stats["hooks"][0];
    assert_eq!((hook["runs"].as_u64(), hook["denies"].as_u64()), (Some(20), Some(10)), "{stats}");
    assert!(hook["p95_ms"].as_f64().unwrap() >= hook["p50_ms"].as_f64().unwrap(), "{stats}");
    assert!(hook["source"].as_str().unwrap().starts_with(&settings), "{stats}");
    assert_eq!(stats["dropped"]["rows"], 0, "{stats}");
}

/// A Python process holding `db`'s write lock until its stdin closes.
struct Locker(std::process::Child);

impl Locker {
    fn hold(db: &Path) -> Locker {
        let script = "import sqlite3, sys\n\
                      db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)\n\
                      db.execute('BEGIN EXCLUSIVE')\n\
                      db.execute(\"INSERT INTO meta (key, value) VALUES ('locker', '1')\")\n\
                      print('locked', flush=True)\n\
                      sys.stdin.read()\n\
                      db.execute('ROLLBACK')\n";
        let mut child = Command::new(python())
            .args(["-c", script])
            .arg(db)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "locked", "the Python locker holds the lock");
        Locker(child)
    }

    fn release(mut self) {
        drop(self.0.stdin.take());
        let _ = self.0.wait();
    }
}

#[test]
fn a_locked_database_neither_changes_nor_holds_up_the_answer_and_the_row_lands_once_it_is_free() {
    let recorded = Recorded::new("store-locked");
    // The store exists (and is in WAL mode) before another process locks it.
    recorded.call("before", "echo first");
    let unlocked = recorded.call("baseline", "curl https://example.invalid/a");
    let sessions: Vec<Value> = recorded.log(&[]).iter().map(|f| f["session"].clone()).collect();
    assert_eq!(sessions, [json!("baseline"), json!("before")]);
    // More spool files than a bridge leaves before it imports the spool itself: some of the
    // calls below then try to import into the locked database, and must leave the files.
    let spool = hook_store::spool_dir(&recorded.db());
    let filler = std::fs::read_dir(&spool).map(|entries| entries.count()).unwrap_or(0);
    assert_eq!(filler, 0, "the reader imported the spool");
    let locker = Locker::hold(&recorded.db());
    for n in 0..=hook_store::IMPORT_ABOVE {
        let (mut call, stdin) = recorded.bridge(&format!("filler-{n}"), "echo fill");
        call.env("HOOKWIRE_STORE_FLUSH_MS", "200");
        assert_eq!(run(call, &stdin).code, 0);
    }
    let started = Instant::now();
    let mut locked = Vec::new();
    for n in 0..8 {
        let (mut during_lock, stdin) = recorded.bridge(&format!("during-lock-{n}"), "curl https://example.invalid/b");
        during_lock.env("HOOKWIRE_STORE_FLUSH_MS", "200");
        locked.push(run(during_lock, &stdin));
    }
    let elapsed = started.elapsed();
    for locked in &locked {
        assert_eq!(locked.stdout, unlocked.stdout, "the same answer with the database locked\n{}", locked.describe());
        assert_eq!(locked.code, unlocked.code);
        assert!(locked.deny_reason().contains("curl is not allowed"), "{}", locked.describe());
        assert!(
            !locked.stderr.to_lowercase().contains("lock"),
            "nothing about the store reaches the agent\n{}",
            locked.describe()
        );
    }
    // A bridge that tries to import gives up 200 ms after its answer is out.
    assert!(elapsed < Duration::from_secs(20), "eight bridge calls waited {elapsed:?} on a locked database");
    let waiting = std::fs::read_dir(&spool).unwrap().count();
    assert_eq!(waiting, hook_store::IMPORT_ABOVE + 1 + 8, "every call's file waits in the spool");
    locker.release();
    // Once the lock is gone, the next reader imports them all, and nothing was dropped.
    let fires = recorded.log(&[]);
    assert_eq!(fires.len(), 2 + hook_store::IMPORT_ABOVE + 1 + 8);
    let sessions: Vec<Value> = fires.iter().map(|f| f["session"].clone()).collect();
    for n in 0..8 {
        assert!(sessions.contains(&json!(format!("during-lock-{n}"))), "{sessions:?}");
    }
    let log = recorded.hookwire(&["log"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&log.stderr).contains("dropped"), "{}", crate::common::both(&log));
    let stats = json_stdout(&recorded.hookwire(&["stats", "--format", "json"]).output().unwrap());
    assert_eq!(stats["dropped"]["rows"], 0, "{stats}");
}

#[test]
fn a_bridge_call_opens_no_database_and_the_next_reader_shows_it() {
    let recorded = Recorded::new("store-spool");
    let denied = recorded.call("spooled", "curl https://example.invalid/spool");
    assert!(denied.deny_reason().contains("curl is not allowed"), "{}", denied.describe());
    assert!(!recorded.db().exists(), "the bridge created no SQLite file");
    for suffix in ["-wal", "-shm", ".drops"] {
        assert!(!PathBuf::from(format!("{}{suffix}", recorded.db().display())).exists(), "{suffix}");
    }
    let spool = hook_store::spool_dir(&recorded.db());
    let files: Vec<PathBuf> = std::fs::read_dir(&spool).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.ends_with(".jsonl") && !name.starts_with('.'), "{name}");
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(std::fs::metadata(&spool).unwrap().permissions().mode() & 0o777, 0o700);
    assert_eq!(std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777, 0o600);
    let fires = recorded.log(&[]);
    assert_eq!(fires.len(), 1);
    assert_eq!(fires[0]["session"], "spooled");
    assert_eq!(fires[0]["origin"], "bridge");
    assert_eq!(fires[0]["verdict"], "deny");
    assert!(fires[0]["reason"].as_str().unwrap().contains("curl is not allowed"), "{}", fires[0]);
    assert_eq!(fires[0]["hooks"].as_array().unwrap().len(), 1, "{}", fires[0]);
    assert!(recorded.db().exists(), "the reader made the database");
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 0, "and emptied the spool");
}

#[test]
fn retention_prunes_fires_older_than_its_age_on_a_later_call() {
    let recorded = Recorded::new("store-retention");
    recorded.call("recent", "echo 1");
    // The bridge left its fire in the spool: the first reader makes the database.
    assert_eq!(recorded.log(&[]).len(), 1);
    // Forty days ago, three fires (with a hook run each); the last prune two hours ago.
    let script = "import sqlite3, sys, time\n\
                  db = sqlite3.connect(sys.argv[1], isolation_level=None)\n\
                  old = int(time.time() * 1000) - 40 * 86400 * 1000\n\
                  for n in range(3):\n\
                  \x20   cur = db.execute(\"INSERT INTO fires (time_ms, origin, event, decision, verdict, latency_us, session) VALUES (?, 'bridge', 'pre_tool_execution', 'continue', 'continue', 5, ?)\", (old + n, 'old-%d' % n))\n\
                  \x20   db.execute(\"INSERT INTO hook_runs (fire_id, seq, hook_id, outcome, latency_us) VALUES (?, 0, 'user:old', 'ok', 5)\", (cur.lastrowid,))\n\
                  db.execute(\"UPDATE meta SET value = ? WHERE key = 'pruned_ms'\", (str(int(time.time() * 1000) - 7200 * 1000),))\n";
    let status = Command::new(python()).args(["-c", script]).arg(recorded.db()).status().unwrap();
    assert!(status.success());
    assert_eq!(recorded.log(&[]).len(), 4);
    recorded.call("later", "echo 2");
    let sessions: Vec<Value> = recorded.log(&[]).iter().map(|f| f["session"].clone()).collect();
    assert_eq!(sessions, [json!("later"), json!("recent")], "the 40-day-old fires are gone");
    let stats = json_stdout(&recorded.hookwire(&["stats", "--format", "json"]).output().unwrap());
    assert!(!stats.to_string().contains("user:old"), "their hook runs too: {stats}");
}

#[test]
fn the_store_switched_off_writes_nothing() {
    let recorded = Recorded::new("store-off");
    let (mut bridge, stdin) = recorded.bridge("s", "curl x");
    bridge.env("HOOKWIRE_STORE", "off");
    let answer = run(bridge, &stdin);
    assert!(answer.deny_reason().contains("curl is not allowed"));
    assert!(!recorded.state().join("hookwire").exists(), "no store directory with HOOKWIRE_STORE=off");
    let log = recorded.hookwire(&["log"]).output().unwrap();
    assert!(!log.status.success());
    assert!(String::from_utf8_lossy(&log.stderr).contains("decisions.db"), "{}", crate::common::both(&log));
}

#[test]
fn log_follow_streams_a_fire_recorded_after_it_started() {
    let recorded = Recorded::new("store-follow");
    recorded.call("first", "echo 1");
    // On a loaded machine the bridge's row can miss its exit deadline (and be reported lost):
    // the test is about --follow, so it starts once the first row is there.
    let started = Instant::now();
    while recorded.log(&[]).is_empty() {
        assert!(started.elapsed() < Duration::from_secs(30), "the first call's fire was never recorded");
        recorded.call("first", "echo 1");
    }
    let mut follow = recorded
        .hookwire(&["log", "--follow", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Every line `log --follow` prints, read on a thread so that no read can hang the test.
    let lines = BufReader::new(follow.stdout.take().unwrap()).lines();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in lines {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let next = |what: &str| -> Value {
        let line = receiver.recv_timeout(Duration::from_secs(30));
        let line = line.unwrap_or_else(|_| panic!("{what}: no line within 30 s")).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let first = next("the fire recorded before --follow started");
    assert_eq!(first["session"], "first");
    recorded.call("second", "curl https://example.invalid/");
    let second = next("the fire recorded after --follow started");
    let _ = follow.kill();
    let _ = follow.wait();
    assert_eq!(second["session"], "second");
    assert_eq!(second["verdict"], "deny");
    let _ = std::io::stdout().flush();
}

#[test]
fn a_call_refused_because_the_configuration_does_not_load_is_recorded_with_the_reason() {
    let recorded = Recorded::new("store-refused");
    let typo = recorded.project.path("guard.yaml");
    std::fs::write(&typo, "pre_tool_execution:\n  - name: guard\n    comand: \"exit 0\"\n").unwrap();
    let (_, stdin) = recorded.bridge("session-refused", "echo hello");
    let mut bridge = recorded.project.command("claude", &[&recorded.settings], &[&typo]);
    bridge.env("XDG_STATE_HOME", recorded.state()).env("HOOKWIRE_NO_DAEMON", "1");
    bridge.env("HOOKWIRE_STORE_FLUSH_MS", "10000");
    let answer = run(bridge, &stdin);
    let reason = answer.deny_reason();
    assert!(reason.contains("guard.yaml"), "a config that does not load fails closed: {}", answer.describe());

    let fires = recorded.log(&[]);
    assert_eq!(fires.len(), 1, "{fires:#?}");
    let fire = &fires[0];
    assert_eq!(fire["session"], "session-refused", "{fire:#}");
    assert_eq!(fire["verdict"], "deny", "{fire:#}");
    assert_eq!(fire["tool"], "Bash", "{fire:#}");
    assert!(fire["reason"].as_str().unwrap().contains("guard.yaml"), "{fire:#}");
    assert_eq!(fire["hooks"], json!([]), "no hook ran: {fire:#}");
}

#[test]
fn hookwire_test_and_replay_leave_the_decision_store_alone() {
    let recorded = Recorded::new("store-not-test");
    let case_file = recorded.project.path("guard.hooktest.yaml");
    let settings = recorded.settings.display().to_string();
    let test_file = format!(
        "agent: claude\nconfig: [{settings:?}]\ncases:\n  - name: curl is denied\n    event: PreToolUse\n    \
         input: {{tool_name: Bash, tool_input: {{command: \"curl https://example.invalid\"}}}}\n    \
         expect: {{decision: deny}}\n"
    );
    std::fs::write(&case_file, test_file).unwrap();
    let output = recorded.hookwire(&["test", case_file.to_str().unwrap()]).output().unwrap();
    assert!(output.status.success(), "{}", crate::common::both(&output));

    let rules = recorded.project.path("rules.yaml");
    std::fs::write(&rules, "packs: [recommended]\n").unwrap();
    let transcript = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replay/real/claude-2.1.328.jsonl");
    let output = recorded
        .hookwire(&["replay", "--no-default-config", "--config", rules.to_str().unwrap(), transcript.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stdout).contains("denied"), "{}", crate::common::both(&output));

    assert!(!recorded.db().exists(), "neither a test case nor a replayed call is a decision: nothing was recorded");
    // The store still records what an agent's call decides.
    recorded.call("real", "curl https://example.invalid/");
    assert_eq!(recorded.log(&[]).len(), 1);
}
