//! The no-hook fast path: firing an event nothing is registered on allocates nothing.
#![allow(unsafe_code, reason = "a counting GlobalAlloc must implement an unsafe trait")]

use crate::common;

use std::{
    alloc::{GlobalAlloc, Layout, System},
    cell::Cell,
};

use common::*;
use hook_core::{Context, Deadlines, Decision, Event, HookOutput, Level};

/// Counts allocations made by the current thread while counting is on.
struct CountingAlloc;

thread_local! {
    static IS_COUNTING: Cell<bool> = const { Cell::new(false) };
    static N_ALLOCS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting touches only
// const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn count() {
    let _ = IS_COUNTING.try_with(|on| {
        if on.get() {
            N_ALLOCS.with(|n| n.set(n.get() + 1));
        }
    });
}

#[global_allocator]
static ALLOCATOR: CountingAlloc = CountingAlloc;

/// Allocations made by `f` on this thread.
fn allocations<T>(f: impl FnOnce() -> T) -> (u64, T) {
    N_ALLOCS.with(|n| n.set(0));
    IS_COUNTING.with(|on| on.set(true));
    let value = f();
    IS_COUNTING.with(|on| on.set(false));
    (N_ALLOCS.with(Cell::get), value)
}

#[test]
fn firing_an_event_with_no_hook_allocates_nothing() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    // Hooks on other events: the fired events still have none.
    let engine = engine_with(
        vec![reg(Level::User, "elsewhere", Event::PreToolExecution, fixed("elsewhere", says("x")))],
        Deadlines::default(),
    );
    let mut context = Context { user_input: Some("hello".into()), ..Context::default() };
    for event in [Event::PreSendMessage, Event::ApproveTool, Event::SessionStart] {
        runtime.block_on(engine.fire(event, &mut context)); // warm-up
        let (n_allocs, outcome) = allocations(|| runtime.block_on(engine.fire(event, &mut context)));
        assert_eq!(n_allocs, 0, "{event}");
        let expected = if event == Event::ApproveTool { Decision::Approved } else { Decision::Continue };
        assert_eq!(outcome.decision, expected);
        assert!(outcome.trace.is_empty());
        let (n_allocs, has) = allocations(|| engine.has_hooks_for(event));
        assert_eq!((n_allocs, has), (0, false), "{event}");
    }
    // The counter works: a fire that runs a hook allocates.
    let (n_allocs, _) = allocations(|| runtime.block_on(engine.fire(Event::PreToolExecution, &mut context)));
    assert!(n_allocs > 0);
}

#[test]
fn a_chain_of_ready_hooks_allocates_only_the_chain_and_the_calls() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    const N_HOOKS: u64 = 8;
    let registrations = (0..N_HOOKS)
        .map(|idx| {
            let name = format!("noop{idx}");
            reg(Level::User, &name, Event::PreToolExecution, fixed(&name, HookOutput::default()))
        })
        .collect();
    let engine = engine_with(registrations, Deadlines::default());
    let mut context = tool_call("Bash", "{}");
    runtime.block_on(engine.fire(Event::PreToolExecution, &mut context)); // warm-up
    let (n_allocs, outcome) = allocations(|| runtime.block_on(engine.fire(Event::PreToolExecution, &mut context)));
    assert_eq!(outcome.trace.len(), N_HOOKS as usize);
    assert!(
        outcome.trace.iter().all(|entry| entry.outcome == hook_core::OutcomeClass::NoChange && entry.attempts == 1)
    );
    // The chain's future and its trace, plus each hook's boxed call: deadlines, clock reads,
    // trace entries and metrics add nothing per hook.
    assert!(n_allocs <= 2 + N_HOOKS, "{n_allocs} allocations for {N_HOOKS} ready no-op hooks");
    let metrics = engine.metrics();
    assert!(metrics.iter().all(|(_, m)| m.executions == 2 && m.successes == 2 && m.failures == 0), "{metrics:?}");
}
