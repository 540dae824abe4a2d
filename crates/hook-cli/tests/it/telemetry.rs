//! OpenTelemetry export (docs/telemetry.md) against a local OTLP/HTTP receiver: a small HTTP
//! server on 127.0.0.1 that records the path and body of every POST and answers 200.

use std::{
    fs,
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    ops::Deref,
    os::unix::{fs::PermissionsExt, net::UnixStream},
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::{Arc, Mutex},
    thread,
    time::{Duration, Instant},
};

use serde_json::json;

use crate::common::Scratch;

/// How long any wait of these tests may last before it fails.
const PATIENCE: Duration = Duration::from_secs(15);

/// The hook's id, as hookwire names it.
const HOOK_ID: &str = "user:no-rm-rf:pre_tool_execution";

/// Recorded requests: path and body.
type Requests = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// The OTLP/HTTP receiver: every POST's path and body, in arrival order.
#[derive(Clone, Default)]
struct Receiver {
    requests: Requests,
    port: u16,
}

impl Receiver {
    fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let receiver = Receiver { port: listener.local_addr().unwrap().port(), ..Receiver::default() };
        let requests = receiver.requests.clone();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let requests = requests.clone();
                thread::spawn(move || serve(stream, &requests));
            }
        });
        receiver
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn bodies(&self, path: &str) -> Vec<Vec<u8>> {
        self.requests.lock().unwrap().iter().filter(|(p, _)| p == path).map(|(_, b)| b.clone()).collect()
    }

    fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }

    /// Waits until a request to `path` whose body contains every one of `needles` arrived.
    fn wait_for(&self, path: &str, needles: &[&str]) -> Vec<u8> {
        let until = Instant::now() + PATIENCE;
        loop {
            if let Some(body) = self.bodies(path).into_iter().find(|b| needles.iter().all(|n| contains(b, n))) {
                return body;
            }
            assert!(Instant::now() < until, "no {path} request with {needles:?}; got {:?}", self.paths());
            thread::sleep(Duration::from_millis(50));
        }
    }

    fn paths(&self) -> Vec<String> {
        self.requests.lock().unwrap().iter().map(|(p, _)| p.clone()).collect()
    }
}

/// Answers the HTTP/1.1 requests of one connection.
fn serve(stream: TcpStream, requests: &Mutex<Vec<(String, Vec<u8>)>>) {
    let _ = stream.set_read_timeout(Some(PATIENCE));
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or_default().to_owned();
        let mut length = 0;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        requests.lock().unwrap().push((path, body));
        let answer = "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// A directory with a bash hook configuration (`guard.yaml`), a `home/` and a `run/`.
struct Sandbox(Scratch);

impl Deref for Sandbox {
    type Target = Scratch;

    fn deref(&self) -> &Scratch {
        &self.0
    }
}

impl Sandbox {
    fn new() -> Sandbox {
        let scratch = Scratch::new("telemetry");
        let root = scratch.root().to_path_buf();
        for dir in ["project/.hookwire", "home", "run"] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        fs::set_permissions(root.join("run"), fs::Permissions::from_mode(0o700)).unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/telemetry/guard.yaml");
        fs::copy(fixture, root.join("guard.yaml")).unwrap();
        Sandbox(scratch)
    }

    fn config(&self) -> String {
        self.root().join("guard.yaml").display().to_string()
    }

    /// `hookwire ARGS` in the project, with the sandbox's environment and `env` only.
    fn hookwire(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookwire"));
        command
            .args(args)
            .current_dir(self.root().join("project"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root().join("home"))
            .env("XDG_CONFIG_HOME", self.root().join("home/.config"))
            .env("XDG_RUNTIME_DIR", self.root().join("run"))
            .env("HOOKWIRE_IDLE_TIMEOUT", "30");
        for (name, value) in env {
            command.env(name, value);
        }
        command
    }

    /// `hookwire fire pre_tool_execution` of a tool call whose input carries `user_input`.
    fn fire(&self, env: &[(&str, &str)], user_input: &str) -> (Output, Duration) {
        let config = self.config();
        let mut command = self.hookwire(
            &["fire", "pre_tool_execution", "--no-default-config", "--config", &config, "--context", "-"],
            env,
        );
        let context = json!({
            "tool_name": "Bash",
            "tool_arguments": {"command": "rm -rf /"},
            "user_input": user_input,
        });
        let started = Instant::now();
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        child.stdin.take().unwrap().write_all(context.to_string().as_bytes()).unwrap();
        let output = child.wait_with_output().unwrap();
        (output, started.elapsed())
    }
}

fn assert_skipped(output: &Output) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("\"action\":\"skip\""), "{stdout}");
}

#[test]
fn fire_exports_a_trace_with_the_hook_and_the_event_but_not_the_context() {
    let receiver = Receiver::start();
    let sandbox = Sandbox::new();
    let secret = "distinctive-user-input-4711";
    let (output, _) = sandbox.fire(&[("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.endpoint())], secret);
    assert_skipped(&output);
    // Flushed before the process exits: the request is there once `fire` returned.
    let body = receiver.wait_for("/v1/traces", &[HOOK_ID, "pre_tool_execution", "hookwire.fire", "skip"]);
    assert!(contains(&body, "hookwire.hook.attempts"), "{}", String::from_utf8_lossy(&body));
    for body in receiver.bodies("/v1/traces") {
        assert!(!contains(&body, secret), "the context payload was exported");
        assert!(!contains(&body, "rm -rf"), "the tool arguments were exported");
    }
}

#[test]
fn payloads_are_exported_when_asked_for() {
    let receiver = Receiver::start();
    let sandbox = Sandbox::new();
    let secret = "distinctive-user-input-0815";
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()), ("HOOKWIRE_OTEL_PAYLOADS", "1".into())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (output, _) = sandbox.fire(&env, secret);
    assert_skipped(&output);
    receiver.wait_for("/v1/traces", &[HOOK_ID, secret]);
}

#[test]
fn nothing_is_sent_without_the_variable() {
    let receiver = Receiver::start();
    let sandbox = Sandbox::new();
    // The receiver's address is in the environment, under names that do not turn export on.
    let (output, _) = sandbox.fire(&[("OTLP_ENDPOINT_UNUSED", &receiver.endpoint())], "x");
    assert_skipped(&output);
    thread::sleep(Duration::from_millis(300));
    assert_eq!(receiver.count(), 0, "{:?}", receiver.paths());
}

#[test]
fn a_collector_that_is_down_neither_slows_nor_fails_fire() {
    // A port nothing listens on: bound, then closed.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let sandbox = Sandbox::new();
    let endpoint = format!("http://127.0.0.1:{port}");
    let (output, elapsed) = sandbox.fire(&[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)], "x");
    assert_skipped(&output);
    assert!(elapsed < Duration::from_secs(3), "fire took {elapsed:?} with the collector down");
}

#[test]
fn the_daemon_exports_its_fires_and_its_per_hook_metrics() {
    let receiver = Receiver::start();
    let sandbox = Sandbox::new();
    let env =
        [("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()), ("HOOKWIRE_OTEL_METRICS_INTERVAL_MS", "200".into())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let socket = sandbox.hookwire(&["serve", "--print-socket"], &env).output().unwrap();
    let socket = PathBuf::from(String::from_utf8(socket.stdout).unwrap().trim());
    let mut daemon = sandbox.hookwire(&["serve"], &env).stderr(Stdio::null()).spawn().unwrap();
    let until = Instant::now() + PATIENCE;
    let mut stream = loop {
        if let Ok(stream) = UnixStream::connect(&socket) {
            break stream;
        }
        assert!(Instant::now() < until, "the daemon does not listen on {}", socket.display());
        thread::sleep(Duration::from_millis(20));
    };
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "fire", "params": {
        "event": "pre_tool_execution",
        "context": {"tool_name": "Bash", "tool_arguments": {"command": "rm -rf /"}},
        "configs": [sandbox.config()],
        "no_default_config": true,
    }});
    stream.write_all(format!("{request}\n").as_bytes()).unwrap();
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line).unwrap();
    assert!(line.contains("\"skip\""), "{line}");

    receiver.wait_for("/v1/traces", &[HOOK_ID, "pre_tool_execution"]);
    receiver.wait_for("/v1/metrics", &["hookwire.hook.executions", "hookwire.hook.time", HOOK_ID]);

    let shutdown = json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"});
    let _ = stream.write_all(format!("{shutdown}\n").as_bytes());
    let until = Instant::now() + PATIENCE;
    while daemon.try_wait().unwrap().is_none() {
        if Instant::now() > until {
            let _ = daemon.kill();
            panic!("the daemon did not stop");
        }
        thread::sleep(Duration::from_millis(20));
    }
}
