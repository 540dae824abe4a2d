//! The registry: ids and enabling, snapshot isolation, hot reload through factories, shutdown.

use crate::common;

use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Duration,
};

use async_trait::async_trait;
use common::*;
use hook_core::{
    BuildError, BuiltHook, Context, Engine, Event, Hook, HookDefinition, HookError, HookFactory, HookFilter, HookId,
    HookInput, HookOutput, HookSpec, Level, OutcomeClass, SourceLocation,
};
use hook_protocol::config::HookDef;

type Log = Arc<Mutex<Vec<String>>>;

/// A hook built from a spec: says its `command`; `sleep:<ms>:<text>` sleeps first. Logs calls and shutdown.
#[derive(Debug)]
struct EchoHook {
    name: String,
    command: String,
    log: Log,
}

#[async_trait]
impl Hook for EchoHook {
    async fn call(&self, _input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        let mut text = self.command.as_str();
        if let Some(rest) = text.strip_prefix("sleep:") {
            let (ms, said) = rest.split_once(':').unwrap_or((rest, ""));
            tokio::time::sleep(Duration::from_millis(ms.parse().unwrap_or(0))).await;
            text = said;
        }
        self.log.lock().unwrap().push(format!("done {}", self.name));
        Ok(says(text))
    }

    async fn shutdown(&self) {
        self.log.lock().unwrap().push(format!("shutdown {}", self.name));
    }
}

/// Builds [`EchoHook`]s; refuses a spec whose command is `refuse`.
#[derive(Debug)]
struct EchoFactory {
    log: Log,
}

#[async_trait]
impl HookFactory for EchoFactory {
    fn kind(&self) -> &str {
        "echo"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        let HookDefinition::Command(def) = &spec.definition else {
            return Err(BuildError::Invalid { message: "echo hooks are command hooks".into() });
        };
        let command = def.command.clone().unwrap_or_default();
        if command == "refuse" {
            return Err(BuildError::Refused { reason: "told to refuse".into() });
        }
        self.log.lock().unwrap().push(format!("built {}", spec.name));
        Ok(BuiltHook::new(Arc::new(EchoHook { name: spec.name.clone(), command, log: self.log.clone() })))
    }
}

fn spec(name: &str, kind: &str, command: &str, line: usize) -> HookSpec {
    let definition = HookDefinition::Command(HookDef { command: Some(command.into()), ..HookDef::default() });
    HookSpec {
        source: SourceLocation { file: PathBuf::from("/home/u/.jcli/hooks.yaml"), line: Some(line), column: Some(3) },
        ..HookSpec::new(name, Level::User, kind, [Event::PreSendMessage], definition)
    }
}

fn echo_engine() -> (Engine, Log) {
    let log: Log = Arc::default();
    let engine = Engine::builder().factory(Arc::new(EchoFactory { log: log.clone() })).build();
    (engine, log)
}

#[tokio::test]
async fn disabling_one_events_id_leaves_the_other_events_alone() {
    let engine = Engine::default();
    let ids = engine.register(hook_core::Registration::new(
        "guard",
        Level::Project,
        [Event::PreToolExecution, Event::PostToolExecution],
        fixed("guard", says("guarded")),
    ));
    assert_eq!(
        ids.iter().map(|id| id.as_str()).collect::<Vec<_>>(),
        ["project:guard:pre_tool_execution", "project:guard:post_tool_execution"]
    );
    assert!(engine.set_enabled(&ids[0], false));
    assert!(!engine.set_enabled(&HookId::new(Level::User, "guard", Event::PreToolExecution), false));

    let pre = engine.fire(Event::PreToolExecution, &mut tool_call("Bash", "{}")).await;
    let post = engine.fire(Event::PostToolExecution, &mut tool_call("Bash", "{}")).await;
    assert_eq!(pre.trace[0].outcome, OutcomeClass::Disabled);
    assert!(pre.effects.system_messages.is_empty());
    assert_eq!(post.effects.system_messages, ["guarded"]);
    assert!(!engine.has_hooks_for(Event::PreToolExecution));
    assert!(engine.has_hooks_for(Event::PostToolExecution));
    let skips = engine.metrics().into_iter().find(|(id, _)| *id == ids[0]).unwrap().1.skips;
    assert_eq!(skips, 1);

    assert!(engine.set_enabled(&ids[0], true));
    let pre = engine.fire(Event::PreToolExecution, &mut tool_call("Bash", "{}")).await;
    assert_eq!(pre.effects.system_messages, ["guarded"]);
}

#[tokio::test]
async fn registering_and_removing_during_a_fire_does_not_change_that_fire() {
    let engine = Engine::default();
    let handle = engine.clone();
    let meddler = hook_core::hook_fn("meddler", move |_input: &HookInput<'_>| {
        handle.register(reg(Level::Session, "intruder", Event::Stop, fixed("intruder", says("intruder"))));
        handle.unregister(Level::Session, "victim");
        async { Ok(says("meddler")) }
    });
    engine.register(reg(Level::User, "meddler", Event::Stop, meddler));
    engine.register(reg(Level::Session, "victim", Event::Stop, fixed("victim", says("victim"))));

    let first = engine.fire(Event::Stop, &mut Context::default()).await;
    assert_eq!(first.effects.system_messages, ["meddler", "victim"]);
    let second = engine.fire(Event::Stop, &mut Context::default()).await;
    assert_eq!(second.effects.system_messages, ["meddler", "intruder"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fires_see_whole_snapshots_while_another_task_registers() {
    let engine = Engine::default();
    engine.register(reg(Level::User, "a", Event::Stop, fixed("a", says("a"))));
    let writer = {
        let engine = engine.clone();
        tokio::spawn(async move {
            for round in 0..200 {
                // b is added before c and removed after it: a fire never sees c without b, nor a torn list.
                if round % 2 == 0 {
                    let both = hook_core::Registration::new("b", Level::User, [Event::Stop], fixed("b", says("b")));
                    engine.register(both);
                    engine.register(reg(Level::User, "c", Event::Stop, fixed("c", says("c"))));
                } else {
                    engine.unregister(Level::User, "c");
                    engine.unregister(Level::User, "b");
                }
                tokio::task::yield_now().await;
            }
        })
    };
    let mut seen = std::collections::BTreeSet::new();
    while !writer.is_finished() {
        let outcome = engine.fire(Event::Stop, &mut Context::default()).await;
        let said = outcome.effects.system_messages.join(",");
        assert!(["a", "a,b", "a,b,c"].contains(&said.as_str()), "{said}");
        seen.insert(said);
    }
    writer.await.unwrap();
    assert!(seen.contains("a"), "{seen:?}");
}

#[tokio::test]
async fn a_reload_swaps_the_level_while_a_fire_in_flight_finishes_on_the_old_hooks() {
    let (engine, log) = echo_engine();
    engine.replace_level(Level::User, vec![spec("old", "echo", "sleep:300:old answer", 1)]).await.unwrap();

    let in_flight = {
        let engine = engine.clone();
        tokio::spawn(async move { engine.fire(Event::PreSendMessage, &mut Context::default()).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let ids = engine.replace_level(Level::User, vec![spec("new", "echo", "new answer", 1)]).await.unwrap();
    assert_eq!(ids, [HookId::new(Level::User, "new", Event::PreSendMessage)]);

    let old = in_flight.await.unwrap();
    assert_eq!(old.effects.system_messages, ["old answer"]);
    let new = engine.fire(Event::PreSendMessage, &mut Context::default()).await;
    assert_eq!(new.effects.system_messages, ["new answer"]);
    assert_eq!(*log.lock().unwrap(), ["built old", "built new", "done old", "shutdown old", "done new"]);
}

#[tokio::test]
async fn a_reload_with_any_error_keeps_the_old_level_and_reports_every_error() {
    let (engine, log) = echo_engine();
    engine.replace_level(Level::User, vec![spec("kept", "echo", "kept", 1)]).await.unwrap();
    let mut bad_regex = spec("bad-regex", "echo", "x", 4);
    bad_regex.filter.args_regex = Some("(unclosed".into());
    let errors = engine
        .replace_level(
            Level::User,
            vec![
                spec("fine", "echo", "fine", 2),
                spec("unknown", "python", "x", 3),
                bad_regex,
                spec("refuser", "echo", "refuse", 5),
            ],
        )
        .await
        .unwrap_err();
    let messages: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    insta::assert_yaml_snapshot!(messages);
    let outcome = engine.fire(Event::PreSendMessage, &mut Context::default()).await;
    assert_eq!(outcome.effects.system_messages, ["kept"]);
    // What was built for the refused reload is shut down; the kept hook is not.
    assert_eq!(*log.lock().unwrap(), ["built kept", "built fine", "shutdown fine", "done kept"]);
}

#[tokio::test]
async fn hooks_for_lists_the_run_order_with_effective_settings() {
    let (engine, _log) = echo_engine();
    let mut configured = spec("configured", "echo", "x", 7);
    configured.events = vec![Event::ApproveTool];
    configured.priority = -1;
    engine.replace_level(Level::User, vec![configured]).await.unwrap();
    engine.register(
        reg(Level::Builtin, "in-process", Event::ApproveTool, fixed("in-process", HookOutput::default()))
            .filter(HookFilter { tool_matcher: Some("Bash|Write".into()), ..HookFilter::default() })
            .retry(2),
    );
    let listed: Vec<String> = engine.hooks_for(Event::ApproveTool).iter().map(|h| format!("{h:?}")).collect();
    insta::assert_yaml_snapshot!(listed);
    assert!(engine.hooks_for(Event::Stop).is_empty());
}

#[tokio::test]
async fn shutdown_calls_every_hooks_shutdown_once() {
    let (engine, log) = echo_engine();
    let mut two_events = spec("two-events", "echo", "x", 1);
    two_events.events = vec![Event::PreSendMessage, Event::Stop];
    engine.replace_level(Level::User, vec![two_events, spec("other", "echo", "y", 2)]).await.unwrap();
    engine.shutdown().await;
    engine.shutdown().await;
    let mut shutdowns: Vec<String> =
        log.lock().unwrap().iter().filter(|l| l.starts_with("shutdown")).cloned().collect();
    shutdowns.sort();
    assert_eq!(shutdowns, ["shutdown other", "shutdown two-events"]);
    assert!(!engine.has_hooks_for(Event::Stop));
}

#[tokio::test]
async fn the_engines_futures_can_be_spawned() {
    fn spawnable<T: Send + 'static>(future: T) -> T {
        future
    }
    let (engine, _log) = echo_engine();
    let (a, b, c) = (engine.clone(), engine.clone(), engine.clone());
    tokio::spawn(spawnable(async move { a.replace_level(Level::User, vec![spec("x", "echo", "x", 1)]).await }))
        .await
        .unwrap()
        .unwrap();
    let outcome = tokio::spawn(spawnable(async move { b.fire(Event::PreSendMessage, &mut Context::default()).await }))
        .await
        .unwrap();
    assert_eq!(outcome.effects.system_messages, ["x"]);
    tokio::spawn(spawnable(async move { c.shutdown().await })).await.unwrap();
}

#[tokio::test]
async fn re_registering_the_same_hook_object_does_not_shut_it_down() {
    let log: Log = Arc::default();
    let hook: Arc<dyn Hook> = Arc::new(EchoHook { name: "shared".into(), command: "hi".into(), log: log.clone() });
    let engine = Engine::default();
    engine.register(reg(Level::User, "shared", Event::Stop, hook.clone()));
    engine.register(reg(Level::User, "shared", Event::Stop, hook.clone()).priority(5));
    engine.register(reg(Level::User, "twice", Event::Stop, hook.clone()));
    engine.unregister(Level::User, "twice");
    // Give the background retirements time to run (they wait for no fire to hold the old hooks).
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!log.lock().unwrap().iter().any(|l| l.starts_with("shutdown")), "{:?}", log.lock().unwrap());
    engine.shutdown().await;
    assert_eq!(log.lock().unwrap().iter().filter(|l| l.starts_with("shutdown")).count(), 1);
}

#[tokio::test]
async fn a_session_hook_runs_only_on_its_own_sessions_events() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let engine = engine_with(
        vec![
            reg(
                Level::Session,
                "guard-a",
                Event::PreToolExecution,
                recording("a", log.clone(), HookOutput::deny("a says no")),
            )
            .session("session-a"),
            reg(Level::Session, "guard-b", Event::PreToolExecution, recording("b", log.clone(), HookOutput::default()))
                .session("session-b"),
        ],
        hook_core::Deadlines::default(),
    );
    let mut of_b = Context { session_id: Some("session-b".into()), ..tool_call("Bash", r#"{"command":"ls"}"#) };
    let outcome = engine.fire(Event::PreToolExecution, &mut of_b).await;
    assert_eq!(outcome.decision, hook_core::Decision::Continue, "session a's guard must not decide for b");
    assert_eq!(*log.lock().unwrap(), ["b"]);
    let mut of_a = Context { session_id: Some("session-a".into()), ..tool_call("Bash", r#"{"command":"ls"}"#) };
    assert_eq!(engine.fire(Event::PreToolExecution, &mut of_a).await.decision, hook_core::Decision::DenyTool);
    // A context that names no session matches no session-scoped hook.
    let mut anonymous = tool_call("Bash", r#"{"command":"ls"}"#);
    assert_eq!(engine.fire(Event::PreToolExecution, &mut anonymous).await.decision, hook_core::Decision::Continue);
    assert_eq!(*log.lock().unwrap(), ["b", "a"]);
}
