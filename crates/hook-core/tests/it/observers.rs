//! Observers: fire-and-forget notifications through bounded per-observer queues.

use crate::common;

use std::{
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use async_trait::async_trait;
use common::*;
use hook_core::{
    BuildError, BuiltHook, Deadlines, Engine, Event, HookDefinition, HookError, HookFactory, HookId, HookMetrics,
    HookSpec, Level, Observer, ObserverEvent, Registration, SourceLocation,
};
use hook_protocol::{Meta, config::ProcessDef, serde_json::Value};
use tokio::sync::mpsc;

/// Sends the kind of every notification it gets, after sleeping `delay`.
#[derive(Debug)]
struct Recorder {
    delay: Duration,
    seen: mpsc::UnboundedSender<String>,
}

#[async_trait]
impl Observer for Recorder {
    async fn observe(&self, event: &ObserverEvent) -> Result<(), HookError> {
        tokio::time::sleep(self.delay).await;
        let _ = self.seen.send(event.kind.clone());
        Ok(())
    }
}

fn recorder(delay: Duration) -> (Arc<dyn Observer>, mpsc::UnboundedReceiver<String>) {
    let (seen, receiver) = mpsc::unbounded_channel();
    (Arc::new(Recorder { delay, seen }), receiver)
}

fn note(kind: &str) -> ObserverEvent {
    ObserverEvent { kind: kind.into(), meta: Meta::default(), payload: Value::Null }
}

fn observer_metrics(engine: &Engine, name: &str, event: Event) -> HookMetrics {
    let id = HookId::new(Level::User, name, event);
    engine.metrics().into_iter().find(|(i, _)| *i == id).map(|(_, m)| m).unwrap_or_default()
}

async fn next(receiver: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(Duration::from_secs(5), receiver.recv()).await.unwrap().unwrap()
}

#[tokio::test]
async fn a_slow_observer_delays_nothing_and_what_does_not_fit_is_dropped_and_counted() {
    let (slow, _seen) = recorder(Duration::from_secs(30));
    // The observer may take 60 s per notification: waiting for it even once would show.
    let engine = Engine::builder()
        .observer_queue(2)
        .deadlines(Deadlines { observer: Duration::from_secs(60), ..Deadlines::default() })
        .build();
    engine.register(
        Registration::new("slow", Level::User, [Event::Stop], fixed("slow", says("interceptor ran")))
            .observer(slow, vec!["*".into()]),
    );
    let started = Instant::now();
    for _ in 0..10 {
        engine.notify(note("turn_start"));
    }
    let outcome = engine.fire(Event::Stop, &mut Default::default()).await;
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_eq!(outcome.effects.system_messages, ["interceptor ran"]);
    // The queue holds 2; the draining task may already hold a third.
    let dropped = observer_metrics(&engine, "slow", Event::Stop).dropped_notifications;
    assert!((7..=8).contains(&dropped), "dropped {dropped}");
}

#[tokio::test]
async fn observers_get_the_kinds_they_asked_for_and_a_stuck_one_is_cut_at_its_deadline() {
    let engine =
        Engine::builder().deadlines(Deadlines { observer: Duration::from_millis(100), ..Deadlines::default() }).build();
    let (picky, mut picky_seen) = recorder(Duration::ZERO);
    let (all, mut all_seen) = recorder(Duration::ZERO);
    let (stuck, mut stuck_seen) = recorder(Duration::from_secs(30));
    let observe = |name: &str, observer: Arc<dyn Observer>, kinds: &[&str]| {
        Registration::new(name, Level::User, [Event::Stop], fixed(name, says(name)))
            .observer(observer, kinds.iter().map(|k| k.to_string()).collect())
    };
    engine.register(observe("picky", picky, &["agent.tool.exec_end", "turn_end"]));
    engine.register(observe("all", all, &["all"]));
    engine.register(observe("stuck", stuck, &["*"]));
    for kind in ["turn_start", "tool_exec_end", "llm_request", "turn_end"] {
        engine.notify(note(kind));
    }
    assert_eq!([next(&mut picky_seen).await, next(&mut picky_seen).await], ["tool_exec_end", "turn_end"]);
    let mut everything = Vec::new();
    for _ in 0..4 {
        everything.push(next(&mut all_seen).await);
    }
    assert_eq!(everything, ["turn_start", "tool_exec_end", "llm_request", "turn_end"]);
    // Each of the stuck observer's four calls is cut at 100 ms, so all four are delivered within 5 s.
    tokio::time::timeout(Duration::from_secs(5), async {
        while observer_metrics(&engine, "stuck", Event::Stop).notifications < 4 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap();
    assert!(stuck_seen.try_recv().is_err());
}

#[test]
fn a_notification_with_no_runtime_is_dropped_and_counted() {
    let engine = Engine::default();
    let (observer, _seen) = recorder(Duration::ZERO);
    engine.register(
        Registration::new("outside", Level::User, [Event::Stop], fixed("outside", says("x")))
            .observer(observer, vec!["*".into()]),
    );
    engine.notify(note("turn_start"));
    assert_eq!(observer_metrics(&engine, "outside", Event::Stop).dropped_notifications, 1);
}

/// Builds an interceptor plus an observer for process specs.
#[derive(Debug)]
struct ObservingFactory {
    observer: Arc<dyn Observer>,
}

#[async_trait]
impl HookFactory for ObservingFactory {
    fn kind(&self) -> &str {
        "process"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        Ok(BuiltHook::new(fixed(&spec.name, says("intercepted"))).with_observer(self.observer.clone()))
    }

    /// Like hook-process's factory: the kinds the process config's `observe` lists.
    fn observed_kinds(&self, spec: &HookSpec) -> Vec<String> {
        match &spec.definition {
            HookDefinition::Process(def) => def.observe.clone().unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}

#[tokio::test]
async fn a_built_hooks_observer_receives_the_kinds_its_factory_names() {
    let (observer, mut seen) = recorder(Duration::ZERO);
    let engine = Engine::builder().factory(Arc::new(ObservingFactory { observer })).build();
    let def = ProcessDef {
        command: vec!["/bin/true".into()],
        observe: Some(vec!["turn_end".into()]),
        ..ProcessDef::default()
    };
    let spec = HookSpec {
        source: SourceLocation { file: PathBuf::from("config.json"), line: Some(1), column: None },
        ..HookSpec::new("audit", Level::User, "process", [Event::PostToolExecution], HookDefinition::Process(def))
    };
    engine.replace_level(Level::User, vec![spec]).await.unwrap();
    engine.notify(note("turn_start"));
    engine.notify(note("turn_end"));
    assert_eq!(next(&mut seen).await, "turn_end");
    let metrics = observer_metrics(&engine, "audit", Event::PostToolExecution);
    assert_eq!(metrics.dropped_notifications, 0);
}

#[tokio::test]
async fn shutdown_delivers_the_queued_notifications_first() {
    let (observer, mut seen) = recorder(Duration::from_millis(20));
    let engine = Engine::builder().build();
    engine.register(
        Registration::new("late", Level::User, [Event::Stop], fixed("late", says("ran")))
            .observer(observer, vec!["*".into()]),
    );
    for kind in ["turn_start", "tool_exec_end", "turn_end"] {
        engine.notify(note(kind));
    }
    engine.shutdown().await;
    let mut delivered = Vec::new();
    while let Ok(kind) = seen.try_recv() {
        delivered.push(kind);
    }
    assert_eq!(delivered, ["turn_start", "tool_exec_end", "turn_end"]);
}
