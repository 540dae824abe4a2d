//! A hook that times out mid-turn costs its deadline, not the turn.

use crate::common;

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use common::{Harness, call, calls, text};
use hook_bash::{BashHook, BashOptions};
use hook_core::{Level, Registration};
use hook_protocol::Event;

#[tokio::test]
async fn a_bash_hook_sleeping_30s_with_timeout_1s_does_not_hold_the_turn() {
    let harness = Harness::new([calls(vec![call("c1", "list_dir", "{}")]), text("done")]);
    let sleeper = BashHook::new("cat >/dev/null; sleep 30", BashOptions::default());
    harness.engine.register(
        Registration::new("sleeper", Level::User, [Event::PreToolExecution], Arc::new(sleeper))
            .timeout(Duration::from_secs(1)),
    );
    let mut session = harness.session().await;
    let started = Instant::now();
    // Takes about 1 s: the hook's deadline.
    let report = session.send("list").await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert_eq!(report.reply, "done");
    assert_eq!(report.tools[0].outcome, "executed", "a timed-out interceptor fails open");
}
