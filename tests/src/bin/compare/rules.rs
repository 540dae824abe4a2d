//! The rules rows: hookwire's in-process guard (`packs: [recommended]`, crates/hook-rules) on
//! one PreToolUse Bash call through the Engine, as the bridge fires it, against the same rules
//! evaluated by hand; loading every pack; and the bridge as a whole process with that guard
//! against `/bin/true`, against the same guard written as a bash command hook and as a Python
//! hook (through the bridge, and bare as Claude Code runs them today).
//!
//! The whole-process variants run round-robin (one of each per round), so every ratio is taken
//! between runs made moments apart, whatever else the machine was doing.

use std::{hint::black_box, path::Path, sync::Arc, time::Instant};

use hook_agents::{hook_input, input_line};
use hook_config::{self as config, ConfigSource};
use hook_core::{Context, Deadlines, Engine, Event, Level};
use hook_protocol::{
    Agent,
    rules::{PackName, RulesFile},
};
use hook_rules::{RuleSet, RulesFactory, RulesHook, output_of, packs};
use serde_json::json;

use crate::{
    Error, Plan,
    alloc::allocations,
    claude::{Scratch, expect_silent, hookwire_path, run_with_stdin},
    report::{Row, Target, since},
};

/// A typical command an agent runs: 80 characters, five simple commands, no objection.
const COMMAND_80: &str = "git status --short && cargo test -p hook-rules --quiet 2>&1 | tail -n 5 && ls -l";

/// A realistic 10 KB release script (functions, loops, heredocs, `$(…)`, pipes); no objection.
/// The criterion bench of hook-rules judges the same file.
const SCRIPT_10K: &str = include_str!("../../../../crates/hook-rules/benches/fixtures/release.sh");

/// The rules file of every rules row.
const RULES_FILE: &str = "packs: [recommended]\n";

/// A rules file of one rule of its own: what any rules file costs the bridge, packs aside.
const ONE_RULE_FILE: &str = "rules:\n  - name: no-rm-rf-home\n    command: rm -rf\n    args: [\"~\"]\n";

/// The same guard as a Claude Code bash command hook: refuse any input that holds `rm -rf`
/// (exit 2, the reason on stderr), the way such hooks are written.
const BASH_GUARD: &str =
    "if grep -q 'rm -rf'; then echo 'hookwire-compare guard: rm -rf is not allowed' >&2; exit 2; fi";

/// The same guard as a Python hook.
const PYTHON_GUARD: &str = r#"import json, sys
data = json.load(sys.stdin)
command = data.get("tool_input", {}).get("command", "")
if "rm -rf" in command:
    print("hookwire-compare guard: rm -rf is not allowed", file=sys.stderr)
    sys.exit(2)
"#;

/// A Claude Code PreToolUse Bash call of `command` in `project`: the context and its hook
/// input line.
fn bash_call(project: &Path, command: &str) -> (Context, Vec<u8>) {
    let context = Context {
        session_id: Some("5c3e8f1a-2b4d-4c6e-9f70-81a2b3c4d5e6".into()),
        cwd: Some(project.display().to_string()),
        tool_name: Some("Bash".into()),
        tool_arguments: Some(json!({ "command": command, "description": "Run the tests" }).to_string()),
        tool_call_id: Some("toolu_01ABCDEFGHJKMNPQRSTVWXYZ".into()),
        extra: [
            ("transcript_path".to_owned(), json!(project.join("transcript.jsonl").display().to_string())),
            ("permission_mode".to_owned(), json!("default")),
        ]
        .into_iter()
        .collect(),
        ..Context::default()
    };
    let line = input_line(&hook_input(Agent::Claude, Event::PreToolExecution, &context));
    (context, line)
}

/// `rounds` fires; seconds per fire and allocations per fire on this thread.
async fn fires(engine: &Engine, context: &mut Context, rounds: usize) -> (f64, f64) {
    let allocs_before = allocations();
    let started = Instant::now();
    for _ in 0..rounds {
        black_box(engine.fire(black_box(Event::PreToolExecution), context).await);
    }
    let took = since(started);
    // The rules hook never yields, so the task stayed on this thread and the count is the loop's.
    (took / rounds as f64, (allocations() - allocs_before) as f64 / rounds as f64)
}

/// `rounds` verdicts of `hook` by hand, answer included; seconds per call.
fn by_hand(hook: &RulesHook, context: &Context, rounds: usize) -> f64 {
    let started = Instant::now();
    for _ in 0..rounds {
        let verdict = hook.verdict(Event::PreToolExecution, black_box(context));
        black_box(output_of(Event::PreToolExecution, &verdict));
    }
    since(started) / rounds as f64
}

/// Every pack's YAML parsed, as a fresh process parses it; the rules of each.
fn parse_every_pack() -> Result<usize, Error> {
    let mut rules = 0;
    for pack in PackName::ALL {
        let file = packs::parse(pack)?;
        rules += black_box(file).rules.len();
    }
    Ok(rules)
}

/// The in-process rows. Must run on a current-thread runtime (the allocation count is per
/// thread).
pub(crate) async fn inproc_rows(plan: &Plan) -> Result<Vec<Row>, Error> {
    let scratch = Scratch::new("rules-inproc")?;
    let file = scratch.path().join("rules.yaml");
    std::fs::write(&file, RULES_FILE)?;
    let loaded = config::load(&[ConfigSource::new(&file, Level::User)], Deadlines::default(), None);
    let [spec] = loaded.specs.as_slice() else {
        return Err(format!(
            "{}: expected one rules hook, got {} (errors: {})",
            file.display(),
            loaded.specs.len(),
            loaded.errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
        )
        .into());
    };
    let hook = RulesFactory.build_hook(spec)?;
    let engine = Engine::builder().factory(Arc::new(RulesFactory)).build();
    engine
        .replace_level(Level::User, loaded.specs.clone())
        .await
        .map_err(|errors| errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))?;

    let mut rows = Vec::new();
    for (label, command, batch, target) in
        [("80-char command", COMMAND_80, 200, 20e-6), ("10 KB script", SCRIPT_10K, 20, 200e-6)]
    {
        let (mut context, _) = bash_call(scratch.path(), command);
        let base_context = context.clone();
        let name = format!(
            "rules `packs: [recommended]`, PreToolUse Bash, {label} ({} B), through the Engine (per fire) vs \
             the same rules evaluated by hand",
            command.len()
        );
        // The rows time a call the guard lets through: every rule is tried on every command.
        let outcome = engine.fire(Event::PreToolExecution, &mut context).await;
        match outcome.trace.as_slice() {
            [entry]
                if entry.error.is_none()
                    && outcome.decision == hook_core::Decision::Continue
                    && outcome.permission.is_none() => {}
            trace => return Err(format!("{name}: expected one rules hook letting the call through: {trace:?}").into()),
        }
        let mut max_allocs = 0f64;
        let ctx = &mut context;
        let times = crate::alternate!(
            5,
            plan.pick(300, 40),
            {
                let (secs, allocs) = fires(&engine, ctx, batch).await;
                max_allocs = max_allocs.max(allocs);
                secs
            },
            { by_hand(&hook, &base_context, batch) },
        );
        let mut row = Row::new(name, times, Target::AbsoluteAtMost { seconds: target, allocations: None });
        row.allocations = Some(max_allocs);
        rows.push(row);
    }
    engine.shutdown().await;

    // Every rule compiled, as `rules list` and `check` do: the most a process can pay (a call
    // compiles only the pack rules it reaches).
    let name = "load every pack: parse the 8 packs (embedded as JSON) and compile every rule of `recommended` vs parsing alone";
    let file = RulesFile { packs: vec![PackName::Recommended], ..RulesFile::default() };
    let mut error: Option<Error> = None;
    let times = crate::alternate!(
        3,
        plan.pick(100, 20),
        {
            let started = Instant::now();
            let parsed = parse_every_pack();
            let compiled = RuleSet::compile(&file).map(|rules| black_box(rules.rules().len()));
            let took = since(started);
            match (parsed, compiled) {
                (Ok(_), Ok(rules)) => {
                    black_box(rules);
                }
                (Err(e), _) => {
                    error.get_or_insert(e);
                }
                (_, Err(e)) => {
                    error.get_or_insert(e.into());
                }
            }
            took
        },
        {
            let started = Instant::now();
            let parsed = parse_every_pack();
            let took = since(started);
            if let Err(e) = parsed {
                error.get_or_insert(e);
            }
            took
        },
    );
    if let Some(e) = error {
        return Err(format!("{name}: {e}").into());
    }
    rows.push(Row::new(name, times, Target::AbsoluteAtMost { seconds: 5e-3, allocations: None }));
    Ok(rows)
}

/// One whole-process variant: how to start it, and whether it must answer nothing (the bridge)
/// or may write what it likes (the bare baselines).
struct Variant {
    label: &'static str,
    command: Box<dyn Fn() -> std::process::Command>,
    silent: bool,
}

/// Whether a whole run refused the call: exit 2 (a command hook's refusal, or the bridge
/// passing one on) or a `deny` in the answer.
fn refused((ok, stdout, _): &(bool, Vec<u8>, Vec<u8>)) -> bool {
    !ok || String::from_utf8_lossy(stdout).contains("\"deny\"")
}

/// The whole-process rows: `/bin/true`, the bridge with the rules guard, the bridge with the
/// bash guard, the bridge with the Python guard, both guards bare, the bridge with a one-rule
/// file and with no configuration at all, round-robin.
pub(crate) fn process_rows(plan: &Plan, python: &str) -> Result<Vec<Row>, Error> {
    let hookwire = hookwire_path()?;
    let scratch = Scratch::new("rules-bridge")?;
    let dir = scratch.path().to_path_buf();
    let rules = dir.join("rules.yaml");
    std::fs::write(&rules, RULES_FILE)?;
    let one_rule = dir.join("one-rule.yaml");
    std::fs::write(&one_rule, ONE_RULE_FILE)?;
    let guard_py = dir.join("guard.py");
    std::fs::write(&guard_py, PYTHON_GUARD)?;
    let python_command = format!("{python} {}", guard_py.display());
    let settings = |name: &str, command: &str| -> Result<std::path::PathBuf, Error> {
        let path = dir.join(name);
        let value = json!({ "hooks": { "PreToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": command } ] }
        ] } });
        std::fs::write(&path, serde_json::to_vec_pretty(&value)?)?;
        Ok(path)
    };
    let bash_settings = settings("bash-guard.json", BASH_GUARD)?;
    let python_settings = settings("python-guard.json", &python_command)?;
    // The bridge records every fire in its decision store (on by default); a store of its own
    // keeps the harness out of the user's, at the same cost.
    let store = dir.join("store.db");
    let bridge = {
        let (hookwire, dir, store) = (hookwire.clone(), dir.clone(), store.clone());
        move |args: Vec<std::ffi::OsString>| {
            let (hookwire, dir, store) = (hookwire.clone(), dir.clone(), store.clone());
            move || {
                let mut command = std::process::Command::new(&hookwire);
                command
                    .args(["hook", "claude", "--no-default-config"])
                    .args(&args)
                    .current_dir(&dir)
                    .env_remove("RUST_LOG")
                    .env("HOOKWIRE_STORE", &store);
                command
            }
        }
    };
    let bare = |program: String, args: Vec<String>| {
        let dir = dir.clone();
        move || {
            let mut command = std::process::Command::new(&program);
            command.args(&args).current_dir(&dir);
            command
        }
    };
    let variants = [
        Variant { label: "`/bin/true`", command: Box::new(bare("/bin/true".into(), vec![])), silent: false },
        Variant {
            label: "the bridge, `--config` rules `packs: [recommended]`",
            command: Box::new(bridge(vec!["--config".into(), rules.clone().into()])),
            silent: true,
        },
        Variant {
            label: "the bridge, `--settings` bash command hook `grep -q 'rm -rf'`",
            command: Box::new(bridge(vec!["--settings".into(), bash_settings.into()])),
            silent: true,
        },
        Variant {
            label: "the bridge, `--settings` Python command hook",
            command: Box::new(bridge(vec!["--settings".into(), python_settings.into()])),
            silent: true,
        },
        Variant {
            label: "the bash guard bare (`/bin/sh -c`, as Claude Code runs it)",
            command: Box::new(bare("/bin/sh".into(), vec!["-c".into(), BASH_GUARD.into()])),
            silent: false,
        },
        Variant {
            label: "the Python guard bare (as Claude Code runs it)",
            command: Box::new(bare(python.into(), vec![guard_py.display().to_string()])),
            silent: false,
        },
        Variant {
            label: "the bridge, `--config` a rules file of one rule of its own",
            command: Box::new(bridge(vec!["--config".into(), one_rule.into()])),
            silent: true,
        },
        // Last: the only variant that guards nothing.
        Variant { label: "the bridge with no configuration", command: Box::new(bridge(vec![])), silent: true },
    ];

    let (_, line) = bash_call(&dir, COMMAND_80);
    let (_, blocked) = bash_call(&dir, "sudo rm -rf ~/");
    // Every variant is the same guard: it lets the call through and refuses `rm -rf`.
    for variant in &variants[1..variants.len() - 1] {
        let passed = run_with_stdin(&mut (variant.command)(), &line)?;
        if variant.silent {
            expect_silent(variant.label, Ok(passed))?;
        } else if refused(&passed) {
            return Err(format!("{}: refused a harmless call: {passed:?}", variant.label).into());
        }
        let denied = run_with_stdin(&mut (variant.command)(), &blocked)?;
        if !refused(&denied) {
            return Err(format!("{}: let `sudo rm -rf ~/` through: {denied:?}", variant.label).into());
        }
    }

    let (warmup, rounds) = (plan.pick(5, 2), plan.pick(200, 20));
    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); variants.len()];
    let mut error: Option<Error> = None;
    for round in 0..warmup + rounds {
        for (variant, samples) in variants.iter().zip(&mut times) {
            let started = Instant::now();
            let result = run_with_stdin(&mut (variant.command)(), &line);
            let took = since(started);
            let result = if variant.silent { expect_silent(variant.label, result) } else { result.map(drop) };
            if let Err(e) = result {
                error.get_or_insert(format!("{}: {e}", variant.label).into());
            }
            if round >= warmup {
                samples.push(took);
            }
        }
    }
    if let Some(e) = error {
        return Err(e);
    }
    let input = format!("PreToolUse Bash, {} B on stdin (whole process)", line.len());
    let pair = |a: usize, b: usize, target: Target| {
        Row::new(
            format!("{} vs {}, {input}", variants[a].label, variants[b].label),
            (times[a].clone(), times[b].clone()),
            target,
        )
    };
    Ok(vec![
        pair(1, 0, Target::RatioAtMost(2.3)),
        pair(2, 0, Target::Info),
        pair(3, 0, Target::Info),
        pair(1, 2, Target::Info),
        pair(1, 3, Target::Info),
        pair(1, 4, Target::Info),
        pair(1, 5, Target::Info),
        pair(4, 0, Target::Info),
        // Where the bridge's time goes: starting at all, then any hook, then the packs.
        pair(7, 0, Target::Info),
        pair(6, 7, Target::Info),
        pair(1, 6, Target::Info),
    ])
}
