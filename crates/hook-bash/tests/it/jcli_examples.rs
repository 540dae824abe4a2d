//! The j-cli seed's bash examples 3 and 4, run unmodified from the protocol fixtures.

use crate::common;

use std::time::Duration;

use common::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../hook-protocol/tests/fixtures/jcli");

/// The seed scripts call `python3` by name; put the real interpreter's directory first on PATH
/// (through the hook's own `env`) so a version-manager shim does not cost 150 ms a call.
fn seed_hook(script: &str) -> BashHook {
    let mut options = BashOptions { name: script.into(), ..BashOptions::default() };
    if let Some(dir) = real_python_dir() {
        let path = std::env::var("PATH").unwrap_or_default();
        options.env.insert("PATH".into(), format!("{}:{path}", dir.display()));
    }
    BashHook::new(format!("{FIXTURES}/{script}"), options)
}

// Generous deadline: each script starts python3 two or three times.
const DEADLINE: Duration = Duration::from_secs(20);

#[tokio::test]
async fn example3_prefixes_the_message_with_the_time() {
    let hook = seed_hook("example3_timestamp.sh");
    let output = call(&hook, Event::PreSendMessage, &context_with_input("deploy the thing"), DEADLINE)
        .await
        .expect("example 3 succeeds");
    let user_input = output.patch.user_input.expect("example 3 rewrites user_input");
    let (stamp, rest) = user_input.split_at(8);
    let is_stamp = stamp.chars().enumerate().all(|(i, c)| match i {
        0 => c == '[',
        3 => c == ':',
        6 => c == ']',
        7 => c == ' ',
        _ => c.is_ascii_digit(),
    });
    assert!(is_stamp, "expected `[HH:MM] ` in front, got {user_input:?}");
    assert_eq!(rest, "deploy the thing");
}

fn tool_context(tool: &str, arguments: &str) -> Context {
    Context { tool_name: Some(tool.into()), tool_arguments: Some(arguments.into()), ..Context::default() }
}

#[tokio::test]
async fn example4_skips_rm_rf_in_bash() {
    let hook = seed_hook("example4_skip_rm.sh");
    let context = tool_context("Bash", r#"{"command":"rm -rf /tmp/build"}"#);
    let output = call(&hook, Event::PreToolExecution, &context, DEADLINE).await.expect("example 4 succeeds");
    assert_eq!(output.action, Some(Action::Skip));
}

#[tokio::test]
async fn example4_lets_other_calls_through() {
    let hook = seed_hook("example4_skip_rm.sh");
    let harmless = tool_context("Bash", r#"{"command":"ls -la"}"#);
    let output = call(&hook, Event::PreToolExecution, &harmless, DEADLINE).await.expect("example 4 succeeds");
    assert_eq!(output, HookOutput::default(), "`ls` in Bash is not skipped");

    let other_tool = tool_context("Write", r#"{"content":"rm -rf /"}"#);
    let output = call(&hook, Event::PreToolExecution, &other_tool, DEADLINE).await.expect("example 4 succeeds");
    assert_eq!(output, HookOutput::default(), "only the Bash tool is guarded");
}
