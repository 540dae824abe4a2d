//! The paths embedders used under `hook_core::{config, agent, trust}` before those moved to
//! their own crates still resolve, deprecated, through `hook_host`, to the same items.
#![allow(deprecated, reason = "this test is about the deprecated paths")]

use hook_protocol::{Agent, ToolClass, serde_json::json};

#[test]
fn the_moved_modules_answer_under_their_old_names() {
    let file: hook_protocol::config::HooksFile =
        hook_host::config::parse_yaml("stop:\n  - command: echo '{}'\n").expect("a j-cli hooks file parses");
    assert_eq!(file.events.len(), 1);

    let input = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let (event, context) =
        hook_host::agent::context_from_input(Agent::Claude, input).expect("a Claude Code hook input reads");
    assert_eq!(event, hook_core::Event::PreToolExecution);
    assert_eq!(context.tool_name.as_deref(), Some("Bash"));
    assert_eq!(hook_host::agent::tool_view::tool_class("Bash"), ToolClass::Shell);

    let store = hook_host::trust::FileTrustStore::new("/nonexistent/trust.json");
    assert_eq!(store.path(), std::path::Path::new("/nonexistent/trust.json"));
}
