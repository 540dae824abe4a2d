//! The cost of confinement: the same bash hook (`bash -c 'cat >/dev/null; echo {}'`, a small
//! payload on stdin) spawned unconfined and confined by the default policy (read all, write the
//! project and temp directories, no network). The target is confined ≤ 1.10× unconfined.
//!
//! Spawn times on a shared machine drift within seconds, so each iteration runs both variants
//! back to back and each benchmark times only its own; the medians' ratio is printed at the end.

use std::{
    io::Write,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use criterion::{Criterion, criterion_group, criterion_main};
use hook_sandbox::{Places, SandboxPolicy, confine};

const SCRIPT: &str = "cat >/dev/null; echo '{}'";

fn run(confined: bool) -> Duration {
    let started = Instant::now();
    let mut command = Command::new("bash");
    command.arg("-c").arg(SCRIPT).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
    if confined {
        let places = Places { project: std::env::current_dir().ok(), ..Places::default() };
        confine(&mut command, &SandboxPolicy::default(), &places, "bench").expect("the bench needs Landlock");
    }
    let mut child = command.spawn().expect("bash runs");
    child.stdin.take().expect("stdin").write_all(b"{\"event\":\"x\"}").expect("write");
    let output = child.wait_with_output().expect("wait");
    assert!(output.status.success());
    started.elapsed()
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("bash_hook_spawn");
    for (name, confined) in [("unsandboxed", false), ("sandboxed", true)] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut own = Duration::ZERO;
                for _ in 0..iters {
                    // Both run every iteration, so both see the same machine.
                    let other = run(!confined);
                    let mine = run(confined);
                    let _ = other;
                    own += mine;
                }
                own
            })
        });
    }
    group.finish();
    let (mut plain, mut boxed) = (Vec::new(), Vec::new());
    for _ in 0..150 {
        plain.push(run(false));
        boxed.push(run(true));
    }
    let (plain, boxed) = (median(&mut plain), median(&mut boxed));
    let ratio = boxed.as_secs_f64() / plain.as_secs_f64();
    tracing_free_report(&format!(
        "median unsandboxed {plain:?}, sandboxed {boxed:?}, ratio {ratio:.3} (target ≤ 1.10)"
    ));
}

/// Criterion prints to stdout; the ratio goes to stderr beside it.
#[allow(clippy::print_stderr)]
fn tracing_free_report(line: &str) {
    eprintln!("{line}");
}

criterion_group!(benches, bench);
criterion_main!(benches);
