//! The deadline covers writing stdin, running and reading; on timeout or cancellation the whole
//! process group dies.

use crate::common;

use std::time::Duration;

use common::*;

/// A context of about 1 MiB: far more than a pipe holds, so a hook that never reads it would
/// block a writer that is not bounded by the deadline.
fn big_context() -> Context {
    context_with_input(&"x".repeat(1 << 20))
}

#[tokio::test]
async fn a_hook_that_never_reads_a_large_stdin_times_out_on_time() {
    let hook = sh_hook("sleep 3");
    let (result, elapsed) = call_timed(&hook, Event::PreSendMessage, &big_context(), Duration::from_secs(1)).await;
    assert!(matches!(result, Err(HookError::Timeout { .. })), "expected a timeout, got {result:?}");
    assert!(elapsed < Duration::from_millis(2500), "returned after {elapsed:?}, the deadline was 1 s");
}

#[tokio::test]
async fn the_timeout_reports_the_budget() {
    let hook = sh_hook("sleep 5");
    let result = call(&hook, Event::PreSendMessage, &Context::default(), Duration::from_millis(300)).await;
    match result {
        Err(HookError::Timeout { after }) => assert_eq!(after, Duration::from_millis(300)),
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[tokio::test]
async fn a_timeout_kills_background_children_too() {
    let dir = temp_dir("timeout-group");
    let pid_file = dir.join("pgid");
    let hook = sh_hook(&format!("echo $$ > '{}'; sleep 30 & sleep 30", pid_file.display()));
    let (result, elapsed) = call_timed(&hook, Event::PreSendMessage, &Context::default(), Duration::from_secs(1)).await;
    assert!(matches!(result, Err(HookError::Timeout { .. })), "expected a timeout, got {result:?}");
    assert!(elapsed < Duration::from_secs(5), "returned after {elapsed:?}");
    let pgid = read_pid(&pid_file).await;
    assert!(group_gone_within(pgid, Duration::from_secs(3)).await, "still running: {:?}", live_members(pgid));
    assert!(reaped_within(pgid, Duration::from_secs(3)).await, "the killed `sh` was left a zombie");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether process `pid` (our child) has been reaped, not just killed.
async fn reaped_within(pid: i32, within: Duration) -> bool {
    let until = std::time::Instant::now() + within;
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        if std::time::Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

#[tokio::test]
async fn a_hook_that_exits_without_reading_a_large_stdin_succeeds() {
    let hook = sh_hook("echo '{\"user_input\": \"short\"}'");
    let (result, elapsed) = call_timed(&hook, Event::PreSendMessage, &big_context(), Duration::from_secs(10)).await;
    assert_eq!(result.expect("the broken pipe is not an error").patch.user_input.as_deref(), Some("short"));
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[tokio::test]
async fn dropping_the_call_kills_the_group() {
    let dir = temp_dir("cancel-group");
    let pid_file = dir.join("pgid");
    let hook = sh_hook(&format!("echo $$ > '{}'; sleep 30 & sleep 30", pid_file.display()));
    let context = Context::default();
    let cache = SerializedCache::default();
    // The hook's own deadline is far away: only the engine's timeout (dropping the future) ends it.
    let input =
        HookInput::new(Event::PreSendMessage, &context, std::time::Instant::now() + Duration::from_secs(60), 1, &cache);
    // `async_trait` boxes the future, so it can be polled a while and then dropped, as the
    // engine's `tokio::time::timeout` does.
    let mut running = hook.call(&input);
    let pgid = tokio::select! {
        result = &mut running => panic!("the hook finished early: {result:?}"),
        pgid = read_pid(&pid_file) => pgid,
    };
    let _ = tokio::time::timeout(Duration::from_millis(200), &mut running).await;
    assert!(live_members(pgid).len() >= 2, "sh and its background sleep run until cancelled");
    drop(running);
    assert!(group_gone_within(pgid, Duration::from_secs(3)).await, "still running: {:?}", live_members(pgid));
    assert!(reaped_within(pgid, Duration::from_secs(3)).await, "the killed `sh` was left a zombie");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_background_child_holding_stdout_is_bounded_by_the_deadline() {
    let dir = temp_dir("holder-group");
    let pid_file = dir.join("pgid");
    // `sh` answers and exits at once, but its background `sleep` keeps stdout open.
    let hook = sh_hook(&format!("echo $$ > '{}'; sleep 30 & echo '{{}}'", pid_file.display()));
    let (result, elapsed) = call_timed(&hook, Event::PreSendMessage, &Context::default(), Duration::from_secs(1)).await;
    assert!(matches!(result, Err(HookError::Timeout { .. })), "expected a timeout, got {result:?}");
    assert!(elapsed < Duration::from_secs(5), "returned after {elapsed:?}");
    let pgid = read_pid(&pid_file).await;
    assert!(group_gone_within(pgid, Duration::from_secs(3)).await, "still running: {:?}", live_members(pgid));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_deadline_already_past_does_not_start_the_hook() {
    let dir = temp_dir("past-deadline");
    let marker = dir.join("ran");
    let hook = sh_hook(&format!("touch '{}'", marker.display()));
    let result = call(&hook, Event::PreSendMessage, &Context::default(), Duration::ZERO).await;
    assert!(matches!(result, Err(HookError::Timeout { .. })), "expected a timeout, got {result:?}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!marker.exists(), "the hook ran although its deadline had passed");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_hook_that_reads_a_large_stdin_gets_all_of_it() {
    let hook = sh_hook("wc -c | awk '{ printf \"{\\\"user_input\\\": \\\"%s\\\"}\", $1 }'");
    let context = big_context();
    let expected =
        hook_protocol::serde_json::to_vec(&context.to_hook_context(Event::PreSendMessage)).expect("json").len();
    let output = call(&hook, Event::PreSendMessage, &context, Duration::from_secs(10)).await.expect("succeeds");
    assert_eq!(output.patch.user_input, Some(expected.to_string()));
}
