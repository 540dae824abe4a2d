//! retry_feedback on `stop` adds a user message and another round, at most 3 times per turn.

use crate::common;

use common::{Harness, returning, text};
use hook_core::HookOutput;
use hook_protocol::Event;

#[tokio::test]
async fn a_stop_hook_that_always_gives_feedback_gets_exactly_three_extra_rounds() {
    let harness = Harness::new([text("v1"), text("v2"), text("v3"), text("v4"), text("v5")]);
    let feedback = HookOutput { retry_feedback: Some("cite a source".into()), ..HookOutput::default() };
    harness.hook("critic", [Event::Stop], returning(feedback));
    let mut session = harness.session().await;
    let report = session.send("answer").await.unwrap();

    assert_eq!(harness.requests().len(), 4, "one answer and three feedback rounds");
    assert_eq!(report.count(Event::Stop), 4);
    assert_eq!(report.first(Event::Stop).unwrap().effects.retry_feedback.as_deref(), Some("cite a source"));
    assert_eq!(report.reply, "v4");
    assert_eq!(report.rounds, 4);
    let sent = harness.messages(3);
    let feedbacks = sent.iter().filter(|m| m["role"] == "user" && m["content"] == "cite a source").count();
    assert_eq!(feedbacks, 3);
    assert!(report.notices.iter().any(|n| n.contains("cap")), "{:?}", report.notices);

    // A configured cap of 1 allows one extra round.
    let harness2 = Harness { retry_cap: Some(1), ..Harness::new([text("w1"), text("w2"), text("w3")]) };
    harness2.hook(
        "critic",
        [Event::Stop],
        returning(HookOutput { retry_feedback: Some("again".into()), ..HookOutput::default() }),
    );
    let mut session2 = harness2.session().await;
    assert_eq!(session2.send("x").await.unwrap().reply, "w2");
}

#[tokio::test]
async fn post_llm_response_stop_with_feedback_regenerates_the_answer() {
    let harness = Harness::new([text("password is hunter2"), text("I cannot share that")]);
    let critic = hook_core::hook_fn("critic", |input: &hook_core::HookInput<'_>| {
        let leaked = input.context.assistant_output.as_deref().unwrap_or_default().contains("hunter2");
        async move {
            Ok(if leaked {
                HookOutput {
                    action: Some(hook_core::Action::Stop),
                    retry_feedback: Some("do not reveal secrets".into()),
                    ..HookOutput::default()
                }
            } else {
                HookOutput::default()
            })
        }
    });
    harness.hook("critic", [Event::PostLlmResponse], critic);
    let mut session = harness.session().await;
    let report = session.send("what is the password?").await.unwrap();
    assert_eq!(report.reply, "I cannot share that");
    let texts: Vec<String> = session.history().iter().map(|m| m.text_content()).collect();
    assert!(!texts.iter().any(|t| t.contains("hunter2")), "the rejected answer is not kept: {texts:?}");
    assert!(texts.contains(&"do not reveal secrets".to_owned()));
}
