//! Cost of the rules hook with `packs: [recommended]`: one tool call judged in-process (a
//! typical 80-character command, a 10 KB release script, the same command under Gemini CLI's
//! tool name, and a whole hook call from a context, tool view included), and loading every pack
//! (parsing their YAML and compiling their rules). The targets (issue 21): ≤ 20 µs for the
//! command, ≤ 200 µs for the script, ≤ 5 ms for the packs; `cargo xtask bench --only rules`
//! times the same work side by side with the whole-process rows.
#![allow(missing_docs)]

use std::{hint::black_box, path::Path};

use criterion::{Criterion, criterion_group, criterion_main};
use hook_protocol::{
    Context, Event,
    rules::{PackName, RulesFile},
};
use hook_rules::{Call, RuleSet, RulesHook, packs};

/// A typical command an agent runs: 80 characters, five simple commands, no objection.
const COMMAND_80: &str = "git status --short && cargo test -p hook-rules --quiet 2>&1 | tail -n 5 && ls -l";

/// A realistic 10 KB script (functions, loops, heredocs, `$(…)`, pipes); no objection.
const SCRIPT_10K: &str = include_str!("fixtures/release.sh");

fn recommended() -> RuleSet {
    RuleSet::compile(&RulesFile { packs: vec![PackName::Recommended], ..RulesFile::default() })
        .expect("the recommended packs compile")
}

fn call<'a>(tool: &'a str, command: &'a str) -> Call<'a> {
    Call {
        event: Event::PreToolExecution,
        tool: Some(tool),
        command: Some(command),
        paths: Vec::new(),
        content: None,
        url: None,
        cwd: Path::new("/home/dev/project"),
        home: Some(Path::new("/home/dev")),
        input: None,
    }
}

fn evaluate(c: &mut Criterion) {
    assert_eq!(COMMAND_80.len(), 80);
    assert!(SCRIPT_10K.len() >= 10_000, "the script is {} bytes", SCRIPT_10K.len());
    let rules = recommended();
    for (name, tool, command) in [
        ("rules/evaluate/bash_80_chars", "Bash", COMMAND_80),
        ("rules/evaluate/bash_10kb_script", "Bash", SCRIPT_10K),
        ("rules/evaluate/gemini_run_shell_command_80_chars", "run_shell_command", COMMAND_80),
    ] {
        // The figures are of a call the guard lets through: every rule is tried on every
        // simple command.
        let verdict = rules.evaluate(&call(tool, command));
        assert!(verdict.decision.is_none(), "{name}: the guard objects: {:?}", verdict.decided_by);
        c.bench_function(name, |b| b.iter(|| black_box(rules.evaluate(black_box(&call(tool, command))))));
    }

    // The whole hook call as the engine makes it: the tool view derived from the arguments
    // (the engine derives it once per fire; here it is derived on each call), then the rules.
    let hook = RulesHook::new("recommended", recommended());
    let context = Context {
        tool_name: Some("run_shell_command".into()),
        tool_arguments: Some(
            hook_protocol::serde_json::json!({ "command": COMMAND_80, "description": "Run the tests" }).to_string(),
        ),
        cwd: Some("/home/dev/project".into()),
        ..Context::default()
    };
    assert!(hook.verdict(Event::PreToolExecution, &context).decision.is_none());
    c.bench_function("rules/hook/gemini_run_shell_command_80_chars_from_context", |b| {
        b.iter(|| black_box(hook.verdict(Event::PreToolExecution, black_box(&context))));
    });
}

fn load(c: &mut Criterion) {
    // Every pack parsed (as the binary embeds it, JSON made from the YAML at build time), then
    // every rule compiled (the packs' regexes are built on first use): the most a process can
    // pay. A call pays less: a set compiles a pack's rule when a call first needs it, and
    // `RuleSet::compile` reads each rule on its own, so the whole-pack parse is timed here on
    // its own.
    c.bench_function("rules/load/every_pack", |b| {
        b.iter(|| {
            for pack in PackName::ALL {
                let file: RulesFile = packs::parse(pack).expect("the pack parses");
                black_box(file);
            }
            let rules = recommended();
            black_box(rules.rules().len())
        });
    });
    c.bench_function("rules/load/compile_recommended_every_rule", |b| {
        b.iter(|| {
            let rules = recommended();
            black_box(rules.rules().len())
        });
    });
    c.bench_function("rules/load/compile_recommended_index_only", |b| b.iter(|| black_box(recommended())));
}

criterion_group!(benches, evaluate, load);
criterion_main!(benches);
