//! `respond`: a plugin tool injected in pre_llm_request reaches the model and is answered by the
//! hook (approval and post_tool_execution skipped); media with `response_handled` end the turn.

use crate::common;

use std::sync::Arc;

use agent_loop::{RESPONSE_DELIVERED, TurnStatus};
use common::{Harness, ObserverLog, call, calls, recorder, respond, text};
use hook_core::{ContextPatch, HookInput, HookOutput, Level, Registration, hook_fn};
use hook_protocol::{Event, ToolDefinition, ToolResult};
use serde_json::json;

/// Stands in for PicoClaw's weather plugin: adds `get_weather` before each model call and
/// answers it.
fn weather_plugin() -> Arc<dyn hook_core::Hook> {
    hook_fn("weather", |input: &HookInput<'_>| {
        let output = match input.event {
            Event::PreLlmRequest => {
                let mut tools = input.context.tools.clone().unwrap_or_default();
                tools.push(ToolDefinition::function(
                    "get_weather",
                    "Query weather information for a specified city",
                    json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
                ));
                HookOutput { patch: ContextPatch { tools: Some(tools), ..Default::default() }, ..HookOutput::default() }
            }
            Event::PreToolExecution if input.context.tool_name.as_deref() == Some("get_weather") => {
                let city = input.context.tool_arguments_value().and_then(|v| v["city"].as_str().map(str::to_owned));
                respond(ToolResult::text(format!(
                    "{} weather: Sunny, temperature 15°C, humidity 45%",
                    city.unwrap_or_default()
                )))
            }
            _ => HookOutput::default(),
        };
        async move { Ok(output) }
    })
}

#[tokio::test]
async fn an_injected_plugin_tool_reaches_the_model_and_the_hook_answers_it() {
    let harness = Harness::new([
        calls(vec![call("c1", "get_weather", r#"{"city":"Beijing"}"#)]),
        text("It is sunny in Beijing."),
    ]);
    harness.hook("weather", [Event::PreLlmRequest, Event::PreToolExecution], weather_plugin());
    let (hook, seen) = recorder();
    harness.hook("watch", [Event::ApproveTool, Event::PostToolExecution], hook);
    let observers = ObserverLog::attach(&harness.engine);
    let mut session = harness.session().await;
    let report = session.send("weather in Beijing?").await.unwrap();

    let tools = harness.tool_names(0);
    assert!(tools.contains(&"get_weather".to_owned()), "{tools:?}");
    assert_eq!(harness.tool_message(1, "c1"), "Beijing weather: Sunny, temperature 15°C, humidity 45%");
    assert!(
        seen.events().is_empty(),
        "approval and post_tool_execution are skipped for a respond: {:?}",
        seen.events()
    );
    assert_eq!(report.tools[0].outcome, "responded");
    assert_eq!(report.reply, "It is sunny in Beijing.");
    observers.kinds(6).await;
    assert_eq!(observers.of_kind("tool_exec_end")[0].payload["Duration"], 0);
}

#[tokio::test]
async fn respond_for_a_tool_the_hook_neither_injected_nor_lists_is_denied() {
    let harness = Harness::new([calls(vec![call("c1", "bash", r#"{"command":"touch ran"}"#)]), text("ok")]);
    harness.hook("impostor", [Event::PreToolExecution], common::returning(respond(ToolResult::text("fake"))));
    let mut session = harness.session().await;
    session.send("run").await.unwrap();
    let message = harness.tool_message(1, "c1");
    assert!(message.starts_with("Tool execution denied by hook: hook `impostor` may not respond"), "{message}");
    assert!(!harness.dir.join("ran").exists());
}

fn screenshot_hook(result: ToolResult) -> Registration {
    Registration::new("shots", Level::User, [Event::PreToolExecution], common::returning(respond(result)))
        .respond_tools(vec!["screenshot".into()])
}

#[tokio::test]
async fn delivered_media_end_the_turn_without_another_model_call() {
    let harness = Harness::new([calls(vec![call("c1", "screenshot", "{}")])]);
    let mut session = harness.session().await;
    let reference = session.media().put_bytes("shot.png", None, b"\x89PNG fake".to_vec());
    let result = ToolResult {
        for_llm: "screenshot taken".into(),
        media: Some(vec![reference.clone()]),
        response_handled: Some(true),
        ..ToolResult::default()
    };
    harness.engine.register(screenshot_hook(result));
    let report = session.send("take a screenshot").await.unwrap();

    assert_eq!(report.status, TurnStatus::ResponseHandled);
    assert_eq!(report.media.len(), 1);
    assert_eq!(report.media[0].reference, reference);
    assert_eq!(report.media[0].mime, "image/png");
    assert_eq!(report.reply, "");
    assert_eq!(harness.requests().len(), 1, "no model call after the response was delivered");
    let last = session.history().last().unwrap();
    assert_eq!(last.text_content(), RESPONSE_DELIVERED);
    assert_eq!(RESPONSE_DELIVERED, "Requested output delivered via tool attachment.");
}

#[tokio::test]
async fn media_not_handled_are_shown_to_the_model_as_image_parts() {
    let harness = Harness::new([calls(vec![call("c1", "screenshot", "{}")]), text("I see it")]);
    let mut session = harness.session().await;
    let reference = session.media().put_bytes("shot.png", None, b"PNG".to_vec());
    let result = ToolResult { for_llm: "see attachment".into(), media: Some(vec![reference]), ..ToolResult::default() };
    harness.engine.register(screenshot_hook(result));
    let report = session.send("look").await.unwrap();
    assert_eq!(report.status, TurnStatus::Completed);
    assert!(report.media.is_empty());
    let messages = harness.messages(1);
    let parts = messages.last().unwrap()["content"].as_array().cloned().expect("content parts");
    let image = parts.iter().find(|p| p["type"] == "image_url").expect("an image part");
    assert_eq!(image["image_url"]["url"], "data:image/png;base64,UE5H");
}

#[tokio::test]
async fn an_unknown_media_reference_is_an_error_in_the_tool_message() {
    let harness = Harness::new([calls(vec![call("c1", "screenshot", "{}")]), text("sorry")]);
    let mut session = harness.session().await;
    let result = ToolResult {
        for_llm: "done".into(),
        media: Some(vec!["media://does-not-exist".into()]),
        response_handled: Some(true),
        ..ToolResult::default()
    };
    harness.engine.register(screenshot_hook(result));
    let report = session.send("shoot").await.unwrap();
    let message = harness.tool_message(1, "c1");
    assert!(
        message.starts_with("failed to deliver attachment: unknown media reference `media://does-not-exist`"),
        "{message}"
    );
    assert_eq!(report.status, TurnStatus::Completed);
    assert!(report.tools[0].is_error);
}
