//! Compaction hooks change what survives: post_micro_compact's messages replace the history;
//! pre_auto_compact's additional_context reaches the summariser; pre_micro_compact stop skips.

use crate::common;

use agent_loop::{CompactionConfig, compacted_tool_text};
use common::{Harness, action, call, calls, returning, text};
use hook_core::{Action, ContextPatch, HookInput, HookOutput, hook_fn};
use hook_protocol::{ChatMessage, Event, Role};

#[tokio::test]
async fn micro_compaction_shortens_old_tool_results_before_the_next_model_call() {
    let mut harness =
        Harness::new([calls(vec![call("c1", "read_file", r#"{"path":"big.txt"}"#)]), text("ok"), text("ok again")]);
    harness.compaction = CompactionConfig { micro: true, keep_last: 1, auto_threshold_tokens: None };
    std::fs::write(harness.dir.join("big.txt"), "x".repeat(500)).unwrap();
    let mut session = harness.session().await;
    session.send("read").await.unwrap();
    // In the first turn the tool result is the newest message (kept whole); the next turn's
    // compaction shortens it before the model sees it.
    assert_eq!(harness.tool_message(1, "c1").len(), 500);
    session.send("again").await.unwrap();
    assert_eq!(harness.tool_message(2, "c1"), compacted_tool_text(500));
}

#[tokio::test]
async fn post_micro_compact_messages_replace_the_history() {
    let mut harness = Harness::new([text("first"), text("second")]);
    harness.compaction.micro = true;
    let replace = hook_fn("replace", |input: &HookInput<'_>| {
        let n = input.context.messages.as_ref().map_or(0, Vec::len);
        async move {
            // From the second turn on, keep only a note and the newest message.
            Ok(if n > 1 {
                HookOutput {
                    patch: ContextPatch {
                        messages: Some(vec![
                            ChatMessage::text(Role::User, "NOTE: earlier turns were dropped"),
                            ChatMessage::text(Role::User, "hello again"),
                        ]),
                        ..Default::default()
                    },
                    ..HookOutput::default()
                }
            } else {
                HookOutput::default()
            })
        }
    });
    harness.hook("replace", [Event::PostMicroCompact], replace);
    let mut session = harness.session().await;
    session.send("hello").await.unwrap();
    session.send("hello again").await.unwrap();
    let sent: Vec<String> =
        harness.messages(1).iter().map(|m| m["content"].as_str().unwrap_or_default().to_owned()).collect();
    assert_eq!(sent, ["You are a test agent.", "NOTE: earlier turns were dropped", "hello again"]);
    assert_eq!(session.history().len(), 3, "the replacement plus the reply");
}

#[tokio::test]
async fn pre_micro_compact_stop_skips_the_compaction() {
    let mut harness = Harness::new([text("ok")]);
    harness.compaction.micro = true;
    harness.hook("gate", [Event::PreMicroCompact], returning(action(Action::Stop, None)));
    let (hook, seen) = common::recorder();
    harness.hook("watch", [Event::PostMicroCompact], hook);
    let mut session = harness.session().await;
    let report = session.send("hi").await.unwrap();
    assert!(seen.events().is_empty());
    assert_eq!(report.count(Event::PostMicroCompact), 0);
}

#[tokio::test]
async fn pre_auto_compact_additional_context_reaches_the_summariser() {
    let mut harness = Harness::new([text("a1"), text("SUMMARY OF TURN ONE"), text("a2")]);
    harness.compaction = CompactionConfig { micro: false, auto_threshold_tokens: Some(1), keep_last: 1 };
    let keep = HookOutput { additional_context: Some("KEEP: the user's name is Ada".into()), ..HookOutput::default() };
    harness.hook("keep", [Event::PreAutoCompact], returning(keep));
    let (hook, seen) = common::recorder();
    harness.hook("watch", [Event::PostAutoCompact], hook);
    let mut session = harness.session().await;
    session.send("my name is Ada").await.unwrap();
    let report = session.send("what is my name?").await.unwrap();
    assert_eq!(report.reply, "a2");

    let requests = harness.requests();
    assert_eq!(requests.len(), 3);
    let summariser = requests[1]["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(
        summariser.ends_with("\n\n[Protected Context — MUST preserve in full]:\nKEEP: the user's name is Ada"),
        "{summariser}"
    );
    assert!(requests[1]["messages"][1]["content"].as_str().unwrap().contains("my name is Ada"));
    // The next model call sees the summary instead of the summarised messages.
    let sent = harness.messages(2);
    assert!(sent[1]["content"].as_str().unwrap().contains("SUMMARY OF TURN ONE"));
    assert_eq!(sent.last().unwrap()["content"], "what is my name?");
    assert_eq!(seen.contexts(Event::PostAutoCompact)[0].messages.as_ref().unwrap().len(), 2);
}
