//! Process-hook round trips against the Rust `echo_hook` example:
//! - one `before_tool` call (200-byte payload) through `ProcessHook` vs the same request written
//!   and read by hand over bare pipes to the same kind of child (the floor);
//! - 64 concurrent calls vs 64 sequential calls to one hook.

use std::{
    path::PathBuf,
    process::Stdio,
    sync::Arc,
    time::{Duration, Instant},
};

use criterion::{Criterion, criterion_group, criterion_main};
use hook_core::{Context, Event, Hook, HookDefinition, HookInput, HookSpec, Level, SerializedCache};
use hook_process::{ProcessHook, ProcessOptions};
use hook_protocol::config::ProcessDef;
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    process::Command,
    runtime::Runtime,
};

/// `target/<profile>/examples/echo_hook`, built if missing.
fn echo_hook() -> String {
    let exe = std::env::current_exe().expect("bench path");
    let profile_dir: PathBuf = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>").to_path_buf();
    let path = profile_dir.join("examples/echo_hook");
    if !path.exists() {
        let mut build = std::process::Command::new(env!("CARGO"));
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        build.args(["build", "--example", "echo_hook", "--manifest-path", manifest]);
        if profile_dir.file_name().is_some_and(|p| p == "release") {
            build.arg("--release");
        }
        if let Some(target_dir) = profile_dir.parent() {
            build.env("CARGO_TARGET_DIR", target_dir);
        }
        assert!(build.status().expect("cargo runs").success(), "building echo_hook failed");
    }
    path.display().to_string()
}

fn spec(command: String) -> HookSpec {
    let def = ProcessDef {
        enabled: None,
        priority: None,
        transport: None,
        command: vec![command],
        dir: None,
        env: None,
        observe: None,
        intercept: Some(vec![Event::PreToolExecution]),
        respond_tools: None,
        timeout_ms: None,
        on_error: None,
        sandbox: None,
    };
    HookSpec::new("echo", Level::User, "process", [Event::PreToolExecution], HookDefinition::Process(def))
}

/// A before_tool context whose serialized params are about 200 bytes.
fn context() -> Context {
    let text = "x".repeat(150);
    Context {
        tool_name: Some("echo_text".into()),
        tool_arguments: Some(serde_json::json!({ "text": text }).to_string()),
        ..Context::default()
    }
}

async fn one_call(hook: &ProcessHook, context: &Context) {
    let cache = SerializedCache::default();
    let input = HookInput::new(Event::PreToolExecution, context, Instant::now() + Duration::from_secs(10), 1, &cache);
    let output = hook.call(&input).await.expect("echo answers");
    assert!(output.is_no_change());
}

fn round_trip(c: &mut Criterion) {
    let runtime = Runtime::new().expect("tokio runtime");
    let command = echo_hook();
    let context = context();
    let hook: Arc<ProcessHook> =
        runtime.block_on(ProcessHook::start(&spec(command.clone()), ProcessOptions::default())).expect("echo starts").0;

    // The floor: the same child, the same request bytes, written and read by hand.
    let (mut stdin, mut stdout, mut child) = runtime.block_on(async {
        let mut child = Command::new(&command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("echo spawns");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        (stdin, stdout, child)
    });
    let params = serde_json::json!({"tool": "echo_text", "arguments": {"text": "x".repeat(150)}});
    let request =
        format!("{}\n", serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "hook.before_tool", "params": params}));
    let mut line = String::new();

    // Both are timed the same way: `iters` round trips inside one `block_on`.
    let mut group = c.benchmark_group("round_trip_200b");
    group.bench_function("bare_pipe", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    line.clear();
                    stdin.write_all(request.as_bytes()).await.expect("write");
                    stdout.read_line(&mut line).await.expect("read");
                    assert!(line.contains("\"result\""));
                }
                started.elapsed()
            })
        })
    });
    group.bench_function("process_hook", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    one_call(&hook, &context).await;
                }
                started.elapsed()
            })
        })
    });
    group.finish();

    let mut group = c.benchmark_group("calls_64");
    // The floor for pipelining: 64 requests written at once, 64 replies read, by hand.
    let batch = request.repeat(64);
    group.bench_function("bare_pipelined", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    stdin.write_all(batch.as_bytes()).await.expect("write");
                    for _ in 0..64 {
                        line.clear();
                        stdout.read_line(&mut line).await.expect("read");
                    }
                }
                started.elapsed()
            })
        })
    });
    group.bench_function("sequential", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    for _ in 0..64 {
                        one_call(&hook, &context).await;
                    }
                }
                started.elapsed()
            })
        })
    });
    group.bench_function("concurrent", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    join_all((0..64).map(|_| one_call(&hook, &context))).await;
                }
                started.elapsed()
            })
        })
    });
    group.bench_function("concurrent_tasks", |b| {
        b.iter_custom(|iters| {
            let hook = hook.clone();
            let context = context.clone();
            runtime.block_on(async move {
                // Spawned from a worker, as an engine's fires are.
                tokio::spawn(async move {
                    let started = Instant::now();
                    for _ in 0..iters {
                        let mut tasks = tokio::task::JoinSet::new();
                        for _ in 0..64 {
                            let (hook, context) = (hook.clone(), context.clone());
                            tasks.spawn(async move { one_call(&hook, &context).await });
                        }
                        while tasks.join_next().await.is_some() {}
                    }
                    started.elapsed()
                })
                .await
                .expect("bench task")
            })
        })
    });
    group.finish();

    runtime.block_on(async {
        hook.shutdown().await;
        drop(stdin);
        let _ = child.wait().await;
    });
}

/// Polls every future on the current task until all are done (64 calls in flight at once,
/// without a task per call).
async fn join_all<F: std::future::Future<Output = ()>>(futures: impl Iterator<Item = F>) {
    let mut futures: Vec<_> = futures.map(|f| Some(Box::pin(f))).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for slot in &mut futures {
            if let Some(future) = slot {
                if future.as_mut().poll(cx).is_ready() {
                    *slot = None;
                } else {
                    pending = true;
                }
            }
        }
        if pending { std::task::Poll::Pending } else { std::task::Poll::Ready(()) }
    })
    .await;
}

criterion_group!(benches, round_trip);
criterion_main!(benches);
