//! `hookwire replay FILE|DIR...`: reads recorded sessions — Claude Code transcripts, Codex
//! rollouts, Gemini CLI chat logs, hookwire's own transcripts (Claude Code's shape) — and fires every tool call as the
//! agent's `PreToolUse` (Gemini: `BeforeTool`) and every user prompt as its `UserPromptSubmit`
//! (Gemini: `BeforeAgent`) through the configured
//! hooks, without running any tool, to show what the hooks would have denied, asked or
//! rewritten.
//!
//! Hooks with side effects (`command`, `bash`, `process`, `http`, `prompt`, `llm`) run only with
//! `--run-hooks`: a replay must not re-send last week's commands to a webhook. The other kinds
//! (in-process ones such as rules) run; the skipped hooks are listed. A record that does not
//! parse is counted and named, never fatal.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

use clap::Args;
use hook_core::{FireOutcome, HookSpec};
use hook_host::Scope;
use hook_protocol::{
    Agent,
    serde_json::{Map, Value, json},
};

use crate::{ConfigArgs, Format, discover, engine, hook, test};

mod records;
mod since;

use records::Call;

/// Hook kinds that reach outside hookwire (a process, a network, a model): run only with
/// `--run-hooks`.
const SIDE_EFFECT_KINDS: [&str; 6] = ["command", "bash", "process", "http", "prompt", "llm"];

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// Session records: JSONL files (Gemini CLI: also `chats/session-*.json`), or directories
    /// searched for them.
    paths: Vec<PathBuf>,
    /// Replay this agent's records of the current project (`claude`: its
    /// `~/.claude/projects/<project>/*.jsonl`; `codex`: the rollouts under `~/.codex/sessions`
    /// whose session ran in the project; `gemini`: the project's `~/.gemini/tmp/<dir>/chats/`).
    #[arg(long, value_name = "AGENT")]
    agent: Option<Agent>,
    /// Only records from this recent: a duration (`7d`, `24h`, `30m`, `90s`, `2w`) or an
    /// RFC 3339 date or time (`2026-11-20`, `2026-11-20T08:00:00Z`).
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Also run hooks with side effects (command, bash, process, http, prompt, llm).
    #[arg(long)]
    run_hooks: bool,
    #[command(flatten)]
    config: ConfigArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// One would-be decision.
#[derive(Debug, serde::Serialize)]
struct Finding {
    session: String,
    time: Option<String>,
    tool: Option<String>,
    input: Value,
    decision: &'static str,
    hook: Option<String>,
    /// The rule that decided, when the deciding hook is a rules file (`pack/name` or `name`).
    rule: Option<String>,
    reason: Option<String>,
}

/// The hook input of `call` in its agent's terms.
fn input_of(call: &Call, cwd: &Path) -> Value {
    if call.agent == Agent::Copilot {
        return copilot_input_of(call, cwd);
    }
    let event = match (&call.tool, call.agent) {
        (Some(_), Agent::Gemini) => "BeforeTool",
        (Some(_), _) => "PreToolUse",
        (None, Agent::Gemini) => "BeforeAgent",
        (None, _) => "UserPromptSubmit",
    };
    let mut input = Map::new();
    input.insert("hook_event_name".into(), event.into());
    input.insert("session_id".into(), call.session.clone().into());
    input.insert("cwd".into(), cwd.display().to_string().into());
    input.insert("transcript_path".into(), call.transcript.display().to_string().into());
    if let Some((name, tool_input)) = &call.tool {
        input.insert("tool_name".into(), name.clone().into());
        input.insert("tool_input".into(), tool_input.clone());
    }
    if let Some(prompt) = &call.prompt {
        input.insert("prompt".into(), prompt.clone().into());
    }
    Value::Object(input)
}

/// A Copilot CLI call's camelCase hook input (`toolName`, `toolArgs`), with the event named as
/// `hookwire hook copilot --event` names it (Copilot's input names none).
fn copilot_input_of(call: &Call, cwd: &Path) -> Value {
    let mut input = Map::new();
    let event = if call.tool.is_some() { "preToolUse" } else { "userPromptSubmitted" };
    input.insert("hook_event_name".into(), event.into());
    input.insert("sessionId".into(), call.session.clone().into());
    input.insert("cwd".into(), cwd.display().to_string().into());
    if let Some((name, tool_input)) = &call.tool {
        input.insert("toolName".into(), name.clone().into());
        input.insert("toolArgs".into(), tool_input.clone());
    }
    if let Some(prompt) = &call.prompt {
        input.insert("prompt".into(), prompt.clone().into());
    }
    Value::Object(input)
}

/// The hook that decided: the one whose action took effect, else the last that changed the
/// tool input, else the first that ran and changed something.
fn deciding_hook(outcome: &FireOutcome) -> Option<String> {
    let entry = outcome
        .trace
        .iter()
        .find(|entry| entry.action.is_some())
        .or_else(|| outcome.trace.iter().rev().find(|entry| !entry.changed.is_empty()))
        .or_else(|| outcome.trace.iter().find(|entry| entry.outcome == hook_core::OutcomeClass::Ok));
    entry.map(|entry| entry.id.to_string())
}

/// The rule that decided, when the hook that decided is one of the rules files `rules_hooks`.
fn deciding_rule(
    outcome: &FireOutcome,
    rules_hooks: &[(HookSpec, hook_rules::RulesHook)],
    context: &hook_protocol::Context,
) -> Option<String> {
    let decider = deciding_hook(outcome)?;
    let (_, hook) = rules_hooks
        .iter()
        .find(|(spec, _)| hook_core::HookId::new(spec.level, &spec.name, outcome.event).as_str() == decider)?;
    hook.verdict(outcome.event, context).decided_by.map(|hit| hit.rule)
}

/// The configured hooks, and the ids of those a replay without `--run-hooks` leaves out.
fn split_specs(specs: Vec<HookSpec>, run_hooks: bool) -> (Vec<HookSpec>, Vec<String>) {
    if run_hooks {
        return (specs, Vec::new());
    }
    let (skipped, kept): (Vec<HookSpec>, Vec<HookSpec>) =
        specs.into_iter().partition(|spec| SIDE_EFFECT_KINDS.contains(&spec.kind.as_str()));
    let ids = skipped.iter().map(|spec| format!("{}:{} ({})", spec.level, spec.name, spec.source)).collect();
    (kept, ids)
}

/// `hookwire replay`.
pub(crate) async fn run(args: ReplayArgs) -> u8 {
    // Replayed calls were decided when they happened: the decision store keeps that record only.
    crate::record::switch_off();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let project = discover::project_root(&cwd).unwrap_or_else(|| cwd.clone());
    let cutoff = match args.since.as_deref().map(|text| since::cutoff(text, since::now())) {
        Some(Ok(cutoff)) => Some(cutoff),
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return 2;
        }
        None => None,
    };
    let mut files = Vec::new();
    for path in &args.paths {
        let path = hook::absolute(path, &cwd);
        if path.is_dir() {
            records::find_records(&path, &mut files);
        } else {
            files.push(path);
        }
    }
    if let Some(agent) = args.agent {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
        let found = records::agent_records(agent, &project, &home);
        if found.is_empty() && args.paths.is_empty() {
            eprintln!("error: no {agent} session records of {} under {}", project.display(), home.display());
            return 2;
        }
        files.extend(found);
    }
    if files.is_empty() {
        eprintln!(
            "error: no session records: name JSONL files or directories, or use --agent claude|codex|gemini|copilot"
        );
        return 2;
    }
    // What decides for the agent with hookwire installed: hookwire's configuration and the
    // agents' own settings files, checked against trust as `hookwire hook` checks them.
    let sources = discover::discover_except(&args.config.configs, args.config.no_default_config, &cwd, None).sources;
    let roots = if args.config.no_default_config { Vec::new() } else { discover::project_roots(&cwd) };
    let mut loaded = engine::load_scoped(&sources, &Scope { skip: None, roots });
    loaded.errors.splice(0..0, engine::missing_configs(&args.config.configs, &cwd));
    eprint!("{}", hook::notes_of(&loaded));
    if let Some(problem) = hook::load_problem(&loaded) {
        eprintln!("error: {problem}");
        return 2;
    }
    let (specs, skipped) = split_specs(loaded.specs, args.run_hooks);
    // Each rules file runs as one hook; its own verdict names the rule that decided.
    let rules_hooks: Vec<(HookSpec, hook_rules::RulesHook)> =
        specs.iter().filter_map(|spec| Some((spec.clone(), hook_rules::RulesFactory.build_hook(spec).ok()?))).collect();
    let engine = engine::engine_for(engine::lazy_model(None, None), Some(project.clone()));
    let errors = engine::mount(&engine, specs).await;
    if !errors.is_empty() {
        engine.shutdown().await;
        eprintln!("error: cannot start the hooks: {}", errors.join("; "));
        return 2;
    }

    let mut record_errors = Vec::new();
    let (mut tool_calls, mut prompts) = (0usize, 0usize);
    let mut sessions = BTreeSet::new();
    let mut findings = Vec::new();
    let mut fire_errors = 0usize;
    for file in &files {
        let shown = file.strip_prefix(&cwd).unwrap_or(file).display().to_string();
        // A file last written before the cutoff holds nothing newer.
        let modified = since::modified(file);
        if let (Some(cutoff), Some(modified)) = (cutoff, modified)
            && modified < cutoff
        {
            continue;
        }
        let read = records::read_records(file, &shown);
        record_errors.extend(read.errors);
        for call in read.calls {
            if let Some(cutoff) = cutoff {
                // A record without a time is dated by its file.
                let at = call.time.as_deref().and_then(since::parse_time).or(modified);
                if at.is_some_and(|at| at < cutoff) {
                    continue;
                }
            }
            sessions.insert(call.session.clone());
            if call.tool.is_some() {
                tool_calls += 1;
            } else {
                prompts += 1;
            }
            let (event, context) = match hook_agents::context_from_input(call.agent, input_of(&call, &project)) {
                Ok(read) => read,
                Err(e) => {
                    record_errors.push(format!("{shown}: session {}: {e}", call.session));
                    continue;
                }
            };
            let before = context.clone();
            let (answer, outcome) = hook::fire_bridge_traced(&engine, call.agent, event, context, &project).await;
            fire_errors += outcome.trace.iter().filter(|e| e.error.is_some()).count();
            let got = test::read_answer(event, &answer);
            let decision = match got.decision {
                Some(decision @ ("deny" | "ask" | "block" | "stop")) => decision,
                _ if got.updated_input.is_some() => "rewrite",
                _ => continue,
            };
            findings.push(Finding {
                session: call.session.clone(),
                time: call.time.clone(),
                tool: call.tool.as_ref().map(|(name, _)| name.clone()),
                input: call.tool.as_ref().map_or_else(
                    || json!({ "prompt": call.prompt.clone().unwrap_or_default() }),
                    |(_, input)| input.clone(),
                ),
                decision,
                hook: deciding_hook(&outcome),
                rule: deciding_rule(&outcome, &rules_hooks, &before),
                reason: got.reason.clone(),
            });
        }
    }
    engine::shutdown_one_shot(&engine).await;

    let count = |words: &[&str]| findings.iter().filter(|f| words.contains(&f.decision)).count();
    let (denied, asked, rewritten) = (count(&["deny", "block", "stop"]), count(&["ask"]), count(&["rewrite"]));
    let deciders: BTreeSet<&str> = findings.iter().filter_map(|f| f.hook.as_deref()).collect();
    let errors = record_errors.len() + fire_errors;
    match args.format {
        Format::Json => {
            let report = json!({
                "tool_calls": tool_calls,
                "prompts": prompts,
                "sessions": sessions.len(),
                "denied": denied,
                "asked": asked,
                "rewritten": rewritten,
                "errors": errors,
                "unparsed": record_errors,
                "skipped_hooks": skipped,
                "findings": findings,
            });
            outln!("{report}");
        }
        Format::Text => {
            for f in &findings {
                outln!(
                    "{} {} {}: {} by {}{}{}",
                    f.session,
                    f.time.as_deref().unwrap_or("-"),
                    f.tool.as_deref().unwrap_or("prompt"),
                    f.decision,
                    f.hook.as_deref().unwrap_or("?"),
                    f.rule.as_deref().map_or_else(String::new, |rule| format!(" rule {rule}")),
                    f.reason.as_deref().map_or_else(String::new, |r| format!(": {r}"))
                );
                outln!("    input: {}", hook_core::head_chars(&f.input.to_string(), 300));
            }
            if !skipped.is_empty() {
                outln!("skipped (hooks with side effects run only with --run-hooks): {}", skipped.join(", "));
            }
            for error in &record_errors {
                outln!("unparsed: {error}");
            }
            outln!(
                "{tool_calls} tool calls and {prompts} prompts in {} sessions; {denied} would have been denied, \
                 {asked} asked, {rewritten} rewritten by {} hooks; {errors} errors",
                sessions.len(),
                deciders.len()
            );
        }
    }
    0
}
