//! In-process rows: a fire with no hook, a fire through 8 `hook_fn` no-op hooks, against a plain
//! loop awaiting boxed async closures (none for the no-hook row, 8 for the other).

use std::{future::Future, hint::black_box, pin::Pin, time::Instant};

use hook_core::{Context, Engine, Event, HookError, HookInput, HookOutput, Level, Registration, hook_fn};

use crate::{
    Plan,
    alloc::allocations,
    report::{Row, Target, since},
};

type BoxedHook =
    Box<dyn Fn(&Context) -> Pin<Box<dyn Future<Output = Result<HookOutput, HookError>> + Send>> + Send + Sync>;

/// Awaits every closure in turn, as a host without an engine would; seconds per round.
async fn closures_loop(closures: &[BoxedHook], context: &Context, rounds: usize) -> f64 {
    let started = Instant::now();
    for _ in 0..rounds {
        let mut n_ok = 0u32;
        for closure in closures {
            if black_box(closure(black_box(context)).await).is_ok() {
                n_ok += 1;
            }
        }
        black_box(n_ok);
    }
    since(started) / rounds as f64
}

/// `rounds` fires of `event`; seconds per fire and allocations per fire on this thread.
async fn fires(engine: &Engine, event: Event, context: &mut Context, rounds: usize) -> (f64, f64) {
    let allocs_before = allocations();
    let started = Instant::now();
    for _ in 0..rounds {
        black_box(engine.fire(black_box(event), context).await);
    }
    let took = since(started);
    // The loop never yields (every hook here is ready at once), so the task stayed on this
    // thread and the thread-local count is the loop's.
    let allocs = allocations() - allocs_before;
    (took / rounds as f64, allocs as f64 / rounds as f64)
}

/// Must run on a current-thread runtime (the allocation count is per thread).
pub(crate) async fn rows(plan: &Plan) -> Vec<Row> {
    let engine = Engine::default();
    for idx in 0..8 {
        let hook = hook_fn(format!("noop{idx}"), |_input: &HookInput<'_>| async { Ok(HookOutput::default()) });
        engine.register(Registration::new(format!("noop{idx}"), Level::User, [Event::PreToolExecution], hook));
    }
    let mut context =
        Context { tool_name: Some("Bash".into()), tool_arguments: Some("{}".into()), ..Context::default() };
    let base_context = context.clone();
    let none: Vec<BoxedHook> = Vec::new();
    let eight: Vec<BoxedHook> = (0..8)
        .map(|_| -> BoxedHook { Box::new(|_context: &Context| Box::pin(async { Ok(HookOutput::default()) })) })
        .collect();
    let pairs = plan.pick(300, 40);
    let mut rows = Vec::new();

    let mut max_allocs = 0f64;
    let ctx = &mut context;
    let times = crate::alternate!(
        5,
        pairs,
        {
            let (secs, allocs) = fires(&engine, Event::PreSendMessage, ctx, 20_000).await;
            max_allocs = max_allocs.max(allocs);
            secs
        },
        { closures_loop(&none, &base_context, 20_000).await },
    );
    let mut row = Row::new(
        "fire, no matching hook (per fire) vs loop over 0 boxed closures",
        times,
        Target::AbsoluteAtMost { seconds: 50e-9, allocations: Some(0.0) },
    );
    row.allocations = Some(max_allocs);
    rows.push(row);

    let mut max_allocs = 0f64;
    let ctx = &mut context;
    let times = crate::alternate!(
        5,
        pairs,
        {
            let (secs, allocs) = fires(&engine, Event::PreToolExecution, ctx, 2_000).await;
            max_allocs = max_allocs.max(allocs);
            secs
        },
        { closures_loop(&eight, &base_context, 2_000).await },
    );
    let mut row = Row::new(
        "fire, 8 in-process no-op hooks (per fire) vs loop over 8 boxed async closures",
        times,
        Target::AbsoluteAtMost { seconds: 1e-6, allocations: None },
    );
    row.allocations = Some(max_allocs);
    rows.push(row);
    rows
}
