//! Claude Code family rows: a Claude Code `command` hook loaded from a `settings.json` and run
//! through the Engine against the same command spawned by hand (tokio) with the same stdin, and
//! the bridge (`hookwire hook claude`, the release binary) as a whole process with nothing to
//! run against `/bin/true` fed the same stdin.
//!
//! Both bare sides do what any host must: the command row's serializes the hook input (from a
//! JSON value it already holds) and reads the command's output; the bridge row's writes the
//! same bytes and reads both outputs.

use std::{
    io::{ErrorKind, Write},
    path::{Path, PathBuf},
    process::Stdio,
    sync::Arc,
    time::Instant,
};

use hook_agents::{hook_input, input_line};
use hook_bash::{AgentCommandFactory, AgentCommandOptions};
use hook_config::{self as config, ConfigSource};
use hook_core::{Context, Deadlines, Engine, Event, Level};
use hook_protocol::Agent;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::{
    Error, Plan,
    report::{Row, Target, since},
};

/// The hook's command: reads its stdin, prints nothing (no decision), as a logging or auditing
/// guard does on the calls it lets through.
const COMMAND: &str = "cat > /dev/null";

/// The size of the hook input line (compact JSON and its newline) both rows feed.
const INPUT_BYTES: usize = 1 << 10;

/// The shell the engine runs a command hook with (hook-bash uses `/bin/sh` when it exists).
const SHELL: &str = "/bin/sh";

/// A scratch directory (the project of the hooks), removed on drop.
#[derive(Debug)]
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    pub(crate) fn new(tag: &str) -> Result<Self, Error> {
        let dir = std::env::temp_dir().join(format!("hookwire-compare-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `settings` (a Claude Code settings object) to `name` in the directory.
    fn settings(&self, name: &str, settings: &Value) -> Result<PathBuf, Error> {
        let path = self.0.join(name);
        std::fs::write(&path, serde_json::to_vec_pretty(settings)?)?;
        Ok(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A Bash tool call in `project` whose Claude Code hook input line is exactly [`INPUT_BYTES`]
/// long; the context and that line.
pub(crate) fn pre_tool_use(project: &Path) -> Result<(Context, Vec<u8>), Error> {
    let context_with = |padding: usize| Context {
        session_id: Some("5c3e8f1a-2b4d-4c6e-9f70-81a2b3c4d5e6".into()),
        cwd: Some(project.display().to_string()),
        tool_name: Some("Bash".into()),
        tool_arguments: Some(
            json!({ "command": format!("echo {}", "x".repeat(padding)), "description": "Print a long line" })
                .to_string(),
        ),
        tool_call_id: Some("toolu_01ABCDEFGHJKMNPQRSTVWXYZ".into()),
        extra: [
            ("transcript_path".to_owned(), json!(project.join("transcript.jsonl").display().to_string())),
            ("permission_mode".to_owned(), json!("default")),
        ]
        .into_iter()
        .collect(),
        ..Context::default()
    };
    let line_of = |context: &Context| input_line(&hook_input(Agent::Claude, Event::PreToolExecution, context));
    let unpadded = line_of(&context_with(0)).len();
    let padding = INPUT_BYTES.checked_sub(unpadded).ok_or("the unpadded hook input is over 1 KiB")?;
    let context = context_with(padding);
    let line = line_of(&context);
    if line.len() != INPUT_BYTES {
        return Err(format!("the hook input is {} bytes, not {INPUT_BYTES}", line.len()).into());
    }
    Ok((context, line))
}

/// `sh -c COMMAND` spawned with tokio, `payload` on stdin, waited for, both outputs read.
async fn bare_command(payload: &[u8]) -> Result<Vec<u8>, Error> {
    let mut child = tokio::process::Command::new(SHELL)
        .arg("-c")
        .arg(COMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    stdin.write_all(payload).await?;
    drop(stdin);
    let output = child.wait_with_output().await?;
    if !output.status.success() {
        return Err(format!("bare `{COMMAND}` exited with {}", output.status).into());
    }
    Ok(output.stdout)
}

/// The Claude Code command hook through the Engine against the same command run bare.
pub(crate) async fn command_rows(plan: &Plan) -> Result<Vec<Row>, Error> {
    let scratch = Scratch::new("claude-command")?;
    let settings = scratch.settings(
        "settings.json",
        &json!({ "hooks": { "PreToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": COMMAND } ] }
        ] } }),
    )?;
    let loaded =
        config::load(&[ConfigSource::agent(&settings, Level::User, Agent::Claude)], Deadlines::default(), None);
    if !loaded.errors.is_empty() || loaded.specs.len() != 1 {
        return Err(format!(
            "{}: expected one hook, got {} (errors: {})",
            settings.display(),
            loaded.specs.len(),
            loaded.errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
        )
        .into());
    }
    let options = AgentCommandOptions {
        project_dir: Some(scratch.path().to_path_buf()),
        state_dir: Some(scratch.path().join("state")),
        ..AgentCommandOptions::default()
    };
    let engine = Engine::builder().factory(Arc::new(AgentCommandFactory::new(options))).build();
    engine
        .replace_level(Level::User, loaded.specs)
        .await
        .map_err(|errors| errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))?;

    let (mut context, line) = pre_tool_use(scratch.path())?;
    // The bare side's stdin: the same hook input, held as a value and serialized each time.
    let value: Value = serde_json::from_slice(&line)?;
    let serialize = |value: &Value| -> Result<Vec<u8>, Error> {
        let mut payload = serde_json::to_vec(value)?;
        payload.push(b'\n');
        Ok(payload)
    };
    let name = format!(
        "Claude Code command hook `{COMMAND}` from settings.json, PreToolUse, {} B input, through the Engine vs \
         bare `sh -c` (tokio::process)",
        line.len()
    );
    let fired = engine.fire(Event::PreToolExecution, &mut context).await;
    match fired.trace.as_slice() {
        [entry] if entry.error.is_none() => {}
        [entry] => return Err(format!("{name}: the hook failed: {:?}", entry.error).into()),
        trace => return Err(format!("{name}: expected one hook to run, {} ran", trace.len()).into()),
    }
    bare_command(&serialize(&value)?).await?;

    let mut failures = 0usize;
    let mut bare_error: Option<Error> = None;
    let times = crate::alternate!(
        plan.pick(5, 2),
        plan.pick(1000, 40),
        {
            let started = Instant::now();
            let outcome = engine.fire(Event::PreToolExecution, &mut context).await;
            let took = since(started);
            if outcome.trace.len() != 1 || outcome.trace.iter().any(|t| t.error.is_some()) {
                failures += 1;
            }
            took
        },
        {
            let started = Instant::now();
            let result = match serialize(&value) {
                Ok(payload) => bare_command(&payload).await,
                Err(e) => Err(e),
            };
            let took = since(started);
            if let Err(e) = result {
                bare_error.get_or_insert(e);
            }
            took
        },
    );
    engine.shutdown().await;
    if let Some(e) = bare_error {
        return Err(e);
    }
    if failures > 0 {
        return Err(format!("{name}: {failures} fires failed").into());
    }
    Ok(vec![Row::new(name, times, Target::RatioAtMost(1.05))])
}

/// `target/release/hookwire`, next to this binary.
pub(crate) fn hookwire_path() -> Result<PathBuf, Error> {
    let exe = std::env::current_exe()?;
    let path = exe.parent().ok_or("the harness binary has no directory")?.join("hookwire");
    if !path.exists() {
        return Err(format!(
            "{} is missing; build it first: `cargo build --release -p hook-cli --bin hookwire` \
             (`cargo xtask bench` does)",
            path.display()
        )
        .into());
    }
    Ok(path)
}

/// Runs `command` with `payload` on stdin, waits for it and reads both outputs; (exit success,
/// stdout, stderr). A child that exits before reading its stdin is not an error.
pub(crate) fn run_with_stdin(
    command: &mut std::process::Command,
    payload: &[u8],
) -> Result<(bool, Vec<u8>, Vec<u8>), Error> {
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    match stdin.write_all(payload) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => return Err(e.into()),
        _ => {}
    }
    drop(stdin);
    let output = child.wait_with_output()?;
    Ok((output.status.success(), output.stdout, output.stderr))
}

/// `hookwire hook claude` with nothing to run on the event, as a whole process, against
/// `/bin/true` with the same stdin.
pub(crate) fn bridge_rows(plan: &Plan) -> Result<Vec<Row>, Error> {
    let hookwire = hookwire_path()?;
    let scratch = Scratch::new("claude-bridge")?;
    // A settings file whose only hook is on Stop: the bridge reads and checks it, and finds
    // nothing to run on PreToolUse.
    let settings = scratch.settings(
        "stop-only.json",
        &json!({ "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "true" } ] } ] } }),
    )?;
    let (_, line) = pre_tool_use(scratch.path())?;
    let bridge = || {
        let mut command = std::process::Command::new(&hookwire);
        command
            .args(["hook", "claude", "--no-default-config", "--settings"])
            .arg(&settings)
            .current_dir(scratch.path())
            .env_remove("RUST_LOG");
        command
    };
    let bare = || std::process::Command::new("/bin/true");
    let name = format!(
        "`hookwire hook claude --no-default-config --settings <Stop-only file>`, PreToolUse, {} B on stdin, \
         nothing to run (whole process) vs `/bin/true` with the same stdin",
        line.len()
    );
    expect_silent(&name, run_with_stdin(&mut bridge(), &line))?;
    run_with_stdin(&mut bare(), &line)?;
    let times = alternate_processes((plan.pick(10, 3), plan.pick(300, 30)), &name, &line, bridge, bare)?;
    Ok(vec![Row::new(name, times, Target::RatioAtMost(3.0))])
}

/// A whole-process run of the bridge as the rows expect it: exit 0 and no output, else an
/// error naming the row.
pub(crate) fn expect_silent(name: &str, result: Result<(bool, Vec<u8>, Vec<u8>), Error>) -> Result<(), Error> {
    let (ok, stdout, stderr) = result?;
    if !ok || !stdout.is_empty() || !stderr.is_empty() {
        return Err(format!(
            "{name}: expected exit 0 and no output; success: {ok}, stdout: {:?}, stderr: {:?}",
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(&stderr)
        )
        .into());
    }
    Ok(())
}

/// `bridge` and `bare` run as whole processes with `line` on stdin, alternately, `warmup`
/// unrecorded pairs then `pairs` recorded ones; every bridge run must be silent
/// ([`expect_silent`]). The first error of either side fails the row after the loop.
pub(crate) fn alternate_processes(
    (warmup, pairs): (usize, usize),
    name: &str,
    line: &[u8],
    bridge: impl Fn() -> std::process::Command,
    bare: impl Fn() -> std::process::Command,
) -> Result<(Vec<f64>, Vec<f64>), Error> {
    let mut error: Option<Error> = None;
    let times = crate::alternate!(
        warmup,
        pairs,
        {
            let started = Instant::now();
            let result = run_with_stdin(&mut bridge(), line);
            let took = since(started);
            if let Err(e) = expect_silent(name, result) {
                error.get_or_insert(e);
            }
            took
        },
        {
            let started = Instant::now();
            let result = run_with_stdin(&mut bare(), line);
            let took = since(started);
            if let Err(e) = result {
                error.get_or_insert(e);
            }
            took
        },
    );
    match error {
        Some(e) => Err(e),
        None => Ok(times),
    }
}
