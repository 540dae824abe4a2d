//! `hookwire hook claude|gemini|codex|copilot`: hookwire as ONE hook of an agent. It reads the agent's
//! hook input on stdin, fires the event through every configured hook of every dialect, and
//! answers with the exit code, stdout and stderr from which the agent concludes the combined
//! decision.
//!
//! When the project's daemon (`hookwire serve`) runs, the event is fired there, through hooks
//! that stay up between calls; a configuration with a process hook starts the daemon on first
//! use. Otherwise, and whenever the daemon cannot be reached, the event is fired in this process;
//! a daemon that had the request and stopped answering gets a refusal (no hook runs twice).
//! Both paths compute the answer with the same functions of this module.
//!
//! The warm path — a daemon already listening — is the one an agent pays on every event, so it
//! runs before any async runtime exists: one blocking connect, the hook input sent as the
//! daemon's `fire` params without reading the configuration (the daemon has it), one answer
//! line read and written out.
//!
//! Copilot CLI's input names no event: `--event <name>` names it (install writes one entry per
//! event), else it is inferred from the input's members; the bridge writes it into the input as
//! `hook_event_name` before anything else reads it, so the daemon reads the same. A failure of
//! the bridge itself is exit 0 with `{}` for Copilot, which denies a tool call on any non-zero
//! exit (see `hook_agents::copilot_failure_answer`).

use std::{
    collections::BTreeMap,
    io::{Read, Write},
    path::{Path, PathBuf},
    time::Instant,
};

use clap::Args;
use hook_agents::{BridgeAnswer, answer_as, context_from_input, failure_answer_as};
use hook_core::{Action, Context, Engine, capability};
use hook_host::{Host, HostBuilder};
use hook_protocol::{
    Agent, Event,
    daemon::{BridgeResult, FireParams, Method, Selection, codes},
    jsonrpc::{Id, Request},
    serde_json::{self, Value},
};

use crate::{
    ConfigArgs,
    daemon::{self, CallError, ConnectError, DaemonPaths},
    engine::{self, LoadedConfig},
    held_back,
};

/// The largest hook input read from stdin.
const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Environment variables a bridge call hands the daemon (see [`Selection::env`]).
pub(crate) const CALL_ENV: [&str; 3] = ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CLAUDE_ENV_FILE"];

#[derive(Debug, Args)]
pub(crate) struct HookArgs {
    /// The agent calling: `claude`, `gemini`, `codex` or `copilot`.
    agent: Agent,
    /// Copilot CLI: the event this entry is registered for (`preToolUse`, ...), since Copilot's
    /// input does not name it; without it the event is inferred from the input.
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    /// Also load this settings file of the agent (its `hooks` section), at user level
    /// (repeatable).
    #[arg(long = "settings", value_name = "FILE")]
    settings: Vec<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Fire in this process, never through the project's daemon (also `HOOKWIRE_NO_DAEMON=1`).
    #[arg(long)]
    no_daemon: bool,
}

impl HookArgs {
    /// The arguments after `hookwire hook`, read without clap when they are the plain words an
    /// agent's settings hold (`claude --config FILE`, as `hookwire install` writes them): the
    /// agent, then `--settings FILE` and `--config FILE` (repeatable, a value that is not empty
    /// and does not start with `-`), `--no-default-config` and `--no-daemon` (once each), `-v`,
    /// `-vv` or `--verbose`. `None` for anything else (`--help`, `--config=FILE`, an unknown
    /// agent or flag, a repeated switch, words that are not UTF-8), which clap then parses and
    /// reports; whatever this accepts, clap reads the same way. Also the `-v` count.
    pub(crate) fn from_plain_words(words: &[std::ffi::OsString]) -> Option<(u8, HookArgs)> {
        let mut words = words.iter().map(|word| word.to_str());
        let agent: Agent = words.next()??.parse().ok()?;
        let mut args = HookArgs {
            agent,
            event: None,
            settings: Vec::new(),
            config: ConfigArgs { configs: Vec::new(), no_default_config: false },
            no_daemon: false,
        };
        let mut verbose = 0u8;
        while let Some(word) = words.next() {
            let word = word?;
            let mut value =
                || words.next().flatten().filter(|v| !v.is_empty() && !v.starts_with('-')).map(PathBuf::from);
            match word {
                "--settings" => args.settings.push(value()?),
                "--event" if args.event.is_none() => {
                    args.event =
                        Some(words.next().flatten().filter(|v| !v.is_empty() && !v.starts_with('-'))?.to_owned());
                }
                "--config" => args.config.configs.push(value()?),
                "--no-default-config" if !args.config.no_default_config => args.config.no_default_config = true,
                "--no-daemon" if !args.no_daemon => args.no_daemon = true,
                "--verbose" => verbose = verbose.checked_add(1)?,
                _ if word.len() > 1 && word.starts_with('-') && word[1..].bytes().all(|b| b == b'v') => {
                    verbose = verbose.checked_add(u8::try_from(word.len() - 1).ok()?)?;
                }
                _ => return None,
            }
        }
        Some((verbose, args))
    }
}

/// The project directory the agent names (`CLAUDE_PROJECT_DIR`, Gemini's `GEMINI_PROJECT_DIR`),
/// read through `var`.
pub(crate) fn project_dir_in(agent: Agent, var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let vars: &[&str] = match agent {
        Agent::Gemini => &["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
        Agent::Claude | Agent::Codex => &["CLAUDE_PROJECT_DIR"],
        Agent::Copilot => &["COPILOT_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
    };
    vars.iter().find_map(|name| var(name).filter(|v| !v.is_empty())).map(PathBuf::from)
}

/// Whether hookwire is installed as Copilot CLI's own hook (`hookwire hook copilot` in one of
/// the hook files Copilot reads: the project's `.github/hooks/*.json` and Copilot settings, the
/// user's `$COPILOT_HOME/hooks/*.json` and `settings.json`).
fn copilot_bridge_installed() -> bool {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let start = project_dir(Agent::Copilot).unwrap_or(cwd);
    let home = std::env::var_os("COPILOT_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|home| PathBuf::from(home).join(".copilot"))
    });
    let mut files = Vec::new();
    let mut json_files_in = |dir: &Path| {
        if let Ok(entries) = std::fs::read_dir(dir) {
            files.extend(entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")));
        }
    };
    for root in start.ancestors() {
        json_files_in(&root.join(".github/hooks"));
        json_files_in(&root.join(".github/copilot"));
    }
    if let Some(home) = &home {
        json_files_in(&home.join("hooks"));
        files.push(home.join("settings.json"));
    }
    files.iter().any(|file| std::fs::read_to_string(file).is_ok_and(|text| text.contains("hook copilot")))
        || home.is_some_and(|home| copilot_plugin_enabled(&home))
}

/// Whether hookwire's Copilot plugin is installed and enabled in Copilot's home: a plugin
/// installed from a marketplace is `enabledPlugins["hookwire@<marketplace>"]: true` in its
/// `settings.json`; one installed from a directory is listed under `installedPlugins` in its
/// `config.json`. The plugin's hooks run `hookwire hook copilot` for every event.
fn copilot_plugin_enabled(home: &Path) -> bool {
    // Copilot writes `config.json` with `//` comment lines above the JSON.
    let read = |name: &str| -> Option<Value> {
        let text = std::fs::read_to_string(home.join(name)).ok()?;
        let json: Vec<&str> = text.lines().filter(|line| !line.trim_start().starts_with("//")).collect();
        serde_json::from_str(&json.join("\n")).ok()
    };
    let from_marketplace = read("settings.json").is_some_and(|settings| {
        settings["enabledPlugins"].as_object().is_some_and(|plugins| {
            plugins.iter().any(|(id, on)| id.starts_with("hookwire@") && on == &Value::Bool(true))
        })
    });
    let direct = read("config.json").is_some_and(|config| {
        config["installedPlugins"].as_array().is_some_and(|plugins| {
            plugins.iter().any(|plugin| {
                let name = plugin.get("name").and_then(Value::as_str).or_else(|| plugin.as_str()).unwrap_or_default();
                name == "hookwire" && plugin.get("enabled") != Some(&Value::Bool(false))
            })
        })
    });
    from_marketplace || direct
}

/// The project directory of this process's environment.
fn project_dir(agent: Agent) -> Option<PathBuf> {
    project_dir_in(agent, |name| std::env::var(name).ok())
}

fn write_answer(answer: &BridgeAnswer) -> u8 {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(answer.stdout.as_bytes());
    let _ = stdout.flush();
    if !answer.stderr.is_empty() {
        let _ = std::io::stderr().write_all(answer.stderr.as_bytes());
    }
    u8::try_from(answer.exit_code).unwrap_or(1)
}

/// A blocking answer for `event` when the bridge cannot run the hooks at all: a guard that
/// cannot load must not let the action through.
pub(crate) fn refuse(agent: Agent, event: Event, reason: String) -> BridgeAnswer {
    let Some(outcome) = refusal(agent, event, &reason) else { return failure_answer_as(agent, &reason) };
    let mut answer = answer_as(agent, event, &outcome, &Context::default());
    answer.stderr = format!("hookwire: {reason}\n");
    answer
}

/// What refusing `event` decides for `agent`: `None` when the event cannot be blocked.
fn refusal(agent: Agent, event: Event, reason: &str) -> Option<hook_core::FireOutcome> {
    let cap = capability(event);
    let blocks = match agent {
        // Copilot blocks only a tool call (and its permission request): elsewhere the reason
        // would only be fed to the model.
        Agent::Copilot => matches!(event, Event::PreToolExecution | Event::ApproveTool),
        _ => cap.allows(Action::DenyTool) || cap.allows(Action::Stop) || cap.is_approval,
    };
    if !blocks {
        return None;
    }
    let mut outcome = hook_core::FireOutcome::empty(event);
    outcome.decision = if cap.is_approval {
        hook_core::Decision::Denied
    } else if cap.allows(Action::DenyTool) {
        hook_core::Decision::DenyTool
    } else {
        hook_core::Decision::Stop
    };
    outcome.reason = Some(reason.to_owned());
    Some(outcome)
}

/// [`refuse`], recorded in the decision store when it blocks: a call refused before any hook
/// ran is a decision the person may want to find later.
fn refuse_recorded(agent: Agent, event: Event, context: &Context, reason: String, started: Instant) -> BridgeAnswer {
    if let Some(outcome) = refusal(agent, event, &reason) {
        crate::record::bridge_refusal(agent, context, &outcome, started.elapsed());
    }
    refuse(agent, event, reason)
}

/// The answer when no hook runs on the event.
pub(crate) fn no_decision() -> BridgeAnswer {
    BridgeAnswer { exit_code: 0, stdout: String::new(), stderr: String::new() }
}

/// `answer` with `notes` (warnings about the configuration) before its own stderr.
pub(crate) fn with_notes(notes: &str, mut answer: BridgeAnswer) -> BridgeAnswer {
    answer.stderr.insert_str(0, notes);
    answer
}

/// `path`, relative to `cwd` when not absolute.
pub(crate) fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) }
}

/// Where a bridge call discovers its configuration: the project directory the agent names
/// (`CLAUDE_PROJECT_DIR`, ...), else `cwd`. The agent's project, not the directory its session
/// happens to be in: a subdirectory with a settings file of its own must not decide.
pub(crate) fn discovery_start(agent: Agent, cwd: &Path) -> PathBuf {
    project_dir(agent).map_or_else(|| cwd.to_path_buf(), |dir| absolute(&dir, cwd))
}

/// The host of a bridge call: hookwire's configuration (without `agent`'s own settings files,
/// which the agent runs itself) discovered from the agent's project ([`discovery_start`]), each
/// `--config` (relative to `cwd`) and each `--settings` file (a missing one is a read error).
/// Building it builds no engine: a call with nothing to run pays only for the read.
pub(crate) fn bridge_host(
    agent: Agent,
    settings: &[PathBuf],
    configs: &[PathBuf],
    no_default_config: bool,
    cwd: &Path,
) -> HostBuilder {
    let builder = Host::builder()
        .project_dir(discovery_start(agent, cwd))
        .skip_agent_files(agent)
        .no_default_config(no_default_config);
    let builder = configs.iter().fold(builder, |builder, path| builder.extra_config(absolute(path, cwd)));
    settings.iter().fold(builder, |builder, path| builder.agent_settings(agent, absolute(path, cwd)))
}

/// A `--settings` pipe (the `/dev/fd/63` of a shell's `--settings <(...)`) copied into a
/// private file, which this call reads as often as it needs; removed when dropped.
#[derive(Debug)]
pub(crate) struct PipedSettings {
    path: PathBuf,
}

impl Drop for PipedSettings {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Replaces each `--settings` path that is a pipe or character device by a private copy of what
/// it holds (a pipe can be read once, and only by this process); the copies live as long as the
/// returned guards.
fn copy_piped_settings(settings: &mut [PathBuf]) -> Result<Vec<PipedSettings>, String> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let mut copies = Vec::new();
    for (n, path) in settings.iter_mut().enumerate() {
        let Ok(meta) = std::fs::metadata(&*path) else { continue };
        if !(meta.file_type().is_fifo() || meta.file_type().is_char_device()) {
            continue;
        }
        let mut text = Vec::new();
        std::fs::File::open(&*path)
            .and_then(|file| file.take(MAX_INPUT_BYTES).read_to_end(&mut text))
            .map_err(|e| format!("--settings {}: cannot read it: {e}", path.display()))?;
        let copy = std::env::temp_dir().join(format!("hookwire-settings-{}-{n}.json", std::process::id()));
        let _ = std::fs::remove_file(&copy);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&copy)
            .and_then(|mut file| file.write_all(&text))
            .map_err(|e| format!("--settings {}: cannot keep a copy in {}: {e}", path.display(), copy.display()))?;
        *path = copy.clone();
        copies.push(PipedSettings { path: copy });
    }
    Ok(copies)
}

/// Loads the configuration of a bridge call; `Err` is a reason to refuse the call. Trust is
/// checked for what this path loads (see [`hook_host::Scope`]).
pub(crate) fn load_bridge(
    agent: Agent,
    settings: &[PathBuf],
    configs: &[PathBuf],
    no_default_config: bool,
    cwd: &Path,
) -> Result<LoadedConfig, String> {
    bridge_host(agent, settings, configs, no_default_config, cwd).build().read().map_err(|e| e.to_string())
}

/// The warnings of `loaded`, one `hookwire: warning:` line each, as the bridge writes them on
/// stderr before its answer.
pub(crate) fn notes_of(loaded: &LoadedConfig) -> String {
    let mut notes = String::new();
    for warning in &loaded.warnings {
        notes.push_str(&format!("hookwire: warning: {warning}\n"));
    }
    for untrusted in &loaded.untrusted {
        notes.push_str(&format!(
            "hookwire: warning: {}: {}; {}\n",
            untrusted.config.display(),
            untrusted.reason,
            untrusted.how_to_trust
        ));
    }
    notes
}

/// Why `loaded` must not run: its configuration errors.
pub(crate) fn load_problem(loaded: &LoadedConfig) -> Option<String> {
    (!loaded.errors.is_empty()).then(|| format!("configuration error: {}", loaded.errors.join("; ")))
}

/// Whether a hook of `loaded` runs on `event`.
pub(crate) fn is_relevant(specs: &[hook_core::HookSpec], event: Event) -> bool {
    specs.iter().any(|spec| spec.events.contains(&event))
}

/// Whether `loaded` has a process hook, the kind a daemon keeps alive between calls.
fn has_process_hooks(loaded: &LoadedConfig) -> bool {
    loaded.specs.iter().any(|spec| spec.kind == "process" && spec.enabled)
}

/// Fires `event` through `engine` and answers as `agent`: the answer of both the in-process
/// path and the daemon. The failures of single hooks go to stderr.
pub(crate) async fn fire_bridge(
    engine: &Engine,
    agent: Agent,
    event: Event,
    context: Context,
    cwd: &Path,
) -> BridgeAnswer {
    fire_bridge_traced(engine, agent, event, context, cwd).await.0
}

/// [`fire_bridge`], also returning the outcome the answer was written from (`hookwire test`
/// and `hookwire replay` show its trace).
pub(crate) async fn fire_bridge_traced(
    engine: &Engine,
    agent: Agent,
    event: Event,
    mut context: Context,
    cwd: &Path,
) -> (BridgeAnswer, hook_core::FireOutcome) {
    if context.cwd.is_none() {
        context.cwd = Some(cwd.display().to_string());
    }
    let started = crate::telemetry::started();
    // The store's writer thread opens the database while the hooks run.
    crate::record::start();
    let clock = std::time::Instant::now();
    let outcome = engine.fire(event, &mut context).await;
    crate::telemetry::record(started, &outcome, &context);
    crate::record::bridge_fire(engine, &outcome, &context, clock.elapsed(), agent);
    let mut lines = String::new();
    for entry in &outcome.trace {
        if let Some(error) = &entry.error {
            lines.push_str(&format!("hookwire: {}: {}: {error}\n", entry.id, entry.outcome));
        }
    }
    if let Some(id) = outcome.changed_by(hook_core::Field::ToolArguments) {
        lines.push_str(&format!("hookwire: the tool input as rewritten by {id} stands\n"));
    }
    let answer = with_notes(&lines, answer_as(agent, event, &outcome, &context));
    (answer, outcome)
}

/// Whether this call may use the daemon.
fn daemon_allowed(args: &HookArgs) -> bool {
    let disabled = std::env::var("HOOKWIRE_NO_DAEMON").is_ok_and(|v| !v.is_empty() && v != "0");
    !args.no_daemon && !disabled
}

/// The configuration of this call as the daemon reads it: absolute paths and the caller's
/// environment.
fn selection(args: &HookArgs, cwd: &Path) -> Selection {
    let env: BTreeMap<String, String> = CALL_ENV
        .iter()
        .filter_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()).map(|v| ((*name).to_owned(), v)))
        .collect();
    Selection {
        agent: Some(args.agent),
        settings: args.settings.iter().map(|p| absolute(p, cwd)).collect(),
        configs: args.config.configs.iter().map(|p| absolute(p, cwd)).collect(),
        no_default_config: args.config.no_default_config,
        env,
    }
}

/// The answer of the project's daemon, starting it when the configuration has a process hook.
/// `None`: fire in this process (no daemon, or it could not answer); `loaded` then holds the
/// configuration if this function had to read it.
async fn through_daemon(
    args: &HookArgs,
    event: Event,
    text: &str,
    cwd: &Path,
    loaded: &mut Option<Result<LoadedConfig, String>>,
) -> Option<BridgeAnswer> {
    if hook_bash::hook_depth() > 0 {
        // Called from a hook: fire here, so this call's hooks count one level deeper. Through
        // the daemon they would run at the daemon's depth, and a hook that runs the bridge
        // would recurse through it without end (main.rs bounds the depth).
        return None;
    }
    let root = daemon::project_root(&discovery_start(args.agent, cwd));
    let paths = daemon::paths_for(&root)?;
    let mut stream = match daemon::connect(&paths).await {
        Ok(stream) => stream,
        Err(ConnectError::Unusable) => return None,
        Err(ConnectError::NotRunning | ConnectError::Stale) => {
            // No daemon: read the configuration to decide whether one is worth starting.
            let read =
                load_bridge(args.agent, &args.settings, &args.config.configs, args.config.no_default_config, cwd);
            let worth_it = matches!(&read, Ok(l) if l.errors.is_empty() && has_process_hooks(l));
            let relevant = matches!(&read, Ok(l) if is_relevant(&l.specs, event));
            *loaded = Some(read);
            if !worth_it || daemon::start(&paths, &root).is_err() || !relevant {
                // A daemon started for a later event warms up while this one is answered here.
                return None;
            }
            daemon::wait_for(&paths, daemon::START_DEADLINE).await?
        }
    };
    let params = FireParams {
        // Parsed again rather than kept: the in-process path never pays for a copy.
        input: Some(parse_input(text.as_bytes()).ok()?),
        tool_input_text: hook_agents::tool_input_text(text),
        selection: selection(args, cwd),
        cwd: Some(cwd.display().to_string()),
        root: Some(root.display().to_string()),
        build: Some(daemon::build_id().to_owned()),
        ..FireParams::default()
    };
    let params = serde_json::to_value(&params).ok()?;
    match daemon::call_watching(&mut stream, Method::Fire, params, &paths).await {
        Ok(result) => {
            let result: hook_protocol::daemon::BridgeResult = serde_json::from_value(result).ok()?;
            Some(BridgeAnswer { exit_code: result.exit_code, stdout: result.stdout, stderr: result.stderr })
        }
        Err(daemon::CallError::Rpc(error)) if error.code == codes::OTHER_BUILD => {
            // hookwire was replaced while its daemon ran: retire the daemon; the next call starts
            // one of this build.
            drop(stream);
            daemon::request_shutdown(&paths).await;
            None
        }
        // The hooks may have run in the daemon: never run them a second time here.
        Err(CallError::NoAnswer(reason)) => Some(refuse(args.agent, event, reason)),
        Err(_) => None,
    }
}

/// What a blocking call to a running daemon came to.
enum ViaDaemon {
    /// The daemon answered.
    Answered(BridgeAnswer),
    /// A daemon listens but gave no answer (or cannot be used): fire in this process, start
    /// none. The hook input, back.
    FireHere(Value),
    /// Its socket is there but nobody listens (its daemon died): the async path, which may
    /// start a new one. The hook input, back.
    Stale(Value),
    /// No daemon: the hook input, back.
    NotRunning(Value),
}

/// Sends `input` to the project's daemon when one listens, without an async runtime.
fn via_running_daemon(args: &HookArgs, input: Value, text: &str, cwd: &Path) -> ViaDaemon {
    if hook_bash::hook_depth() > 0 {
        // Called from a hook: fire here (see `through_daemon`).
        return ViaDaemon::NotRunning(input);
    }
    let root = daemon::project_root(&discovery_start(args.agent, cwd));
    let Some(paths) = daemon::paths_for(&root) else { return ViaDaemon::NotRunning(input) };
    if !paths.socket.exists() {
        return ViaDaemon::NotRunning(input);
    }
    let stream = match daemon::connect_blocking(&paths) {
        Ok(stream) => stream,
        Err(ConnectError::Unusable) => return ViaDaemon::FireHere(input),
        Err(ConnectError::NotRunning | ConnectError::Stale) => return ViaDaemon::Stale(input),
    };
    let mut params = FireParams {
        input: Some(input),
        tool_input_text: hook_agents::tool_input_text(text),
        selection: selection(args, cwd),
        cwd: Some(cwd.display().to_string()),
        root: Some(root.display().to_string()),
        build: Some(daemon::build_id().to_owned()),
        ..FireParams::default()
    };
    let answer = fire_blocking(&stream, &params, &paths);
    drop(stream);
    match answer {
        Some(answer) => ViaDaemon::Answered(answer),
        None => ViaDaemon::FireHere(params.input.take().unwrap_or_default()),
    }
}

/// The daemon's answer to `params` on `stream`; `None` when it gave none. A daemon of another
/// build is asked to stop (the next call starts one of this build).
fn fire_blocking(stream: &daemon::BlockingStream, params: &FireParams, paths: &DaemonPaths) -> Option<BridgeAnswer> {
    let mut line = serde_json::to_vec(&Request::new(Id::Number(1), Method::Fire.as_str(), params)).ok()?;
    line.push(b'\n');
    match daemon::call_blocking(stream, &line, paths) {
        Ok(result) => {
            let result: BridgeResult = serde_json::from_value(result).ok()?;
            Some(BridgeAnswer { exit_code: result.exit_code, stdout: result.stdout, stderr: result.stderr })
        }
        Err(CallError::Rpc(error)) if error.code == codes::OTHER_BUILD => {
            daemon::request_shutdown_blocking(paths);
            None
        }
        // The hooks may have run in the daemon: never run them a second time here.
        Err(CallError::NoAnswer(reason)) => {
            let agent = params.selection.agent?;
            Some(match context_from_input(agent, params.input.clone()?) {
                Ok((event, _)) => refuse(agent, event, reason),
                Err(e) => failure_answer_as(agent, &format!("{reason}; {e}")),
            })
        }
        Err(_) => None,
    }
}

/// A bridge call after its synchronous part: answered, or with work that needs the runtime.
#[derive(Debug)]
pub(crate) enum Prepared {
    /// Answered (printed); the exit code.
    Answered(u8),
    /// Hooks to run.
    Fire(Box<Pending>),
}

/// What a bridge call that runs hooks carries into the runtime.
#[derive(Debug)]
pub(crate) struct Pending {
    args: HookArgs,
    event: Event,
    context: Context,
    text: String,
    cwd: PathBuf,
    /// `None`: go through the project's daemon, which is running (or worth starting).
    loaded: Option<Result<LoadedConfig, String>>,
    /// Private copies of piped `--settings`, removed when the call ends.
    _piped: Vec<PipedSettings>,
}

/// The hook input as JSON, read the way the agents write it: a lone UTF-16 surrogate escape
/// (`\ud83d`, half an emoji cut by a JSON writer) becomes U+FFFD instead of failing the
/// parse, and bytes that are not UTF-8 are read lossily.
pub(crate) fn parse_input(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let text = String::from_utf8_lossy(bytes);
    match serde_json::from_str(&text) {
        Ok(value) => Ok(value),
        Err(first) => match without_lone_surrogates(&text) {
            Some(mended) => serde_json::from_str(&mended).map_err(|_| first),
            None => Err(first),
        },
    }
}

/// `text` with every `\uXXXX` escape of a lone surrogate replaced by `\ufffd`; `None` when
/// there is none.
fn without_lone_surrogates(text: &str) -> Option<String> {
    fn escape_at(bytes: &[u8], at: usize) -> Option<u16> {
        let digits = bytes.get(at..at + 6)?;
        if digits[0] != b'\\' || digits[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&digits[2..]).ok()?, 16).ok()
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            at += 1;
            continue;
        }
        let Some(unit) = escape_at(bytes, at) else {
            // Any other escape (`\\`, `\"`, ...) is two bytes: skip both.
            at += 2;
            continue;
        };
        let is_high = (0xD800..0xDC00).contains(&unit);
        let is_low = (0xDC00..0xE000).contains(&unit);
        let paired = is_high && escape_at(bytes, at + 6).is_some_and(|next| (0xDC00..0xE000).contains(&next));
        if paired {
            at += 12;
        } else if is_high || is_low {
            out.push_str(&text[copied..at]);
            out.push_str("\\ufffd");
            changed = true;
            at += 6;
            copied = at;
        } else {
            at += 6;
        }
    }
    out.push_str(&text[copied..]);
    changed.then_some(out)
}

/// The input with the event it is for written in as `hook_event_name`, for an agent whose input
/// names none (Copilot CLI): `--event`, else what the input's members tell
/// ([`hook_agents::copilot_event`]). Other agents' inputs come back as they are; `--event` is
/// an error there.
fn name_the_event(args: &HookArgs, input: Value) -> Result<Value, String> {
    if args.agent != Agent::Copilot {
        return match &args.event {
            Some(_) => Err(format!(
                "--event is for Copilot CLI, whose input names no event; {} names it in `hook_event_name`",
                args.agent.display_name()
            )),
            None => Ok(input),
        };
    }
    let Value::Object(mut input) = input else {
        return Err("the Copilot CLI hook input must be a JSON object".to_owned());
    };
    let name = match &args.event {
        Some(name) => {
            if Agent::Copilot.event(name).is_none() && Agent::copilot_pascal_event(name).is_none() {
                return Err(format!(
                    "--event {name}: not a Copilot CLI hook event; known events: {}",
                    Agent::Copilot.event_names().collect::<Vec<_>>().join(", ")
                ));
            }
            name.clone()
        }
        None => {
            let event = hook_agents::copilot_event(&input).map_err(|e| e.to_string())?;
            let pascal = input.get("hook_event_name").and_then(Value::as_str).map(str::to_owned);
            pascal.unwrap_or_else(|| Agent::Copilot.event_name(event).unwrap_or(event.as_str()).to_owned())
        }
    };
    // A PascalCase input names its own event; `--event` fills in for the camelCase one.
    input.entry("hook_event_name").or_insert(Value::String(name));
    Ok(Value::Object(input))
}

/// The answer when the hook input cannot be read at all: the event is unknown, so hookwire
/// blocks (exit 2, which all three agents read as a block where the event can be blocked)
/// rather than let a call it could not check through.
fn unreadable_input(agent: Agent, message: &str) -> BridgeAnswer {
    if agent == Agent::Copilot {
        // Copilot denies a tool call on any non-zero exit: hookwire's own failure must not.
        return hook_agents::copilot_failure_answer(message);
    }
    BridgeAnswer {
        exit_code: 2,
        stdout: String::new(),
        stderr: format!("hookwire: {message}; blocked, since hookwire could not check it\n"),
    }
}

/// Everything a bridge call can do without an async runtime: read the input; answer through
/// the project's daemon when one listens; else load the configuration, and answer at once when
/// nothing is to run — the common case for most events, which then costs no runtime, no thread
/// and no engine.
pub(crate) fn prepare(mut args: HookArgs) -> Prepared {
    if args.agent != Agent::Copilot && std::env::var_os("COPILOT_CLI").is_some_and(|v| v == "1") {
        // Copilot CLI also runs the hooks of a project's `.claude/settings.json` (hookwire's
        // Claude Code entries among them), with its own input. When hookwire is Copilot's own
        // hook as well, that entry runs it already: this one steps aside (no hook runs twice).
        // Otherwise this call is Copilot's, and is answered as Copilot reads it.
        if copilot_bridge_installed() {
            return Prepared::Answered(write_answer(&no_decision()));
        }
        args.agent = Agent::Copilot;
        args.event = None;
        args.settings.clear();
    }
    let agent = args.agent;
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().take(MAX_INPUT_BYTES).read_to_end(&mut bytes) {
        return Prepared::Answered(write_answer(&unreadable_input(
            agent,
            &format!("cannot read the hook input on stdin: {e}"),
        )));
    }
    let input: Value = match parse_input(&bytes) {
        Ok(input) => input,
        Err(e) => {
            return Prepared::Answered(write_answer(&unreadable_input(
                agent,
                &format!("the hook input on stdin is not JSON: {e}"),
            )));
        }
    };
    let input = match name_the_event(&args, input) {
        Ok(input) => input,
        Err(message) => return Prepared::Answered(write_answer(&failure_answer_as(agent, &message))),
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let piped = match copy_piped_settings(&mut args.settings) {
        Ok(piped) => piped,
        Err(reason) => return Prepared::Answered(write_answer(&unreadable_input(agent, &reason))),
    };
    if !piped.is_empty() {
        // The copies are this call's own: a daemon would keep a configuration per call.
        args.no_daemon = true;
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    // The daemon reads the input itself (with the same function, so an input it cannot read
    // gets the same answer as here).
    let (input, fire_here, stale) = if daemon_allowed(&args) {
        match via_running_daemon(&args, input, &text, &cwd) {
            ViaDaemon::Answered(answer) => return Prepared::Answered(write_answer(&answer)),
            ViaDaemon::FireHere(input) => (input, true, false),
            ViaDaemon::Stale(input) => (input, false, true),
            ViaDaemon::NotRunning(input) => (input, false, false),
        }
    } else {
        (input, false, false)
    };
    let (event, mut context) = match context_from_input(agent, input) {
        Ok(read) => read,
        Err(e) => return Prepared::Answered(write_answer(&failure_answer_as(agent, &e.to_string()))),
    };
    if let Some(raw) = hook_agents::tool_input_text(&text) {
        // Hooks read the tool's input members in the order the agent wrote them.
        hook_agents::keep_tool_input_order(&mut context, &raw);
    }
    let pending = |loaded, args, context, text, piped| {
        Prepared::Fire(Box::new(Pending { args, event, context, text, cwd: cwd.clone(), loaded, _piped: piped }))
    };
    if stale {
        // The async path finds the dead daemon again, and replaces it when worth it.
        return pending(None, args, context, text, piped);
    }
    let loaded = load_bridge(agent, &args.settings, &args.config.configs, args.config.no_default_config, &cwd);
    if fire_here {
        return pending(Some(loaded), args, context, text, piped);
    }
    let worth_a_daemon = matches!(&loaded, Ok(l) if l.errors.is_empty() && has_process_hooks(l));
    match &loaded {
        Ok(l) if load_problem(l).is_none() && !is_relevant(&l.specs, event) && !worth_a_daemon => {
            let answer = with_notes(&notes_of(l), no_decision());
            let note = held_back::note(&l.untrusted);
            let answer = held_back::apply(agent, event, context.session_id.as_deref(), note.as_deref(), answer);
            Prepared::Answered(write_answer(&answer))
        }
        _ if worth_a_daemon && daemon_allowed(&args) => pending(None, args, context, text, piped),
        _ => pending(Some(loaded), args, context, text, piped),
    }
}

/// The rest of a bridge call: through the daemon, else in this process.
pub(crate) async fn finish(pending: Pending) -> u8 {
    let Pending { args, event, context, text, cwd, mut loaded, _piped } = pending;
    let agent = args.agent;
    if loaded.is_none()
        && let Some(answer) = through_daemon(&args, event, &text, &cwd, &mut loaded).await
    {
        return write_answer(&answer);
    }
    let loaded = match loaded {
        Some(loaded) => loaded,
        None => load_bridge(agent, &args.settings, &args.config.configs, args.config.no_default_config, &cwd),
    };
    in_process(agent, event, context, &cwd, loaded).await
}

/// A whole bridge call.
pub(crate) async fn run(args: HookArgs) -> u8 {
    match prepare(args) {
        Prepared::Answered(code) => code,
        Prepared::Fire(pending) => finish(*pending).await,
    }
}

/// Fires in this process: mounts the hooks, fires, answers, takes the hooks down.
async fn in_process(
    agent: Agent,
    event: Event,
    context: Context,
    cwd: &Path,
    loaded: Result<LoadedConfig, String>,
) -> u8 {
    let started = Instant::now();
    let loaded = match loaded {
        Ok(loaded) => loaded,
        Err(reason) => return write_answer(&refuse_recorded(agent, event, &context, reason, started)),
    };
    let notes = notes_of(&loaded);
    if let Some(problem) = load_problem(&loaded) {
        return write_answer(&with_notes(&notes, refuse_recorded(agent, event, &context, problem, started)));
    }
    let note = held_back::note(&loaded.untrusted);
    let session = context.session_id.clone();
    let held = |answer| held_back::apply(agent, event, session.as_deref(), note.as_deref(), answer);
    if !is_relevant(&loaded.specs, event) {
        // Nothing to run: answer at once, with no runtime work beyond reading the input.
        return write_answer(&held(with_notes(&notes, no_decision())));
    }
    let project = discovery_start(agent, context.cwd.as_deref().map_or(cwd, Path::new));
    // Only the loaded specs are mounted (no second read): the host is used for its engine.
    let host = Host::builder().no_default_config(true).command_project_dir(Some(project)).build();
    let mounted = host.apply(Ok(loaded)).await;
    if !mounted.start_errors.is_empty() {
        host.shutdown().await;
        let reason = format!("cannot start the hooks: {}", mounted.start_errors.join("; "));
        return write_answer(&with_notes(&notes, refuse_recorded(agent, event, &context, reason, started)));
    }
    let answer = held(with_notes(&notes, fire_bridge(host.engine(), agent, event, context, cwd).await));
    // The answer goes out before the hooks are shut down: the agent is waiting for it.
    let code = write_answer(&answer);
    engine::shutdown_one_shot(host.engine()).await;
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Copilot home holding `files`; removed when the test ends.
    struct Home(PathBuf);

    impl Home {
        fn with(name: &str, files: &[(&str, &str)]) -> Home {
            let dir = std::env::temp_dir().join(format!("hookwire-copilot-home-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            for (file, text) in files {
                std::fs::write(dir.join(file), text).unwrap();
            }
            Home(dir)
        }
    }

    impl Drop for Home {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// The shapes Copilot CLI 1.0.102 writes: `plugin install hookwire@m` sets
    /// `enabledPlugins`; `plugin install DIR` lists it in `config.json`, under comment lines.
    #[test]
    fn the_copilot_plugin_counts_when_copilot_has_it_enabled() {
        let config = |enabled: bool| {
            format!(
                "// User settings belong in settings.json.\n// This file is managed automatically.\n\
                 {{\n  \"installedPlugins\": [\n    {{\"name\": \"hookwire\", \"marketplace\": \"\", \"enabled\": {enabled}}}\n  ]\n}}\n"
            )
        };
        let cases = [
            (
                "marketplace",
                vec![("settings.json", r#"{"enabledPlugins": {"hookwire@hookwire": true}}"#.to_owned())],
                true,
            ),
            (
                "disabled",
                vec![("settings.json", r#"{"enabledPlugins": {"hookwire@hookwire": false}}"#.to_owned())],
                false,
            ),
            ("other", vec![("settings.json", r#"{"enabledPlugins": {"linter@tools": true}}"#.to_owned())], false),
            (
                "direct",
                vec![("settings.json", r#"{"enabledPlugins": {}}"#.to_owned()), ("config.json", config(true))],
                true,
            ),
            ("direct-off", vec![("config.json", config(false))], false),
            ("none", vec![], false),
        ];
        for (name, files, expected) in cases {
            let files: Vec<(&str, &str)> = files.iter().map(|(f, t)| (*f, t.as_str())).collect();
            let home = Home::with(name, &files);
            assert_eq!(copilot_plugin_enabled(&home.0), expected, "{name}");
        }
    }
}
