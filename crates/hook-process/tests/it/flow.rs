//! The seed's "Complete Flow Example": the host drives hello, before_llm, before_tool,
//! approve_tool, after_tool and after_llm with the seed's params; the exact lines it wrote are
//! snapshotted.

use crate::common;

use std::time::Duration;

use common::*;
use hook_core::{Context, Event};
use hook_protocol::{ChatMessage, Role, ToolResult};
use serde_json::{Value, json};

const DEADLINE: Duration = Duration::from_secs(10);

#[tokio::test]
async fn host_writes_the_seed_flow() {
    let dir = temp_dir("flow");
    let record = dir.join("received.jsonl");
    let events = [
        Event::PreLlmRequest,
        Event::PostLlmResponse,
        Event::PreToolExecution,
        Event::PostToolExecution,
        Event::ApproveTool,
    ];
    let spec = python_spec("my_hook", "flow_recorder.py", &[&record.display().to_string()], &events);
    let hook = start(&spec).await;

    let llm = Context {
        model: Some("claude-sonnet".into()),
        messages: Some(vec![ChatMessage::text(Role::User, "hello")]),
        tools: Some(vec![]),
        ..Context::default()
    };
    let tool = tool_context("bash", json!({"command": "ls"}));
    let after_tool = Context {
        tool_result: Some(ToolResult::text("file1.txt\nfile2.txt")),
        duration_ns: Some(5_000_000),
        ..tool.clone()
    };
    let after_llm = Context {
        model: Some("claude-sonnet".into()),
        assistant_output: Some("Files listed".into()),
        ..Context::default()
    };
    let steps = [
        (Event::PreLlmRequest, &llm),
        (Event::PreToolExecution, &tool),
        (Event::ApproveTool, &tool),
        (Event::PostToolExecution, &after_tool),
        (Event::PostLlmResponse, &after_llm),
    ];
    for (event, context) in steps {
        let output = call(&*hook, event, context, DEADLINE).await.unwrap();
        if event == Event::ApproveTool {
            assert_eq!(output.approved, Some(true));
        } else {
            assert!(output.is_no_change(), "{event}: {output:?}");
        }
    }
    shutdown_and_check(&hook).await;

    let written = std::fs::read_to_string(&record).unwrap();
    // Same ids and methods as the seed's flow.
    let seed = include_str!("../../../hook-protocol/tests/fixtures/protocol/flow.jsonl");
    let requests = |text: &str| -> Vec<(Value, Value)> {
        text.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|m| m.get("method").is_some())
            .map(|m| (m["id"].clone(), m["method"].clone()))
            .collect()
    };
    assert_eq!(requests(&written), requests(seed));
    insta::assert_snapshot!(written);
}
