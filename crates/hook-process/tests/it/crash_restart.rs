//! A process that exits mid-call fails the call at once (not at its deadline), with its status
//! and stderr tail; it is restarted, and the next call succeeds.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use hook_core::{Event, Hook, HookError};
use serde_json::json;

#[tokio::test]
async fn a_crash_fails_the_call_fast_and_the_hook_restarts() {
    let spec = python_spec("crasher", "fault_hook.py", &["crash"], &[Event::PreToolExecution]);
    let hook = start(&spec).await;
    let first_pid = hook.pid().unwrap();

    let started = Instant::now();
    let crash = tool_context("bash", json!({"crash": true}));
    let error = call(&*hook, Event::PreToolExecution, &crash, Duration::from_secs(30)).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    match &error {
        HookError::ProcessExited { status, stderr_tail } => {
            assert_eq!(status, "exit code 3");
            assert!(stderr_tail.contains("boom: crashing on purpose"), "{stderr_tail}");
        }
        other => panic!("expected ProcessExited, got {other:?}"),
    }

    // The next call waits for the restart (handshake included) and succeeds.
    let fine = tool_context("bash", json!({"command": "ls"}));
    let output = call(&*hook, Event::PreToolExecution, &fine, Duration::from_secs(10)).await.unwrap();
    assert!(output.is_no_change());
    let second_pid = hook.pid().unwrap();
    assert_ne!(first_pid, second_pid);
    assert_group_gone(first_pid).await;
    shutdown_and_check(&hook).await;
}

#[tokio::test]
async fn a_hook_that_keeps_crashing_is_marked_failed() {
    let spec = python_spec("crash_loop", "fault_hook.py", &["crash"], &[Event::PreToolExecution]);
    let options = options().restarts(Duration::from_millis(10), 2);
    let hook = start_with(&spec, options).await;
    let crash = tool_context("bash", json!({"crash": true}));
    let mut last = None;
    for _ in 0..3 {
        last = Some(call(&*hook, Event::PreToolExecution, &crash, Duration::from_secs(10)).await.unwrap_err());
    }
    assert!(matches!(last, Some(HookError::ProcessExited { .. })), "{last:?}");
    // Two restarts allowed per minute: now every call fails at once with a clear error.
    let started = Instant::now();
    let error = call(&*hook, Event::PreToolExecution, &crash, Duration::from_secs(10)).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    match error {
        HookError::Unavailable { message } => {
            assert!(message.contains("`crash_loop`") && message.contains("within a minute"), "{message}");
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
    hook.shutdown().await;
}
