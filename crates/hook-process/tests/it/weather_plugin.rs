//! The seed's weather plugin, unmodified but for its invalid signal lambdas: it injects
//! `get_weather` in before_llm and answers it with `respond` in before_tool.

use crate::common;

use std::time::Duration;

use common::*;
use hook_core::{Action, Context, Event};
use hook_protocol::{ChatMessage, Role, ToolDefinition};
use serde_json::json;

const DEADLINE: Duration = Duration::from_secs(10);

#[tokio::test]
async fn injects_the_tool_and_answers_it_with_respond() {
    let spec =
        python_spec("weather_plugin", "weather_plugin.py", &[], &[Event::PreLlmRequest, Event::PreToolExecution]);
    let hook = start(&spec).await;

    let echo: ToolDefinition = serde_json::from_value(json!({
        "type": "function",
        "function": {"name": "echo", "description": "echo text", "parameters": {"type": "object"}}
    }))
    .unwrap();
    let context = Context {
        model: Some("claude-sonnet".into()),
        messages: Some(vec![ChatMessage::text(Role::User, "What's the weather in Beijing today?")]),
        tools: Some(vec![echo.clone()]),
        ..Context::default()
    };
    let output = call(&*hook, Event::PreLlmRequest, &context, DEADLINE).await.unwrap();
    assert_eq!(output.action, None);
    let tools = output.patch.tools.expect("before_llm returns the tool list");
    let names: Vec<_> = tools.iter().map(|t| t.function.name.as_str()).collect();
    assert_eq!(names, ["echo", "get_weather"]);
    // Unchanged members are not reported as changes.
    assert_eq!(output.patch.model, None);
    assert_eq!(output.patch.messages, None);

    let weather = tool_context("get_weather", json!({"city": "Beijing"}));
    let output = call(&*hook, Event::PreToolExecution, &weather, DEADLINE).await.unwrap();
    assert_eq!(output.action, Some(Action::Respond));
    let result = output.respond.expect("respond carries the result");
    assert_eq!(result.for_llm, "Beijing weather: Sunny, temperature 15°C, humidity 45%");
    assert!(!result.is_error());

    let other = tool_context("echo", json!({"text": "hi"}));
    let output = call(&*hook, Event::PreToolExecution, &other, DEADLINE).await.unwrap();
    assert!(output.is_no_change(), "{output:?}");

    shutdown_and_check(&hook).await;
}
