//! Hot reload: an edit is picked up, a bad edit keeps the hooks in force, and the watcher sees
//! edits by itself.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use hook_core::{Decision, Event};
use hook_host::{Refresh, Reload};

use crate::common::{Sandbox, bash_call};

fn guard(reason: &str) -> String {
    format!(
        "pre_tool_execution:\n  - name: guard\n    command: \"echo '{{\\\"action\\\": \\\"skip\\\", \\\"reason\\\": \\\"{reason}\\\"}}'\"\n"
    )
}

async fn reason_now(host: &hook_host::Host) -> Option<String> {
    host.engine().fire(Event::PreToolExecution, &mut bash_call("ls")).await.reason
}

#[tokio::test]
async fn reload_picks_up_an_edit_and_keeps_the_old_hooks_on_a_bad_one() {
    let sandbox = Sandbox::new("reload");
    sandbox.write("config/hooks.yaml", &guard("v1"));
    let host = sandbox.host().build();
    let first = host.reload().await;
    assert!(first.changed && first.problem().is_none(), "{first:?}");
    assert_eq!(reason_now(&host).await.as_deref(), Some("v1"));

    // Nothing changed: polling does not read.
    assert!(host.refresh(Refresh::IfChanged).await.is_none());
    assert!(host.refresh(Refresh::IfUnmounted).await.is_none());

    sandbox.write("config/hooks.yaml", &guard("v2"));
    let second = host.refresh(Refresh::IfChanged).await.expect("the edit is seen");
    assert!(second.changed && second.problem().is_none(), "{second:?}");
    assert_eq!(reason_now(&host).await.as_deref(), Some("v2"));

    // A typo: the file does not load, and the hooks of v2 stay in force.
    sandbox.write("config/hooks.yaml", "pre_tool_execution:\n  - comand: typo\n");
    let bad = host.reload().await;
    let problem = bad.problem().expect("a bad edit is reported");
    assert!(problem.starts_with("configuration error: "), "{problem}");
    assert!(problem.contains("hooks.yaml"), "the error names the file: {problem}");
    assert!(!bad.changed);
    assert_eq!(bad.mounted.as_ref().map(Vec::len), Some(1));
    assert_eq!(reason_now(&host).await.as_deref(), Some("v2"));

    // Fixed again: v3 runs.
    sandbox.write("config/hooks.yaml", &guard("v3"));
    let fixed = host.reload().await;
    assert!(fixed.problem().is_none(), "{fixed:?}");
    assert_eq!(reason_now(&host).await.as_deref(), Some("v3"));
    host.shutdown().await;
}

#[tokio::test]
async fn a_bad_first_configuration_mounts_nothing_and_a_fix_mounts_it() {
    let sandbox = Sandbox::new("first");
    sandbox.write("config/hooks.yaml", "pre_tool_execution:\n  - comand: typo\n");
    let host = sandbox.host().build();
    let report = host.reload().await;
    assert!(report.problem().is_some());
    assert_eq!(report.mounted, None);
    assert_eq!(host.engine().fire(Event::PreToolExecution, &mut bash_call("ls")).await.decision, Decision::Continue);

    sandbox.write("config/hooks.yaml", &guard("fixed"));
    let report = host.refresh(Refresh::IfUnmounted).await.expect("nothing is mounted: it reads");
    assert!(report.problem().is_none(), "{report:?}");
    assert_eq!(reason_now(&host).await.as_deref(), Some("fixed"));
    host.shutdown().await;
}

#[tokio::test]
async fn the_watcher_reloads_on_an_edit_by_itself() {
    let sandbox = Sandbox::new("watch");
    sandbox.write("config/hooks.yaml", &guard("before"));
    let host = Arc::new(sandbox.host().build());
    host.reload().await;
    let seen: Arc<Mutex<Vec<Reload>>> = Arc::default();
    let sink = seen.clone();
    let watcher = host.watch(Duration::from_millis(20), move |reload| sink.lock().unwrap().push(reload));

    sandbox.write("config/hooks.yaml", &guard("after"));
    let until = Instant::now() + Duration::from_secs(20);
    while seen.lock().unwrap().is_empty() {
        assert!(Instant::now() < until, "the watcher never reloaded");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(seen.lock().unwrap()[0].problem().is_none());
    assert_eq!(reason_now(&host).await.as_deref(), Some("after"));

    // A bad edit is reported to the callback; the hooks stay.
    sandbox.write("config/hooks.yaml", "pre_tool_execution: [");
    let until = Instant::now() + Duration::from_secs(20);
    while seen.lock().unwrap().len() < 2 {
        assert!(Instant::now() < until, "the watcher never saw the bad edit");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(seen.lock().unwrap()[1].problem().is_some());
    assert_eq!(reason_now(&host).await.as_deref(), Some("after"));

    // Dropped, the watcher stops.
    drop(watcher);
    let n_seen = seen.lock().unwrap().len();
    sandbox.write("config/hooks.yaml", &guard("unwatched"));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(seen.lock().unwrap().len(), n_seen);
    assert_eq!(reason_now(&host).await.as_deref(), Some("after"));
    host.shutdown().await;
}

#[tokio::test]
async fn apply_mounts_what_read_returned_and_the_next_poll_reads_again() {
    let sandbox = Sandbox::new("apply");
    sandbox.write("config/hooks.yaml", &guard("read"));
    let host = sandbox.host().build();
    let loaded = host.read().expect("no agent settings: the sources are listed");
    assert_eq!(loaded.specs.len(), 1);
    assert!(
        host.engine().fire(Event::PreToolExecution, &mut bash_call("ls")).await.trace.is_empty(),
        "read mounts nothing"
    );
    let applied = host.apply(Ok(loaded)).await;
    assert!(applied.changed && applied.problem().is_none(), "{applied:?}");
    assert_eq!(reason_now(&host).await.as_deref(), Some("read"));

    sandbox.write("config/hooks.yaml", &guard("polled"));
    assert!(host.refresh(Refresh::IfChanged).await.is_some(), "apply records no stamps: the poll reads");
    assert_eq!(reason_now(&host).await.as_deref(), Some("polled"));
    assert!(host.refresh(Refresh::IfChanged).await.is_none(), "now it has stamps");
    host.shutdown().await;
}

/// An embedder's own builtin guard survives a first mount that fails: only the levels the
/// configuration touches are emptied again (a failing mount once shut the whole engine down,
/// guard included, and every call then went through).
#[tokio::test]
async fn a_failed_first_mount_keeps_the_embedders_own_hooks() {
    let sandbox = Sandbox::new("guarded");
    // Parses, but its process hook exits before the handshake: building it fails.
    let config = hook_protocol::serde_json::json!({"hooks": {"enabled": true, "processes": {"dies": {
        "enabled": true, "command": ["sh", "-c", "exit 3"], "intercept": ["before_tool"],
    }}}});
    sandbox.write("config/hooks.json", &config.to_string());
    let host = sandbox.host().build();
    let guard = hook_core::hook_fn_sync("embedded-guard", |_: &hook_core::HookInput<'_>| {
        hook_core::HookOutput::skip("the embedder's guard")
    });
    host.engine().register(hook_core::Registration::new(
        "embedded-guard",
        hook_core::Level::Builtin,
        [Event::PreToolExecution],
        guard,
    ));
    let report = host.reload().await;
    assert!(report.problem().is_some(), "the process hook cannot start: {report:?}");
    assert_eq!(report.mounted, None);
    assert_eq!(reason_now(&host).await.as_deref(), Some("the embedder's guard"));
    host.shutdown().await;
}
