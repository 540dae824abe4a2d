//! pre_llm_request: additional_context goes to the end of the system prompt (once per turn),
//! inject_messages are appended, and model, options and system prompt may be replaced;
//! post_llm_response may rewrite the answer and its tool calls.

use crate::common;

use common::{Harness, call, calls, returning, text};
use hook_core::{ContextPatch, HookOutput};
use hook_protocol::{ChatMessage, Event, Role, ToolCall};
use serde_json::{Map, json};

#[tokio::test]
async fn pre_llm_request_changes_reach_the_model() {
    let harness = Harness::new([calls(vec![call("c1", "list_dir", "{}")]), text("done")]);
    let mut options = Map::new();
    options.insert("temperature".into(), json!(0.5));
    let output = HookOutput {
        additional_context: Some("RULE: answer briefly".into()),
        inject_messages: vec![ChatMessage::text(Role::User, "INJECTED")],
        patch: ContextPatch { model: Some("other-model".into()), options: Some(options), ..Default::default() },
        ..HookOutput::default()
    };
    harness.hook("shaper", [Event::PreLlmRequest], returning(output));
    let mut session = harness.session().await;
    session.send("hello").await.unwrap();

    let requests = harness.requests();
    assert_eq!(requests[0]["model"], "other-model");
    assert_eq!(requests[0]["temperature"], 0.5);
    let system = requests[0]["messages"][0]["content"].as_str().unwrap();
    assert_eq!(system, "You are a test agent.\n\nRULE: answer briefly");
    let first = harness.messages(0);
    assert_eq!(first.last().unwrap()["content"], "INJECTED");
    // Second round: the rule is there once, not once per round.
    let system = requests[1]["messages"][0]["content"].as_str().unwrap();
    assert_eq!(system, "You are a test agent.\n\nRULE: answer briefly");
}

#[tokio::test]
async fn a_replaced_system_prompt_is_sent() {
    let harness = Harness::new([text("ok")]);
    let output = HookOutput {
        patch: ContextPatch { system_prompt: Some("You are a pirate.".into()), ..Default::default() },
        ..HookOutput::default()
    };
    harness.hook("pirate", [Event::PreLlmRequest], returning(output));
    let mut session = harness.session().await;
    session.send("hello").await.unwrap();
    assert_eq!(harness.messages(0)[0]["content"], "You are a pirate.");
}

#[tokio::test]
async fn post_llm_response_may_rewrite_the_answer_and_the_tool_calls() {
    let harness = Harness::new([calls(vec![call("c1", "bash", r#"{"command":"touch ran"}"#)]), text("raw answer")]);
    let rewrite = hook_core::hook_fn("rewrite", |input: &hook_core::HookInput<'_>| {
        let has_calls = input.context.tool_calls.as_ref().is_some_and(|c| !c.is_empty());
        async move {
            let patch = if has_calls {
                ContextPatch { tool_calls: Some(vec![ToolCall::new("c9", "list_dir", "{}")]), ..Default::default() }
            } else {
                ContextPatch { assistant_output: Some("polished answer".into()), ..Default::default() }
            };
            Ok(HookOutput { patch, ..HookOutput::default() })
        }
    });
    harness.hook("rewrite", [Event::PostLlmResponse], rewrite);
    let mut session = harness.session().await;
    let report = session.send("go").await.unwrap();
    assert!(!harness.dir.join("ran").exists(), "the replaced call did not run");
    assert_eq!(report.tools[0].name, "list_dir");
    assert_eq!(report.reply, "polished answer");
    assert_eq!(session.history().last().unwrap().text_content(), "polished answer");
}
