//! stdout is one HookResult JSON object (whitespace around it is fine), or nothing.

use crate::common;

use std::time::Duration;

use common::*;

const DEADLINE: Duration = Duration::from_secs(10);

async fn run(command: &str) -> Result<HookOutput, HookError> {
    call(&sh_hook(command), Event::PreSendMessage, &context_with_input("hello from the chain"), DEADLINE).await
}

fn invalid(result: Result<HookOutput, HookError>) -> (String, String) {
    match result {
        Err(HookError::InvalidOutput { message, raw_head }) => (message, raw_head),
        other => panic!("expected invalid_output, got {other:?}"),
    }
}

#[tokio::test]
async fn empty_stdout_and_an_empty_object_change_nothing() {
    assert_eq!(run("cat >/dev/null").await.expect("empty"), HookOutput::default());
    assert_eq!(run("echo '{}'").await.expect("{}"), HookOutput::default());
    assert_eq!(run("printf '  \\n\\t{ }\\n\\n'").await.expect("{ }"), HookOutput::default());
}

#[tokio::test]
async fn whitespace_around_the_object_is_accepted() {
    let output = run("printf '\\n\\n   {\"user_input\": \"changed\"}  \\n\\t\\n'").await.expect("accepted");
    assert_eq!(output.patch.user_input.as_deref(), Some("changed"));
}

#[tokio::test]
async fn the_input_context_reaches_the_script() {
    // `cat` echoes the HookContext back; as a HookResult its `user_input` is the input's.
    let output = run("cat").await.expect("HookContext fields a HookResult does not know are ignored");
    assert_eq!(output.patch.user_input.as_deref(), Some("hello from the chain"));
}

#[tokio::test]
async fn a_debug_line_before_the_json_is_invalid_output() {
    let (message, raw_head) = invalid(run("echo 'checking input...'; echo '{\"user_input\": \"x\"}'").await);
    assert!(message.contains("hook `test` on pre_send_message"), "{message}");
    assert!(message.contains("a line before its JSON object"), "{message}");
    assert!(message.contains("checking input..."), "names the line: {message}");
    assert!(message.contains("exactly one JSON object"), "{message}");
    assert!(message.contains("stderr"), "suggests stderr: {message}");
    assert!(raw_head.starts_with("checking input..."), "{raw_head}");
}

#[tokio::test]
async fn text_after_the_object_is_invalid_output() {
    let (message, _) = invalid(run("echo '{}'; echo 'done'").await);
    assert!(message.contains("after its JSON object"), "{message}");
}

#[tokio::test]
async fn a_bad_member_is_named() {
    let (message, _) = invalid(run("echo '{\"action\": \"explode\"}'").await);
    assert!(message.contains("`action`"), "{message}");
}

#[tokio::test]
async fn not_json_at_all_is_invalid_output() {
    let (message, _) = invalid(run("echo 'all good'").await);
    assert!(message.contains("did not print a JSON object"), "{message}");
}

#[tokio::test]
async fn actions_and_fields_come_through() {
    let output =
        run("echo '{\"action\": \"stop\", \"reason\": \"no\", \"retry_feedback\": \"again\"}'").await.expect("ok");
    assert_eq!(output.action, Some(Action::Stop));
    assert_eq!(output.reason.as_deref(), Some("no"));
    assert_eq!(output.retry_feedback.as_deref(), Some("again"));
}
