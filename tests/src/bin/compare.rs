//! `compare`: hookwire side by side with bare baselines, in one process, each pair measured
//! alternately (A B A B ...), and a table of medians, p99s, per-pair ratios and targets.
//!
//! Run it with `cargo xtask bench [--quick] [--only GROUP,...]`, which builds it, the `echo_hook`
//! example and the `hookwire` binary in release first. Nothing here runs at build or test time.
//! `--only` runs some groups of rows (see [`GROUPS`]), to measure one change without the rest.

// A report printed to the terminal is what this binary is for.
#![allow(clippy::print_stdout, clippy::print_stderr)]

/// Runs block `a` then block `b` (each evaluating to seconds per operation), `pairs` times after
/// `warmup` unrecorded pairs; `(a times, b times)`. A macro, not a function taking async
/// closures, so the `.await`s inside stay plain code in the calling `async fn` (whose future must
/// be `Send` to run on a worker).
macro_rules! alternate {
    ($warmup:expr, $pairs:expr, $a:block, $b:block $(,)?) => {{
        let (warmup, pairs): (usize, usize) = ($warmup, $pairs);
        let mut times: (Vec<f64>, Vec<f64>) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
        for round in 0..warmup + pairs {
            let a: f64 = $a;
            let b: f64 = $b;
            if round >= warmup {
                times.0.push(a);
                times.1.push(b);
            }
        }
        times
    }};
}
pub(crate) use alternate;

#[path = "compare/alloc.rs"]
mod alloc;
#[path = "compare/claude.rs"]
mod claude;
#[path = "compare/daemon.rs"]
mod daemon;
#[path = "compare/inproc.rs"]
mod inproc;
#[path = "compare/process.rs"]
mod process;
#[path = "compare/replay.rs"]
mod replay;
#[path = "compare/report.rs"]
mod report;
#[path = "compare/rules.rs"]
mod rules;
#[path = "compare/spawn.rs"]
mod spawn;

use std::{future::Future, process::ExitCode, time::Instant};

use report::Row;

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

pub(crate) type Error = Box<dyn std::error::Error + Send + Sync>;

/// The groups of rows `--only` can name, each with what it runs.
const GROUPS: &[(&str, &str)] = &[
    ("picoclaw", "the 5 MB pre_llm_request rows (8 PicoClaw hooks, extensions, history) and peak memory"),
    ("inproc", "in-process fires"),
    ("echo", "process hook round trips through echo_hook (200 B, 10 KiB, 1 MiB, 64 in flight)"),
    ("python", "the Python process hook round trip"),
    ("bash", "bash hooks"),
    ("chain", "5 chained bash hooks"),
    ("llm", "the llm hook"),
    ("claude", "the Claude Code command hook and `hookwire hook claude`"),
    ("daemon", "`hookwire hook claude` through a warm daemon"),
    ("client", "the Python client over the daemon's socket"),
    ("spawn", "spawn costs"),
    ("replay", "`hookwire replay` of 10,000 tool calls and `hookwire test` of 200 cases, through `recommended`"),
    ("rules", "the rules guard (`packs: [recommended]`) in-process, and the bridge with it vs bash and Python guards"),
];

/// How many samples to take (the full run or `--quick`), and which groups of rows to run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    quick: bool,
    /// `None`: every group.
    only: Option<[bool; GROUPS.len()]>,
}

impl Plan {
    pub(crate) fn pick(&self, full: usize, quick: usize) -> usize {
        if self.quick { quick } else { full }
    }

    /// Whether the group `name` (one of [`GROUPS`]) runs.
    fn runs(&self, name: &str) -> bool {
        let index = GROUPS.iter().position(|(group, _)| *group == name);
        match (self.only, index) {
            (None, _) => true,
            (Some(only), Some(index)) => only[index],
            (Some(_), None) => false,
        }
    }
}

/// `--quick` and `--only GROUP,...`, in any order.
fn parse_args(args: &[String]) -> Result<Plan, String> {
    let mut plan = Plan { quick: false, only: None };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => plan.quick = true,
            "--only" => {
                let list = args.next().ok_or("--only needs a comma-separated list of groups")?;
                let mut only = [false; GROUPS.len()];
                for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    let index = GROUPS
                        .iter()
                        .position(|(group, _)| *group == name)
                        .ok_or_else(|| format!("unknown group `{name}` after --only"))?;
                    only[index] = true;
                }
                plan.only = Some(only);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(plan)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let plan = match parse_args(&args) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!("usage: compare [--quick] [--only GROUP,...]   (normally run as `cargo xtask bench ...`)");
            eprintln!("groups:");
            for (name, what) in GROUPS {
                eprintln!("  {name:<9} {what}");
            }
            return ExitCode::from(2);
        }
    };
    match run(plan) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `future` as a task on a worker of `runtime` (as an engine's fires run in a host), so
/// neither side pays a hop from the calling thread into the runtime.
fn on_worker<T: Send + 'static>(
    runtime: &tokio::runtime::Runtime,
    future: impl Future<Output = Result<T, Error>> + Send + 'static,
) -> Result<T, Error> {
    runtime.block_on(async { tokio::spawn(future).await? })
}

fn phase(name: &str) {
    eprintln!("compare: {name} ...");
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn run(plan: Plan) -> Result<(), Error> {
    let started = Instant::now();
    let load_before = loadavg();
    let echo = process::echo_hook_path()?;
    let python = process::real_python();
    let python_path = python.as_ref().ok().cloned();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let mut rows: Vec<Row> = Vec::new();
    let mut notes = Vec::new();

    // First: VmHWM only grows, so the peak-memory measurement goes before anything else.
    let (big_rows, memory) = if plan.runs("picoclaw") {
        phase("5 MB context through 8 process hooks (peak memory first)");
        let echo = echo.clone();
        let (rows, memory) = on_worker(&runtime, async move { process::big_context_rows(&plan, &echo).await })?;
        (rows, Some(memory))
    } else {
        (Vec::new(), None)
    };

    if plan.runs("inproc") {
        // On this thread's own current-thread runtime: the allocation count is per thread.
        phase("in-process fires");
        let local = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        rows.extend(local.block_on(inproc::rows(&plan)));
        drop(local);
    }

    if plan.runs("echo") {
        phase("process hook round trips (echo_hook)");
        let echo = echo.clone();
        rows.extend(on_worker(&runtime, async move { process::echo_rows(&plan, &echo).await })?);
    }

    if plan.runs("python") {
        match python {
            Ok(python) => {
                phase("python hook round trips");
                rows.extend(on_worker(&runtime, async move { process::python_rows(&plan, &python).await })?);
            }
            Err(e) => notes.push(format!("python rows skipped: {e}")),
        }
    }

    if plan.runs("bash") {
        phase("bash hooks");
        rows.extend(on_worker(&runtime, async move { spawn::bash_rows(&plan).await })?);
    }
    if plan.runs("chain") {
        phase("5 chained bash hooks");
        rows.extend(on_worker(&runtime, async move { spawn::chained_bash_rows(&plan).await })?);
    }
    if plan.runs("llm") {
        phase("llm hook");
        rows.extend(on_worker(&runtime, async move { spawn::llm_rows(&plan).await })?);
    }
    if plan.runs("claude") {
        phase("claude code command hook");
        rows.extend(on_worker(&runtime, async move { claude::command_rows(&plan).await })?);
    }
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    if plan.runs("claude") {
        phase("hookwire hook claude (whole process)");
        rows.extend(claude::bridge_rows(&plan)?);
    }
    if plan.runs("daemon") {
        phase("hookwire hook claude through a warm daemon (whole process)");
        rows.extend(daemon::bridge_rows(&plan, &echo)?);
    }
    if plan.runs("replay") {
        phase("hookwire replay and hookwire test (whole process)");
        rows.extend(replay::rows(&plan)?);
    }
    if plan.runs("client") {
        match python_path.as_deref() {
            Some(python) => {
                phase("python client fire over the daemon's socket");
                rows.extend(daemon::python_client_rows(&plan, python)?);
            }
            None => notes.push("the python client row skipped: no python3".into()),
        }
    }
    if plan.runs("rules") {
        // Like the in-process fires: on this thread's own current-thread runtime.
        phase("rules guard in-process");
        let local = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        rows.extend(local.block_on(rules::inproc_rows(&plan))?);
        drop(local);
        match python_path.as_deref() {
            Some(python) => {
                phase("hookwire hook claude with the rules guard vs bash and Python guards (whole process)");
                rows.extend(rules::process_rows(&plan, python)?);
            }
            None => notes.push("the rules whole-process rows skipped: no python3".into()),
        }
    }
    rows.extend(big_rows);
    let spawns = plan.runs("spawn").then(|| {
        phase("spawn costs");
        spawn::spawn_costs(&plan, python_path.as_deref())
    });

    let mut kind = if plan.quick { "--quick" } else { "full run" }.to_owned();
    if let Some(only) = plan.only {
        let names: Vec<&str> = GROUPS.iter().zip(only).filter(|(_, on)| *on).map(|((name, _), _)| *name).collect();
        kind.push_str(&format!(", only {}", names.join(",")));
    }
    println!("# hookwire vs bare baselines ({kind})");
    println!();
    println!(
        "cores: {}, CPU: {}, load average before: {load_before}, after: {}, wall time: {:.1} s",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        cpu_model(),
        loadavg(),
        started.elapsed().as_secs_f64(),
    );
    println!();
    println!("Times are per operation; each row's two sides ran alternately in this process.");
    println!("Ratio = median over pairs of (hookwire / baseline); p10 to p90 = how those per-pair ratios spread.");
    println!();
    print!("{}", report::table(&rows));
    if let Some(memory) = memory {
        println!();
        println!("## Peak memory (VmHWM, process-wide peak, measured before every other row)");
        println!();
        print!("{memory}");
    }
    if let Some(spawns) = spawns {
        println!();
        println!("## Spawn costs (what a bash hook pays per run; a process hook pays once)");
        println!();
        print!("{spawns}");
    }
    for note in notes {
        println!();
        println!("note: {note}");
    }
    Ok(())
}
