//! Session hooks registered by the model through the `register_hook` tool: approved like any
//! tool call, run with a scrubbed environment, re-approved when a session is restored.

use crate::common;

use agent_loop::{Session, SessionState, tools::SessionHookDef};
use common::{Harness, call, calls, recorder, text};
use hook_core::{HookInput, HookOutput, hook_fn};
use hook_protocol::Event;
use serde_json::json;

const SKIP_WRITES: &str = r#"cat >/dev/null; echo '{"action":"skip","reason":"session hook says no"}'"#;

fn register_call(id: &str) -> hook_protocol::ToolCall {
    let args = json!({
        "action": "register",
        "event": "pre_tool_execution",
        "type": "bash",
        "command": SKIP_WRITES,
        "timeout": 5,
        "filter": {"tool_name": "write_file"}
    });
    call(id, "register_hook", &args.to_string())
}

/// Denies `register_hook` calls, approves everything else.
fn deny_registrations() -> std::sync::Arc<dyn hook_core::Hook> {
    hook_fn("no-hooks", |input: &HookInput<'_>| {
        let is_register = input.context.tool_name.as_deref() == Some("register_hook");
        async move {
            Ok(if is_register {
                HookOutput { approved: Some(false), reason: Some("no session hooks".into()), ..HookOutput::default() }
            } else {
                HookOutput::default()
            })
        }
    })
}

#[tokio::test]
async fn an_approved_registration_arms_a_session_hook() {
    let harness = Harness::new([
        calls(vec![register_call("r1")]),
        text("registered"),
        calls(vec![call("w1", "write_file", r#"{"path":"out.txt","content":"x"}"#)]),
        text("ok"),
    ]);
    let (approver, seen) = recorder();
    harness.hook("approver", [Event::ApproveTool], approver);
    let mut session = harness.session().await;
    session.send("guard my writes").await.unwrap();

    let approvals = seen.contexts(Event::ApproveTool);
    assert_eq!(approvals[0].tool_name.as_deref(), Some("register_hook"), "the registration went through approval");
    assert!(harness.tool_message(1, "r1").starts_with("registered session hook `s1-hook-1`"));
    assert_eq!(session.session_hooks().len(), 1);

    let report = session.send("write out.txt").await.unwrap();
    assert_eq!(harness.tool_message(3, "w1"), "Tool call skipped by hook: session hook says no");
    assert!(!harness.dir.join("out.txt").exists());
    assert_eq!(report.tools[0].outcome, "skipped");

    // The saved state keeps the hook; closing the session removes it from the engine.
    let state = session.state();
    assert_eq!(state.hooks.len(), 1);
    session.close().await;
    assert!(!harness.engine.has_hooks_for(Event::PreToolExecution));
}

#[tokio::test]
async fn a_denied_registration_registers_nothing() {
    let harness = Harness::new([
        calls(vec![register_call("r1")]),
        text("could not"),
        calls(vec![call("w1", "write_file", r#"{"path":"out.txt","content":"x"}"#)]),
        text("ok"),
    ]);
    harness.hook("approver", [Event::ApproveTool], deny_registrations());
    let mut session = harness.session().await;
    session.send("guard my writes").await.unwrap();
    assert_eq!(harness.tool_message(1, "r1"), "Tool execution denied by approval hook: no session hooks");
    assert!(session.session_hooks().is_empty());
    session.send("write").await.unwrap();
    assert!(harness.dir.join("out.txt").exists(), "no hook was armed");
}

#[tokio::test]
async fn a_model_registered_bash_hook_runs_with_a_scrubbed_environment() {
    // cargo sets CARGO_PKG_NAME for the test process; a scrubbed hook must not see it.
    assert!(std::env::var("CARGO_PKG_NAME").is_ok());
    let probe = r#"cat >/dev/null; if [ -n "$CARGO_PKG_NAME" ]; then echo '{"action":"skip","reason":"leaked"}'; else echo '{"action":"skip","reason":"scrubbed"}'; fi"#;
    let args = json!({"action": "register", "event": "pre_tool_execution", "type": "bash", "command": probe});
    let harness = Harness::new([
        calls(vec![call("r1", "register_hook", &args.to_string())]),
        calls(vec![call("l1", "list_dir", "{}")]),
        text("ok"),
    ]);
    let mut session = harness.session().await;
    session.send("probe").await.unwrap();
    assert_eq!(harness.tool_message(2, "l1"), "Tool call skipped by hook: scrubbed");
}

#[tokio::test]
async fn a_model_registered_bash_hook_runs_sandboxed() {
    // Outside the project and the temp directory: what a model's hook must not write.
    let outside = hook_sandbox::outside_default_writes(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")))
        .join(format!("session-escape-{}", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap();
    let target = outside.join(".bashrc");
    std::fs::write(&target, "# original\n").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe = format!(
        "cat >/dev/null; w=wrote; echo pwned >> '{}' 2>/dev/null || w=refused; \
         c=connected; bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>/dev/null || c=refused; \
         p=wrote; echo ok > mine || p=refused; \
         echo \"{{\\\"action\\\":\\\"skip\\\",\\\"reason\\\":\\\"$w $c $p\\\"}}\"",
        target.display()
    );
    let args = json!({"action": "register", "event": "pre_tool_execution", "type": "bash", "command": probe});
    let harness = Harness::new([
        calls(vec![call("r1", "register_hook", &args.to_string())]),
        calls(vec![call("l1", "list_dir", "{}")]),
        text("ok"),
    ]);
    let mut session = harness.session().await;
    session.send("probe").await.unwrap();
    // The file and the port are refused; its project stays writable.
    assert_eq!(harness.tool_message(2, "l1"), "Tool call skipped by hook: refused refused wrote");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "# original\n");
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "no connection reached the listener");
}

fn saved_state(harness: &Harness) -> SessionState {
    let def: SessionHookDef = serde_json::from_value(json!({
        "event": "pre_tool_execution",
        "type": "bash",
        "command": SKIP_WRITES,
        "filter": {"tool_name": "write_file"}
    }))
    .unwrap();
    SessionState { id: "restored".into(), cwd: harness.dir.clone(), history: Vec::new(), hooks: vec![def], n_turns: 2 }
}

#[tokio::test]
async fn restoring_a_session_asks_approval_again_and_drops_denied_hooks() {
    let harness =
        Harness::new([calls(vec![call("w1", "write_file", r#"{"path":"out.txt","content":"x"}"#)]), text("ok")]);
    harness.hook("approver", [Event::ApproveTool], deny_registrations());
    let (session, restored) = Session::restore(&harness.agent(), saved_state(&harness)).await;
    assert!(restored.rearmed.is_empty());
    assert_eq!(restored.dropped.len(), 1);
    assert_eq!(restored.dropped[0].1, "no session hooks");
    assert!(session.session_hooks().is_empty());
    let mut session = session;
    let report = session.send("write").await.unwrap();
    assert_eq!(report.turn_id, "agent-turn-3", "turn numbering goes on from the saved state");
    assert!(harness.dir.join("out.txt").exists());
}

#[tokio::test]
async fn restoring_a_session_rearms_approved_hooks() {
    let harness =
        Harness::new([calls(vec![call("w1", "write_file", r#"{"path":"out.txt","content":"x"}"#)]), text("ok")]);
    let (approver, seen) = recorder();
    harness.hook("approver", [Event::ApproveTool], approver);
    let (mut session, restored) = Session::restore(&harness.agent(), saved_state(&harness)).await;
    assert_eq!(restored.rearmed, ["restored-hook-1"]);
    let asked = &seen.contexts(Event::ApproveTool)[0];
    assert_eq!(asked.tool_name.as_deref(), Some("register_hook"));
    assert!(asked.tool_arguments.as_deref().unwrap().contains("session hook says no"));
    session.send("write").await.unwrap();
    assert!(!harness.dir.join("out.txt").exists(), "the re-armed hook skipped the write");
}

#[tokio::test]
async fn a_model_registered_llm_hook_asks_the_model_through_the_same_client() {
    let args = json!({
        "action": "register",
        "event": "pre_tool_execution",
        "type": "llm",
        "prompt": "Is {{tool_name}} safe? Answer with a HookResult.",
        "filter": {"tool_matcher": "write_file|bash"}
    });
    let harness = Harness::new([
        calls(vec![call("r1", "register_hook", &args.to_string())]),
        calls(vec![call("w1", "write_file", r#"{"path":"out.txt","content":"x"}"#)]),
        // The llm hook's request, answered with a HookResult in prose.
        text(r#"Not safe. {"action": "skip", "reason": "llm reviewer"}"#),
        text("ok"),
    ]);
    let mut session = harness.session().await;
    session.send("review writes").await.unwrap();
    assert_eq!(harness.tool_message(3, "w1"), "Tool call skipped by hook: llm reviewer");
    let review = harness.requests()[2]["messages"].to_string();
    assert!(review.contains("Is write_file safe?"), "{review}");
    assert!(!harness.dir.join("out.txt").exists());
}

/// A registration of a bash hook that skips every tool call with `reason`.
fn register_skip(id: &str, reason: &str) -> hook_protocol::ToolCall {
    let command = format!(r#"cat >/dev/null; echo '{{"action":"skip","reason":"{reason}"}}'"#);
    let args = json!({"action": "register", "event": "pre_tool_execution", "type": "bash", "command": command});
    call(id, "register_hook", &args.to_string())
}

/// Fires `pre_tool_execution` for `write_file` in session `session_id`; the reason of the skip.
async fn skip_reason(engine: &hook_core::Engine, session_id: &str) -> Option<String> {
    let mut context = hook_protocol::Context {
        session_id: Some(session_id.to_owned()),
        tool_name: Some("write_file".to_owned()),
        tool_arguments: Some("{}".to_owned()),
        ..hook_protocol::Context::default()
    };
    let outcome = engine.fire(Event::PreToolExecution, &mut context).await;
    (outcome.decision == hook_core::Decision::Skip).then(|| outcome.reason.unwrap_or_default())
}

#[tokio::test]
async fn session_hooks_of_sessions_with_similar_ids_neither_collide_nor_remove_each_other() {
    // `team/x` and `team x` used to share the prefix `team_x`: the second registration
    // replaced the first, and closing one session removed the other's hook.
    let harness = Harness::new([
        calls(vec![register_skip("r1", "slash")]),
        text("registered"),
        calls(vec![register_skip("r2", "space")]),
        text("registered"),
    ]);
    let agent = harness.agent();
    let mut slash = agent.session(agent_loop::SessionConfig::new("team/x", &harness.dir)).await;
    let mut space = agent.session(agent_loop::SessionConfig::new("team x", &harness.dir)).await;
    slash.send("guard").await.unwrap();
    space.send("guard").await.unwrap();

    let (slash_hooks, space_hooks) = (slash.session_hooks(), space.session_hooks());
    assert_eq!((slash_hooks.len(), space_hooks.len()), (1, 1));
    assert_ne!(slash_hooks[0].0, space_hooks[0].0, "the engine names differ");
    assert_eq!(harness.engine.hooks_for(Event::PreToolExecution).len(), 2, "both hooks are registered");

    // Each hook runs only for its own session.
    assert_eq!(skip_reason(&harness.engine, "team/x").await.as_deref(), Some("slash"));
    assert_eq!(skip_reason(&harness.engine, "team x").await.as_deref(), Some("space"));
    assert_eq!(skip_reason(&harness.engine, "team_x").await, None);

    // Closing one session removes its hook only.
    space.close().await;
    assert_eq!(harness.engine.hooks_for(Event::PreToolExecution).len(), 1);
    assert_eq!(skip_reason(&harness.engine, "team/x").await.as_deref(), Some("slash"));
    assert_eq!(skip_reason(&harness.engine, "team x").await, None);
    assert_eq!(slash.session_hooks().len(), 1);
    slash.close().await;
    assert!(!harness.engine.has_hooks_for(Event::PreToolExecution));
}

#[tokio::test]
async fn without_a_factory_for_its_kind_a_registration_is_refused_naming_the_kind() {
    // A host whose engine builds llm hooks only.
    let mut harness = Harness::new([calls(vec![register_call("r1")]), text("could not")]);
    let model: std::sync::Arc<dyn hook_llm::ChatModel> = harness.client();
    harness.engine =
        hook_core::Engine::builder().factory(std::sync::Arc::new(hook_llm::LlmFactory::new(model))).build();
    let mut session = harness.session().await;
    session.send("guard my writes").await.unwrap();
    assert_eq!(
        harness.tool_message(1, "r1"),
        "register_hook: hook `s1-hook-1`: unknown hook kind `bash`; the kinds this host can run are: llm"
    );
    assert!(session.session_hooks().is_empty());
    assert!(!harness.engine.has_hooks_for(Event::PreToolExecution));
}

#[tokio::test]
async fn the_factory_of_the_kind_gives_the_defaults_and_an_unusable_timeout_means_the_default() {
    let args = |timeout: f64| json!({"action": "register", "event": "stop", "type": "bash", "command": "cat >/dev/null", "timeout": timeout});
    let harness = Harness::new([
        calls(vec![call("r1", "register_hook", &args(1e300).to_string())]),
        calls(vec![call("r2", "register_hook", &args(2.5).to_string())]),
        text("ok"),
    ]);
    let mut session = harness.session().await;
    session.send("register").await.unwrap();
    let hooks = harness.engine.hooks_for(Event::Stop);
    let timeouts: Vec<_> = hooks.iter().map(|h| (h.name.as_str(), h.timeout, h.retry, h.kind.as_str())).collect();
    assert_eq!(
        timeouts,
        [
            ("s1-hook-1", std::time::Duration::from_secs(10), 0, "bash"),
            ("s1-hook-2", std::time::Duration::from_millis(2500), 0, "bash")
        ]
    );
}
