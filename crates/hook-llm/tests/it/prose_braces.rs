//! Braces in the prose around the JSON, and braces inside JSON strings, do not break extraction
//! (j-cli's first-`{`-to-last-`}` cut does).

use crate::common;

use common::{call, llm_hook, server};
use hook_core::{Action, Context, Event};
use hook_llm::Reply;

#[tokio::test]
async fn braces_before_after_and_inside_strings() {
    let reply = "I looked at {the arguments} and {think} it is risky.\n\
                 {\"action\": \"skip\", \"system_message\": \"blocked `rm -rf {dir}` }{\"}\n\
                 Let me know if you need {anything} else }";
    let server = server([Reply::Content(reply.into())]);
    let hook = llm_hook(&server, "Is {{tool_name}} with {{tool_arguments}} safe?");
    let context = Context {
        tool_name: Some("Bash".into()),
        tool_arguments: Some(r#"{"command":"rm -rf /"}"#.into()),
        ..Context::default()
    };

    let output = call(&hook, Event::PreToolExecution, &context).await.unwrap();

    assert_eq!(output.action, Some(Action::Skip));
    assert_eq!(output.system_message.as_deref(), Some("blocked `rm -rf {dir}` }{"));
}

#[tokio::test]
async fn an_object_that_is_not_a_hook_result_is_passed_over_whole() {
    // The first object is JSON but not a HookResult; its nested `{}` must not be taken for
    // "no change". The later valid object is the answer.
    let reply = r#"Draft: {"action": "deny", "details": {}} Final: {"tool_arguments": {"command": "ls"}}"#;
    let server = server([Reply::Content(reply.into())]);
    let hook = llm_hook(&server, "Fix {{tool_arguments}}");
    let context = Context { tool_name: Some("Bash".into()), ..Context::default() };

    let output = call(&hook, Event::PreToolExecution, &context).await.unwrap();

    assert_eq!(output.action, None);
    assert_eq!(output.patch.tool_arguments.as_deref(), Some(r#"{"command":"ls"}"#));
}
