//! Shared test harness: specs for fixture processes, direct calls through `Hook::call`, and
//! checks that no process of a fixture is left.

#![allow(dead_code, unreachable_pub, reason = "each test binary uses part of the harness")]

use std::{
    path::PathBuf,
    process::Command,
    sync::{Arc, OnceLock},
    time::{Duration, Instant},
};

use hook_core::{
    BuildError, BuiltHook, Context, Deadlines, Event, Hook, HookDefinition, HookError, HookFactory, HookInput,
    HookOutput, HookSpec, Level, SerializedCache,
};
use hook_process::{ProcessFactory, ProcessHook, ProcessOptions};
use hook_protocol::config::ProcessDef;

/// The real Python interpreter (not a version-manager shim), resolved once.
pub fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 must be installed to run these tests");
        String::from_utf8(out.stdout).expect("utf-8 path").trim().to_owned()
    })
}

/// A file under `tests/fixtures/`.
pub fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name).display().to_string()
}

/// A fresh temporary directory for one test.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hook-process-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Deadlines with a short handshake, so a silent hook fails fast.
pub fn deadlines() -> Deadlines {
    Deadlines { handshake: Duration::from_secs(5), ..Deadlines::default() }
}

/// A process-hook spec running `command` on `events`.
pub fn spec(name: &str, command: Vec<String>, events: &[Event]) -> HookSpec {
    let def = ProcessDef {
        enabled: None,
        priority: None,
        transport: Some("stdio".into()),
        command,
        dir: None,
        env: None,
        observe: None,
        intercept: Some(events.to_vec()),
        respond_tools: None,
        timeout_ms: None,
        on_error: None,
        sandbox: None,
    };
    HookSpec {
        deadlines: deadlines(),
        ..HookSpec::new(name, Level::User, "process", events.iter().copied(), HookDefinition::Process(def))
    }
}

/// A spec running a Python fixture with `args`.
pub fn python_spec(name: &str, script: &str, args: &[&str], events: &[Event]) -> HookSpec {
    let mut command = vec![python().to_owned(), "-u".into(), fixture(script)];
    command.extend(args.iter().map(|a| a.to_string()));
    spec(name, command, events)
}

/// Adds environment variables to a spec's process definition.
pub fn with_env(mut spec: HookSpec, vars: &[(&str, String)]) -> HookSpec {
    if let HookDefinition::Process(def) = &mut spec.definition {
        def.env = Some(vars.iter().map(|(k, v)| (k.to_string(), v.clone())).collect());
    }
    spec
}

/// Test options: quick restarts and short grace periods.
pub fn options() -> ProcessOptions {
    ProcessOptions::default()
        .restarts(Duration::from_millis(50), 5)
        .grace(Duration::from_millis(500), Duration::from_millis(500))
}

/// Builds through the factory, as the engine does.
pub async fn build(spec: &HookSpec, options: ProcessOptions) -> Result<BuiltHook, BuildError> {
    ProcessFactory::with_options(options).build(spec).await
}

/// Starts the hook and returns it as its concrete type (for `pid`).
pub async fn start(spec: &HookSpec) -> Arc<ProcessHook> {
    start_with(spec, options()).await
}

/// Starts the hook with `options`.
pub async fn start_with(spec: &HookSpec, options: ProcessOptions) -> Arc<ProcessHook> {
    ProcessHook::start(spec, options).await.expect("the fixture starts").0
}

/// Calls `hook` once for `event` with `context`, with `timeout` as its deadline.
pub async fn call(
    hook: &dyn Hook,
    event: Event,
    context: &Context,
    timeout: Duration,
) -> Result<HookOutput, HookError> {
    let cache = SerializedCache::default();
    let input = HookInput::new(event, context, Instant::now() + timeout, 1, &cache);
    hook.call(&input).await
}

/// A context for a tool call.
pub fn tool_context(tool: &str, arguments: serde_json::Value) -> Context {
    Context { tool_name: Some(tool.into()), tool_arguments: Some(arguments.to_string()), ..Context::default() }
}

/// Whether `pid` is a live (non-zombie) process.
pub fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').map(|(_, rest)| !rest.trim_start().starts_with('Z')).unwrap_or(false),
        Err(_) => false,
    }
}

/// The live (non-zombie) processes of process group `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let mut members = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return members };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // fields[0] = state, fields[1] = ppid, fields[2] = pgrp
        if fields.len() > 2 && fields[0] != "Z" && fields[2].parse::<u32>().ok() == Some(pgid) {
            members.push(pid);
        }
    }
    members
}

/// Waits (up to 5 s) until no live process of group `pgid` is left; panics with the survivors.
pub async fn assert_group_gone(pgid: u32) {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let members = group_members(pgid);
        if members.is_empty() {
            return;
        }
        assert!(Instant::now() < until, "processes of group {pgid} survived: {members:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Reads a pid a fixture wrote to `path`, waiting up to 5 s for it to appear.
pub async fn read_pid(path: &std::path::Path) -> u32 {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(pid) = std::fs::read_to_string(path).ok().and_then(|s| s.trim().parse().ok()) {
            return pid;
        }
        assert!(Instant::now() < until, "{} was never written", path.display());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Shuts the hook down and checks its process group is gone.
pub async fn shutdown_and_check(hook: &ProcessHook) {
    let pid = hook.pid();
    hook.shutdown().await;
    if let Some(pid) = pid {
        assert_group_gone(pid).await;
    }
}
