//! Daemon rows: `hookwire hook claude` answered by a warm daemon (`hookwire serve`) with one
//! no-op process hook, as a whole process, against `/bin/true`; and a `fire` over the daemon's
//! socket from the Python client of `examples/python_client.py` against the same client code
//! talking to a bare newline-delimited JSON echo server.
//!
//! Each row runs in a sandbox of its own (`HOME`, `XDG_RUNTIME_DIR`, a project with a
//! `.hookwire/` marker), with one daemon the harness starts before measuring and shuts down
//! after, checking that it and its hook processes are gone.

use std::{
    io::{BufRead, BufReader, Write},
    os::unix::{
        fs::PermissionsExt,
        net::{UnixListener, UnixStream},
    },
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::{
    Error, Plan,
    claude::{Scratch, alternate_processes, expect_silent, hookwire_path, pre_tool_use, run_with_stdin},
    report::{Row, Target},
};

/// How long the daemon may take to listen, and to exit once asked to.
const PATIENCE: Duration = Duration::from_secs(10);

/// A project with its own `HOME` and `XDG_RUNTIME_DIR`, so the daemon the harness starts is
/// the only one serving it and nothing of the user's configuration is read.
#[derive(Debug)]
struct Sandbox {
    scratch: Scratch,
}

impl Sandbox {
    fn new(tag: &str) -> Result<Self, Error> {
        let scratch = Scratch::new(tag)?;
        for dir in ["project/.hookwire", "home/.config", "run", "conf"] {
            std::fs::create_dir_all(scratch.path().join(dir))?;
        }
        std::fs::set_permissions(scratch.path().join("run"), std::fs::Permissions::from_mode(0o700))?;
        Ok(Sandbox { scratch })
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.scratch.path().join(relative)
    }

    fn project(&self) -> PathBuf {
        self.path("project")
    }

    /// `command` in the project with the sandbox's environment only.
    fn prepare<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        command
            .current_dir(self.project())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("home/.config"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("CLAUDE_PROJECT_DIR", self.project())
            // Should the harness die without shutting it down, the daemon leaves on its own.
            .env("HOOKWIRE_IDLE_TIMEOUT", "60")
    }

    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        self.prepare(&mut command);
        command
    }
}

/// `hookwire serve` for a sandbox's project, started by the harness and shut down by it.
#[derive(Debug)]
struct Daemon {
    child: Option<Child>,
    socket: PathBuf,
    log: PathBuf,
}

impl Daemon {
    /// Starts the daemon and waits until it answers on its socket.
    fn start(hookwire: &Path, sandbox: &Sandbox) -> Result<Self, Error> {
        let output = sandbox.command(hookwire).args(["serve", "--print-socket"]).output()?;
        let socket = PathBuf::from(String::from_utf8(output.stdout)?.trim());
        if !output.status.success() || !socket.is_absolute() {
            return Err(format!(
                "`hookwire serve --print-socket` failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            )
            .into());
        }
        let log = socket.with_extension("log");
        let child = sandbox
            .command(hookwire)
            .arg("serve")
            .arg("--root")
            .arg(sandbox.project())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let mut daemon = Daemon { child: Some(child), socket, log };
        let until = Instant::now() + PATIENCE;
        loop {
            if daemon.call("stats", json!({})).is_ok() {
                return Ok(daemon);
            }
            if let Some(child) = daemon.child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                daemon.child = None;
                return Err(format!("`hookwire serve` exited with {status}: {}", daemon.log_text()).into());
            }
            if Instant::now() > until {
                return Err(
                    format!("`hookwire serve` did not listen within {PATIENCE:?}: {}", daemon.log_text()).into()
                );
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_else(|e| format!("(no log at {}: {e})", self.log.display()))
    }

    /// One request on a connection of its own; its result.
    fn call(&self, method: &str, params: Value) -> Result<Value, Error> {
        let mut stream = UnixStream::connect(&self.socket)?;
        stream.set_read_timeout(Some(PATIENCE))?;
        let mut line = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))?;
        line.push(b'\n');
        stream.write_all(&line)?;
        let mut answer = String::new();
        BufReader::new(&stream).read_line(&mut answer)?;
        let mut answer: Value = serde_json::from_str(&answer)?;
        match answer.get_mut("result") {
            Some(result) => Ok(result.take()),
            None => Err(format!("the daemon refused `{method}`: {answer}").into()),
        }
    }

    /// The requests the daemon has answered.
    fn requests(&self) -> Result<u64, Error> {
        self.call("stats", json!({}))?["requests"].as_u64().ok_or_else(|| "`stats` without `requests`".into())
    }

    /// Asks the daemon to stop, waits for it, and checks that the hook processes it ran (its
    /// children) are gone too.
    fn shut_down(mut self) -> Result<(), Error> {
        let children = self.pid().map(children_of).unwrap_or_default();
        self.call("shutdown", json!({}))?;
        let mut child = self.child.take().ok_or("the daemon was not running")?;
        let until = Instant::now() + PATIENCE;
        while child.try_wait()?.is_none() {
            if Instant::now() > until {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("the daemon did not exit within {PATIENCE:?} of `shutdown`; killed").into());
            }
            thread::sleep(Duration::from_millis(5));
        }
        let left: Vec<u32> = children.into_iter().filter(|pid| is_alive(*pid)).collect();
        if !left.is_empty() {
            return Err(format!("hook processes {left:?} outlived their daemon").into());
        }
        Ok(())
    }
}

impl Drop for Daemon {
    /// On an error path: stop the daemon the hard way (its hooks see their stdin close).
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = self.call("shutdown", json!({}));
            thread::sleep(Duration::from_millis(200));
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The children of `pid` (of all its threads), from `/proc`.
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| text.split_whitespace().filter_map(|n| n.parse().ok()).collect::<Vec<u32>>())
        .collect()
}

/// Whether `pid` is a live process (a zombie is not: it has exited and waits to be reaped).
fn is_alive(pid: u32) -> bool {
    let until = Instant::now() + PATIENCE;
    loop {
        let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| stat.rsplit_once(')').map(|(_, rest)| rest.trim_start().starts_with(|c| c != 'Z')))
            .unwrap_or(false);
        if !alive || Instant::now() > until {
            return alive;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// `hookwire hook claude` through a warm daemon with one no-op process hook (`echo_hook` as a
/// PicoClaw process hook on `before_tool`), as a whole process, against `/bin/true` with the
/// same stdin.
pub(crate) fn bridge_rows(plan: &Plan, echo: &str) -> Result<Vec<Row>, Error> {
    let hookwire = hookwire_path()?;
    let sandbox = Sandbox::new("daemon-bridge")?;
    let config = sandbox.path("conf/picoclaw.json");
    std::fs::write(
        &config,
        serde_json::to_vec_pretty(&json!({"hooks": {"processes": {"echo": {
            "enabled": true,
            "command": [echo],
            "intercept": ["before_tool"],
        }}}}))?,
    )?;
    let (_, line) = pre_tool_use(&sandbox.project())?;
    let bridge = || {
        let mut command = sandbox.command(&hookwire);
        command.args(["hook", "claude", "--no-default-config", "--config"]).arg(&config);
        command
    };
    let bare = || sandbox.command("/bin/true");
    let name = format!(
        "`hookwire hook claude --no-default-config --config <picoclaw.json>`, PreToolUse, {} B on stdin, through a \
         warm daemon, one no-op process hook (echo_hook) (whole process) vs `/bin/true` with the same stdin",
        line.len()
    );

    let daemon = Daemon::start(&hookwire, &sandbox)?;
    // The first call through the daemon loads the configuration there and starts the hook.
    expect_silent(&name, run_with_stdin(&mut bridge(), &line))?;
    run_with_stdin(&mut bare(), &line)?;
    if children_of(daemon.pid().unwrap_or(0)).is_empty() {
        return Err(format!("{name}: the daemon runs no hook process after the first call").into());
    }
    let requests_before = daemon.requests()?;

    let (warmup, pairs) = (plan.pick(10, 3), plan.pick(300, 30));
    let times = alternate_processes((warmup, pairs), &name, &line, bridge, bare);
    // Every measured call was answered by the daemon, not in the bridge's own process (the
    // `stats` call itself is one more request).
    let answered = daemon.requests()?.saturating_sub(requests_before + 1);
    daemon.shut_down()?;
    let times = times?;
    let calls = (warmup + pairs) as u64;
    if answered != calls {
        return Err(format!("{name}: the daemon answered {answered} of the {calls} bridge calls").into());
    }
    Ok(vec![Row::new(name, times, Target::RatioAtMost(2.5))])
}

/// The driver the Python process runs: `HookwireClient` of `examples/python_client.py` against
/// the daemon, and the same class, with the same `call` (json.dumps, write, flush, readline,
/// json.loads), against the echo server; A B A B, each round trip timed on its own; the times
/// (seconds) as one JSON object on stdout.
const DRIVER: &str = r#"
import json, sys, time
examples, hookwire, echo_socket, warmup, pairs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
sys.path.insert(0, examples)
from python_client import HookwireClient

daemon = HookwireClient(hookwire=hookwire)
echo = HookwireClient.__new__(HookwireClient)
echo.hookwire, echo.cwd, echo.path, echo.next_id = hookwire, daemon.cwd, echo_socket, 1
echo.sock = echo._open()
echo.stream = echo.sock.makefile("rwb")

event = "pre_tool_execution"
context = {"tool_name": "Bash", "tool_arguments": {"command": "ls -la src", "description": "List the sources"},
           "tool_call_id": "toolu_01ABCDEFGHJKMNPQRSTVWXYZ", "session_id": "5c3e8f1a-2b4d-4c6e-9f70-81a2b3c4d5e6"}
clock = time.perf_counter
a, b = [], []
for round in range(warmup + pairs):
    started = clock()
    outcome = daemon.fire(event, context)
    middle = clock()
    echoed = echo.fire(event, context)
    ended = clock()
    if outcome.get("event") != event or outcome.get("trace") != [] or echoed.get("event") != event:
        raise SystemExit(f"unexpected answers: {outcome!r} / {echoed!r}")
    if round >= warmup:
        a.append(middle - started)
        b.append(ended - middle)
daemon.close()
echo.close()
print(json.dumps({"a": a, "b": b, "reply_bytes": len(json.dumps(outcome)), "echo_bytes": len(json.dumps(echoed))}))
"#;

/// A newline-delimited JSON-RPC echo server on a Unix socket, in Rust std (a thread per
/// connection): each request line is parsed and answered with its own `params` as the result.
#[derive(Debug)]
struct EchoServer {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl EchoServer {
    fn start(path: PathBuf) -> Result<Self, Error> {
        let listener = UnixListener::bind(&path)?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    thread::spawn(move || echo_connection(stream));
                }
            }
        });
        Ok(EchoServer { path, stop, thread: Some(thread) })
    }
}

impl Drop for EchoServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees `stop`.
        let _ = UnixStream::connect(&self.path);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

fn echo_connection(stream: UnixStream) {
    let mut writer = &stream;
    let mut reader = BufReader::new(&stream);
    let mut line = Vec::new();
    let mut answer = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let Ok(mut request) = serde_json::from_slice::<Value>(&line) else { return };
        let response = json!({"jsonrpc": "2.0", "id": request["id"].take(), "result": request["params"].take()});
        answer.clear();
        if serde_json::to_writer(&mut answer, &response).is_err() {
            return;
        }
        answer.push(b'\n');
        if writer.write_all(&answer).is_err() {
            return;
        }
    }
}

/// A `fire` with no hooks configured over the daemon's socket from the Python client, against
/// the same client code against a bare JSON echo server; one long-lived Python process.
pub(crate) fn python_client_rows(plan: &Plan, python: &str) -> Result<Vec<Row>, Error> {
    let hookwire = hookwire_path()?;
    let client = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples");
    if !client.join("python_client.py").is_file() {
        return Err(format!("{} is missing", client.join("python_client.py").display()).into());
    }
    let sandbox = Sandbox::new("daemon-python")?;
    let driver = sandbox.path("driver.py");
    std::fs::write(&driver, DRIVER)?;
    let echo = EchoServer::start(sandbox.path("echo.sock"))?;
    let daemon = Daemon::start(&hookwire, &sandbox)?;
    let requests_before = daemon.requests()?;
    let (warmup, pairs) = (plan.pick(200, 20), plan.pick(5000, 300));
    let output = sandbox
        .command(python)
        .arg(&driver)
        .arg(&client)
        .arg(&hookwire)
        .arg(&echo.path)
        .arg(warmup.to_string())
        .arg(pairs.to_string())
        .stdin(Stdio::null())
        .output()?;
    let answered = daemon.requests()?.saturating_sub(requests_before + 1);
    daemon.shut_down()?;
    drop(echo);
    if !output.status.success() {
        return Err(format!(
            "the Python driver failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )
        .into());
    }
    let report: Value = serde_json::from_slice(&output.stdout)?;
    let times = |side: &str| -> Result<Vec<f64>, Error> {
        report[side]
            .as_array()
            .ok_or("the driver's report has no times")?
            .iter()
            .map(|t| t.as_f64().ok_or_else(|| Error::from("a time that is not a number")))
            .collect()
    };
    let (a, b) = (times("a")?, times("b")?);
    if answered != (warmup + pairs) as u64 || a.len() != pairs || b.len() != pairs {
        return Err(format!(
            "the daemon answered {answered} fires, {} expected; {} / {} times",
            warmup + pairs,
            a.len(),
            b.len()
        )
        .into());
    }
    let name = format!(
        "Python client (examples/python_client.py) `fire` over the daemon's socket, no hooks ({} B reply) vs the same \
         client against a bare JSON echo server in Rust std ({} B reply), one Python process ({python})",
        report["reply_bytes"], report["echo_bytes"]
    );
    Ok(vec![Row::new(name, (a, b), Target::RatioAtMost(1.5))])
}
