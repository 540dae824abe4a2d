//! Shared harness for the hook-bash tests: build a hook, call it like the engine does, and look
//! at processes through /proc.
#![allow(dead_code, unused_imports, unreachable_pub, reason = "each test binary uses a different part")]

use std::{
    path::PathBuf,
    process::Command,
    sync::OnceLock,
    time::{Duration, Instant},
};

pub use hook_bash::{BashHook, BashOptions};
pub use hook_core::{Action, Context, Event, Hook, HookError, HookInput, HookOutput, SerializedCache};

/// A bash hook named `test` running `command`.
pub fn sh_hook(command: &str) -> BashHook {
    BashHook::new(command, BashOptions { name: "test".into(), ..BashOptions::default() })
}

/// A context whose user message is `text`.
pub fn context_with_input(text: &str) -> Context {
    Context { user_input: Some(text.into()), ..Context::default() }
}

/// Calls `hook` once with a deadline `timeout` from now, exactly as the engine builds the input.
/// A guard timeout well past the deadline turns a hang into a failure instead of a stuck test.
pub async fn call(
    hook: &BashHook,
    event: Event,
    context: &Context,
    timeout: Duration,
) -> Result<HookOutput, HookError> {
    call_timed(hook, event, context, timeout).await.0
}

/// Like [`call`], also returning how long the call took.
pub async fn call_timed(
    hook: &BashHook,
    event: Event,
    context: &Context,
    timeout: Duration,
) -> (Result<HookOutput, HookError>, Duration) {
    let cache = SerializedCache::default();
    let started = Instant::now();
    let input = HookInput::new(event, context, started + timeout, 1, &cache);
    let result = tokio::time::timeout(timeout + Duration::from_secs(5), hook.call(&input))
        .await
        .expect("the hook returned within 5 s of its deadline");
    (result, started.elapsed())
}

/// A fresh directory for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hook-bash-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Waits (up to 5 s) for `path` to hold a pid written by a hook, and returns it.
pub async fn read_pid(path: &std::path::Path) -> i32 {
    for _ in 0..500 {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no pid in {}", path.display());
}

/// The processes of group `pgid` that are still running (zombies, which are dead and only wait
/// for their parent to reap them, are not counted), from /proc/<pid>/stat.
pub fn live_members(pgid: i32) -> Vec<i32> {
    let mut live = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return live };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (comm) state ppid pgrp ...`; comm may contain spaces and parentheses.
        let Some(after_comm) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        let fields: Vec<&str> = after_comm.split_whitespace().collect();
        if fields.len() > 2 && fields[2].parse() == Ok(pgid) && fields[0] != "Z" && fields[0] != "X" {
            live.push(pid);
        }
    }
    live
}

/// Whether every process of group `pgid` is gone (or a zombie) within `within`.
pub async fn group_gone_within(pgid: i32, within: Duration) -> bool {
    let until = Instant::now() + within;
    loop {
        if live_members(pgid).is_empty() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The directory of the real python3 (not a version-manager shim, which costs ~150 ms a call).
pub fn real_python_dir() -> Option<PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let output = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().ok()?;
        let exe = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
        exe.parent().map(PathBuf::from)
    })
    .clone()
}
