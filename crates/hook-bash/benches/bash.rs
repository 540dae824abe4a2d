//! One bash hook (`cat >/dev/null; echo '{}'`) against a bare `sh -c` spawn doing the same I/O
//! (std::process, write stdin, wait_with_output), measured in the same run, with a 1 KiB and a
//! 1 MiB context. The context is serialized once, as the engine shares it between hooks.
//!
//! - `bare_sh`: the baseline.
//! - `hook`: `BashHook::call` in a task on the multi-thread runtime, as a host's engine runs it,
//!   timed inside the task.
//! - `hook_block_on`: the same call driven by `block_on` from outside the runtime, which adds a
//!   cross-thread wake-up per I/O event.
//!
//! Spawn times on a shared machine drift by tens of percent within seconds, which would swamp
//! a comparison of benchmarks measured one after the other. So every iteration runs all three
//! variants (in rotating order) and each benchmark times only its own: the three see the same
//! conditions. After each group, the medians of 150 such rounds and their ratios to the
//! baseline are printed: those are the numbers to compare.

use std::{
    io::Write,
    process::{Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use hook_bash::{BashHook, BashOptions};
use hook_core::{Context, Event, Hook, HookInput, SerializedCache};
use tokio::runtime::Runtime;

const SCRIPT: &str = "cat >/dev/null; echo '{}'";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    BareSh,
    Hook,
    HookBlockOn,
}

const VARIANTS: [Variant; 3] = [Variant::BareSh, Variant::Hook, Variant::HookBlockOn];

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::BareSh => "bare_sh",
            Variant::Hook => "hook",
            Variant::HookBlockOn => "hook_block_on",
        }
    }
}

struct Setup {
    runtime: Runtime,
    hook: Arc<BashHook>,
    context: Arc<Context>,
    cache: Arc<SerializedCache>,
    payload: hook_core::SharedBytes,
}

impl Setup {
    fn new(context_bytes: usize) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
        let hook = Arc::new(BashHook::new(SCRIPT, BashOptions { name: "bench".into(), ..BashOptions::default() }));
        let user_input = "x".repeat(context_bytes.saturating_sub(64));
        let context = Arc::new(Context { user_input: Some(user_input), ..Context::default() });
        let cache = Arc::new(SerializedCache::default());
        let payload = HookInput::new(Event::PreSendMessage, &context, Instant::now(), 1, &cache).hook_context_json();
        Setup { runtime, hook, context, cache, payload }
    }

    /// Runs `variant` once and returns how long it took.
    fn run(&self, variant: Variant) -> Duration {
        match variant {
            Variant::BareSh => {
                let started = Instant::now();
                bare_sh(&self.payload);
                started.elapsed()
            }
            Variant::Hook => {
                // Timed inside the task, as the engine's chain task would see it: the hop from
                // this thread into the runtime and back is the harness's, not the hook's.
                let (hook, context, cache) = (self.hook.clone(), self.context.clone(), self.cache.clone());
                let task = self.runtime.spawn(async move {
                    let started = Instant::now();
                    call(&hook, &context, &cache).await;
                    started.elapsed()
                });
                self.runtime.block_on(task).expect("the task ran")
            }
            Variant::HookBlockOn => {
                let started = Instant::now();
                self.runtime.block_on(call(&self.hook, &self.context, &self.cache));
                started.elapsed()
            }
        }
    }

    /// `iters` rounds of all three variants; the time spent in `own`.
    fn interleaved(&self, own: Variant, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        for round in 0..iters {
            for shift in 0..VARIANTS.len() {
                let variant = VARIANTS[(round as usize + shift) % VARIANTS.len()];
                let took = self.run(variant);
                if variant == own {
                    total += took;
                }
            }
        }
        total
    }
}

fn bare_sh(payload: &[u8]) -> Vec<u8> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(SCRIPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sh");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(payload).expect("write stdin");
    drop(stdin);
    child.wait_with_output().expect("wait").stdout
}

async fn call(hook: &BashHook, context: &Context, cache: &SerializedCache) {
    let input = HookInput::new(Event::PreSendMessage, context, Instant::now() + Duration::from_secs(10), 1, cache);
    hook.call(&input).await.expect("the hook succeeds");
}

fn bench(c: &mut Criterion) {
    for (label, size) in [("1KiB", 1usize << 10), ("1MiB", 1 << 20)] {
        let setup = Setup::new(size);
        let mut group = c.benchmark_group(format!("bash_{label}"));
        group
            .sample_size(30)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        for (name, variant) in VARIANTS.iter().map(|v| (v.name(), *v)) {
            group.bench_function(name, |b| b.iter_custom(|iters| setup.interleaved(variant, iters)));
        }
        group.finish();
        report_ratios(label, &setup);
    }
}

/// Medians of `ROUNDS` interleaved rounds and their ratios to the baseline: the numbers to
/// compare, printed after each group.
#[allow(clippy::print_stderr, reason = "a bench's report, not a library's output")]
fn report_ratios(label: &str, setup: &Setup) {
    const ROUNDS: usize = 150;
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(ROUNDS); VARIANTS.len()];
    for round in 0..ROUNDS {
        for shift in 0..VARIANTS.len() {
            let idx = (round + shift) % VARIANTS.len();
            times[idx].push(setup.run(VARIANTS[idx]));
        }
    }
    let medians: Vec<Duration> = times
        .iter_mut()
        .map(|t| {
            t.sort();
            t[t.len() / 2]
        })
        .collect();
    let base = medians[0].as_secs_f64();
    let line = VARIANTS
        .iter()
        .zip(&medians)
        .map(|(v, m)| format!("{} {:.3} ms ({:.2}x)", v.name(), m.as_secs_f64() * 1e3, m.as_secs_f64() / base))
        .collect::<Vec<_>>()
        .join(", ");
    eprintln!("bash_{label} medians of {ROUNDS} interleaved rounds: {line}");
}

criterion_group!(benches, bench);
criterion_main!(benches);
