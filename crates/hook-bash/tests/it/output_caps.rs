//! stdout and stderr are capped: a hook that prints too much is stopped at once, fails naming
//! the cap, and never makes the host buffer what it printed.

use crate::common;

use std::time::Duration;

use common::*;

const DEADLINE: Duration = Duration::from_secs(20);

/// Peak resident memory of this test process, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("VmHWM value")
}

fn invalid_output_message(result: Result<HookOutput, HookError>) -> String {
    match result {
        Err(HookError::InvalidOutput { message, .. }) => message,
        other => panic!("expected invalid_output, got {other:?}"),
    }
}

#[tokio::test]
async fn fifty_megabytes_on_stdout_fail_fast_with_bounded_memory() {
    let hook = sh_hook("yes | head -c 50000000");
    let before = peak_rss_kib();
    let (result, elapsed) = call_timed(&hook, Event::PreSendMessage, &Context::default(), DEADLINE).await;
    let grown_kib = peak_rss_kib().saturating_sub(before);
    let message = invalid_output_message(result);
    assert!(message.contains("1 MiB") && message.contains("stdout cap"), "{message}");
    assert!(message.contains("max_stdout_bytes"), "says how to raise it: {message}");
    assert!(message.contains("hook `test` on pre_send_message"), "{message}");
    assert!(elapsed < Duration::from_secs(5), "stopped at the cap, not after 50 MB: {elapsed:?}");
    assert!(grown_kib < 40 * 1024, "peak memory grew by {grown_kib} KiB");
}

#[tokio::test]
async fn too_much_stderr_fails_naming_the_stderr_cap() {
    let hook = sh_hook("yes 'debug line' | head -c 10000000 >&2; echo '{}'");
    let message = invalid_output_message(call(&hook, Event::PreSendMessage, &Context::default(), DEADLINE).await);
    assert!(message.contains("64 KiB") && message.contains("stderr cap"), "{message}");
    assert!(message.contains("max_stderr_bytes"), "{message}");
}

#[tokio::test]
async fn the_caps_are_configurable() {
    let options = BashOptions { max_stdout_bytes: 100, ..BashOptions::default() };
    let long = format!("{{\"user_input\": \"{}\"}}", "y".repeat(200));
    let hook = BashHook::new(format!("echo '{long}'"), options.clone());
    let message = invalid_output_message(call(&hook, Event::PreSendMessage, &Context::default(), DEADLINE).await);
    assert!(message.contains("100 bytes"), "{message}");

    let raised = BashHook::new(format!("echo '{long}'"), BashOptions { max_stdout_bytes: 1000, ..options });
    let output = call(&raised, Event::PreSendMessage, &Context::default(), DEADLINE).await.expect("fits the cap");
    assert_eq!(output.patch.user_input, Some("y".repeat(200)));
}

#[tokio::test]
async fn output_exactly_at_the_cap_is_accepted() {
    // `{}` plus the newline is 3 bytes.
    let hook = BashHook::new("echo '{}'", BashOptions { max_stdout_bytes: 3, ..BashOptions::default() });
    let output = call(&hook, Event::PreSendMessage, &Context::default(), DEADLINE).await.expect("at the cap");
    assert_eq!(output, HookOutput::default());
}

#[tokio::test]
async fn the_capped_error_shows_only_a_head_of_the_output() {
    let hook = sh_hook("yes | head -c 5000000");
    match call(&hook, Event::PreSendMessage, &Context::default(), DEADLINE).await {
        Err(HookError::InvalidOutput { raw_head, .. }) => {
            assert!(raw_head.starts_with("y\ny\n"), "{raw_head:?}");
            assert!(raw_head.chars().count() <= 201, "{} characters", raw_head.chars().count());
        }
        other => panic!("expected invalid_output, got {other:?}"),
    }
}
