//! Hooks that promise to change nothing (`Hook::changes_nothing`): neighbours run at once, the
//! first halt in chain order decides, a broken promise is refused and halts the chain.

use crate::common;

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use async_trait::async_trait;
use common::*;
use hook_core::{
    Action, Context, ContextPatch, Decision, Engine, Event, Hook, HookError, HookInput, HookOutput, Level, Registration,
};
use hook_protocol::config::OnError;
use tokio::sync::Barrier;

/// An in-process hook that may promise to change nothing, logging its start and its end.
struct Promising {
    name: &'static str,
    promise: bool,
    log: Arc<Mutex<Vec<String>>>,
    /// Waited on before answering, with a deadline: it only opens when every party is running.
    barrier: Option<Arc<Barrier>>,
    output: fn(&Context) -> HookOutput,
    /// Fails instead of answering.
    fails: bool,
}

impl std::fmt::Debug for Promising {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

#[async_trait]
impl Hook for Promising {
    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        self.log.lock().unwrap().push(format!("start {}", self.name));
        // Hooks run at once interleave here; hooks run in turn do not.
        tokio::time::sleep(Duration::from_millis(20)).await;
        if let Some(barrier) = &self.barrier {
            // Run one after another, the first of the group would wait here alone until the
            // deadline.
            if tokio::time::timeout(Duration::from_secs(10), barrier.wait()).await.is_err() {
                return Err(HookError::Unavailable { message: format!("{} ran alone", self.name) });
            }
        }
        if self.fails {
            return Err(HookError::Unavailable { message: format!("{} fails", self.name) });
        }
        let output = (self.output)(input.context);
        self.log.lock().unwrap().push(format!("end {}", self.name));
        Ok(output)
    }

    fn changes_nothing(&self, _event: Event) -> bool {
        self.promise
    }
}

struct Setup {
    log: Arc<Mutex<Vec<String>>>,
    engine: Engine,
}

impl Setup {
    fn new() -> Self {
        Setup { log: Arc::default(), engine: Engine::builder().build() }
    }

    fn add(
        &self,
        name: &'static str,
        promise: bool,
        barrier: Option<&Arc<Barrier>>,
        output: fn(&Context) -> HookOutput,
    ) -> &Self {
        self.add_with(name, promise, barrier, output, |r| r)
    }

    fn add_with(
        &self,
        name: &'static str,
        promise: bool,
        barrier: Option<&Arc<Barrier>>,
        output: fn(&Context) -> HookOutput,
        options: impl FnOnce(Registration) -> Registration,
    ) -> &Self {
        let hook = Arc::new(Promising {
            name,
            promise,
            log: self.log.clone(),
            barrier: barrier.cloned(),
            output,
            fails: false,
        });
        self.register(options(Registration::new(name, Level::User, [Event::PreLlmRequest], hook)))
    }

    fn add_failing(&self, name: &'static str, barrier: &Arc<Barrier>) -> &Self {
        let hook = Arc::new(Promising {
            name,
            promise: true,
            log: self.log.clone(),
            barrier: Some(barrier.clone()),
            output: nothing,
            fails: true,
        });
        self.register(Registration::new(name, Level::User, [Event::PreLlmRequest], hook))
    }

    fn register(&self, registration: Registration) -> &Self {
        assert!(!self.engine.register(registration).is_empty());
        self
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

fn nothing(_: &Context) -> HookOutput {
    HookOutput::default()
}

fn stops(reason: &'static str) -> fn(&Context) -> HookOutput {
    match reason {
        "b" => |_| HookOutput { action: Some(Action::Stop), reason: Some("b".into()), ..HookOutput::default() },
        _ => |_| HookOutput { action: Some(Action::Stop), reason: Some("c".into()), ..HookOutput::default() },
    }
}

fn request() -> Context {
    Context { model: Some("m1".into()), ..Context::default() }
}

#[tokio::test]
async fn neighbours_that_promise_to_change_nothing_run_at_once() {
    let setup = Setup::new();
    let barrier = Arc::new(Barrier::new(3));
    setup.add("a", true, Some(&barrier), nothing).add("b", true, Some(&barrier), |_| says("from b")).add(
        "c",
        true,
        Some(&barrier),
        |_| says("from c"),
    );
    let mut context = request();
    let outcome = setup.engine.fire(Event::PreLlmRequest, &mut context).await;
    assert_eq!(outcome.decision, Decision::Continue, "{outcome:?}");
    assert!(outcome.trace.iter().all(|t| t.error.is_none()), "{:#?}", outcome.trace);
    assert_eq!(trace_ids(&outcome), ["user:a:pre_llm_request", "user:b:pre_llm_request", "user:c:pre_llm_request"]);
    // Effects are merged in chain order, whatever order the hooks ended in.
    assert_eq!(outcome.effects.system_messages, ["from b", "from c"]);
    let log = setup.log();
    assert!(log[..3].iter().all(|l| l.starts_with("start")), "all three started before any ended: {log:?}");
}

#[tokio::test]
async fn without_the_promise_hooks_still_run_one_after_another() {
    let setup = Setup::new();
    setup.add("a", false, None, nothing).add("b", true, None, nothing).add("c", false, None, nothing);
    let mut context = request();
    let outcome = setup.engine.fire(Event::PreLlmRequest, &mut context).await;
    assert_eq!(outcome.decision, Decision::Continue);
    assert_eq!(setup.log(), ["start a", "end a", "start b", "end b", "start c", "end c"]);
}

#[tokio::test]
async fn the_first_halt_in_chain_order_decides_and_later_answers_are_dropped() {
    let setup = Setup::new();
    let barrier = Arc::new(Barrier::new(3));
    setup
        .add("a", true, Some(&barrier), |_| says("from a"))
        .add("b", true, Some(&barrier), stops("b"))
        .add("c", true, Some(&barrier), stops("c"))
        .add("after", false, None, |_| says("never"));
    let mut context = request();
    let outcome = setup.engine.fire(Event::PreLlmRequest, &mut context).await;
    assert_eq!(outcome.decision, Decision::Stop);
    assert_eq!(outcome.reason.as_deref(), Some("b"));
    assert_eq!(trace_ids(&outcome), ["user:a:pre_llm_request", "user:b:pre_llm_request"]);
    assert_eq!(outcome.effects.system_messages, ["from a"]);
    // `c` ran with its group (its answer is dropped); the hook after the group never ran.
    let log = setup.log();
    assert!(log.contains(&"end c".to_owned()) && !log.iter().any(|l| l.ends_with("after")), "{log:?}");
}

#[tokio::test]
async fn a_group_sees_the_changes_made_before_it_and_the_next_hook_sees_the_group_unchanged() {
    let setup = Setup::new();
    let barrier = Arc::new(Barrier::new(2));
    setup
        .add("rewrite", false, None, |_| HookOutput {
            patch: ContextPatch { model: Some("m2".into()), ..ContextPatch::default() },
            ..HookOutput::default()
        })
        .add("a", true, Some(&barrier), |c| says(&format!("a saw {}", c.model.as_deref().unwrap_or_default())))
        .add("b", true, Some(&barrier), |c| says(&format!("b saw {}", c.model.as_deref().unwrap_or_default())))
        .add("last", false, None, |c| says(&format!("last saw {}", c.model.as_deref().unwrap_or_default())));
    let mut context = request();
    let outcome = setup.engine.fire(Event::PreLlmRequest, &mut context).await;
    assert_eq!(outcome.effects.system_messages, ["a saw m2", "b saw m2", "last saw m2"], "{:#?}", outcome.trace);
    assert_eq!(context.model.as_deref(), Some("m2"));
}

fn rewrites_model(_: &Context) -> HookOutput {
    HookOutput {
        patch: ContextPatch { model: Some("evil".into()), ..ContextPatch::default() },
        ..HookOutput::default()
    }
}

#[tokio::test]
async fn a_broken_promise_is_refused_and_halts_the_chain_even_with_on_error_skip() {
    for on_error in [None, Some(OnError::Skip), Some(OnError::Deny), Some(OnError::Stop)] {
        let setup = Setup::new();
        setup.add("ok", true, None, nothing).add_with("liar", true, None, rewrites_model, |r| match on_error {
            Some(policy) => r.on_error(policy),
            None => r,
        });
        setup.add("after", false, None, nothing);
        let mut context = request();
        let outcome = setup.engine.fire(Event::PreLlmRequest, &mut context).await;
        assert_eq!(context.model.as_deref(), Some("m1"), "the change was applied ({on_error:?})");
        assert_eq!(outcome.decision, Decision::Stop, "{on_error:?}: {outcome:?}");
        let liar = outcome.trace.iter().find(|t| t.id.as_str() == "user:liar:pre_llm_request").unwrap();
        let error = liar.error.as_ref().map(ToString::to_string).unwrap_or_default();
        assert!(
            error.contains("promised to change nothing on pre_llm_request")
                && error.contains("`model`")
                && error.contains("Hook `liar`")
                && error.contains("hookwire.read_only"),
            "{error}"
        );
        assert_eq!(liar.outcome.as_str(), "invalid_output");
        assert!(outcome.reason.as_deref().is_some_and(|r| r.contains("liar")), "{:?}", outcome.reason);
        assert!(!setup.log().iter().any(|l| l.ends_with("after")), "{:?}", setup.log());
    }
}

#[tokio::test]
async fn a_lone_hook_that_breaks_its_promise_is_refused_too() {
    let setup = Setup::new();
    setup
        .add("before", false, None, nothing)
        .add("liar", true, None, rewrites_model)
        .add("after", false, None, nothing);
    let mut context = request();
    let outcome = setup.engine.fire(Event::PreLlmRequest, &mut context).await;
    assert_eq!(context.model.as_deref(), Some("m1"));
    assert_eq!(outcome.decision, Decision::Stop);
}

#[tokio::test]
async fn a_failure_in_a_group_follows_the_hooks_policy() {
    let setup = Setup::new();
    let barrier = Arc::new(Barrier::new(3));
    // `a` fails (its policy is skip), `b` is filtered out, `c` and `d` answer.
    setup.add_failing("a", &barrier);
    setup.add_with("b", true, None, nothing, |r| {
        r.filter(hook_protocol::config::HookFilter { model_prefix: Some("other".into()), ..Default::default() })
    });
    setup.add("c", true, Some(&barrier), |_| says("from c")).add("d", true, Some(&barrier), |_| says("from d"));
    let mut context = request();
    let outcome = setup.engine.fire(Event::PreLlmRequest, &mut context).await;
    let outcomes: Vec<_> = outcome.trace.iter().map(|t| (t.id.to_string(), t.outcome.as_str())).collect();
    assert_eq!(
        outcomes,
        [
            ("user:a:pre_llm_request".into(), "crashed"),
            ("user:b:pre_llm_request".into(), "filtered"),
            ("user:c:pre_llm_request".into(), "ok"),
            ("user:d:pre_llm_request".into(), "ok")
        ],
        "{:#?}",
        outcome.trace
    );
    assert_eq!(outcome.decision, Decision::Continue);
    assert_eq!(outcome.effects.system_messages, ["from c", "from d"]);
}

#[tokio::test]
async fn a_change_the_event_does_not_allow_is_dropped_as_always_not_a_broken_promise() {
    let setup = Setup::new();
    setup.add("promising", true, None, |_| HookOutput {
        patch: ContextPatch { tool_arguments: Some("{}".into()), ..ContextPatch::default() },
        ..HookOutput::default()
    });
    let mut context = request();
    let outcome = setup.engine.fire(Event::PreLlmRequest, &mut context).await;
    assert_eq!(outcome.decision, Decision::Continue, "{outcome:?}");
    assert_eq!(outcome.trace[0].error.as_ref().map(ToString::to_string), None);
    assert_eq!(outcome.trace[0].dropped.iter().map(ToString::to_string).collect::<Vec<_>>(), ["tool_arguments"]);
}

#[tokio::test]
async fn approvers_run_in_turn_even_when_they_promise() {
    let setup = Setup::new();
    for name in ["first", "second"] {
        let hook = Arc::new(Promising {
            name,
            promise: true,
            log: setup.log.clone(),
            barrier: None,
            output: nothing,
            fails: false,
        });
        setup.register(Registration::new(name, Level::User, [Event::ApproveTool], hook));
    }
    let mut context = Context { tool_name: Some("bash".into()), ..Context::default() };
    let outcome = setup.engine.fire(Event::ApproveTool, &mut context).await;
    assert_eq!(outcome.decision, Decision::Approved, "{outcome:?}");
    assert_eq!(setup.log(), ["start first", "end first", "start second", "end second"]);
}

#[tokio::test]
async fn a_halt_in_a_group_cancels_the_slower_neighbours_instead_of_waiting_for_them() {
    let setup = Setup::new();
    setup.add("stops", true, None, stops("b"));
    let slow = Arc::new(SlowHook { log: setup.log.clone() });
    // Its own deadline is a minute: only the halt can end it within the assertion's 10 s.
    setup.register(
        Registration::new("slow", Level::User, [Event::PreLlmRequest], slow).timeout(Duration::from_secs(60)),
    );
    let started = std::time::Instant::now();
    let mut context = request();
    let outcome = setup.engine.fire(Event::PreLlmRequest, &mut context).await;
    assert_eq!(outcome.decision, Decision::Stop);
    assert!(started.elapsed() < Duration::from_secs(10), "waited {:?} for the slow neighbour", started.elapsed());
    assert_eq!(trace_ids(&outcome), ["user:stops:pre_llm_request"]);
    let log = setup.log();
    assert!(log.contains(&"start slow".to_owned()) && !log.contains(&"end slow".to_owned()), "{log:?}");
}

/// Promises to change nothing and takes 30 s.
#[derive(Debug)]
struct SlowHook {
    log: Arc<Mutex<Vec<String>>>,
}

#[async_trait]
impl Hook for SlowHook {
    async fn call(&self, _input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        self.log.lock().unwrap().push("start slow".into());
        tokio::time::sleep(Duration::from_secs(30)).await;
        self.log.lock().unwrap().push("end slow".into());
        Ok(HookOutput::default())
    }

    fn changes_nothing(&self, _event: Event) -> bool {
        true
    }
}
