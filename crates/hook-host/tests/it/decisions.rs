//! The decision store through the host: fires made with `Host::fire` are recorded, with the
//! hook's source, only when the embedder asked for a store.

use std::time::Duration;

use hook_core::{Decision, Event};
use hook_host::StoreConfig;
use hook_store::{Filter, Reader};

use crate::common::{Sandbox, bash_call};

const GUARD: &str = "pre_tool_execution:\n  - name: guard\n    command: \"echo '{\\\"action\\\": \\\"skip\\\", \\\"reason\\\": \\\"not here\\\"}'\"\n";

#[tokio::test]
async fn host_fires_are_recorded_when_the_embedder_enables_the_store() {
    let sandbox = Sandbox::new("decisions");
    let hooks = sandbox.write("config/hooks.yaml", GUARD);
    let db = sandbox.path("state/decisions.db");
    let host = sandbox.host().decision_store(StoreConfig::new(db.clone())).build();
    assert!(host.reload().await.problem().is_none());
    let outcome = host.fire(Event::PreToolExecution, &mut bash_call("ls")).await;
    assert_eq!(outcome.decision, Decision::Skip);
    let report = host.flush_decisions(Duration::from_secs(10)).expect("a store was asked for");
    assert_eq!(report.abandoned, 0, "{report:?}");
    host.shutdown().await;

    let fires = Reader::open(&db).unwrap().fires(&Filter::default()).unwrap();
    assert_eq!(fires.len(), 1);
    assert_eq!(fires[0].origin, "host");
    assert_eq!(fires[0].decision, "skip");
    assert_eq!(fires[0].reason.as_deref(), Some("not here"));
    let run = &fires[0].hooks[0];
    assert_eq!(run.source_file.as_deref(), Some(hooks.display().to_string().as_str()));
    assert_eq!(run.source_line, Some(2), "{run:?}");

    // Without the option, nothing is recorded.
    let quiet = sandbox.host().build();
    assert!(quiet.reload().await.problem().is_none());
    quiet.fire(Event::PreToolExecution, &mut bash_call("ls")).await;
    assert!(quiet.flush_decisions(Duration::from_secs(1)).is_none());
    quiet.shutdown().await;
    assert_eq!(Reader::open(&db).unwrap().fires(&Filter::default()).unwrap().len(), 1);
}
