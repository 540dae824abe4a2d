//! The exact order of events in a turn with two tool calls, the fields each hook sees, and the
//! observer notifications.

use crate::common;

use common::{Harness, ObserverLog, call, calls, recorder, text};
use hook_protocol::Event;
use serde_json::json;

#[tokio::test]
async fn a_turn_with_two_tool_calls_fires_every_event_in_order() {
    let mut harness = Harness::new([
        calls(vec![call("c1", "list_dir", r#"{"path":"."}"#), call("c2", "read_file", r#"{"path":"a.txt"}"#)]),
        text("done"),
    ]);
    harness.compaction.micro = true;
    std::fs::write(harness.dir.join("a.txt"), "hello from a.txt").unwrap();
    let (hook, seen) = recorder();
    harness.hook("recorder", Event::ALL, hook);
    let observers = ObserverLog::attach(&harness.engine);

    let mut session = harness.session().await;
    let report = session.send("look around").await.expect("turn");
    let end = session.close().await;
    assert_eq!(end.event, Event::SessionEnd);

    assert_eq!(report.reply, "done");
    insta::assert_snapshot!(report.event_lines().join("\n"));

    // The hook saw the same events, between session_start and session_end.
    let mut expected = vec![Event::SessionStart];
    expected.extend(report.event_names());
    expected.push(Event::SessionEnd);
    assert_eq!(seen.events(), expected);

    // Fields and metadata at each point.
    let llm = seen.contexts(Event::PreLlmRequest);
    let meta = llm[1].meta.clone().unwrap();
    assert_eq!(meta.agent_id.as_deref(), Some("agent"));
    assert_eq!(meta.turn_id.as_deref(), Some("agent-turn-1"));
    assert_eq!(meta.session_key.as_deref(), Some("s1"));
    assert_eq!(meta.iteration, Some(1));
    assert_eq!(meta.trace_path.as_deref(), Some("turn.llm.request"));
    assert_eq!(meta.source.as_deref(), Some("runTurn"));
    assert_eq!(llm[0].system_prompt.as_deref(), Some("You are a test agent."));
    assert_eq!(llm[0].model.as_deref(), Some("scripted-model"));
    let tool_names: Vec<String> = llm[0].tools.iter().flatten().map(|t| t.name().to_owned()).collect();
    assert!(tool_names.contains(&"Bash".to_owned()) && tool_names.contains(&"register_hook".to_owned()));
    assert_eq!(llm[1].messages.as_ref().unwrap().len(), 4, "user, assistant with calls, two tool results");

    let before = seen.contexts(Event::PreToolExecution);
    assert_eq!(before[0].tool_name.as_deref(), Some("list_dir"));
    assert_eq!(before[0].tool_arguments.as_deref(), Some(r#"{"path":"."}"#));
    assert_eq!(before[0].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(before[1].meta.as_ref().unwrap().trace_path.as_deref(), Some("turn.tool.before"));
    let approve = seen.contexts(Event::ApproveTool);
    assert_eq!(approve[1].tool_name.as_deref(), Some("read_file"));
    assert_eq!(approve[1].meta.as_ref().unwrap().trace_path.as_deref(), Some("turn.tool.approve"));
    let after = seen.contexts(Event::PostToolExecution);
    assert!(after[0].tool_result.as_ref().unwrap().for_llm.contains("a.txt"));
    assert_eq!(after[1].tool_result.as_ref().unwrap().for_llm, "hello from a.txt");
    assert_eq!(after[1].meta.as_ref().unwrap().trace_path.as_deref(), Some("turn.tool.after"));
    assert!(after[1].duration_ns.is_some());
    let response = seen.contexts(Event::PostLlmResponse);
    assert_eq!(response[0].tool_calls.as_ref().unwrap().len(), 2);
    assert_eq!(response[1].assistant_output.as_deref(), Some("done"));
    assert_eq!(response[1].meta.as_ref().unwrap().trace_path.as_deref(), Some("turn.llm.response"));
    let stop = seen.contexts(Event::Stop);
    assert_eq!(stop[0].user_input.as_deref(), Some("done"), "j-cli passes the final reply as `user_input` on stop");
    assert_eq!(stop[0].assistant_output.as_deref(), Some("done"));
    let send = seen.contexts(Event::PreSendMessage);
    assert_eq!(send[0].user_input.as_deref(), Some("look around"));
    assert_eq!(send[0].messages.as_ref().unwrap().len(), 0, "the message is not in the history yet");
    let posted = seen.contexts(Event::PostSendMessage);
    assert_eq!(posted[0].messages.as_ref().unwrap().len(), 1);
    for (_, context) in seen.0.lock().unwrap().iter() {
        assert_eq!(context.session_id.as_deref(), Some("s1"));
        assert!(context.meta.is_some() && context.cwd.is_some());
    }

    // Observer notifications, in order, with PascalCase payloads.
    let kinds = observers.kinds(10).await;
    assert_eq!(
        kinds,
        [
            "turn_start",
            "llm_request",
            "llm_response",
            "tool_exec_start",
            "tool_exec_end",
            "tool_exec_start",
            "tool_exec_end",
            "llm_request",
            "llm_response",
            "turn_end"
        ]
    );
    let start = &observers.of_kind("tool_exec_start")[0];
    assert_eq!(start.payload, json!({"Tool": "list_dir", "Arguments": {"path": "."}}));
    assert_eq!(start.meta.turn_id.as_deref(), Some("agent-turn-1"));
    let end = &observers.of_kind("turn_end")[0];
    assert_eq!(end.payload["Status"], "completed");
    assert_eq!(end.payload["FinalContent"], "done");
    assert_eq!(end.payload["Iterations"], 2);
    assert_eq!(observers.of_kind("llm_request")[0].payload["ToolsCount"], 8);
}
