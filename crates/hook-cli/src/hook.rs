//! `hookwire hook claude|gemini|codex`: hookwire as ONE hook of an agent. It reads the agent's
//! hook input on stdin, fires the event through every configured hook of every dialect, and
//! answers with the exit code, stdout and stderr from which the agent concludes the combined
//! decision.
//!
//! When the project's daemon (`hookwire serve`) runs, the event is fired there, through hooks
//! that stay up between calls; a configuration with a process hook starts the daemon on first
//! use. Otherwise, and whenever the daemon cannot answer, the event is fired in this process.
//! Both paths compute the answer with the same functions of this module.
//!
//! The warm path — a daemon already listening — is the one an agent pays on every event, so it
//! runs before any async runtime exists: one blocking connect, the hook input sent as the
//! daemon's `fire` params without reading the configuration (the daemon has it), one answer
//! line read and written out.

use std::{
    collections::BTreeMap,
    io::{Read, Write},
    path::{Path, PathBuf},
};

use clap::Args;
use hook_core::{
    Action, Context, Engine,
    agent::{BridgeAnswer, answer_as, context_from_input, failure_answer},
    capability,
    config::ConfigSource,
};
use hook_protocol::{
    Agent, Event,
    daemon::{BridgeResult, FireParams, Method, Selection, codes},
    jsonrpc::{Id, Request},
    serde_json::{self, Value},
};

use crate::{
    ConfigArgs,
    daemon::{self, CallError, ConnectError, DaemonPaths},
    discover,
    engine::{self, LoadedConfig},
};

/// The largest hook input read from stdin.
const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Environment variables a bridge call hands the daemon (see [`Selection::env`]).
pub(crate) const CALL_ENV: [&str; 3] = ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CLAUDE_ENV_FILE"];

#[derive(Debug, Args)]
pub(crate) struct HookArgs {
    /// The agent calling: `claude`, `gemini` or `codex`.
    agent: Agent,
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
    };
    vars.iter().find_map(|name| var(name).filter(|v| !v.is_empty())).map(PathBuf::from)
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
    let cap = capability(event);
    let blocks = cap.allows(Action::DenyTool) || cap.allows(Action::Stop) || cap.is_approval;
    if !blocks {
        return failure_answer(&reason);
    }
    let mut outcome = hook_core::FireOutcome::empty(event);
    outcome.decision = if cap.is_approval {
        hook_core::Decision::Denied
    } else if cap.allows(Action::DenyTool) {
        hook_core::Decision::DenyTool
    } else {
        hook_core::Decision::Stop
    };
    outcome.reason = Some(reason.clone());
    let mut answer = answer_as(agent, event, &outcome, &Context::default());
    answer.stderr = format!("hookwire: {reason}\n");
    answer
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

/// The sources of a bridge call: hookwire's configuration (without `agent`'s own settings
/// files, which the agent runs itself) and each `--settings` file; `Err` names a `--settings`
/// file that does not exist.
pub(crate) fn bridge_sources(
    agent: Agent,
    settings: &[PathBuf],
    configs: &[PathBuf],
    no_default_config: bool,
    cwd: &Path,
) -> Result<Vec<ConfigSource>, String> {
    let mut sources = discover::discover_except(configs, no_default_config, cwd, Some(agent)).sources;
    for path in settings {
        let path = absolute(path, cwd);
        if !path.is_file() {
            return Err(format!("--settings {}: no such file", path.display()));
        }
        sources.push(ConfigSource::agent(path, hook_core::Level::User, agent));
    }
    Ok(sources)
}

/// Loads the configuration of a bridge call; `Err` is a reason to refuse the call.
pub(crate) fn load_bridge(
    agent: Agent,
    settings: &[PathBuf],
    configs: &[PathBuf],
    no_default_config: bool,
    cwd: &Path,
) -> Result<LoadedConfig, String> {
    let sources = bridge_sources(agent, settings, configs, no_default_config, cwd)?;
    let mut loaded = engine::load_sources(&sources);
    loaded.errors.splice(0..0, engine::missing_configs(configs, cwd));
    Ok(loaded)
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
    mut context: Context,
    cwd: &Path,
) -> BridgeAnswer {
    if context.cwd.is_none() {
        context.cwd = Some(cwd.display().to_string());
    }
    let started = crate::telemetry::started();
    let outcome = engine.fire(event, &mut context).await;
    crate::telemetry::record(started, &outcome, &context);
    let mut lines = String::new();
    for entry in &outcome.trace {
        if let Some(error) = &entry.error {
            lines.push_str(&format!("hookwire: {}: {}: {error}\n", entry.id, entry.outcome));
        }
    }
    if let Some(id) = outcome.changed_by(hook_core::Field::ToolArguments) {
        lines.push_str(&format!("hookwire: the tool input as rewritten by {id} stands\n"));
    }
    with_notes(&lines, answer_as(agent, event, &outcome, &context))
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
    let root = daemon::project_root(cwd);
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
        input: Some(serde_json::from_str(text).ok()?),
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
fn via_running_daemon(args: &HookArgs, input: Value, cwd: &Path) -> ViaDaemon {
    if hook_bash::hook_depth() > 0 {
        // Called from a hook: fire here (see `through_daemon`).
        return ViaDaemon::NotRunning(input);
    }
    let root = daemon::project_root(cwd);
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
                Err(e) => failure_answer(&format!("{reason}; {e}")),
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
}

/// Everything a bridge call can do without an async runtime: read the input; answer through
/// the project's daemon when one listens; else load the configuration, and answer at once when
/// nothing is to run — the common case for most events, which then costs no runtime, no thread
/// and no engine.
pub(crate) fn prepare(args: HookArgs) -> Prepared {
    let agent = args.agent;
    let mut text = String::new();
    if let Err(e) = std::io::stdin().take(MAX_INPUT_BYTES).read_to_string(&mut text) {
        return Prepared::Answered(write_answer(&failure_answer(&format!("cannot read the hook input on stdin: {e}"))));
    }
    let input: Value = match serde_json::from_str(&text) {
        Ok(input) => input,
        Err(e) => {
            return Prepared::Answered(write_answer(&failure_answer(&format!(
                "the hook input on stdin is not JSON: {e}"
            ))));
        }
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    // The daemon reads the input itself (with the same function, so an input it cannot read
    // gets the same answer as here).
    let (input, fire_here, stale) = if daemon_allowed(&args) {
        match via_running_daemon(&args, input, &cwd) {
            ViaDaemon::Answered(answer) => return Prepared::Answered(write_answer(&answer)),
            ViaDaemon::FireHere(input) => (input, true, false),
            ViaDaemon::Stale(input) => (input, false, true),
            ViaDaemon::NotRunning(input) => (input, false, false),
        }
    } else {
        (input, false, false)
    };
    let (event, context) = match context_from_input(agent, input) {
        Ok(read) => read,
        Err(e) => return Prepared::Answered(write_answer(&failure_answer(&e.to_string()))),
    };
    if stale {
        // The async path finds the dead daemon again, and replaces it when worth it.
        return Prepared::Fire(Box::new(Pending { args, event, context, text, cwd, loaded: None }));
    }
    let loaded = load_bridge(agent, &args.settings, &args.config.configs, args.config.no_default_config, &cwd);
    if fire_here {
        return Prepared::Fire(Box::new(Pending { args, event, context, text, cwd, loaded: Some(loaded) }));
    }
    let worth_a_daemon = matches!(&loaded, Ok(l) if l.errors.is_empty() && has_process_hooks(l));
    match &loaded {
        Ok(l) if load_problem(l).is_none() && !is_relevant(&l.specs, event) && !worth_a_daemon => {
            Prepared::Answered(write_answer(&with_notes(&notes_of(l), no_decision())))
        }
        _ if worth_a_daemon && daemon_allowed(&args) => {
            Prepared::Fire(Box::new(Pending { args, event, context, text, cwd, loaded: None }))
        }
        _ => Prepared::Fire(Box::new(Pending { args, event, context, text, cwd, loaded: Some(loaded) })),
    }
}

/// The rest of a bridge call: through the daemon, else in this process.
pub(crate) async fn finish(pending: Pending) -> u8 {
    let Pending { args, event, context, text, cwd, mut loaded } = pending;
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
    let loaded = match loaded {
        Ok(loaded) => loaded,
        Err(reason) => return write_answer(&refuse(agent, event, reason)),
    };
    let notes = notes_of(&loaded);
    if let Some(problem) = load_problem(&loaded) {
        return write_answer(&with_notes(&notes, refuse(agent, event, problem)));
    }
    if !is_relevant(&loaded.specs, event) {
        // Nothing to run: answer at once, with no runtime work beyond reading the input.
        return write_answer(&with_notes(&notes, no_decision()));
    }
    let project =
        project_dir(agent).or_else(|| context.cwd.as_ref().map(PathBuf::from)).unwrap_or_else(|| cwd.to_path_buf());
    let engine = engine::engine_for(engine::lazy_model(None, None), Some(project));
    let errors = engine::mount(&engine, loaded.specs).await;
    if !errors.is_empty() {
        engine.shutdown().await;
        let reason = format!("cannot start the hooks: {}", errors.join("; "));
        return write_answer(&with_notes(&notes, refuse(agent, event, reason)));
    }
    let answer = with_notes(&notes, fire_bridge(&engine, agent, event, context, cwd).await);
    // The answer goes out before the hooks are shut down: the agent is waiting for it.
    let code = write_answer(&answer);
    engine::shutdown_one_shot(&engine).await;
    code
}
