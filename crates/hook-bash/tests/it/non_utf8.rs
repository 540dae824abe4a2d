//! Non-UTF-8 and non-ASCII output never panics: it is an answer or an invalid_output failure.

use crate::common;

use std::time::Duration;

use common::*;

const DEADLINE: Duration = Duration::from_secs(10);

async fn run(command: &str) -> Result<HookOutput, HookError> {
    call(&sh_hook(command), Event::PreSendMessage, &Context::default(), DEADLINE).await
}

#[tokio::test]
async fn raw_invalid_bytes_are_invalid_output() {
    for bytes in ["\\377\\376\\375", "\\200", "{\\377}", "\\303"] {
        let result = run(&format!("printf '{bytes}'")).await;
        assert!(matches!(result, Err(HookError::InvalidOutput { .. })), "{bytes}: {result:?}");
    }
}

#[tokio::test]
async fn invalid_bytes_inside_a_string_are_replaced() {
    let output = run("printf '{\"user_input\": \"caf\\303\\251 \\377\"}'").await.expect("lossy decoding");
    assert_eq!(output.patch.user_input.as_deref(), Some("café \u{FFFD}"));
}

#[tokio::test]
async fn non_ascii_answers_come_through() {
    let output = run("echo '{\"user_input\": \"日本語のテキスト 🚀\"}'").await.expect("utf-8");
    assert_eq!(output.patch.user_input.as_deref(), Some("日本語のテキスト 🚀"));
}

#[tokio::test]
async fn long_multibyte_garbage_is_cut_on_character_boundaries() {
    let result = run("i=0; while [ $i -lt 500 ]; do printf '日本語'; i=$((i+1)); done").await;
    match result {
        Err(HookError::InvalidOutput { raw_head, .. }) => {
            assert!(raw_head.starts_with("日本語"), "{raw_head}");
            assert!(raw_head.chars().count() <= 201);
        }
        other => panic!("expected invalid_output, got {other:?}"),
    }
}

#[tokio::test]
async fn multibyte_stderr_tails_are_cut_on_character_boundaries() {
    let result =
        run("i=0; while [ $i -lt 2000 ]; do printf 'é' >&2; i=$((i+1)); done; printf '\\377' >&2; exit 3").await;
    match result {
        Err(HookError::ProcessExited { status, stderr_tail }) => {
            assert_eq!(status, "exit code 3");
            assert!(stderr_tail.ends_with("é\u{FFFD}"), "{stderr_tail}");
        }
        other => panic!("expected process_exited, got {other:?}"),
    }
}
