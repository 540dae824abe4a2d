//! `hook.hello`: a deadline, `ok: false` refuses with the hook's reason, `modes` may narrow.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use hook_core::{BuildError, Event, HookError};
use hook_protocol::picoclaw::Mode;
use serde_json::json;

#[tokio::test]
async fn a_hook_that_never_answers_hello_is_refused_at_the_deadline() {
    let dir = temp_dir("silent");
    let pid_file = dir.join("pid");
    let mut spec = with_env(
        python_spec("silent", "fault_hook.py", &["silent"], &[Event::PreToolExecution]),
        &[("HOOK_PID_FILE", pid_file.display().to_string())],
    );
    spec.deadlines.handshake = Duration::from_millis(500);
    let started = Instant::now();
    let error = build(&spec, options()).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert!(
        matches!(error, BuildError::Start(HookError::Timeout { after }) if after <= Duration::from_millis(600)),
        "{error:?}"
    );
    let pid = read_pid(&pid_file).await;
    assert_group_gone(pid).await;
}

#[tokio::test]
async fn ok_false_refuses_the_mount_with_the_hooks_reason() {
    let dir = temp_dir("refuse");
    let pid_file = dir.join("pid");
    let spec = with_env(
        python_spec("refuser", "fault_hook.py", &["refuse"], &[Event::PreToolExecution]),
        &[("HOOK_PID_FILE", pid_file.display().to_string())],
    );
    let error = build(&spec, options()).await.unwrap_err();
    assert_eq!(error, BuildError::Refused { reason: "maintenance window: try again after 18:00".into() });
    let pid = read_pid(&pid_file).await;
    assert_group_gone(pid).await;
}

#[tokio::test]
async fn hello_offers_modes_in_order_and_the_reply_may_narrow_them() {
    let spec = python_spec("narrow", "fault_hook.py", &["narrow"], &[Event::PreToolExecution, Event::ApproveTool]);
    let hook = start(&spec).await;
    assert_eq!(hook.modes(), vec![Mode::Approve]);
    // The dropped `tool` mode: before_tool is not sent and changes nothing.
    let context = tool_context("bash", json!({"mode": "deny"}));
    let output = call(&*hook, Event::PreToolExecution, &context, Duration::from_secs(5)).await.unwrap();
    assert!(output.is_no_change());
    let output = call(&*hook, Event::ApproveTool, &context, Duration::from_secs(5)).await.unwrap();
    assert_eq!(output.approved, Some(false));
    shutdown_and_check(&hook).await;
}
