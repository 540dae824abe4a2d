//! A reply with no usable HookResult is `InvalidOutput`; the hook keeps no state, so the
//! engine's retry (a second call) succeeds when the model then answers well.

use crate::common;

use common::{call, llm_hook, server};
use hook_core::{Context, Event, HookError, OutcomeClass};
use hook_llm::Reply;

#[tokio::test]
async fn invalid_reply_then_valid_reply() {
    let server = server([
        Reply::Content("I cannot decide {really}.".into()),
        Reply::Content(r#"{"user_input": "second try"}"#.into()),
    ]);
    let hook = llm_hook(&server, "Rewrite {{user_input}}");
    let context = Context { user_input: Some("hi".into()), ..Context::default() };

    let error = call(&hook, Event::PreSendMessage, &context).await.unwrap_err();
    let HookError::InvalidOutput { message, raw_head } = &error else {
        panic!("expected InvalidOutput, got {error:?}")
    };
    assert_eq!(error.class(), OutcomeClass::InvalidOutput);
    assert!(message.contains("no JSON object"), "{message}");
    assert!(message.contains("HookResult"), "the message says what was expected: {message}");
    assert!(message.contains("pre_send_message"), "the message names the event: {message}");
    assert_eq!(raw_head, "I cannot decide {really}.");

    let output = call(&hook, Event::PreSendMessage, &context).await.unwrap();
    assert_eq!(output.patch.user_input.as_deref(), Some("second try"));
    assert_eq!(server.n_requests(), 2);
    assert_eq!(server.requests()[0], server.requests()[1], "a retry sends the same request");
}

#[tokio::test]
async fn an_object_with_a_bad_field_is_invalid_output_naming_the_field() {
    let server = server([Reply::Content(r#"{"action": "deny"}"#.into())]);
    let hook = llm_hook(&server, "Check {{tool_name}}");
    let context = Context { tool_name: Some("Bash".into()), ..Context::default() };

    let error = call(&hook, Event::PreToolExecution, &context).await.unwrap_err();

    let HookError::InvalidOutput { message, .. } = &error else { panic!("expected InvalidOutput, got {error:?}") };
    assert!(message.contains("`action`"), "{message}");
}
