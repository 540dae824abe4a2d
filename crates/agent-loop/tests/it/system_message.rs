//! `system_message` reaches the caller as a notice, in the report and as it happens.

use crate::common;

use std::sync::{Arc, Mutex};

use agent_loop::TurnEvent;
use common::{Harness, returning, text};
use hook_core::HookOutput;
use hook_protocol::Event;

#[tokio::test]
async fn system_messages_are_notices_for_the_caller() {
    let harness = Harness::new([text("hi")]);
    let output = HookOutput { system_message: Some("remember to be nice".into()), ..HookOutput::default() };
    harness.hook("toast", [Event::PostLlmResponse], returning(output));
    let mut session = harness.session().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    session.on_event(Box::new(move |event| {
        if let TurnEvent::Notice(text) = event {
            sink.lock().unwrap().push(text.clone());
        }
    }));
    let mut events = session.subscribe();
    let report = session.send("hello").await.unwrap();
    assert_eq!(report.notices, ["remember to be nice"]);
    // The channel saw the turn start, the events fired, then the notice right after its event.
    let mut received = Vec::new();
    while let Ok(event) = events.try_recv() {
        received.push(event);
    }
    assert!(matches!(&received[0], TurnEvent::TurnStarted { turn_id } if turn_id == "agent-turn-1"));
    let notice_idx = received.iter().position(|e| matches!(e, TurnEvent::Notice(_))).unwrap();
    assert!(matches!(&received[notice_idx - 1], TurnEvent::Fired(f) if f.event == Event::PostLlmResponse));
    assert_eq!(*seen.lock().unwrap(), ["remember to be nice"]);
    // A notice never reaches the model.
    assert_eq!(harness.requests().len(), 1);
    assert_eq!(report.reply, "hi");
}
