//! `Engine::register_spec`: one spec built by the factory of its kind and registered for one
//! session, as a host does for the hooks a model registers.

use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use async_trait::async_trait;
use hook_core::{
    BuildError, BuiltHook, Deadlines, Engine, Hook, HookDefinition, HookError, HookFactory, HookInput, HookOutput,
    HookSpec, Level, SourceLocation,
};
use hook_protocol::{
    Context, Event,
    config::{HookDef, HookFilter, OnError},
};

use crate::common::says;

type Log = Arc<Mutex<Vec<String>>>;

/// Says its command as a system message.
#[derive(Debug)]
struct SayHook {
    name: String,
    text: String,
    log: Log,
}

#[async_trait]
impl Hook for SayHook {
    async fn call(&self, _input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        Ok(says(&self.text))
    }

    async fn shutdown(&self) {
        self.log.lock().unwrap().push(format!("shutdown {}", self.name));
    }
}

/// Builds [`SayHook`]s; logs the level and session of each spec it builds; refuses `refuse`.
/// Its kind's defaults (7 s, 2 retries) differ from the engine's, to show they apply.
#[derive(Debug)]
struct SayFactory {
    log: Log,
}

#[async_trait]
impl HookFactory for SayFactory {
    fn kind(&self) -> &str {
        "say"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        let HookDefinition::Command(def) = &spec.definition else {
            return Err(BuildError::Invalid { message: "say hooks are command hooks".into() });
        };
        let text = def.command.clone().unwrap_or_default();
        if text == "refuse" {
            return Err(BuildError::Refused { reason: "told to refuse".into() });
        }
        let session = spec.session.as_deref().unwrap_or("-");
        self.log.lock().unwrap().push(format!("built {} at {} for {session}", spec.name, spec.level));
        Ok(BuiltHook::new(Arc::new(SayHook { name: spec.name.clone(), text, log: self.log.clone() })))
    }

    fn default_timeout(&self, _event: Event, _deadlines: &Deadlines) -> Duration {
        Duration::from_secs(7)
    }

    fn default_retry(&self) -> u32 {
        2
    }
}

fn engine() -> (Engine, Log) {
    let log: Log = Arc::default();
    (Engine::builder().factory(Arc::new(SayFactory { log: log.clone() })).build(), log)
}

fn spec(name: &str, kind: &str, text: &str) -> HookSpec {
    let definition = HookDefinition::Command(HookDef { command: Some(text.into()), ..HookDef::default() });
    HookSpec {
        source: SourceLocation { file: PathBuf::from("register_hook"), line: None, column: None },
        ..HookSpec::new(name, Level::Session, kind, [Event::PreToolExecution], definition)
    }
}

/// What the hooks said on `pre_tool_execution` in session `session` (none: no session id).
async fn said(engine: &Engine, session: Option<&str>) -> Vec<String> {
    let mut context = Context {
        session_id: session.map(str::to_owned),
        tool_name: Some("write_file".into()),
        tool_arguments: Some("{}".into()),
        ..Context::default()
    };
    engine.fire(Event::PreToolExecution, &mut context).await.effects.system_messages
}

#[tokio::test]
async fn a_registered_spec_is_built_by_its_factory_and_runs_in_its_session_only() {
    let (engine, log) = engine();
    let ids = engine.register_spec(spec("s1-hook-1", "say", "guarded"), "s1").await.unwrap();
    assert_eq!(ids.iter().map(ToString::to_string).collect::<Vec<_>>(), ["session:s1-hook-1:pre_tool_execution"]);
    assert_eq!(*log.lock().unwrap(), ["built s1-hook-1 at session for s1"], "the factory saw the session");

    assert_eq!(said(&engine, Some("s1")).await, ["guarded"]);
    assert!(said(&engine, Some("s2")).await.is_empty(), "another session's events do not run it");
    assert!(said(&engine, None).await.is_empty(), "an event without a session does not run it");

    // What the spec leaves open, the kind's factory decides, as for configured hooks.
    let summary = &engine.hooks_for(Event::PreToolExecution)[0];
    assert_eq!((summary.level, summary.kind.as_str()), (Level::Session, "say"));
    assert_eq!((summary.timeout, summary.retry), (Duration::from_secs(7), 2));
    assert_eq!(summary.on_error, OnError::Skip);
}

#[tokio::test]
async fn a_spec_keeps_its_explicit_settings() {
    let (engine, _log) = engine();
    let spec = HookSpec {
        timeout: Some(Duration::from_secs(3)),
        retry: Some(0),
        on_error: Some(OnError::Deny),
        filter: HookFilter { tool_name: Some("bash".into()), ..HookFilter::default() },
        ..spec("s1-hook-1", "say", "bash only")
    };
    engine.register_spec(spec, "s1").await.unwrap();
    let summary = &engine.hooks_for(Event::PreToolExecution)[0];
    assert_eq!((summary.timeout, summary.retry, summary.on_error), (Duration::from_secs(3), 0, OnError::Deny));
    assert!(said(&engine, Some("s1")).await.is_empty(), "the filter admits `bash` only");
}

#[tokio::test]
async fn a_kind_without_a_factory_is_refused_with_the_kinds_the_host_runs() {
    let (engine, log) = engine();
    let err = engine.register_spec(spec("s1-hook-1", "bash", "true"), "s1").await.unwrap_err();
    assert_eq!(err.hook, "s1-hook-1");
    assert_eq!(err.message, "unknown hook kind `bash`; the kinds this host can run are: say");
    assert!(!engine.has_hooks_for(Event::PreToolExecution));
    assert!(log.lock().unwrap().is_empty(), "nothing was built");

    let bare = Engine::builder().build();
    let err = bare.register_spec(spec("s1-hook-1", "bash", "true"), "s1").await.unwrap_err();
    assert!(err.to_string().ends_with("unknown hook kind `bash`; the kinds this host can run are: none"), "{err}");
}

#[tokio::test]
async fn a_refused_build_or_a_bad_filter_registers_nothing() {
    let (engine, _log) = engine();
    let err = engine.register_spec(spec("s1-hook-1", "say", "refuse"), "s1").await.unwrap_err();
    assert!(err.message.starts_with("could not build the say hook: "), "{err}");
    assert!(err.message.contains("told to refuse"), "{err}");

    let bad = HookSpec {
        filter: HookFilter { tool_regex: Some("(".into()), ..HookFilter::default() },
        ..spec("s1-hook-2", "say", "x")
    };
    let err = engine.register_spec(bad, "s1").await.unwrap_err();
    assert_eq!(err.hook, "s1-hook-2");
    assert!(!engine.has_hooks_for(Event::PreToolExecution));
}

#[tokio::test]
async fn registering_the_same_name_again_replaces_the_hook_and_shuts_the_old_one_down() {
    let (engine, log) = engine();
    engine.register_spec(spec("s1-hook-1", "say", "first"), "s1").await.unwrap();
    engine.register_spec(spec("s1-hook-1", "say", "second"), "s1").await.unwrap();
    assert_eq!(engine.hooks_for(Event::PreToolExecution).len(), 1);
    assert_eq!(said(&engine, Some("s1")).await, ["second"]);
    // The replaced hook is retired in the background.
    let until = Instant::now() + Duration::from_secs(10);
    while !log.lock().unwrap().iter().any(|line| line == "shutdown s1-hook-1") {
        assert!(Instant::now() < until, "the replaced hook was never shut down: {:?}", log.lock().unwrap());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
