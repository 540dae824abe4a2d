//! `hookwire hook claude|gemini|codex`: hookwire as ONE hook of an agent. It reads the agent's
//! hook input on stdin, fires the event through every configured hook of every dialect, and
//! answers with the exit code, stdout and stderr from which the agent concludes the combined
//! decision.

use std::{
    io::{Read, Write},
    path::PathBuf,
};

use clap::Args;
use hook_core::{
    Action,
    agent::{BridgeAnswer, answer_as, context_from_input, failure_answer},
    capability,
    config::ConfigSource,
};
use hook_protocol::{Agent, Event, serde_json};

use crate::{ConfigArgs, discover, engine};

/// The largest hook input read from stdin.
const MAX_INPUT_BYTES: u64 = 64 << 20;

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
}

/// The project directory the agent names (`CLAUDE_PROJECT_DIR`, Gemini's `GEMINI_PROJECT_DIR`).
fn project_dir(agent: Agent) -> Option<PathBuf> {
    let vars: &[&str] = match agent {
        Agent::Gemini => &["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
        Agent::Claude | Agent::Codex => &["CLAUDE_PROJECT_DIR"],
    };
    vars.iter().find_map(|var| std::env::var_os(var).filter(|v| !v.is_empty())).map(PathBuf::from)
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
fn refuse(agent: Agent, event: Event, reason: String) -> BridgeAnswer {
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
    let mut answer = answer_as(agent, event, &outcome, &hook_core::Context::default());
    answer.stderr = format!("hookwire: {reason}\n");
    answer
}

pub(crate) async fn run(args: HookArgs) -> u8 {
    let agent = args.agent;
    let mut text = String::new();
    if let Err(e) = std::io::stdin().take(MAX_INPUT_BYTES).read_to_string(&mut text) {
        return write_answer(&failure_answer(&format!("cannot read the hook input on stdin: {e}")));
    }
    let input = match serde_json::from_str(&text) {
        Ok(input) => input,
        Err(e) => return write_answer(&failure_answer(&format!("the hook input on stdin is not JSON: {e}"))),
    };
    let (event, mut context) = match context_from_input(agent, input) {
        Ok(read) => read,
        Err(e) => return write_answer(&failure_answer(&e.to_string())),
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let project = project_dir(agent).or_else(|| context.cwd.as_ref().map(PathBuf::from)).unwrap_or_else(|| cwd.clone());
    let mut sources =
        discover::discover_except(&args.config.configs, args.config.no_default_config, &cwd, Some(agent)).sources;
    for path in &args.settings {
        let path = if path.is_absolute() { path.clone() } else { cwd.join(path) };
        if !path.is_file() {
            return write_answer(&refuse(agent, event, format!("--settings {}: no such file", path.display())));
        }
        sources.push(ConfigSource::agent(path, hook_core::Level::User, agent));
    }
    let mut loaded = engine::load_sources(&sources);
    loaded.errors.splice(0..0, engine::missing_configs(&args.config.configs, &cwd));
    for warning in &loaded.warnings {
        eprintln!("hookwire: warning: {warning}");
    }
    for untrusted in &loaded.untrusted {
        eprintln!(
            "hookwire: warning: {}: {}; {}",
            untrusted.config.display(),
            untrusted.reason,
            untrusted.how_to_trust
        );
    }
    if !loaded.errors.is_empty() {
        return write_answer(&refuse(agent, event, format!("configuration error: {}", loaded.errors.join("; "))));
    }
    let relevant = loaded.specs.iter().any(|spec| spec.events.contains(&event));
    if !relevant {
        // Nothing to run: answer at once, with no runtime work beyond reading the input.
        return write_answer(&BridgeAnswer { exit_code: 0, stdout: String::new(), stderr: String::new() });
    }
    if context.cwd.is_none() {
        context.cwd = Some(cwd.display().to_string());
    }
    let engine = engine::engine_for(engine::lazy_model(None, None), Some(project));
    let errors = engine::mount(&engine, loaded.specs).await;
    if !errors.is_empty() {
        engine.shutdown().await;
        return write_answer(&refuse(agent, event, format!("cannot start the hooks: {}", errors.join("; "))));
    }
    let outcome = engine.fire(event, &mut context).await;
    for entry in &outcome.trace {
        if let Some(error) = &entry.error {
            eprintln!("hookwire: {}: {}: {error}", entry.id, entry.outcome);
        }
    }
    if let Some(id) = outcome.changed_by(hook_core::Field::ToolArguments) {
        eprintln!("hookwire: the tool input as rewritten by {id} stands");
    }
    let answer = answer_as(agent, event, &outcome, &context);
    // The answer goes out before the hooks are shut down: the agent is waiting for it.
    let code = write_answer(&answer);
    engine.shutdown().await;
    code
}
