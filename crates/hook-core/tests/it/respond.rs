//! The respond boundary: a hook may answer a tool call only for a tool it injected in
//! `pre_llm_request` or lists under `respond_tools`.

use crate::common;

use common::*;
use hook_core::{Action, Context, ContextPatch, Deadlines, Decision, Event, HookOutput, Level, Registration};
use hook_protocol::{ToolDefinition, ToolResult, serde_json::json};

fn answer() -> HookOutput {
    HookOutput {
        action: Some(Action::Respond),
        respond: Some(ToolResult::text("from the hook")),
        ..HookOutput::default()
    }
}

/// A hook that adds tool `weather` to the tool list before the request and answers every tool call.
fn injector() -> Registration {
    let hook = from_context("injector", |context| {
        let mut tools = context.tools.clone().unwrap_or_default();
        tools.push(ToolDefinition::function("weather", "Weather", json!({"type": "object"})));
        HookOutput { patch: ContextPatch { tools: Some(tools), ..ContextPatch::default() }, ..answer() }
    });
    Registration::new("injector", Level::User, [Event::PreLlmRequest, Event::PreToolExecution], hook)
}

fn request_with_tools() -> Context {
    Context {
        tools: Some(vec![ToolDefinition::function("Bash", "Shell", json!({"type": "object"}))]),
        ..Context::default()
    }
}

#[tokio::test]
async fn a_hook_responds_for_the_tool_it_injected_and_is_denied_for_others() {
    let engine = engine_with(vec![injector()], Deadlines::default());
    let mut request = request_with_tools();
    let before = engine.fire(Event::PreLlmRequest, &mut request).await;
    // `respond` means nothing before the request: dropped, the tool list change applies.
    assert_eq!(before.trace[0].dropped, ["respond"]);
    assert_eq!(request.tools.as_ref().map(Vec::len), Some(2));

    let injected = engine.fire(Event::PreToolExecution, &mut tool_call("weather", "{}")).await;
    assert_eq!(injected.decision, Decision::Respond);
    assert_eq!(injected.respond, Some(ToolResult::text("from the hook")));

    let other = engine.fire(Event::PreToolExecution, &mut tool_call("Bash", "{}")).await;
    insta::assert_yaml_snapshot!(render(&other));
}

#[tokio::test]
async fn respond_tools_allow_listed_tools_or_any_with_a_star() {
    let rows: [(&[&str], &str, Decision); 4] = [
        (&[], "Bash", Decision::DenyTool),
        (&["Read", "Bash"], "Bash", Decision::Respond),
        (&["Read"], "Bash", Decision::DenyTool),
        (&["*"], "Bash", Decision::Respond),
    ];
    for (listed, tool, expected) in rows {
        let responder = reg(Level::Project, "responder", Event::PreToolExecution, fixed("responder", answer()))
            .respond_tools(listed.iter().map(|t| t.to_string()).collect());
        let engine = engine_with(vec![responder], Deadlines::default());
        let outcome = engine.fire(Event::PreToolExecution, &mut tool_call(tool, "{}")).await;
        assert_eq!(outcome.decision, expected, "{listed:?}");
        assert_eq!(outcome.respond.is_some(), expected == Decision::Respond, "{listed:?}");
    }
}

#[tokio::test]
async fn only_the_injecting_hook_may_respond_for_its_tool() {
    let other = reg(Level::Session, "other", Event::PreToolExecution, fixed("other", answer()));
    let engine = engine_with(vec![injector().priority(0), other], Deadlines::default());
    // The injector answers too; disable its pre_tool_execution id so only `other` answers.
    engine.set_enabled(&hook_core::HookId::new(Level::User, "injector", Event::PreToolExecution), false);
    engine.fire(Event::PreLlmRequest, &mut request_with_tools()).await;
    let outcome = engine.fire(Event::PreToolExecution, &mut tool_call("weather", "{}")).await;
    assert_eq!(outcome.decision, Decision::DenyTool);
    assert!(outcome.reason.unwrap().starts_with("hook `other` may not respond for tool `weather`"));
}

#[tokio::test]
async fn renaming_the_call_to_an_injected_tool_does_not_open_the_boundary() {
    // Injects `weather`, then answers a `Bash` call after renaming it to `weather`.
    let hook = from_context("renamer", |context| {
        if context.tool_name.is_none() {
            let tools = vec![ToolDefinition::function("weather", "Weather", json!({"type": "object"}))];
            return HookOutput {
                patch: ContextPatch { tools: Some(tools), ..ContextPatch::default() },
                ..HookOutput::default()
            };
        }
        HookOutput { patch: ContextPatch { tool_name: Some("weather".into()), ..ContextPatch::default() }, ..answer() }
    });
    let engine = engine_with(
        vec![Registration::new("renamer", Level::User, [Event::PreLlmRequest, Event::PreToolExecution], hook)],
        Deadlines::default(),
    );
    engine.fire(Event::PreLlmRequest, &mut request_with_tools()).await;
    let outcome = engine.fire(Event::PreToolExecution, &mut tool_call("Bash", "{}")).await;
    assert_eq!(outcome.decision, Decision::DenyTool, "{outcome:?}");
    assert!(outcome.reason.as_deref().unwrap_or_default().contains("tool `Bash`"), "{outcome:?}");
}
