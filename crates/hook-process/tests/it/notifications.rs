//! What the host sends besides requests: `hook.event` for observed kinds only, `hook.cancel`
//! when a call's deadline passes; and j-cli events as `hook.<event>` with a HookContext.

use crate::common;

use std::time::Duration;

use common::*;
use hook_core::{Context, Event, HookDefinition, HookError, ObserverEvent};
use hook_protocol::Meta;
use serde_json::{Value, json};

fn recorded(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[tokio::test]
async fn observed_kinds_are_sent_as_hook_event() {
    let dir = temp_dir("observe");
    let record = dir.join("received.jsonl");
    let mut spec = python_spec("watcher", "flow_recorder.py", &[&record.display().to_string()], &[]);
    if let HookDefinition::Process(def) = &mut spec.definition {
        def.observe = Some(vec!["tool_exec_start".into(), "agent.turn.end".into()]);
    }
    let built = build(&spec, options()).await.unwrap();
    let observer = built.observer.expect("observe is set, so there is an observer");
    let meta = Meta { agent_id: Some("agent-1".into()), ..Meta::default() };
    for kind in ["tool_exec_start", "llm_request", "turn_end"] {
        let event = ObserverEvent { kind: kind.into(), meta: meta.clone(), payload: json!({"Tool": "echo_text"}) };
        observer.observe(&event).await.unwrap();
    }
    built.hook.shutdown().await;

    let lines = recorded(&record);
    assert_eq!(lines[0]["params"]["modes"], json!(["observe"]));
    let events: Vec<_> = lines.iter().filter(|l| l["method"] == "hook.event").collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events.iter().all(|e| e.get("id").is_none()));
    assert_eq!(
        *events[0],
        json!({"jsonrpc": "2.0", "method": "hook.event", "params": {
            "Kind": "tool_exec_start", "Meta": {"AgentID": "agent-1"}, "Payload": {"Tool": "echo_text"}
        }})
    );
    assert_eq!(events[1]["params"]["Kind"], "turn_end");
}

#[tokio::test]
async fn a_call_past_its_deadline_sends_hook_cancel() {
    let dir = temp_dir("cancel");
    let record = dir.join("received.jsonl");
    let spec = python_spec("hanger", "flow_recorder.py", &[&record.display().to_string()], &[Event::PreToolExecution]);
    let hook = start(&spec).await;
    let context = tool_context("bash", json!({"hang": true}));
    let error = call(&*hook, Event::PreToolExecution, &context, Duration::from_millis(300)).await.unwrap_err();
    assert!(matches!(error, HookError::Timeout { .. }), "{error:?}");
    // A dropped call (the engine's own timeout) is cancelled too.
    let dropped = tokio::time::timeout(
        Duration::from_millis(200),
        call(&*hook, Event::PreToolExecution, &context, Duration::from_secs(30)),
    )
    .await;
    assert!(dropped.is_err());
    // The hook keeps serving.
    let fine = tool_context("bash", json!({}));
    assert!(call(&*hook, Event::PreToolExecution, &fine, Duration::from_secs(5)).await.unwrap().is_no_change());
    shutdown_and_check(&hook).await;

    let lines = recorded(&record);
    let cancels: Vec<_> = lines.iter().filter(|l| l["method"] == "hook.cancel").collect();
    assert_eq!(cancels.len(), 2, "{lines:?}");
    assert_eq!(cancels[0]["params"]["id"], 2);
    assert_eq!(cancels[0]["params"]["reason"], "the call's deadline passed");
    assert_eq!(cancels[1]["params"]["id"], 3);
    assert_eq!(cancels[1]["params"]["reason"], "the host cancelled the call");
}

#[tokio::test]
async fn jcli_events_are_sent_with_a_hook_context() {
    let dir = temp_dir("jcli");
    let record = dir.join("received.jsonl");
    let spec = python_spec("rewriter", "flow_recorder.py", &[&record.display().to_string()], &[Event::PreSendMessage]);
    let hook = start(&spec).await;
    let context = Context { user_input: Some("hi".into()), session_id: Some("s-1".into()), ..Context::default() };
    let output = call(&*hook, Event::PreSendMessage, &context, Duration::from_secs(5)).await.unwrap();
    assert_eq!(output.patch.user_input.as_deref(), Some("rewritten: hi"));
    shutdown_and_check(&hook).await;

    let lines = recorded(&record);
    // No PicoClaw mode covers a j-cli event: hello offers none.
    assert!(lines[0]["params"].get("modes").is_none(), "{}", lines[0]);
    assert_eq!(
        lines[1],
        json!({"jsonrpc": "2.0", "id": 2, "method": "hook.pre_send_message", "params": {
            "event": "pre_send_message", "user_input": "hi", "session_id": "s-1"
        }})
    );
}
