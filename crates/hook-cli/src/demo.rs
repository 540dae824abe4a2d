//! `hookwire demo`: a scripted session over the demo shipped in the binary, with no network and
//! no key.
//!
//! The model is a `ScriptedModel` (it replays a fixed script; it is not a model), and so is the
//! reviewer the llm hook asks. Everything else is real: the Python weather plugin is a process
//! hook speaking JSON-RPC over stdio, the guard and the approver are bash hooks run with `sh -c`,
//! the tools touch a temporary working directory.
//!
//! The demo's hooks are `examples/demo/`, compiled into the binary and written at run time to
//! a private temporary directory: the demo never loads hooks from the current directory (a
//! repository with its own `examples/demo/` would otherwise run its code), only from there or
//! from an explicit `--dir`.

use std::{
    os::unix::fs::{DirBuilderExt, PermissionsExt},
    path::{Path, PathBuf},
    sync::Arc,
};

use agent_loop::{Agent, CompactionConfig, ScriptedModel, ScriptedTurn, SessionConfig, ToolRegistry};
use clap::Args;
use hook_config as config;
use hook_core::{Engine, Level};
use hook_host::{Host, TrustPolicy};
use hook_protocol::ToolCall;

use crate::{Format, session};

#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// Run the demo over this folder instead of the one shipped in hookwire (it must hold
    /// `picoclaw.json` and `hooks/`).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Append one JSON line per hook run to this file.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// Output format: the live transcript (`text`), or one JSON object with the reply, every
    /// fired event with each hook's part, and the metrics (`json`).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// The demo shipped in the binary: `examples/demo/` (through the `demo` link in this crate, so
/// that a packaged crate holds it), path and content, and whether it is run
/// as a program.
const DEMO_FILES: [(&str, &str, bool); 8] = [
    ("picoclaw.json", include_str!("../demo/picoclaw.json"), false),
    ("weather_plugin.py", include_str!("../demo/weather_plugin.py"), true),
    ("hooks/approver/HOOK.yaml", include_str!("../demo/hooks/approver/HOOK.yaml"), false),
    ("hooks/approver/approve.sh", include_str!("../demo/hooks/approver/approve.sh"), true),
    ("hooks/keep-facts/HOOK.yaml", include_str!("../demo/hooks/keep-facts/HOOK.yaml"), false),
    ("hooks/no-rm-rf/HOOK.yaml", include_str!("../demo/hooks/no-rm-rf/HOOK.yaml"), false),
    ("hooks/no-rm-rf/guard.sh", include_str!("../demo/hooks/no-rm-rf/guard.sh"), true),
    ("hooks/reviewer/HOOK.yaml", include_str!("../demo/hooks/reviewer/HOOK.yaml"), false),
];

/// A directory only this user can read, removed on drop.
struct PrivateDir(PathBuf);

impl PrivateDir {
    /// A new directory under the system temp dir, created (mode 0700) where nothing existed:
    /// a name someone else created first, or a link planted there, is never used.
    fn new() -> std::io::Result<PrivateDir> {
        let base = std::env::temp_dir();
        let mut last = None;
        for attempt in 0..16_u32 {
            let nanos =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
            let path = base.join(format!("hookwire-demo-{}-{nanos:08x}-{attempt}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(PrivateDir(path)),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("cannot create a temporary directory")))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes the shipped demo under `dir`.
fn unpack(dir: &Path) -> std::io::Result<PathBuf> {
    let demo = dir.join("demo");
    for (relative, content, is_program) in DEMO_FILES {
        let path = demo.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(parent)?;
        }
        std::fs::write(&path, content)?;
        let mode = if is_program { 0o700 } else { 0o600 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(demo)
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

/// A fresh working directory under `dir` with a scratch folder for the session's tools.
fn work_dir(dir: &Path) -> std::io::Result<PathBuf> {
    let work = dir.join("work");
    std::fs::DirBuilder::new().mode(0o700).create(&work)?;
    std::fs::create_dir_all(work.join("scratch"))?;
    std::fs::write(work.join("scratch").join("old.log"), "yesterday's log\n")?;
    std::fs::write(work.join("README.txt"), "a folder for the hookwire demo\n")?;
    Ok(work)
}

pub(crate) async fn run(args: DemoArgs) -> u8 {
    let private = match PrivateDir::new() {
        Ok(private) => private,
        Err(e) => {
            eprintln!("error: cannot create the demo's temporary directory: {e}");
            return 2;
        }
    };
    let demo = match &args.dir {
        Some(dir) => {
            if !dir.join("picoclaw.json").is_file() || !dir.join("hooks").is_dir() {
                eprintln!("error: --dir {}: no demo there (it needs `picoclaw.json` and `hooks/`)", dir.display());
                return 2;
            }
            dir.canonicalize().unwrap_or_else(|_| dir.clone())
        }
        None => match unpack(private.path()) {
            Ok(demo) => demo,
            Err(e) => {
                eprintln!("error: cannot write the demo's hooks to {}: {e}", private.path().display());
                return 2;
            }
        },
    };
    let work = match work_dir(private.path()) {
        Ok(work) => work,
        Err(e) => {
            eprintln!("error: cannot create the demo's working directory: {e}");
            return 2;
        }
    };
    // The plugin's relative command resolves against its config file's directory (the loader
    // records it on the spec), wherever hookwire is started.
    let reviewer = ScriptedModel::new(
        (0..8).map(|_| ScriptedTurn::text("```json\n{\"system_message\": \"reviewer: no secrets in the reply\"}\n```")),
    )
    .named("scripted-reviewer");
    // Only the demo's own files, loaded as they are (user level: no trust to check).
    let host = [demo.join("hooks"), demo.join("picoclaw.json")]
        .into_iter()
        .fold(Host::builder().no_default_config(true), |builder, path| {
            builder.source(config::ConfigSource::new(path, Level::User))
        })
        .trust(TrustPolicy::Trusted)
        .chat_model(Arc::new(reviewer))
        .build();
    let errors = host.reload().await.errors();
    if !errors.is_empty() {
        for error in &errors {
            eprintln!("error: {error}");
        }
        host.shutdown().await;
        return 2;
    }
    let engine = Engine::clone(host.engine());

    let is_text = args.format == Format::Text;
    if is_text {
        outln!("hookwire demo: a scripted session over {}", demo.display());
        outln!("The model is a ScriptedModel (it replays a fixed script; no network, no API key).");
        outln!("Hooks:");
        for line in session::hook_listing(&engine) {
            outln!("{line}");
        }
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
    if !is_text {
        return demo_json(&agent, &engine, &work, args.audit, private).await;
    }
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
    drop(private);
    code
}

/// The demo's session as one JSON object.
async fn demo_json(
    agent: &Agent,
    engine: &hook_core::Engine,
    work: &std::path::Path,
    audit: Option<PathBuf>,
    private: impl Sized,
) -> u8 {
    let mut session = agent.session(SessionConfig::new("demo-session", work)).await;
    session::watch_printing(&mut session, true, audit, false);
    let started = session.start_event().map(session::fired_json);
    let result = session.send(USER_MESSAGE).await;
    session.close().await;
    let metrics: serde_json::Map<String, serde_json::Value> = engine
        .metrics()
        .into_iter()
        .map(|(id, m)| {
            let value = serde_json::json!({"executions": m.executions, "successes": m.successes, "failures": m.failures, "skips": m.skips});
            (id.to_string(), value)
        })
        .collect();
    let (code, turn) = match &result {
        Ok(report) => (
            0,
            serde_json::json!({
                "reply": report.reply,
                "rounds": report.rounds,
                "tools": report.tools.iter().map(|t| serde_json::json!({"name": t.name, "outcome": t.outcome.as_str()})).collect::<Vec<_>>(),
                "events": report.events.iter().map(session::fired_json).collect::<Vec<_>>(),
                "notices": report.notices,
            }),
        ),
        Err(e) => (1, serde_json::json!({"error": e.to_string()})),
    };
    outln!("{}", serde_json::json!({"user": USER_MESSAGE, "session_start": started, "turn": turn, "metrics": metrics}));
    engine.shutdown().await;
    drop(private);
    code
}

/// Estimated prompt size over which the demo's session summarises: past the tool results of
/// the second round, so `pre_auto_compact` and its hook appear once.
const AUTO_COMPACT_TOKENS: usize = 100;
