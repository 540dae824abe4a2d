//! The `replay` group: `hookwire replay` over 10,000 recorded tool calls through the
//! `recommended` packs (target ≤ 2 s), and `hookwire test` over a 200-case file of rules
//! (target ≤ 1 s), each as a whole process, beside a bare process reading the same file.

use std::{fmt::Write as _, path::Path, time::Instant};

use crate::{
    Error, Plan,
    claude::{Scratch, hookwire_path, run_with_stdin},
    report::{Row, Target, since},
};

/// Tool calls in the replayed records.
const CALLS: usize = 10_000;
/// Cases in the test file.
const CASES: usize = 200;

/// What the model ran, in turn: ordinary commands, and one in ten that a pack denies.
const COMMANDS: [&str; 10] = [
    "ls -la",
    "git status",
    "cargo test -p core",
    "cat README.md",
    "grep -rn TODO src",
    "rm -rf ~",
    "npm install",
    "git diff HEAD~1",
    "python3 -m pytest -q",
    "make build",
];

/// Claude Code transcript lines: `CALLS` Bash calls in 50 sessions, a prompt opening each.
fn transcript() -> String {
    let mut text = String::new();
    let sessions = 50;
    for session in 0..sessions {
        let id = format!("00000000-0000-4000-8000-{session:012}");
        let _ = writeln!(
            text,
            r#"{{"type":"user","sessionId":"{id}","timestamp":"2026-11-20T08:00:00.000Z","message":{{"role":"user","content":"tidy up"}}}}"#
        );
        for call in 0..CALLS / sessions {
            let command = COMMANDS[call % COMMANDS.len()];
            let _ = writeln!(
                text,
                r#"{{"type":"assistant","sessionId":"{id}","timestamp":"2026-11-20T08:00:01.000Z","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"toolu_{session}_{call}","name":"Bash","input":{{"command":"{command}"}}}}]}}}}"#
            );
        }
    }
    text
}

/// A test file of `CASES` cases in Claude Code's terms against the rules file `hooks.yaml`.
fn test_file() -> String {
    let mut text = String::from("agent: claude\nconfig: [hooks.yaml]\ncases:\n");
    for case in 0..CASES {
        let command = COMMANDS[case % COMMANDS.len()];
        let decision = if command == "rm -rf ~" { "deny" } else { "allow" };
        let _ = write!(
            text,
            "  - name: case {case}\n    event: PreToolUse\n    input: {{tool_name: Bash, tool_input: {{command: \"{command}\"}}}}\n    expect: {{decision: {decision}}}\n"
        );
    }
    text
}

/// `hookwire ARGS` in `dir` must succeed; `(seconds, stdout)`.
fn timed(hookwire: &Path, dir: &Path, args: &[&str]) -> Result<(f64, Vec<u8>), Error> {
    let mut command = std::process::Command::new(hookwire);
    command.args(args).current_dir(dir).env_remove("RUST_LOG");
    let started = Instant::now();
    let (ok, stdout, stderr) = run_with_stdin(&mut command, b"")?;
    let took = since(started);
    if !ok {
        return Err(format!("hookwire {}: failed: {}", args.join(" "), String::from_utf8_lossy(&stderr)).into());
    }
    Ok((took, stdout))
}

/// `cat FILE` as the bare side: a process that reads the same file.
fn cat(file: &Path) -> Result<f64, Error> {
    let started = Instant::now();
    let status = std::process::Command::new("cat").arg(file).stdout(std::process::Stdio::null()).status()?;
    let took = since(started);
    if !status.success() {
        return Err(format!("cat {}: {status}", file.display()).into());
    }
    Ok(took)
}

pub(crate) fn rows(plan: &Plan) -> Result<Vec<Row>, Error> {
    let hookwire = hookwire_path()?;
    let scratch = Scratch::new("replay")?;
    let dir = scratch.path();
    std::fs::write(dir.join("hooks.yaml"), "packs: [recommended]\n")?;
    let records = dir.join("session.jsonl");
    std::fs::write(&records, transcript())?;
    std::fs::create_dir_all(dir.join("hooktests"))?;
    let tests = dir.join("hooktests/rules.hooktest.yaml");
    std::fs::write(&tests, test_file())?;
    let records_arg = records.display().to_string();
    let replay = ["replay", records_arg.as_str(), "--no-default-config", "--config", "hooks.yaml", "--format", "json"];
    let tests_arg = tests.display().to_string();
    let test = ["test", tests_arg.as_str(), "--format", "json"];

    // Once, checked: the counts must be right before they are timed.
    let (_, out) = timed(&hookwire, dir, &replay)?;
    let report: serde_json::Value = serde_json::from_slice(&out)?;
    if report["tool_calls"] != CALLS || report["denied"] != CALLS / COMMANDS.len() {
        return Err(format!("replay row: unexpected report {report}").into());
    }
    let (_, out) = timed(&hookwire, dir, &test)?;
    let report: serde_json::Value = serde_json::from_slice(&out)?;
    if report["passed"] != CASES {
        return Err(format!("test row: unexpected report {report}").into());
    }

    let mut error: Option<Error> = None;
    let mut keep = |result: Result<f64, Error>| {
        result.unwrap_or_else(|e| {
            error.get_or_insert(e);
            f64::NAN
        })
    };
    let pairs = (plan.pick(1, 0), plan.pick(7, 2));
    let replay_times = crate::alternate!(pairs.0, pairs.1, { keep(timed(&hookwire, dir, &replay).map(|(t, _)| t)) }, {
        keep(cat(&records))
    });
    let test_times = crate::alternate!(pairs.0, pairs.1, { keep(timed(&hookwire, dir, &test).map(|(t, _)| t)) }, {
        keep(cat(&tests))
    });
    if let Some(e) = error {
        return Err(e);
    }
    Ok(vec![
        Row::new(
            format!(
                "`hookwire replay` of {CALLS} recorded Bash calls (one Claude Code JSONL, 50 sessions) through \
                 `packs: [recommended]` (whole process) vs `cat` of the file"
            ),
            replay_times,
            Target::AbsoluteAtMost { seconds: 2.0, allocations: None },
        ),
        Row::new(
            format!(
                "`hookwire test` of a {CASES}-case file against `packs: [recommended]` (whole process) vs `cat` of the file"
            ),
            test_times,
            Target::AbsoluteAtMost { seconds: 1.0, allocations: None },
        ),
    ])
}
