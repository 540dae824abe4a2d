//! The derived tool view (`Context::tool`): filled before hooks run on tool events, following a
//! hook's change of the call, never taken from the caller, absent on other events.

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use hook_agents::context_from_input;
use hook_core::{Context, Deadlines, Event, HookOutput, Level};
use hook_protocol::{Agent, ToolClass, ToolView, serde_json::json};

/// A hook that records the view it is given and returns `output`.
fn viewer(name: &str, seen: Arc<Mutex<Vec<Option<ToolView>>>>, output: HookOutput) -> Arc<dyn hook_core::Hook> {
    from_context(name, move |context| {
        seen.lock().unwrap().push(context.tool.clone());
        output.clone()
    })
}

#[tokio::test]
async fn hooks_see_the_view_and_it_follows_a_changed_call() {
    let pre = Event::PreToolExecution;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut rewrite = HookOutput::default();
    rewrite.patch.tool_arguments = Some(json!({"command": "ls", "file_path": "b.txt"}).to_string());
    let engine = engine_with(
        vec![
            reg(Level::User, "first", pre, viewer("first", seen.clone(), rewrite)),
            reg(Level::User, "second", pre, viewer("second", seen.clone(), HookOutput::default())),
        ],
        Deadlines::default(),
    );
    let mut context = Context {
        cwd: Some("/work/p".into()),
        // A caller's own `tool` is not trusted: the view is derived.
        tool: Some(ToolView { input: Default::default(), class: ToolClass::Other, command: None, paths: vec![] }),
        ..tool_call("write_file", r#"{"file_path": "src/a.txt", "content": "x"}"#)
    };
    engine.fire(pre, &mut context).await;
    let seen = seen.lock().unwrap().clone();
    let first = seen[0].as_ref().expect("the first hook sees a view");
    assert_eq!((first.class, first.paths.as_slice()), (ToolClass::Write, &["/work/p/src/a.txt".to_owned()][..]));
    assert_eq!(first.input["content"], "x");
    let second = seen[1].as_ref().expect("the second hook sees a view");
    assert_eq!(second.paths, ["/work/p/b.txt"], "the view follows the rewritten arguments");
    assert_eq!(context.tool.as_ref(), Some(second));
}

#[tokio::test]
async fn other_events_carry_no_view() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let engine = engine_with(
        vec![reg(Level::User, "v", Event::Stop, viewer("v", seen.clone(), HookOutput::default()))],
        Deadlines::default(),
    );
    let mut context = tool_call("Bash", r#"{"command":"ls"}"#);
    engine.fire(Event::Stop, &mut context).await;
    assert_eq!(*seen.lock().unwrap(), [None]);
}

#[tokio::test]
async fn each_agents_input_gives_the_same_view() {
    let inputs = [
        (
            Agent::Claude,
            json!({"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Bash",
            "tool_input": {"command": "rm -rf build", "description": "clean"}, "tool_use_id": "t1"}),
            ToolClass::Shell,
            Some("rm -rf build"),
            vec![],
        ),
        (
            Agent::Claude,
            json!({"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "MultiEdit",
            "tool_input": {"file_path": "/p/src/x.rs", "edits": [{"old_string": "a", "new_string": "b"}]}}),
            ToolClass::Edit,
            None,
            vec!["/p/src/x.rs"],
        ),
        (
            Agent::Gemini,
            json!({"hook_event_name": "BeforeTool", "cwd": "/g", "tool_name": "run_shell_command",
            "tool_input": {"command": "git status", "dir_path": "sub"}}),
            ToolClass::Shell,
            Some("git status"),
            vec![],
        ),
        (
            Agent::Gemini,
            json!({"hook_event_name": "BeforeTool", "cwd": "/g", "tool_name": "read_file",
            "tool_input": {"absolute_path": "/g/README.md"}}),
            ToolClass::Read,
            None,
            vec!["/g/README.md"],
        ),
        (
            Agent::Codex,
            json!({"hook_event_name": "PreToolUse", "cwd": "/c", "tool_name": "shell",
            "tool_input": {"command": ["bash", "-lc", "cargo build"], "workdir": "/c"}}),
            ToolClass::Shell,
            Some("bash -lc 'cargo build'"),
            vec![],
        ),
        (
            Agent::Codex,
            json!({"hook_event_name": "PreToolUse", "cwd": "/c", "tool_name": "apply_patch",
            "tool_input": {"command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Update File: lib/b.rs\n@@\n-x\n+y\n*** Delete File: c.md\n*** End Patch\n"}}),
            ToolClass::Edit,
            None,
            vec!["/c/a.txt", "/c/lib/b.rs", "/c/c.md"],
        ),
    ];
    for (agent, input, class, command, paths) in inputs {
        let (event, mut context) = context_from_input(agent, input.clone()).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let engine = engine_with(
            vec![reg(Level::User, "v", event, viewer("v", seen.clone(), HookOutput::default()))],
            Deadlines::default(),
        );
        engine.fire(event, &mut context).await;
        let view = seen.lock().unwrap()[0].clone().unwrap_or_else(|| panic!("no view for {input}"));
        assert_eq!(view.class, class, "{input}");
        assert_eq!(view.command.as_deref(), command, "{input}");
        assert_eq!(view.paths, paths, "{input}");
        assert_eq!(hook_protocol::serde_json::Value::Object(view.input), input["tool_input"], "{input}");
    }
}
