//! `hookwire demo`: a scripted session over `examples/demo/`, with no network and no key.
//!
//! The model is a `ScriptedModel` (it replays a fixed script; it is not a model), and so is the
//! reviewer the llm hook asks. Everything else is real: the Python weather plugin is a process
//! hook speaking JSON-RPC over stdio, the guard and the approver are bash hooks run with `sh -c`,
//! the tools touch a temporary working directory.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use agent_loop::{Agent, CompactionConfig, ScriptedModel, ScriptedTurn, SessionConfig, ToolRegistry};
use clap::Args;
use hook_core::{Deadlines, HookDefinition, Level, config};
use hook_protocol::ToolCall;

use crate::{engine, session};

#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// The demo folder (default: `examples/demo` of this checkout).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Append one JSON line per hook run to this file.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
}

/// The user's message of the demo session.
pub(crate) const USER_MESSAGE: &str =
    "What's the weather in Beijing? Then clear out the scratch folder and save a note about it.";

/// What the scripted model answers, in order: the agent's turns and, where compaction asks for
/// one, the summary.
fn agent_script() -> Vec<ScriptedTurn> {
    vec![
        ScriptedTurn::call("call-1", "get_weather", r#"{"city":"Beijing"}"#),
        ScriptedTurn::ToolCalls(
            vec![
                ToolCall::new("call-2", "bash", r#"{"command":"rm -rf scratch"}"#),
                ToolCall::new("call-3", "list_dir", r#"{"path":"."}"#),
                ToolCall::new("call-4", "write_file", r#"{"path":"note.txt","content":"Beijing: sunny, 15°C"}"#),
            ],
            Some("Checking the folder before I clean it up.".into()),
        ),
        ScriptedTurn::text(
            "Summary so far: the user asked for the weather in Beijing (sunny, 15°C, humidity 45%), \
             to clear the scratch folder (the delete was skipped by a hook) and to save a note (denied).",
        ),
        ScriptedTurn::text(
            "Beijing is sunny today: 15°C, humidity 45%. I left the scratch folder alone because a hook \
             skipped the recursive delete, and I could not save the note: writing files needs a person.",
        ),
    ]
}

/// The folder with the demo's hooks.
fn demo_dir(explicit: Option<PathBuf>) -> Option<PathBuf> {
    let candidates = [
        explicit,
        std::env::var_os("HOOKWIRE_DEMO_DIR").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo")),
        Some(PathBuf::from("examples/demo")),
    ];
    candidates.into_iter().flatten().find(|dir| dir.join("picoclaw.json").is_file()).and_then(|d| d.canonicalize().ok())
}

/// A fresh working directory with a scratch folder for the session's tools.
fn work_dir() -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("hookwire-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scratch"))?;
    std::fs::write(dir.join("scratch").join("old.log"), "yesterday's log\n")?;
    std::fs::write(dir.join("README.txt"), "a folder for the hookwire demo\n")?;
    Ok(dir)
}

pub(crate) async fn run(args: DemoArgs) -> u8 {
    let Some(demo) = demo_dir(args.dir) else {
        eprintln!("error: cannot find the demo folder (examples/demo); pass --dir or set HOOKWIRE_DEMO_DIR");
        return 2;
    };
    let work = match work_dir() {
        Ok(work) => work,
        Err(e) => {
            eprintln!("error: cannot create the demo's working directory: {e}");
            return 2;
        }
    };
    let sources =
        [demo.join("hooks"), demo.join("picoclaw.json")].map(|path| config::ConfigSource::new(path, Level::User));
    let loaded = config::load(&sources, Deadlines::default(), None);
    if !loaded.errors.is_empty() {
        for error in &loaded.errors {
            eprintln!("error: {error}");
        }
        return 2;
    }
    let mut specs = loaded.specs;
    for spec in &mut specs {
        // The plugin's command is relative to the demo folder.
        if let HookDefinition::Process(process) = &mut spec.definition
            && process.dir.is_none()
        {
            process.dir = Some(demo.display().to_string());
        }
    }

    let reviewer = ScriptedModel::new(
        (0..8).map(|_| ScriptedTurn::text("```json\n{\"system_message\": \"reviewer: no secrets in the reply\"}\n```")),
    )
    .named("scripted-reviewer");
    let engine = engine::engine(Arc::new(reviewer));
    let errors = engine::mount(&engine, specs).await;
    if !errors.is_empty() {
        for error in &errors {
            eprintln!("error: {error}");
        }
        engine.shutdown().await;
        return 2;
    }

    outln!("hookwire demo: a scripted session over {}", demo.display());
    outln!("The model is a ScriptedModel (it replays a fixed script; no network, no API key).");
    outln!("Hooks:");
    for line in session::hook_listing(&engine) {
        outln!("{line}");
    }
    let agent = Agent::builder()
        .id("demo")
        .model(Arc::new(ScriptedModel::new(agent_script()).named("scripted-model")))
        .engine(engine.clone())
        .tools(ToolRegistry::with_builtins())
        .system_prompt("You are a helpful assistant with tools.")
        .compaction(CompactionConfig { micro: true, auto_threshold_tokens: Some(AUTO_COMPACT_TOKENS), keep_last: 4 })
        .build();
    let agent = match agent {
        Ok(agent) => agent,
        Err(e) => {
            eprintln!("error: {e}");
            engine.shutdown().await;
            return 2;
        }
    };
    outln!("── session demo-session in {}", work.display());
    let mut session = agent.session(SessionConfig::new("demo-session", &work)).await;
    session::watch(&mut session, true, args.audit);
    if let Some(started) = session.start_event() {
        session::show(started);
    }
    outln!("user: {USER_MESSAGE}");
    let code = match session.send(USER_MESSAGE).await {
        Ok(report) => {
            outln!("assistant: {}", report.reply);
            outln!(
                "── turn over: {} model calls, {} tool calls, {} events, {} notices",
                report.rounds,
                report.tools.len(),
                report.events.len(),
                report.notices.len()
            );
            0
        }
        Err(e) => {
            outln!("turn failed: {e}");
            1
        }
    };
    session.close().await;
    outln!("── metrics");
    for (id, metrics) in engine.metrics() {
        outln!(
            "  {id}: executions={} successes={} failures={} skips={}",
            metrics.executions,
            metrics.successes,
            metrics.failures,
            metrics.skips
        );
    }
    engine.shutdown().await;
    let _ = std::fs::remove_dir_all(&work);
    code
}

/// Estimated prompt size over which the demo's session summarises: past the tool results of
/// the second round, so `pre_auto_compact` and its hook appear once.
const AUTO_COMPACT_TOKENS: usize = 100;
