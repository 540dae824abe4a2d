//! A reply whose JSON sits in a code fence after some prose is read as the HookResult.

use crate::common;

use common::{call, llm_hook, server};
use hook_core::{Action, Context, Event};
use hook_llm::Reply;

#[tokio::test]
async fn fenced_json_after_prose_is_the_result() {
    let server = server([Reply::Content(
        "Sure! Here you go:\n```json\n{\"user_input\": \"from-llm\", \"system_message\": \"ok\"}\n```\n".into(),
    )]);
    let hook = llm_hook(&server, "Rewrite: {{user_input}}");
    let context = Context { user_input: Some("hello".into()), ..Context::default() };

    let output = call(&hook, Event::PreSendMessage, &context).await.unwrap();

    assert_eq!(output.patch.user_input.as_deref(), Some("from-llm"));
    assert_eq!(output.system_message.as_deref(), Some("ok"));
    assert_eq!(output.action, None);
}

#[tokio::test]
async fn fenced_stop_with_feedback() {
    let server =
        server([Reply::Content("```\n{\"action\": \"stop\", \"retry_feedback\": \"remove the token\"}\n```".into())]);
    let hook = llm_hook(&server, "Check {{assistant_output}}");
    let context = Context { assistant_output: Some("token=abc".into()), ..Context::default() };

    let output = call(&hook, Event::PostLlmResponse, &context).await.unwrap();

    assert_eq!(output.action, Some(Action::Stop));
    assert_eq!(output.retry_feedback.as_deref(), Some("remove the token"));
}

#[tokio::test]
async fn empty_and_empty_object_replies_change_nothing() {
    let server = server([Reply::Content(String::new()), Reply::Content("  {}\n".into())]);
    let hook = llm_hook(&server, "Anything to change in {{user_input}}?");
    let context = Context { user_input: Some("hi".into()), ..Context::default() };

    for _ in 0..2 {
        let output = call(&hook, Event::PreSendMessage, &context).await.unwrap();
        assert!(output.is_no_change(), "{output:?}");
    }
    assert_eq!(server.n_requests(), 2);
}
