//! Cancelling a turn from outside (graceful and hard) and steering it.

use crate::common;

use std::time::{Duration, Instant};

use agent_loop::{SKIPPED_GRACEFUL, SKIPPED_STEERING, TurnError, TurnStatus};
use common::{Harness, ObserverLog, call, calls, text};

#[tokio::test]
async fn a_graceful_cancel_skips_the_remaining_tool_calls() {
    let harness = Harness::new([
        calls(vec![
            call("c1", "bash", r#"{"command":"sleep 1"}"#),
            call("c2", "bash", r#"{"command":"touch second"}"#),
        ]),
        text("never asked"),
    ]);
    let mut session = harness.session().await;
    let handle = session.cancel_handle();
    // About 1 s: the first call's sleep.
    let (result, ()) = tokio::join!(session.send("work"), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        handle.cancel();
    });
    let report = result.unwrap();
    assert_eq!(report.status, TurnStatus::Interrupted);
    assert_eq!(report.tools[1].content, SKIPPED_GRACEFUL);
    assert!(!harness.dir.join("second").exists());
    assert_eq!(harness.requests().len(), 1);
}

#[tokio::test]
async fn a_hard_cancel_stops_a_running_tool_and_rolls_the_turn_back() {
    let harness = Harness::new([calls(vec![call("c1", "bash", r#"{"command":"sleep 30"}"#)]), text("never")]);
    let observers = ObserverLog::attach(&harness.engine);
    let mut session = harness.session().await;
    let handle = session.cancel_handle();
    let started = Instant::now();
    let (result, ()) = tokio::join!(session.send("work"), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        handle.abort();
    });
    assert!(matches!(result, Err(TurnError::Cancelled)), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert!(session.history().is_empty(), "the turn's messages were rolled back");
    observers.kinds(5).await;
    assert_eq!(observers.of_kind("interrupt_received")[0].payload["Kind"], "hard_abort");
    assert_eq!(observers.of_kind("turn_end")[0].payload["Status"], "aborted");
}

#[tokio::test]
async fn steering_goes_in_before_the_next_model_call() {
    let harness = Harness::new([
        calls(vec![
            call("c1", "bash", r#"{"command":"sleep 0.5"}"#),
            call("c2", "bash", r#"{"command":"touch second"}"#),
        ]),
        text("adjusted"),
    ]);
    let observers = ObserverLog::attach(&harness.engine);
    let mut session = harness.session().await;
    let handle = session.cancel_handle();
    let (result, ()) = tokio::join!(session.send("work"), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        handle.steer("actually, stop after the first command");
    });
    let report = result.unwrap();
    assert_eq!(report.reply, "adjusted");
    assert_eq!(report.tools[1].content, SKIPPED_STEERING);
    assert!(!harness.dir.join("second").exists());
    let sent = harness.messages(1);
    assert_eq!(sent.last().unwrap()["content"], "actually, stop after the first command");
    observers.kinds(11).await;
    let injected = observers.of_kind("steering_injected");
    assert_eq!(injected[0].payload["Count"], 1);
    assert_eq!(observers.of_kind("interrupt_received")[0].payload["Kind"], "steering");
}

#[tokio::test]
async fn a_cancel_during_the_model_call_skips_every_call_of_its_answer() {
    let harness = Harness::new([
        calls(vec![call("c1", "bash", r#"{"command":"touch first"}"#)]).delayed(Duration::from_millis(400)),
        text("never asked"),
    ]);
    let mut session = harness.session().await;
    let handle = session.cancel_handle();
    let (result, ()) = tokio::join!(session.send("work"), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        handle.cancel();
    });
    let report = result.unwrap();
    assert_eq!(report.status, TurnStatus::Interrupted);
    assert_eq!(report.tools[0].content, SKIPPED_GRACEFUL);
    assert!(!harness.dir.join("first").exists());
    // The next turn starts clean and the skipped call is answered in the history.
    assert_eq!(session.history().last().unwrap().text_content(), SKIPPED_GRACEFUL);
}
