//! ScriptedModel: replays assistant turns in process (for the demo and tests without HTTP).

use crate::common;

use std::sync::Arc;

use agent_loop::{Agent, CompactionConfig, ScriptedModel, ScriptedTurn, SessionConfig, TurnError};
use common::temp_dir;
use hook_protocol::Role;

#[tokio::test]
async fn a_scripted_model_drives_a_turn_and_records_the_requests() {
    let model = ScriptedModel::new([ScriptedTurn::call("c1", "list_dir", "{}"), ScriptedTurn::text("empty dir")]);
    let agent = Agent::builder()
        .model(Arc::new(model.clone()))
        .compaction(CompactionConfig { micro: false, ..CompactionConfig::default() })
        .build()
        .unwrap();
    let mut session = agent.session(SessionConfig::new("demo", temp_dir("scripted"))).await;
    let report = session.send("what is here?").await.unwrap();
    assert_eq!(report.reply, "empty dir");
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].messages[0].role, Role::System);
    assert_eq!(requests[1].messages.last().unwrap().role, Role::Tool);
    assert_eq!(requests[0].tools.len(), 8);
    assert_eq!(model.remaining(), 0);

    // Past the end of its script it fails, and the turn reports the model error.
    let err = session.send("more?").await.unwrap_err();
    assert!(matches!(err, TurnError::Model { .. }), "{err:?}");
    assert!(err.to_string().contains("script is used up"), "{err}");
}

#[tokio::test]
async fn a_turn_can_run_on_a_spawned_task() {
    let model = ScriptedModel::new([ScriptedTurn::text("hi")]);
    let agent = Agent::builder().model(Arc::new(model)).build().unwrap();
    let mut session = agent.session(SessionConfig::new("spawned", temp_dir("spawned"))).await;
    // `Session::send` is Send, so a host can run turns on its runtime's workers.
    let report = tokio::spawn(async move { session.send("hello").await }).await.unwrap().unwrap();
    assert_eq!(report.reply, "hi");
}
