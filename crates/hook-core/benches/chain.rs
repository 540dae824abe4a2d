//! Cost of a fire: an event with no hook, a chain of 8 in-process no-op hooks, and the baseline
//! of a plain loop awaiting 8 boxed async closures.
#![allow(missing_docs)]

use std::{future::Future, hint::black_box, pin::Pin, sync::Arc, time::Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use hook_core::{Context, Engine, Event, HookError, HookInput, HookOutput, Level, Registration, hook_fn};

type BoxedHook =
    Box<dyn Fn(&Context) -> Pin<Box<dyn Future<Output = Result<HookOutput, HookError>> + Send>> + Send + Sync>;

fn chain(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let engine = Engine::default();
    for idx in 0..8 {
        let hook = hook_fn(format!("noop{idx}"), |_input: &HookInput<'_>| async { Ok(HookOutput::default()) });
        engine.register(Registration::new(format!("noop{idx}"), Level::User, [Event::PreToolExecution], hook));
    }
    let context = Context { tool_name: Some("Bash".into()), tool_arguments: Some("{}".into()), ..Context::default() };

    for (name, event) in [("fire/no_hook", Event::PreSendMessage), ("fire/8_noop_hooks", Event::PreToolExecution)] {
        c.bench_function(name, |b| {
            b.to_async(&runtime).iter_custom(|iters| {
                let engine = engine.clone();
                let mut context = context.clone();
                async move {
                    let started = Instant::now();
                    for _ in 0..iters {
                        black_box(engine.fire(black_box(event), &mut context).await);
                    }
                    started.elapsed()
                }
            });
        });
    }

    let closures: Arc<Vec<BoxedHook>> = Arc::new(
        (0..8)
            .map(|_| -> BoxedHook { Box::new(|_context: &Context| Box::pin(async { Ok(HookOutput::default()) })) })
            .collect(),
    );
    c.bench_function("baseline/8_boxed_async_closures", |b| {
        b.to_async(&runtime).iter_custom(|iters| {
            let closures = closures.clone();
            let context = context.clone();
            async move {
                let started = Instant::now();
                for _ in 0..iters {
                    let mut n_ok = 0;
                    for closure in closures.iter() {
                        if black_box(closure(&context).await).is_ok() {
                            n_ok += 1;
                        }
                    }
                    black_box(n_ok);
                }
                started.elapsed()
            }
        });
    });
}

criterion_group!(benches, chain);
criterion_main!(benches);
