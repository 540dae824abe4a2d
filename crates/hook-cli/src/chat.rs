//! `hookwire chat`: an agent with hooks, over an OpenAI-compatible model: a REPL, or one turn
//! with `-p`.
//!
//! Tools with side effects run only when approved: by an approval hook, by the person on the
//! terminal (`y` / `n` / `a`), or by `--yes` / `--allow TOOL`; without a terminal and without
//! those flags they are denied, and the model is told so. Each session writes its transcript
//! (Claude Code's JSONL shape) and its state under `$XDG_STATE_HOME/hookwire/sessions/<id>/`
//! (default `~/.local/state/hookwire/sessions/<id>/`), private to the user (`0700` directories,
//! `0600` files); `--resume ID` continues it, from the directory it was started in only.
//!
//! SIGTERM and SIGHUP end the command whatever it is doing (starting, in a turn, closing): the
//! running turn is cancelled, and what does not stop within a few seconds is left behind.

use std::{
    collections::BTreeSet,
    io::{IsTerminal as _, Write as _},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use agent_loop::{
    Agent, ApprovalPolicy, DENIED_NOT_APPROVED, Session, SessionConfig, SessionState, ToolRegistry, TurnError,
    TurnEvent, TurnReport, TurnStatus,
};
use clap::Args;
use hook_config::ConfigSource;
use hook_core::{Engine, FireOutcome, Level};
use hook_host::Host;
use hook_llm::{ChatModel, OpenAiClient, OpenAiConfig};
use serde_json::{Value, json};

use crate::{
    ConfigArgs, Format, audit, engine,
    terminal::{self, Input, Interrupt, TerminalAsker, Ui, signals},
    transcript,
};

/// Exit codes, as `--help` and the README state them.
const EXIT_HELP: &str = "Exit codes (with -p):
  0    the turn completed, whatever the hooks decided (a denied tool, a blocked stop, an abort)
  1    a model or runtime error (the server failed or timed out, too many rounds)
  2    a usage or configuration error (bad flags, a hook file that does not load, no model server)
  130  interrupted (Ctrl-C)
  129, 143  ended by SIGHUP, SIGTERM (at any step; a running turn is cancelled)

In the REPL, Ctrl-C cancels the running turn (its hooks and tools are killed) and returns to the
prompt; a second Ctrl-C within 2 s quits (130). An empty line or Ctrl-D ends the session (0).

Tools with side effects (Bash, Write, Edit, register_hook) run only when approved: by an approval
hook, by you on a terminal (y / n / a = always for this tool in this session), or by --yes /
--allow TOOL. Without a terminal they are denied and the model is told so. A hook that answers
`ask` makes hookwire ask you even with --yes or --allow.";

#[derive(Debug, Args)]
#[command(after_long_help = EXIT_HELP)]
pub(crate) struct ChatArgs {
    /// Run one turn with this message and exit (no terminal needed).
    #[arg(short = 'p', long = "prompt", value_name = "PROMPT")]
    prompt: Option<String>,
    /// The model (default `HOOKWIRE_MODEL`).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// OpenAI-compatible base URL (default `OPENAI_BASE_URL`); the key is `OPENAI_API_KEY`.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Seconds one model call may take (each attempt).
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    model_timeout: Option<Duration>,
    /// Load the hooks of this Claude Code, Gemini CLI or Codex settings file, at user level
    /// (repeatable; the agent is detected from the path and the event names).
    #[arg(long = "settings", value_name = "FILE")]
    settings: Vec<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Run every tool call no hook refused, without asking.
    #[arg(long)]
    yes: bool,
    /// Run calls of this tool without asking (repeatable), e.g. `--allow Bash`.
    #[arg(long = "allow", value_name = "TOOL")]
    allow: Vec<String>,
    /// Continue the saved session with this id.
    #[arg(long, value_name = "ID")]
    resume: Option<String>,
    /// Append one JSON line per hook run to this file.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// Show every event, also those no hook took part in.
    #[arg(long)]
    all_events: bool,
    /// `text`: the live transcript and the reply; `json`: one JSON object per turn.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

fn parse_secs(text: &str) -> Result<Duration, String> {
    let secs: f64 = text.parse().map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !secs.is_finite() || secs <= 0.0 || secs > 86_400.0 {
        return Err(format!("`{text}`: give a number of seconds above 0 and at most 86400"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Where sessions are kept: `$XDG_STATE_HOME/hookwire/sessions`, else
/// `~/.local/state/hookwire/sessions`.
pub(crate) fn sessions_dir() -> Option<PathBuf> {
    crate::discover::state_dir().map(|dir| dir.join("sessions"))
}

/// A session id is a file name: letters, digits, `-`, `_` and `.`, not starting with `.`.
fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && id.len() <= 128
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn fail(messages: &[String]) -> u8 {
    for message in messages {
        eprintln!("error: {message}");
    }
    2
}

/// Loads the configuration, `--settings` files included; warnings go to stderr.
fn load(args: &ChatArgs, cwd: &Path) -> Result<hook_host::Loaded, u8> {
    let mut builder = Host::builder().project_dir(cwd).no_default_config(args.config.no_default_config);
    for path in &args.config.configs {
        builder = builder.extra_config(path);
    }
    let mut settings_errors = Vec::new();
    for path in &args.settings {
        let path = if path.is_absolute() { path.clone() } else { cwd.join(path) };
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let agent = hook_config::agent_of(&path, &text);
                builder = builder.source(ConfigSource::agent(path, Level::User, agent));
            }
            Err(e) => settings_errors.push(format!("--settings {}: {e}", path.display())),
        }
    }
    // Without agent settings named by path the read cannot fail.
    let mut loaded = builder.build().read().unwrap_or_default();
    // The missing `--config` paths first, then the unreadable `--settings`, then the files' own.
    let n_missing = engine::missing_configs(&args.config.configs, cwd).len().min(loaded.errors.len());
    let mut errors: Vec<String> = loaded.errors.drain(..n_missing).collect();
    errors.append(&mut settings_errors);
    errors.append(&mut loaded.errors);
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    for untrusted in &loaded.untrusted {
        eprintln!("warning: {}: {}; {}", untrusted.config.display(), untrusted.reason, untrusted.how_to_trust);
    }
    if errors.is_empty() { Ok(loaded) } else { Err(fail(&errors)) }
}

/// The chat model: `--base-url` / `--model` over `OPENAI_BASE_URL`, `OPENAI_API_KEY`,
/// `HOOKWIRE_MODEL`, with `--model-timeout`.
fn model(args: &ChatArgs) -> Result<Arc<dyn ChatModel>, u8> {
    let mut config = OpenAiConfig::from_env();
    if let Some(base_url) = &args.base_url {
        config.base_url = base_url.clone();
    }
    if let Some(model) = &args.model {
        config.model = model.clone();
    }
    if config.base_url.trim().is_empty() {
        return Err(fail(&[
            "no model server: set OPENAI_BASE_URL (and OPENAI_API_KEY, HOOKWIRE_MODEL) or pass --base-url".to_owned(),
        ]));
    }
    let mut client = OpenAiClient::new(config).map_err(|e| fail(&[e.to_string()]))?;
    if let Some(timeout) = args.model_timeout {
        client = client.with_timeout(timeout);
    }
    Ok(Arc::new(client))
}

/// What the chat session needs to print and save.
struct Shown {
    ui: Ui,
    format: Format,
    verbose: bool,
    is_terminal: bool,
    streamed: Mutex<bool>,
}

/// Prints the session as it happens (text format), appends hook runs to the audit log, and
/// drives the spinner.
fn watch(session: &mut Session, shown: Arc<Shown>, audit_path: Option<PathBuf>) {
    let audit_path = audit_path.map(Mutex::new);
    session.on_event(Box::new(move |event: &TurnEvent| {
        let ui = &shown.ui;
        match event {
            TurnEvent::ModelRequested { .. } => ui.working(Some("waiting for the model".to_owned())),
            TurnEvent::Firing { event, .. } => ui.working(Some(format!("running hooks on {event}"))),
            TurnEvent::ToolStarted { name, .. } => ui.working(Some(format!("running {name}"))),
            _ => ui.working(None),
        }
        if let TurnEvent::Fired(fired) = event
            && let Some(path) = audit_path.as_ref()
        {
            let path = path.lock().unwrap_or_else(|p| p.into_inner());
            let outcome = FireOutcome { trace: fired.hooks.clone(), ..FireOutcome::empty(fired.event) };
            if let Err(e) = audit::append(&path, &outcome) {
                eprintln!("warning: cannot write the audit log {}: {e}", path.display());
            }
        }
        if let TurnEvent::ToolSkipped { name, reason } = event
            && reason.starts_with(DENIED_NOT_APPROVED)
            && !shown.is_terminal
        {
            ui.print(|| {
                eprintln!(
                    "{}",
                    ui.err.yellow(&format!(
                        "hookwire: `{name}` was not run: it needs approval and there is no terminal to ask; \
                         pass --allow {name} or --yes, or configure an approval hook"
                    ))
                );
            });
        }
        if shown.format != Format::Text {
            return;
        }
        if let TurnEvent::Fired(fired) = event
            && !shown.verbose
            && fired.hooks.is_empty()
        {
            return;
        }
        let mut streamed = shown.streamed.lock().unwrap_or_else(|p| p.into_inner());
        match event {
            TurnEvent::AssistantDelta(text) => {
                ui.print(|| {
                    let mut out = std::io::stdout().lock();
                    if !*streamed {
                        let _ = write!(out, "   model: ");
                    }
                    let _ = write!(out, "{}", terminal::safe(text));
                    let _ = out.flush();
                });
                *streamed = true;
                return;
            }
            TurnEvent::AssistantText(_) if *streamed => {
                *streamed = false;
                ui.print(|| outln!());
                return;
            }
            _ => {}
        }
        if *streamed {
            *streamed = false;
            ui.print(|| outln!());
        }
        let lines = transcript::lines(event);
        if !lines.is_empty() {
            ui.print(|| {
                for line in &lines {
                    outln!("{}", ui.out.transcript_line(line));
                }
            });
        }
    }));
}

/// How a turn ended, for the exit code and the JSON output.
fn status_of(result: &Result<TurnReport, TurnError>) -> &'static str {
    match result {
        Ok(report) => match report.status {
            TurnStatus::Completed => "completed",
            TurnStatus::Dropped { .. } => "dropped",
            TurnStatus::ResponseHandled => "response_handled",
            TurnStatus::Interrupted => "interrupted",
            _ => "completed",
        },
        Err(TurnError::Cancelled) => "cancelled",
        Err(TurnError::Aborted { .. } | TurnError::HardAborted { .. } | TurnError::Stopped { .. }) => "ended_by_hook",
        Err(_) => "error",
    }
}

/// The exit code of a `-p` turn: 0 when it completed (whatever the hooks decided), 1 on a
/// model or runtime error, 130 when cancelled.
fn exit_code(result: &Result<TurnReport, TurnError>) -> u8 {
    match status_of(result) {
        "cancelled" => 130,
        "error" => 1,
        _ => 0,
    }
}

/// The turn as one JSON object (`--format json`).
fn turn_json(session: &Session, result: &Result<TurnReport, TurnError>) -> Value {
    let report = match result {
        Ok(report) => Some(report),
        Err(_) => session.last_report(),
    };
    let mut out = json!({
        "session_id": session.id(),
        "status": status_of(result),
        "transcript_path": session.transcript_path().map(|p| p.display().to_string()),
    });
    if let Err(e) = result {
        out["error"] = json!(e.to_string());
    }
    if let Some(report) = report {
        out["turn_id"] = json!(report.turn_id);
        out["reply"] = json!(report.reply);
        out["rounds"] = json!(report.rounds);
        out["usage"] = json!({
            "prompt_tokens": report.usage.prompt_tokens,
            "completion_tokens": report.usage.completion_tokens,
            "total_tokens": report.usage.total_tokens,
        });
        out["notices"] = json!(report.notices);
        out["tools"] = report
            .tools
            .iter()
            .map(|t| {
                json!({"name": t.name, "arguments": t.arguments, "call_id": t.call_id, "outcome": t.outcome.as_str(),
                       "is_error": t.is_error, "content": t.content})
            })
            .collect();
        out["events"] = report
            .events
            .iter()
            .filter(|e| !e.hooks.is_empty())
            .map(|e| {
                json!({
                    "event": e.event.as_str(),
                    "round": e.round,
                    "tool_name": e.tool_name,
                    "decision": e.decision.as_str(),
                    "reason": e.reason,
                    "hooks": e.hooks.iter().map(|h| json!({
                        "id": h.id.as_str(),
                        "outcome": h.outcome.as_str(),
                        "action": h.action.map(|a| a.as_str()),
                        "error": h.error.as_ref().map(ToString::to_string),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        if let TurnStatus::Dropped { reason, feedback } = &report.status {
            out["dropped"] = json!({"reason": reason, "feedback": feedback});
        }
    }
    out
}

/// Prints the end of a turn.
fn show_turn(shown: &Shown, session: &Session, result: &Result<TurnReport, TurnError>) {
    let ui = &shown.ui;
    if shown.format == Format::Json {
        ui.print(|| outln!("{}", turn_json(session, result)));
        return;
    }
    ui.print(|| match result {
        Ok(report) => match &report.status {
            TurnStatus::Dropped { reason, feedback } => {
                let why = reason.as_deref().or(feedback.as_deref()).unwrap_or("no reason given");
                outln!("{}", ui.out.yellow(&format!("message dropped by a hook: {}", terminal::safe(why))));
            }
            TurnStatus::Interrupted => outln!("{}", ui.out.yellow("turn interrupted")),
            _ => outln!("{} {}", ui.out.bold("assistant:"), terminal::safe(&report.reply)),
        },
        Err(TurnError::Cancelled) => eprintln!("{}", ui.err.yellow("turn cancelled")),
        Err(e @ (TurnError::Aborted { .. } | TurnError::HardAborted { .. } | TurnError::Stopped { .. })) => {
            outln!("{}", ui.out.yellow(&terminal::safe(&format!("turn ended by a hook: {e}"))));
        }
        Err(e) => eprintln!("{} {}", ui.err.red("error:"), terminal::safe(&e.to_string())),
    });
}

/// Creates `dir` and its missing parents `0700` (the mode is given at creation, so there is no
/// moment when another user could open them); an existing `dir` of an earlier version, open to
/// others, is closed. The session's state and transcript hold the whole conversation.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(std::io::Error::other(format!("{} is not a directory", dir.display())));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Writes `bytes` to the file `path`, `0600` from its creation on, never through a link.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)?;
    // A file an earlier version left readable to others.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(bytes)
}

/// Saves the session's state beside its transcript.
fn save(dir: Option<&Path>, session: &Session) {
    let Some(dir) = dir else { return };
    let state = session.state();
    let written = serde_json::to_vec_pretty(&state)
        .map_err(std::io::Error::other)
        .and_then(|bytes| private_dir(dir).and_then(|()| write_private(&dir.join("state.json"), &bytes)));
    if let Err(e) = written {
        eprintln!("warning: cannot save the session to {}: {e}", dir.display());
    }
}

/// Reads the saved session `id` (already a valid id) from its directory `dir`, to continue it
/// in `cwd`.
///
/// `state.json` is not trusted: its `id` must be `id` (a crafted `../../x` would otherwise save
/// the session outside the sessions directory), and its `cwd` (where the session was started,
/// and where the file tools are confined) must be `cwd` itself, the directory the command runs
/// in (a crafted `/` would otherwise open the whole disk to the file tools). A session moved to
/// another directory is refused, with the directory to run it from.
fn saved(dir: &Path, id: &str, cwd: &Path) -> Result<SessionState, String> {
    let path = dir.join("state.json");
    let text =
        std::fs::read_to_string(&path).map_err(|e| format!("--resume {id}: cannot read {}: {e}", path.display()))?;
    let state: SessionState = serde_json::from_str(&text)
        .map_err(|e| format!("--resume {id}: {} is not a saved session: {e}", path.display()))?;
    if state.id != id {
        return Err(format!(
            "--resume {id}: {} names the session `{}`, not `{id}`; refused (the file was changed or copied)",
            path.display(),
            terminal::safe(&state.id)
        ));
    }
    let started_in = state.cwd.canonicalize().map_err(|e| {
        format!(
            "--resume {id}: the session was started in {}, which is unusable now ({e}); start a new session",
            terminal::safe(&state.cwd.display().to_string())
        )
    })?;
    let here = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    if started_in != here || !state.cwd.is_absolute() {
        return Err(format!(
            "--resume {id}: the session was started in {}, and its tools work there only; \
             run `hookwire chat --resume {id}` from that directory",
            terminal::safe(&state.cwd.display().to_string())
        ));
    }
    Ok(state)
}

/// How long a turn cancelled by SIGTERM or SIGHUP (or a session closing then) may take to wind
/// down before the command exits anyway.
const QUIT_GRACE: Duration = Duration::from_secs(3);

/// The code to exit with when a signal asks to quit: SIGTERM 143, SIGHUP 129, Ctrl-C 130.
async fn quit_signal(signals: &mut tokio::sync::mpsc::UnboundedReceiver<Interrupt>) -> u8 {
    match signals.recv().await {
        Some(Interrupt::Quit(code)) => code,
        Some(Interrupt::Interrupt) => 130,
        // No signal handling at all: never.
        None => std::future::pending().await,
    }
}

/// Runs one turn; Ctrl-C cancels it (hooks and tools of the turn are killed). Whether a second
/// Ctrl-C within 2 s asked to quit, or a signal asked to quit, with its code.
async fn run_turn(
    session: &mut Session,
    message: String,
    signals: &mut tokio::sync::mpsc::UnboundedReceiver<Interrupt>,
    last_interrupt: &mut Option<Instant>,
) -> (Result<TurnReport, TurnError>, Option<u8>) {
    let handle = session.cancel_handle();
    let send = session.send(message);
    tokio::pin!(send);
    let mut quit = None;
    loop {
        // Once asked to quit, the cancelled turn has QUIT_GRACE to wind down (a tool blocked
        // in the kernel does not hold the command); a second signal ends the wait.
        let asked = quit;
        let grace = async move {
            match asked {
                Some(_) => tokio::time::sleep(QUIT_GRACE).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            result = &mut send => return (result, quit),
            () = grace => return (Err(TurnError::Cancelled), quit),
            Some(signal) = signals.recv() => {
                if let (Some(code), Interrupt::Quit(_)) = (quit, &signal) {
                    return (Err(TurnError::Cancelled), Some(code));
                }
                match signal {
                    Interrupt::Quit(code) => quit = Some(code),
                    Interrupt::Interrupt => {
                        if last_interrupt.is_some_and(|at| at.elapsed() < Duration::from_secs(2)) {
                            quit = Some(130);
                        }
                        *last_interrupt = Some(Instant::now());
                    }
                }
                handle.abort();
            }
        }
    }
}

pub(crate) async fn run(args: ChatArgs) -> u8 {
    let mut signals = signals();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    if let Some(id) = args.resume.as_deref().filter(|id| !is_valid_id(id)) {
        return fail(&[format!("--resume {id}: not a session id")]);
    }
    let sessions = sessions_dir();
    let resumed = match (&args.resume, &sessions) {
        (Some(id), Some(dir)) => match saved(&dir.join(id), id, &cwd) {
            Ok(state) => Some(state),
            Err(e) => return fail(&[e]),
        },
        (Some(id), None) => {
            return fail(&[format!("--resume {id}: no state directory (set HOME or XDG_STATE_HOME)")]);
        }
        (None, _) => None,
    };
    let loaded = match load(&args, &cwd) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let model = match model(&args) {
        Ok(model) => model,
        Err(code) => return code,
    };
    // The configuration is read: this host only mounts it, on an engine asking `model`.
    let host = Host::builder().project_dir(&cwd).no_default_config(true).chat_model(model.clone()).build();
    let engine = Engine::clone(host.engine());
    // Signals end the command at every step, starting included (a slow hook's mount).
    let errors = tokio::select! {
        mounted = host.apply(Ok(loaded)) => mounted.start_errors,
        code = quit_signal(&mut signals) => return code,
    };
    if !errors.is_empty() {
        engine.shutdown().await;
        return fail(&errors);
    }

    let ui = Ui::new();
    let is_terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    // Lines are read only when someone types them: the REPL, or approval questions.
    let input = (args.prompt.is_none() || is_terminal).then(Input::stdin);
    let allowed: BTreeSet<String> = args.allow.iter().cloned().collect();
    let policy = match (&input, is_terminal) {
        (Some(input), true) => ApprovalPolicy::Ask(Arc::new(TerminalAsker {
            input: input.clone(),
            ui: ui.clone(),
            is_yes: args.yes,
            allowed: allowed.clone(),
        })),
        _ if args.yes => ApprovalPolicy::AllowAll,
        _ if !allowed.is_empty() => ApprovalPolicy::Allow(allowed),
        _ => ApprovalPolicy::default(),
    };
    let is_streaming = args.format == Format::Text && std::io::stdout().is_terminal();
    let mut builder = Agent::builder()
        .model(model)
        .engine(engine.clone())
        .tools(ToolRegistry::with_builtins())
        .system_prompt(
            "You are a helpful coding agent. Use the tools (Bash, Read, Write, Edit, Glob, Grep, LS) to inspect \
             and change files in the working directory.",
        )
        .approval(policy)
        .streaming(is_streaming);
    if let Some(timeout) = args.model_timeout {
        builder = builder.model_timeout(timeout);
    }
    let agent = match builder.build() {
        Ok(agent) => agent,
        Err(e) => {
            engine.shutdown().await;
            return fail(&[e.to_string()]);
        }
    };

    // The id asked for (and checked to be a file name), never one read from the saved state.
    let id = args.resume.clone().unwrap_or_else(agent_loop::transcript::new_uuid);
    let session_dir = sessions.as_ref().map(|dir| dir.join(&id));
    let transcript_path = session_dir.as_ref().map(|dir| dir.join("transcript.jsonl"));
    match (&sessions, &session_dir) {
        (Some(root), Some(dir)) => {
            if let Err(e) = private_dir(root).and_then(|()| private_dir(dir)) {
                eprintln!("warning: cannot make the session directory {} private: {e}", dir.display());
            }
        }
        _ => eprintln!("warning: no state directory (set HOME or XDG_STATE_HOME): the session is not saved"),
    }
    let starting = async {
        match resumed {
            Some(state) => {
                let (session, report) = Session::restore_with(&agent, state, transcript_path).await;
                for name in &report.rearmed {
                    eprintln!("session hook re-armed: {name}");
                }
                for (def, why) in &report.dropped {
                    eprintln!("session hook dropped ({} on {}): {why}", def.kind, def.event);
                }
                session
            }
            None => {
                let mut config = SessionConfig::new(id.clone(), cwd);
                config.transcript_path = transcript_path;
                agent.session(config).await
            }
        }
    };
    // Session-start hooks run here: a signal ends them and the command.
    let mut session = tokio::select! {
        session = starting => session,
        code = quit_signal(&mut signals) => {
            let _ = tokio::time::timeout(QUIT_GRACE, engine.shutdown()).await;
            return code;
        }
    };
    let shown = Arc::new(Shown {
        ui: ui.clone(),
        format: args.format,
        verbose: args.all_events,
        is_terminal,
        streamed: Mutex::new(false),
    });
    watch(&mut session, shown.clone(), args.audit.clone());
    let cwd = std::env::current_dir().ok().map(|dir| dir.display().to_string());
    crate::record::watch_chat(&mut session, engine.clone(), cwd);
    if args.format == Format::Text
        && let Some(started) = session.start_event().filter(|s| args.all_events || !s.hooks.is_empty())
    {
        for line in transcript::fired_lines(started) {
            outln!("{line}");
        }
    }
    ui.start_spinner();
    let mut last_interrupt: Option<Instant> = None;
    let code = match args.prompt {
        Some(prompt) => {
            let (result, quit) = run_turn(&mut session, prompt, &mut signals, &mut last_interrupt).await;
            ui.working(None);
            show_turn(&shown, &session, &result);
            quit.unwrap_or_else(|| exit_code(&result))
        }
        None => {
            let input = input.unwrap_or_else(Input::stdin);
            if is_terminal {
                eprintln!(
                    "hookwire chat: session {} in {}. Type a message; an empty line or Ctrl-D leaves, Ctrl-C cancels a turn.",
                    session.id(),
                    session.cwd().display()
                );
            }
            repl(&mut session, &input, &shown, &mut signals, &mut last_interrupt, session_dir.as_deref()).await
        }
    };
    save(session_dir.as_deref(), &session);
    ui.working(None);
    // Session-end hooks and the engine's shutdown: bounded when a signal is ending the command,
    // and cut short by one arriving now.
    let is_quitting = code > 128;
    let closing = async {
        session.close().await;
        engine.shutdown().await;
    };
    let code = tokio::select! {
        () = closing => code,
        () = tokio::time::sleep(QUIT_GRACE), if is_quitting => code,
        quit = quit_signal(&mut signals) => if is_quitting { code } else { quit },
    };
    if session_dir.is_some() && args.format == Format::Text {
        eprintln!("{}", ui.err.dim(&format!("session {id} saved; continue it with `hookwire chat --resume {id}`")));
    }
    code
}

/// The REPL: read a line, run a turn, until an empty line, the end of the input, or a second
/// Ctrl-C within 2 s.
async fn repl(
    session: &mut Session,
    input: &Input,
    shown: &Shown,
    signals: &mut tokio::sync::mpsc::UnboundedReceiver<Interrupt>,
    last_interrupt: &mut Option<Instant>,
    session_dir: Option<&Path>,
) -> u8 {
    let ui = &shown.ui;
    loop {
        if shown.is_terminal {
            ui.print(|| {
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "{}", ui.err.bold("> "));
                let _ = err.flush();
            });
        }
        let line = tokio::select! {
            line = input.next_line() => line,
            Some(signal) = signals.recv() => match signal {
                Interrupt::Quit(code) => return code,
                Interrupt::Interrupt => {
                    if last_interrupt.is_some_and(|at| at.elapsed() < Duration::from_secs(2)) {
                        eprintln!();
                        return 130;
                    }
                    *last_interrupt = Some(Instant::now());
                    eprintln!("\n{}", ui.err.dim("(Ctrl-C again within 2 s to quit)"));
                    continue;
                }
            },
        };
        let Some(line) = line else { return 0 };
        if line.trim().is_empty() {
            return 0;
        }
        let (result, quit) = run_turn(session, line, signals, last_interrupt).await;
        ui.working(None);
        show_turn(shown, session, &result);
        save(session_dir, session);
        if let Some(code) = quit {
            return code;
        }
    }
}
