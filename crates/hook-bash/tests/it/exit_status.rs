//! A hook that exits non-zero, is not found, or dies of a signal fails with a status that says so.

use crate::common;

use std::time::Duration;

use common::*;

const DEADLINE: Duration = Duration::from_secs(10);

async fn exited(command: &str) -> (String, String) {
    match call(&sh_hook(command), Event::PreToolExecution, &Context::default(), DEADLINE).await {
        Err(HookError::ProcessExited { status, stderr_tail }) => (status, stderr_tail),
        other => panic!("expected process_exited, got {other:?}"),
    }
}

#[tokio::test]
async fn a_non_zero_exit_carries_the_code_and_stderr() {
    let (status, stderr_tail) = exited("echo 'refusing: no ticket id' >&2; echo '{}'; exit 2").await;
    assert_eq!(status, "exit code 2");
    assert_eq!(stderr_tail, "refusing: no ticket id");
}

#[tokio::test]
async fn the_stderr_tail_keeps_the_end() {
    let (_, stderr_tail) =
        exited("i=0; while [ $i -lt 3000 ]; do echo \"line $i\" >&2; i=$((i+1)); done; exit 1").await;
    assert!(stderr_tail.ends_with("line 2999"), "{stderr_tail:?}");
    assert!(stderr_tail.starts_with('…'), "cut marker: {:?}", &stderr_tail[..20]);
}

#[tokio::test]
async fn a_missing_command_says_it_was_not_found() {
    let (status, stderr_tail) = exited("nonexistent-cmd-xyz --flag").await;
    assert!(status.starts_with("exit code 127"), "{status}");
    assert!(status.contains("`nonexistent-cmd-xyz` not found"), "{status}");
    assert!(status.contains("check the command and PATH"), "{status}");
    assert!(stderr_tail.contains("nonexistent-cmd-xyz"), "{stderr_tail}");
}

#[tokio::test]
async fn a_missing_script_path_is_named() {
    let (status, _) = exited("/nonexistent/dir/guard.sh").await;
    assert!(status.contains("`/nonexistent/dir/guard.sh` not found"), "{status}");
}

#[tokio::test]
async fn a_signal_is_named() {
    let (status, _) = exited("kill -TERM $$").await;
    assert_eq!(status, "signal 15 (SIGTERM)");
}

#[tokio::test]
async fn a_missing_working_directory_fails_to_spawn_naming_it() {
    let context = Context { cwd: Some("/nonexistent/session/dir".into()), ..Context::default() };
    match call(&sh_hook("echo '{}'"), Event::PreToolExecution, &context, DEADLINE).await {
        Err(HookError::SpawnFailed { message, .. }) => {
            assert!(message.contains("hook `test` on pre_tool_execution"), "{message}");
            assert!(message.contains("/nonexistent/session/dir") && message.contains("does not exist"), "{message}");
        }
        other => panic!("expected spawn_failed, got {other:?}"),
    }
}
