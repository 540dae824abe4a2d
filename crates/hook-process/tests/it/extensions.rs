//! hookwire's extensions (docs/process-extensions.md): field selection and the history delta,
//! with Python fixture hooks and the Rust `echo_hook` example as real processes. A hook that
//! asks for nothing gets PicoClaw's payload byte for byte; any disagreement about the history
//! ends in a full resend.

use crate::{common, rust_server::echo_hook};

use std::{path::Path, time::Duration};

use common::*;
use hook_core::{BuildError, Context, Event};
use hook_protocol::{
    ChatMessage, Role, ToolDefinition,
    picoclaw::{BeforeLlmParams, BeforeToolParams},
};
use serde_json::{Value, json};

const DEADLINE: Duration = Duration::from_secs(10);

fn llm_context(messages: &[&str]) -> Context {
    let tool: ToolDefinition = serde_json::from_value(json!({
        "type": "function",
        "function": {"name": "bash", "description": "run a command", "parameters": {"type": "object"}}
    }))
    .unwrap();
    Context {
        model: Some("model-a".into()),
        messages: Some(
            messages
                .iter()
                .enumerate()
                .map(|(i, m)| ChatMessage::text(if i % 2 == 0 { Role::User } else { Role::Assistant }, *m))
                .collect(),
        ),
        tools: Some(vec![tool]),
        options: Some(serde_json::from_value(json!({"temperature": 0.5})).unwrap()),
        channel: Some("cli".into()),
        ..Context::default()
    }
}

/// The params of every `hook.before_llm` the fixture recorded.
fn recorded(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|m| m["method"] == "hook.before_llm")
        .map(|m| m["params"].clone())
        .collect()
}

fn history(params: &Value) -> Value {
    params["hookwire"]["history"].clone()
}

fn delta_spec(name: &str, record: &Path, mode: &str, reads: Option<&str>) -> hook_core::HookSpec {
    let record = record.display().to_string();
    let mut args = vec![record.as_str(), mode];
    args.extend(reads);
    python_spec(name, "delta_hook.py", &args, &[Event::PreLlmRequest])
}

/// What the fixture says it holds: `<count>:<contents>:<model>`.
async fn reason(hook: &dyn hook_core::Hook, context: &Context) -> String {
    let output = call(hook, Event::PreLlmRequest, context, DEADLINE).await.unwrap();
    output.reason.unwrap_or_default()
}

#[tokio::test]
async fn a_hook_that_asks_nothing_gets_picoclaw_params_byte_for_byte() {
    let dir = temp_dir("ext-plain");
    let record = dir.join("received.jsonl");
    let events = [Event::PreLlmRequest, Event::PreToolExecution];
    let spec = python_spec("plain", "flow_recorder.py", &[&record.display().to_string()], &events);
    let hook = start(&spec).await;
    let context = Context {
        tool_name: Some("bash".into()),
        tool_arguments: Some(r#"{"command": "ls",  "b": [1, 2.5]}"#.into()),
        meta: Some(Default::default()),
        ..llm_context(&["hello", "hi", "list files"])
    };
    call(&*hook, Event::PreLlmRequest, &context, DEADLINE).await.unwrap();
    call(&*hook, Event::PreToolExecution, &context, DEADLINE).await.unwrap();
    shutdown_and_check(&hook).await;

    let lines: Vec<String> = std::fs::read_to_string(&record).unwrap().lines().map(str::to_owned).collect();
    assert!(
        lines[0].contains(r#""hookwire":{"version":1,"extensions":["reads","history_delta","read_only"]}"#),
        "{}",
        lines[0]
    );
    // The params as PicoClaw's own types write them, every member, nothing added.
    let meta = hook_protocol::Meta {
        agent_id: Some(String::new()),
        turn_id: Some(String::new()),
        parent_turn_id: Some(String::new()),
        session_key: Some(String::new()),
        iteration: Some(0),
        trace_path: Some(String::new()),
        source: Some(String::new()),
    };
    let before_llm = BeforeLlmParams {
        meta: Some(meta.clone()),
        model: context.model.clone(),
        messages: context.messages.clone(),
        tools: context.tools.clone(),
        options: context.options.clone(),
        channel: context.channel.clone(),
        ..BeforeLlmParams::default()
    };
    let expected = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"hook.before_llm","params":{}}}"#,
        serde_json::to_string(&before_llm).unwrap()
    );
    assert_eq!(lines[1], expected);
    let before_tool = BeforeToolParams {
        meta: Some(meta),
        tool: "bash".into(),
        arguments: Some(json!({"command": "ls", "b": [1, 2.5]})),
        channel: context.channel.clone(),
        ..BeforeToolParams::default()
    };
    let expected = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"hook.before_tool","params":{}}}"#,
        serde_json::to_string(&before_tool).unwrap()
    );
    assert_eq!(lines[2], expected);
}

#[tokio::test]
async fn a_hook_receives_only_the_members_it_reads() {
    let dir = temp_dir("ext-reads");
    let record = dir.join("received.jsonl");
    let hook = start(&delta_spec("reader", &record, "good", Some("model,tools"))).await;
    let context = llm_context(&["hello", "hi", "list files"]);
    assert_eq!(reason(&*hook, &context).await, "0::model-a");
    let last = llm_context(&["hello", "hi", "list files"]);
    shutdown_and_check(&hook).await;
    let params = recorded(&record);
    assert_eq!(params.len(), 1);
    let members: Vec<&String> = params[0].as_object().unwrap().keys().collect();
    assert_eq!(members, ["model", "tools"], "{}", params[0]);

    // `last_message`: only the last message, as a one-element list.
    let record = dir.join("last.jsonl");
    let hook = start(&delta_spec("last", &record, "good", Some("last_message"))).await;
    assert_eq!(reason(&*hook, &last).await, "1:list files:None");
    shutdown_and_check(&hook).await;
    assert_eq!(recorded(&record)[0], json!({"messages": [{"role": "user", "content": "list files"}]}));
}

#[tokio::test]
async fn an_unknown_member_refuses_the_mount_and_names_it() {
    let dir = temp_dir("ext-typo");
    let error = build(&delta_spec("typo", &dir.join("r.jsonl"), "typo", None), options()).await.unwrap_err();
    match error {
        BuildError::Refused { reason } => {
            assert!(reason.contains("`typo`") && reason.contains("`modle`") && reason.contains("model"), "{reason}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn the_history_goes_as_a_delta_and_the_hook_reassembles_it() {
    let dir = temp_dir("ext-delta");
    let record = dir.join("received.jsonl");
    let hook = start(&delta_spec("delta", &record, "good", None)).await;
    let mut turns = vec!["m0", "m1", "m2"];
    assert_eq!(reason(&*hook, &llm_context(&turns)).await, "3:m0|m1|m2:model-a");
    // Appended.
    turns.extend(["m3", "m4"]);
    assert_eq!(reason(&*hook, &llm_context(&turns)).await, "5:m0|m1|m2|m3|m4:model-a");
    // Unchanged.
    assert_eq!(reason(&*hook, &llm_context(&turns)).await, "5:m0|m1|m2|m3|m4:model-a");
    // Replaced in the middle and cut (a compaction).
    let compacted = ["m0", "summary"];
    assert_eq!(reason(&*hook, &llm_context(&compacted)).await, "2:m0|summary:model-a");
    shutdown_and_check(&hook).await;

    let params = recorded(&record);
    assert_eq!(history(&params[0]), json!({"version": 1, "keep": 0}));
    assert_eq!(params[0]["messages"].as_array().unwrap().len(), 3);
    assert_eq!(history(&params[1]), json!({"version": 2, "base": 1, "keep": 3}));
    assert_eq!(
        params[1]["messages"],
        json!([{"role": "assistant", "content": "m3"}, {"role": "user", "content": "m4"}])
    );
    assert_eq!(history(&params[2]), json!({"version": 3, "base": 2, "keep": 5}));
    assert_eq!(params[2]["messages"], json!([]));
    assert_eq!(history(&params[3]), json!({"version": 4, "base": 3, "keep": 1}));
    assert_eq!(params[3]["messages"], json!([{"role": "assistant", "content": "summary"}]));
    // The members it did not ask for are not sent.
    assert!(params.iter().all(|p| p.get("tools").is_none() && p.get("options").is_none()), "{params:?}");
}

#[tokio::test]
async fn a_wrong_ack_makes_the_next_call_a_full_resend() {
    let dir = temp_dir("ext-wrong-ack");
    let record = dir.join("received.jsonl");
    let hook = start(&delta_spec("wrong_ack", &record, "wrong-ack", None)).await;
    let mut turns = vec!["m0"];
    for next in ["m1", "m2"] {
        let expected = format!("{}:{}:model-a", turns.len(), turns.join("|"));
        assert_eq!(reason(&*hook, &llm_context(&turns)).await, expected);
        turns.push(next);
    }
    shutdown_and_check(&hook).await;
    let params = recorded(&record);
    assert_eq!(params.len(), 2);
    for (idx, p) in params.iter().enumerate() {
        assert!(history(p).get("base").is_none(), "call {idx} was not a full resend: {p}");
        assert_eq!(p["messages"].as_array().unwrap().len(), idx + 1);
    }
}

#[tokio::test]
async fn an_unknown_base_is_answered_with_a_resync_and_the_call_is_resent_whole() {
    let dir = temp_dir("ext-forget");
    let record = dir.join("received.jsonl");
    let hook = start(&delta_spec("forgetful", &record, "forget", None)).await;
    assert_eq!(reason(&*hook, &llm_context(&["a"])).await, "1:a:model-a");
    // The host sends a delta; the hook forgot its history, answers -32090, gets it whole.
    assert_eq!(reason(&*hook, &llm_context(&["a", "b"])).await, "2:a|b:model-a");
    shutdown_and_check(&hook).await;
    let params = recorded(&record);
    assert_eq!(params.len(), 3, "{params:?}");
    assert_eq!(history(&params[1]), json!({"version": 2, "base": 1, "keep": 1}));
    assert_eq!(history(&params[2]), json!({"version": 3, "keep": 0}));
    assert_eq!(params[2]["messages"].as_array().unwrap().len(), 2);
}

/// A call dropped before its reply (the chain cut it) may or may not have been applied by the
/// hook: the next call sends the whole history instead of a delta against the last version the
/// host saw acknowledged.
#[tokio::test]
async fn a_call_dropped_before_its_reply_makes_the_next_call_a_full_resend() {
    let dir = temp_dir("ext-dropped");
    let record = dir.join("received.jsonl");
    let hook = start(&delta_spec("slow", &record, "slow-second", None)).await;
    assert_eq!(reason(&*hook, &llm_context(&["a"])).await, "1:a:model-a");
    let cut = tokio::time::timeout(Duration::from_millis(500), reason(&*hook, &llm_context(&["a", "b"]))).await;
    assert!(cut.is_err(), "the second call takes 3 s and is dropped after 0.5 s");
    assert_eq!(reason(&*hook, &llm_context(&["a", "b", "c"])).await, "3:a|b|c:model-a");
    shutdown_and_check(&hook).await;
    let params = recorded(&record);
    assert_eq!(params.len(), 3, "{params:?}");
    assert_eq!(history(&params[1])["base"], json!(1), "the second call is a delta");
    assert!(history(&params[2]).get("base").is_none(), "after a dropped call, a full resend: {}", params[2]);
    assert_eq!(params[2]["messages"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn a_restarted_hook_gets_the_whole_history_again() {
    let dir = temp_dir("ext-restart");
    let record = dir.join("received.jsonl");
    let hook = start(&delta_spec("restarted", &record, "good", None)).await;
    assert_eq!(reason(&*hook, &llm_context(&["a"])).await, "1:a:model-a");
    let first = hook.pid().unwrap();
    nix::sys::signal::killpg(nix::unistd::Pid::from_raw(first as i32), nix::sys::signal::SIGKILL).unwrap();
    assert_group_gone(first).await;
    let until = std::time::Instant::now() + DEADLINE;
    while hook.pid().is_none_or(|pid| pid == first) {
        assert!(std::time::Instant::now() < until, "the hook was not restarted");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(reason(&*hook, &llm_context(&["a", "b"])).await, "2:a|b:model-a");
    shutdown_and_check(&hook).await;
    let params = recorded(&record);
    assert_eq!(history(&params[1]), json!({"version": 1, "keep": 0}), "{params:?}");
}

#[tokio::test]
async fn a_hook_that_replaces_the_messages_still_works_with_deltas() {
    let dir = temp_dir("ext-replace");
    let record = dir.join("received.jsonl");
    let hook = start(&delta_spec("replacer", &record, "replace", None)).await;
    let context = llm_context(&["a", "b"]);
    let output = call(&*hook, Event::PreLlmRequest, &context, DEADLINE).await.unwrap();
    let messages = output.patch.messages.expect("the hook replaced the messages");
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[2], ChatMessage::text(Role::User, "added by hook"));
    // The next request carries the replaced history: only the added message is new.
    let next = Context { messages: Some(messages), ..context };
    let output = call(&*hook, Event::PreLlmRequest, &next, DEADLINE).await.unwrap();
    assert_eq!(output.reason.as_deref(), Some("3:a|b|added by hook:model-a"));
    shutdown_and_check(&hook).await;
    let params = recorded(&record);
    assert_eq!(history(&params[1]), json!({"version": 2, "base": 1, "keep": 2}));
    assert_eq!(params[1]["messages"], json!([{"role": "user", "content": "added by hook"}]));
}

#[tokio::test]
async fn the_rust_server_negotiates_and_hands_the_handler_whole_params() {
    // Field selection: the handler sees the model and tools, no messages.
    let command = vec![echo_hook(), "--reads".into(), "before_llm=model,tools".into()];
    let hook = start(&spec("rust_reads", command, &[Event::PreLlmRequest])).await;
    let context = llm_context(&["m0", "m1"]);
    assert_eq!(reason(&*hook, &context).await, "model=model-a tools=1 messages=0 last=(none)");
    shutdown_and_check(&hook).await;

    // History delta: the handler sees the whole history on every call.
    let command = vec![echo_hook(), "--history-delta".into()];
    let hook = start(&spec("rust_delta", command, &[Event::PreLlmRequest])).await;
    let mut turns: Vec<String> = Vec::new();
    for idx in 0..4 {
        turns.push(format!("turn {idx}"));
        let refs: Vec<&str> = turns.iter().map(String::as_str).collect();
        let expected = format!("model=model-a tools=1 messages={} last=turn {idx}", idx + 1);
        assert_eq!(reason(&*hook, &llm_context(&refs)).await, expected);
    }
    // A compaction replaces the history.
    assert_eq!(reason(&*hook, &llm_context(&["summary"])).await, "model=model-a tools=1 messages=1 last=summary");
    shutdown_and_check(&hook).await;
}
