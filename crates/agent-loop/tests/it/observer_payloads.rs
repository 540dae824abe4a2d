//! Observer notifications are built from `hook_protocol::observe`'s typed payloads: every kind
//! a turn sends is one of PicoClaw's, each payload reads back as its kind's struct, and the JSON
//! is the PascalCase shape observers have always received.

use crate::common;

use common::{Harness, ObserverLog, call, calls, text};
use hook_core::{HookInput, HookOutput, hook_fn};
use hook_protocol::{
    Event,
    observe::{ObserverKind, ObserverPayload},
    picoclaw::OBSERVER_KINDS,
};
use serde_json::json;

#[tokio::test]
async fn every_notification_of_a_turn_is_a_typed_payload_of_its_kind() {
    let harness = Harness::new([
        calls(vec![call("c1", "list_dir", "{}"), call("c2", "write_file", r#"{"path":"x.txt","content":"x"}"#)]),
        text("done"),
    ]);
    // Skips writes, so the turn also sends `tool_exec_skipped`.
    let guard = hook_fn("guard", |input: &HookInput<'_>| {
        let is_write = input.context.tool_name.as_deref() == Some("write_file");
        async move { Ok(if is_write { HookOutput::skip("no writes") } else { HookOutput::default() }) }
    });
    harness.hook("guard", [Event::PreToolExecution], guard);
    let observers = ObserverLog::attach(&harness.engine);
    let mut session = harness.session().await;
    session.send("look").await.unwrap();

    let kinds = observers.kinds(9).await;
    assert_eq!(
        kinds,
        [
            "turn_start",
            "llm_request",
            "llm_response",
            "tool_exec_start",
            "tool_exec_end",
            "tool_exec_skipped",
            "llm_request",
            "llm_response",
            "turn_end"
        ]
    );
    for event in observers.0.lock().unwrap().iter() {
        assert!(OBSERVER_KINDS.contains(&event.kind.as_str()), "{} is not a PicoClaw kind", event.kind);
        let kind = ObserverKind::from_name(&event.kind).unwrap();
        let payload: ObserverPayload = serde_json::from_value(json!({"Kind": event.kind, "Payload": event.payload}))
            .unwrap_or_else(|err| panic!("the {} payload {} does not read back: {err}", event.kind, event.payload));
        assert_eq!(payload.kind(), kind);
        assert_eq!(payload.to_value(), event.payload, "no member is lost or added");
        assert_eq!(event.meta.trace_path.as_deref(), Some(format!("turn.{kind}").as_str()));
    }
    assert_eq!(
        observers.of_kind("tool_exec_skipped")[0].payload,
        json!({"Tool": "write_file", "Reason": "Tool call skipped by hook: no writes"})
    );
    assert_eq!(
        observers.of_kind("llm_response")[0].payload,
        json!({"ContentLen": 0, "ToolCalls": 2, "HasReasoning": false})
    );
    assert_eq!(observers.of_kind("turn_start")[0].payload, json!({"UserMessage": "look", "MediaCount": 0}));
}
