//! `abort_turn` keeps its reason all the way to the caller; `hard_abort` also rolls the turn's
//! history back; `stop` on pre_llm_request and pre_tool_execution ends the turn.

use crate::common;

use agent_loop::{NOT_EXECUTED, TurnError};
use common::{Harness, action, call, calls, returning, text};
use hook_core::{Action, HookInput, HookOutput, hook_fn};
use hook_protocol::{Event, Role};

#[tokio::test]
async fn abort_turn_reason_reaches_the_caller() {
    let harness = Harness::new([calls(vec![call("c1", "list_dir", "{}")]), text("never")]);
    harness.hook("guard", [Event::PreToolExecution], returning(action(Action::AbortTurn, Some("budget exhausted"))));
    let mut session = harness.session().await;
    let err = session.send("list").await.unwrap_err();
    match &err {
        TurnError::Aborted { event, reason } => {
            assert_eq!(*event, Event::PreToolExecution);
            assert_eq!(reason, "budget exhausted");
        }
        other => panic!("expected Aborted, got {other:?}"),
    }
    assert!(err.to_string().contains("budget exhausted"));
    // The history stays valid for the next turn: the unanswered call gets a tool message.
    let last = session.history().last().unwrap();
    assert_eq!(last.role, Role::Tool);
    assert_eq!(last.text_content(), NOT_EXECUTED);
    assert_eq!(harness.requests().len(), 1);
    let partial = session.last_report().unwrap();
    assert_eq!(partial.events.last().unwrap().event, Event::PreToolExecution);
}

#[tokio::test]
async fn hard_abort_rolls_the_turn_back() {
    let harness = Harness::new([
        text("first answer"),
        calls(vec![call("c1", "write_file", r#"{"path":"a.txt","content":"1"}"#)]),
        calls(vec![call("c2", "list_dir", "{}")]),
    ]);
    // Lets the first write run, hard-aborts at the second round's tool.
    let guard = hook_fn("guard", |input: &HookInput<'_>| {
        let is_second = input.context.tool_call_id.as_deref() == Some("c2");
        async move {
            Ok(if is_second { action(Action::HardAbort, Some("policy violation")) } else { HookOutput::default() })
        }
    });
    harness.hook("guard", [Event::PreToolExecution], guard);
    let mut session = harness.session().await;
    session.send("one").await.unwrap();
    let before = session.history().to_vec();
    let err = session.send("two").await.unwrap_err();
    assert!(matches!(&err, TurnError::HardAborted { reason, .. } if reason == "policy violation"), "{err:?}");
    assert_eq!(session.history(), &before[..], "the aborted turn's messages are gone");
}

#[tokio::test]
async fn stop_on_pre_llm_request_aborts_the_turn_before_the_model_is_asked() {
    let harness = Harness::new([text("never")]);
    harness.hook("gate", [Event::PreLlmRequest], returning(action(Action::Stop, Some("offline hours"))));
    let mut session = harness.session().await;
    let err = session.send("hello").await.unwrap_err();
    assert!(
        matches!(&err, TurnError::Stopped { event: Event::PreLlmRequest, reason: Some(r) } if r == "offline hours")
    );
    assert_eq!(harness.requests().len(), 0);
}

#[tokio::test]
async fn stop_on_pre_tool_execution_stops_the_turn() {
    let harness = Harness::new([calls(vec![call("c1", "list_dir", "{}")]), text("never")]);
    harness.hook("gate", [Event::PreToolExecution], returning(action(Action::Stop, None)));
    let mut session = harness.session().await;
    let err = session.send("list").await.unwrap_err();
    assert!(matches!(err, TurnError::Stopped { event: Event::PreToolExecution, reason: None }));
    assert_eq!(harness.requests().len(), 1);
}

#[tokio::test]
async fn stop_on_pre_send_message_drops_the_message_and_user_input_replaces_it() {
    let harness = Harness::new([text("hi")]);
    let gate = hook_fn("gate", |input: &HookInput<'_>| {
        let text = input.context.user_input.clone().unwrap_or_default();
        async move {
            Ok(if text.contains("secret") {
                action(Action::Stop, Some("contains a secret"))
            } else {
                HookOutput {
                    patch: hook_core::ContextPatch {
                        user_input: Some(format!("[checked] {text}")),
                        ..Default::default()
                    },
                    ..HookOutput::default()
                }
            })
        }
    });
    harness.hook("gate", [Event::PreSendMessage], gate);
    let mut session = harness.session().await;
    let dropped = session.send("my secret is 42").await.unwrap();
    assert!(matches!(dropped.status, agent_loop::TurnStatus::Dropped { .. }));
    assert!(session.history().is_empty());
    assert_eq!(harness.requests().len(), 0);
    session.send("hello").await.unwrap();
    assert_eq!(session.history()[0].text_content(), "[checked] hello");
    assert_eq!(harness.messages(0)[1]["content"], "[checked] hello");
}
