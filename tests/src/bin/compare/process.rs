//! Process-hook rows: the Engine with `ProcessFactory` firing `pre_tool_execution` at the Rust
//! `echo_hook` example (and at the seed-style Python hook), against a bare newline-JSON echo
//! over pipes to the same kind of child, with no engine.
//!
//! The 5 MB `pre_llm_request` rows also run hooks that use hookwire's extensions
//! (`docs/process-extensions.md`): `echo_hook --history-delta --reads before_llm=...`.
//!
//! The bare side does what any host must: serialize the request (from a JSON value it already
//! holds), write it, read the reply line and parse it. It gets the same 1 MiB pipes hookwire asks
//! for (`F_SETPIPE_SZ`).

use std::{
    future::Future,
    io::Write,
    path::PathBuf,
    process::Stdio,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    task::Poll,
    time::{Duration, Instant},
};

use hook_core::{Context, Engine, Event, FireOutcome, HookDefinition, HookSpec, Level};
use hook_process::ProcessFactory;
use hook_protocol::{ChatMessage, Role, config::ProcessDef};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    process::{Child, ChildStdin, ChildStdout, Command},
};

use crate::{
    Error, Plan,
    report::{Row, Target, since},
};

/// `target/release/examples/echo_hook`, next to this binary's directory.
pub(crate) fn echo_hook_path() -> Result<String, Error> {
    let exe = std::env::current_exe()?;
    let profile_dir = exe.parent().ok_or("the harness binary has no directory")?;
    let path = profile_dir.join("examples/echo_hook");
    if !path.exists() {
        return Err(format!(
            "{} is missing; build it first: `cargo build --release -p hook-process --example echo_hook` \
             (`cargo xtask bench` does)",
            path.display()
        )
        .into());
    }
    Ok(path.display().to_string())
}

/// `crates/hook-process/tests/fixtures/weather_plugin.py`.
pub(crate) fn weather_plugin_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../crates/hook-process/tests/fixtures/weather_plugin.py")
}

/// The real Python interpreter (`python3` on PATH may be a slow pyenv shim).
pub(crate) fn real_python() -> Result<String, Error> {
    let out = std::process::Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output()?;
    let path = String::from_utf8(out.stdout)?.trim().to_owned();
    if !out.status.success() || path.is_empty() {
        return Err("`python3 -c 'import sys; print(sys.executable)'` failed".into());
    }
    Ok(path)
}

fn spec(name: &str, command: Vec<String>, events: &[Event]) -> HookSpec {
    let def = ProcessDef {
        enabled: None,
        priority: None,
        transport: None,
        command,
        dir: None,
        env: None,
        observe: None,
        intercept: Some(events.to_vec()),
        respond_tools: None,
        timeout_ms: None,
        on_error: None,
        sandbox: None,
    };
    HookSpec::new(name, Level::User, "process", events.iter().copied(), HookDefinition::Process(def))
}

/// An engine with `n` process hooks running `command` on `events`.
async fn engine_with(n: usize, command: &[String], events: &[Event]) -> Result<Engine, Error> {
    let engine = Engine::builder().factory(Arc::new(ProcessFactory::new())).build();
    let specs = (0..n).map(|idx| spec(&format!("hook{idx}"), command.to_vec(), events)).collect();
    engine
        .replace_level(Level::User, specs)
        .await
        .map_err(|errors| errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))?;
    Ok(engine)
}

/// Errors if a hook failed or did not run.
fn check(outcome: &FireOutcome, n_hooks: usize, what: &str) -> Result<(), Error> {
    if outcome.trace.len() != n_hooks {
        return Err(format!("{what}: {} hooks ran, expected {n_hooks}", outcome.trace.len()).into());
    }
    if let Some(error) = outcome.trace.iter().find_map(|t| t.error.as_ref()) {
        return Err(format!("{what}: a hook failed: {error}").into());
    }
    Ok(())
}

/// One fire; counts a failure into `failures` (checked after the row).
async fn fire(engine: &Engine, event: Event, context: &mut Context, failures: &AtomicUsize) {
    let outcome = engine.fire(event, context).await;
    if outcome.trace.is_empty() || outcome.trace.iter().any(|t| t.error.is_some()) {
        failures.fetch_add(1, Ordering::Relaxed);
    }
}

fn failed(failures: &AtomicUsize, what: &str) -> Result<(), Error> {
    let failures = failures.load(Ordering::Relaxed);
    if failures > 0 { Err(format!("{what}: {failures} fires failed during the measurement").into()) } else { Ok(()) }
}

/// A child answering newline-JSON over pipes, driven by hand.
struct BarePipe {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    child: Child,
    next_id: u64,
    line: String,
    request: Vec<u8>,
}

impl BarePipe {
    fn spawn(command: &[String]) -> Result<Self, Error> {
        let (program, args) = command.split_first().ok_or("empty command")?;
        let mut child =
            Command::new(program).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).kill_on_drop(true).spawn()?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        for fd in [stdin.as_fd_ref(), stdout.as_fd_ref()] {
            // Best effort, as hookwire does: unprivileged processes may be capped lower.
            let _ = nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_SETPIPE_SZ(1 << 20));
        }
        Ok(BarePipe {
            stdin,
            stdout: BufReader::new(stdout),
            child,
            next_id: 1,
            line: String::new(),
            request: Vec::new(),
        })
    }

    /// Appends `{"jsonrpc":"2.0","id":N,"method":…,"params":…}\n` to the request buffer.
    fn push_request(&mut self, method: &str, params: &Value) -> Result<(), Error> {
        let id = self.next_id;
        self.next_id += 1;
        write!(self.request, "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"{method}\",\"params\":")?;
        serde_json::to_writer(&mut self.request, params)?;
        self.request.extend_from_slice(b"}\n");
        Ok(())
    }

    async fn read_reply(&mut self) -> Result<Value, Error> {
        self.line.clear();
        if self.stdout.read_line(&mut self.line).await? == 0 {
            return Err("the bare child closed its stdout".into());
        }
        Ok(serde_json::from_str(&self.line)?)
    }

    /// Writes one request line as it is, then reads and parses the reply.
    async fn call_line(&mut self, line: &[u8]) -> Result<Value, Error> {
        self.stdin.write_all(line).await?;
        self.read_reply().await
    }

    /// Writes `n` requests at once, then reads and parses `n` replies.
    async fn calls(&mut self, method: &str, params: &Value, n: usize) -> Result<(), Error> {
        self.request.clear();
        for _ in 0..n {
            self.push_request(method, params)?;
        }
        self.stdin.write_all(&self.request).await?;
        for _ in 0..n {
            let reply = self.read_reply().await?;
            if reply.get("result").is_none() && reply.get("id").is_none() {
                return Err(format!("unexpected reply from the bare child: {reply}").into());
            }
        }
        Ok(())
    }

    async fn close(mut self) {
        drop(self.stdin);
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
        let _ = self.child.kill().await;
    }
}

/// `AsFd` for tokio's pipe ends (by reference, for `fcntl`).
trait AsFdRef {
    fn as_fd_ref(&self) -> std::os::fd::BorrowedFd<'_>;
}

impl<T: std::os::fd::AsFd> AsFdRef for T {
    fn as_fd_ref(&self) -> std::os::fd::BorrowedFd<'_> {
        self.as_fd()
    }
}

/// A before_tool context whose `text` argument makes the params about `bytes` long, and the
/// params the bare side sends (the same tool and arguments).
fn tool_context(bytes: usize) -> (Context, Value) {
    let arguments = json!({ "text": "x".repeat(bytes.saturating_sub(50)) });
    let context = Context {
        tool_name: Some("echo_text".into()),
        tool_arguments: Some(arguments.to_string()),
        ..Context::default()
    };
    (context, json!({ "tool": "echo_text", "arguments": arguments }))
}

/// Polls every future on the current task until all are done.
async fn join_all<F: Future>(futures: impl Iterator<Item = F>) {
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
        if pending { Poll::Pending } else { Poll::Ready(()) }
    })
    .await;
}

/// `VmHWM` (peak resident set) of this process, in bytes.
pub(crate) fn vm_hwm() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Counts the bytes serialized through it.
struct ByteCount(usize);

impl Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A `pre_llm_request` context with `n` messages of about 500 bytes each (about 5 MB for
/// 10,000), two tools and a model. The messages are built as they are held, with no JSON
/// detour, so the peak after building it is the context's own.
fn history_context(n: usize) -> Result<Context, Error> {
    let messages = (0..n)
        .map(|idx| {
            let role = if idx % 2 == 0 { Role::User } else { Role::Assistant };
            ChatMessage::text(role, format!("message {idx}: {}", "lorem ipsum ".repeat(40)))
        })
        .collect();
    let tools = (0..2)
        .map(|idx| {
            json!({"type": "function", "function": {"name": format!("tool{idx}"), "parameters": {"type": "object"}}})
        })
        .collect::<Vec<_>>();
    Ok(Context {
        model: Some("bench-model".into()),
        messages: Some(messages),
        tools: Some(serde_json::from_value(Value::Array(tools))?),
        ..Context::default()
    })
}

/// The 10,000-message context.
fn big_context() -> Result<Context, Error> {
    history_context(10_000)
}

/// Peak memory after firing the 5 MB context through 8 process hooks, and the 8-vs-1 timing row.
/// Runs first: `VmHWM` is the process-wide peak and only grows.
pub(crate) async fn big_context_rows(plan: &Plan, echo: &str) -> Result<(Vec<Row>, String), Error> {
    let command = vec![echo.to_owned()];
    let events = [Event::PreLlmRequest];
    let eight = engine_with(8, &command, &events).await?;
    let one = engine_with(1, &command, &events).await?;
    let hwm_before = vm_hwm().ok_or("no VmHWM in /proc/self/status")?;
    let mut context = big_context()?;
    let hwm_context = vm_hwm().unwrap_or(0);
    // One hook first, then eight: the peak only grows, so the second step shows what seven more
    // hooks add.
    let outcome = one.fire(Event::PreLlmRequest, &mut context).await;
    let hwm_one = vm_hwm().unwrap_or(0);
    check(&outcome, 1, "5 MB context through 1 process hook")?;
    let outcome = eight.fire(Event::PreLlmRequest, &mut context).await;
    let hwm_after = vm_hwm().unwrap_or(0);
    check(&outcome, 8, "5 MB context through 8 process hooks")?;
    let mut counter = ByteCount(0);
    serde_json::to_writer(&mut counter, &context)?;
    let size = counter.0 as f64;
    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    let ratio = |bytes: u64| bytes as f64 / size;
    let verdict = |ratio: f64| if ratio < 4.0 { "PASS" } else { "MISS" };
    let growth = hwm_after.saturating_sub(hwm_before);
    let memory = format!(
        "| measure | value |\n|---|---|\n\
         | context serialized size (10,000 messages) | {:.2} MiB |\n\
         | VmHWM before building the context (runtime up, 9 echo hooks running) | {:.2} MiB |\n\
         | VmHWM after building the context | {:.2} MiB (+{:.2}x the serialized size) |\n\
         | VmHWM after one fire through 1 process hook | {:.2} MiB (+{:.2}x) |\n\
         | VmHWM after one fire through 8 process hooks | {:.2} MiB (+{:.2}x more) |\n\
         | peak RSS / serialized size | {:.2}x (target < 4x: {}) |\n\
         | growth of the peak (context + fires) / serialized size | {:.2}x (target < 4x: {}) |\n",
        mib(counter.0 as u64),
        mib(hwm_before),
        mib(hwm_context),
        ratio(hwm_context.saturating_sub(hwm_before)),
        mib(hwm_one),
        ratio(hwm_one.saturating_sub(hwm_context)),
        mib(hwm_after),
        ratio(hwm_after.saturating_sub(hwm_one)),
        ratio(hwm_after),
        verdict(ratio(hwm_after)),
        ratio(growth),
        verdict(ratio(growth)),
    );

    let failures = AtomicUsize::new(0);
    let mut rows = vec![picoclaw_overhead_row(plan, &eight, &command, &mut context, size).await?];
    let mut context_b = context.clone();
    let times = crate::alternate!(
        1,
        plan.pick(30, 3),
        {
            let started = Instant::now();
            fire(&eight, Event::PreLlmRequest, &mut context, &failures).await;
            since(started)
        },
        {
            let started = Instant::now();
            fire(&one, Event::PreLlmRequest, &mut context_b, &failures).await;
            since(started)
        },
    );
    failed(&failures, "5 MB context")?;
    rows.push(Row::new(
        format!(
            "8 PicoClaw process hooks vs 1 (how the cost scales with the hooks), pre_llm_request, {:.1} MB context (per fire)",
            size / 1e6
        ),
        times,
        Target::Info,
    ));
    eight.shutdown().await;
    one.shutdown().await;
    rows.extend(delta_rows(plan, echo, &mut context).await?);
    Ok((rows, memory))
}

/// PicoClaw's payload through 8 process hooks (no extensions: each receives the whole 5 MB
/// request and, since `pre_llm_request` may change it, they run in turn), against 8 bare children
/// of the same hook program, each sent the same payload over its pipe in turn. Both sides pay the
/// same parses in the children (the same `echo_hook` code path), so the ratio is what hookwire
/// adds: building the params from the context, the request lines, reading and mapping the
/// answers, the chain. The bare host serializes the request once per fire from a JSON value it
/// holds (as hookwire serializes once per fire and shares the bytes), writes it to each child in
/// turn and reads and parses each reply.
async fn picoclaw_overhead_row(
    plan: &Plan,
    eight: &Engine,
    command: &[String],
    context: &mut Context,
    size: f64,
) -> Result<Row, Error> {
    // The members hookwire sends for this context (`meta`, `options`, `channel` and `chat_id`
    // are absent), as a value the bare host holds.
    let params = json!({ "model": context.model, "messages": context.messages, "tools": context.tools });
    let mut bare = (0..8).map(|_| BarePipe::spawn(command)).collect::<Result<Vec<_>, _>>()?;
    let expected = format!("messages={}", context.messages.as_ref().map_or(0, Vec::len));
    let mut line = Vec::new();
    check(&eight.fire(Event::PreLlmRequest, context).await, 8, "5 MB context through 8 process hooks")?;
    bare_in_turn(&mut bare, &mut line, &params, &expected).await?;
    let failures = AtomicUsize::new(0);
    let mut bare_error: Option<Error> = None;
    let times = crate::alternate!(
        2,
        plan.pick(40, 4),
        {
            let started = Instant::now();
            fire(eight, Event::PreLlmRequest, context, &failures).await;
            since(started)
        },
        {
            let started = Instant::now();
            if let Err(e) = bare_in_turn(&mut bare, &mut line, &params, &expected).await {
                bare_error.get_or_insert(e);
            }
            since(started)
        },
    );
    if let Some(e) = bare_error {
        return Err(e);
    }
    failed(&failures, "8 PicoClaw hooks vs 8 bare pipe echoes")?;
    for child in bare {
        child.close().await;
    }
    Ok(Row::new(
        format!(
            "8 PicoClaw process hooks (PicoClaw's payload, run in turn), pre_llm_request, {:.1} MB context, through the Engine \
             vs 8 bare pipe echoes of the same payload to the same echo_hook in turn (serialized once, each reply parsed) (per fire)",
            size / 1e6
        ),
        times,
        Target::RatioAtMost(1.2),
    ))
}

/// One bare fire: the `hook.before_llm` request serialized once into `line`, then written to each
/// child in turn, each reply read and parsed; each must say it read the `expected` history.
async fn bare_in_turn(bare: &mut [BarePipe], line: &mut Vec<u8>, params: &Value, expected: &str) -> Result<(), Error> {
    line.clear();
    line.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hook.before_llm\",\"params\":");
    serde_json::to_writer(&mut *line, params)?;
    line.extend_from_slice(b"}\n");
    for child in bare.iter_mut() {
        let reply = child.call_line(line).await?;
        // The child parsed the whole history, as the hook does for hookwire.
        let reason = reply.pointer("/result/reason").and_then(Value::as_str).unwrap_or_default();
        if !reason.contains(expected) {
            return Err(format!("unexpected reply from a bare echo_hook: {reply}").into());
        }
    }
    Ok(())
}

/// The rows of hooks using hookwire's extensions (`docs/process-extensions.md`), run by the
/// `echo_hook` example with `--reads` and `--history-delta`: 8 such hooks vs 1 on the 5 MB
/// context, and one such hook on 10,000 vs 100 messages of history.
async fn delta_rows(plan: &Plan, echo: &str, big: &mut Context) -> Result<Vec<Row>, Error> {
    let events = [Event::PreLlmRequest];
    let command = |reads: &str| -> Vec<String> {
        vec![echo.to_owned(), "--history-delta".into(), "--reads".into(), format!("before_llm={reads}")]
    };
    let mut rows = Vec::new();
    let failures = AtomicUsize::new(0);

    // 8 vs 1, reading `model` and `tools` only: hooks that promise to change nothing (they run
    // at once), then the same hooks without the promise (they run in turn).
    let reads = "model,tools";
    for (promise, label, target) in [
        (true, "reads + history delta + read_only: run at once", Target::RatioAtMost(2.0)),
        (false, "reads + history delta, no read_only: run in turn", Target::Info),
    ] {
        let mut command = command(reads);
        if promise {
            command.extend(["--read-only".into(), "before_llm".into()]);
        }
        let eight = engine_with(8, &command, &events).await?;
        let one = engine_with(1, &command, &events).await?;
        check(&eight.fire(Event::PreLlmRequest, big).await, 8, "5 MB context through 8 delta hooks")?;
        check(&one.fire(Event::PreLlmRequest, big).await, 1, "5 MB context through 1 delta hook")?;
        let mut big_b = big.clone();
        let times = crate::alternate!(
            3,
            plan.pick(300, 30),
            {
                let started = Instant::now();
                fire(&eight, Event::PreLlmRequest, big, &failures).await;
                since(started)
            },
            {
                let started = Instant::now();
                fire(&one, Event::PreLlmRequest, &mut big_b, &failures).await;
                since(started)
            },
        );
        drop(big_b);
        failed(&failures, "8 delta hooks")?;
        rows.push(Row::new(
            format!(
                "8 process hooks vs 1 reading `model`, `tools` (hookwire {label}), pre_llm_request, 5 MB context (per fire)"
            ),
            times,
            target,
        ));
        eight.shutdown().await;
        one.shutdown().await;
    }

    // History length: 10,000 vs 100 messages through one hook; one message appended per fire,
    // as in a conversation, and the history cut back when it grows by 100.
    for (reads, label, target) in [
        ("model,tools,last_message", "`model`, `tools`, the last message", Target::RatioAtMost(1.5)),
        ("model,tools,messages", "`model`, `tools`, the messages as a delta", Target::Info),
    ] {
        let long_hook = engine_with(1, &command(reads), &events).await?;
        let short_hook = engine_with(1, &command(reads), &events).await?;
        let mut long = big.clone();
        let mut short = history_context(100)?;
        let (long_len, short_len) = (10_000, 100);
        check(&long_hook.fire(Event::PreLlmRequest, &mut long).await, 1, "10,000 messages")?;
        check(&short_hook.fire(Event::PreLlmRequest, &mut short).await, 1, "100 messages")?;
        let step = |context: &mut Context, base: usize| {
            if let Some(messages) = context.messages.as_mut() {
                if messages.len() >= base + 100 {
                    messages.truncate(base);
                }
                let idx = messages.len();
                messages.push(ChatMessage::text(Role::User, format!("message {idx}: {}", "lorem ipsum ".repeat(40))));
            }
        };
        let times = crate::alternate!(
            5,
            plan.pick(500, 40),
            {
                step(&mut long, long_len);
                let started = Instant::now();
                fire(&long_hook, Event::PreLlmRequest, &mut long, &failures).await;
                since(started)
            },
            {
                step(&mut short, short_len);
                let started = Instant::now();
                fire(&short_hook, Event::PreLlmRequest, &mut short, &failures).await;
                since(started)
            },
        );
        failed(&failures, "history length")?;
        rows.push(Row::new(
            format!(
                "1 process hook reading {label} (hookwire extensions), 10,000 vs 100 messages of history, one appended per fire (per fire)"
            ),
            times,
            target,
        ));
        long_hook.shutdown().await;
        short_hook.shutdown().await;
    }
    Ok(rows)
}

/// One hook vs the bare pipe, one call at a time; seconds per round trip.
async fn round_trip_row(
    plan: &Plan,
    engine: &Engine,
    bare: &mut BarePipe,
    bytes: usize,
    name: String,
    pairs: (usize, usize),
    target: Target,
) -> Result<Row, Error> {
    let (mut context, params) = tool_context(bytes);
    check(&engine.fire(Event::PreToolExecution, &mut context).await, 1, &name)?;
    bare.calls("hook.before_tool", &params, 1).await?;
    let failures = AtomicUsize::new(0);
    let mut bare_error: Option<Error> = None;
    // 20 unrecorded pairs in both modes: at 1 MiB the first few dozen calls ran faster than the
    // steady state on the machine this was written on, and `--quick` should measure the same
    // steady state as a full run.
    let times = crate::alternate!(
        20,
        plan.pick(pairs.0, pairs.1),
        {
            let started = Instant::now();
            fire(engine, Event::PreToolExecution, &mut context, &failures).await;
            since(started)
        },
        {
            let started = Instant::now();
            if let Err(e) = bare.calls("hook.before_tool", &params, 1).await {
                bare_error.get_or_insert(e);
            }
            since(started)
        },
    );
    if let Some(e) = bare_error {
        return Err(e);
    }
    failed(&failures, &name)?;
    Ok(Row::new(name, times, target))
}

/// The Rust echo hook rows: 200 B, 10 KiB, 1 MiB, 64 in flight, concurrent vs sequential.
pub(crate) async fn echo_rows(plan: &Plan, echo: &str) -> Result<Vec<Row>, Error> {
    let command = vec![echo.to_owned()];
    let engine = engine_with(1, &command, &[Event::PreToolExecution]).await?;
    let mut bare = BarePipe::spawn(&command)?;
    let mut rows = Vec::new();
    for (label, bytes, pairs, target) in [
        ("200 B", 200, (5000, 300), Target::RatioAtMost(1.5)),
        ("10 KiB", 10 << 10, (2000, 150), Target::Info),
        ("1 MiB", 1 << 20, (300, 25), Target::RatioAtMost(1.2)),
    ] {
        let name = format!("process hook before_tool round trip, {label} (echo_hook) vs bare pipe echo");
        rows.push(round_trip_row(plan, &engine, &mut bare, bytes, name, pairs, target).await?);
    }

    // 64 in flight.
    let (context, params) = tool_context(200);
    let mut contexts = vec![context.clone(); 64];
    let failures = AtomicUsize::new(0);
    let mut bare_error: Option<Error> = None;
    let times = crate::alternate!(
        plan.pick(10, 3),
        plan.pick(1000, 50),
        {
            let started = Instant::now();
            join_all(contexts.iter_mut().map(|context| fire(&engine, Event::PreToolExecution, context, &failures)))
                .await;
            since(started)
        },
        {
            let started = Instant::now();
            if let Err(e) = bare.calls("hook.before_tool", &params, 64).await {
                bare_error.get_or_insert(e);
            }
            since(started)
        },
    );
    if let Some(e) = bare_error {
        return Err(e);
    }
    failed(&failures, "64 in flight")?;
    rows.push(Row::new(
        "process hook, 64 concurrent fires, 200 B (per batch of 64) vs 64 pipelined bare echoes",
        times,
        Target::Info,
    ));

    // Concurrency: 64 in flight vs 64 one after another, both through the engine.
    let mut context_seq = context.clone();
    let times = crate::alternate!(
        plan.pick(3, 1),
        plan.pick(300, 20),
        {
            let started = Instant::now();
            join_all(contexts.iter_mut().map(|context| fire(&engine, Event::PreToolExecution, context, &failures)))
                .await;
            since(started)
        },
        {
            let started = Instant::now();
            for _ in 0..64 {
                fire(&engine, Event::PreToolExecution, &mut context_seq, &failures).await;
            }
            since(started)
        },
    );
    failed(&failures, "64 concurrent vs sequential")?;
    rows.push(Row::new(
        "process hook, 64 concurrent fires vs 64 sequential fires (time per 64; <= 0.1 = 10x throughput)",
        times,
        Target::RatioAtMost(0.1),
    ));
    engine.shutdown().await;
    bare.close().await;
    Ok(rows)
}

/// The seed-style Python hook vs a Python line echo, 200 B.
pub(crate) async fn python_rows(plan: &Plan, python: &str) -> Result<Vec<Row>, Error> {
    let plugin = weather_plugin_path();
    let command = vec![python.to_owned(), "-u".into(), plugin.display().to_string()];
    let engine = engine_with(1, &command, &[Event::PreToolExecution]).await?;
    let echo = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n";
    let mut bare = BarePipe::spawn(&[python.to_owned(), "-u".into(), "-c".into(), echo.into()])?;
    let name = format!("python hook (weather_plugin.py, `continue`) round trip, 200 B vs python line echo ({python})");
    let row = round_trip_row(plan, &engine, &mut bare, 200, name, (3000, 150), Target::Info).await?;
    engine.shutdown().await;
    bare.close().await;
    Ok(vec![row])
}
