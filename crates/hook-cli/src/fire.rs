//! `hookwire fire`: fire one event through the configured hooks and print the outcome.

use std::{io::Read, path::PathBuf};

use clap::Args;
use hook_core::{Context, Decision, Event, FireOutcome};
use hook_protocol::Agent;
use serde_json::{Map, Value, json};

use crate::{ConfigArgs, Format, audit, engine, telemetry, terminal};

/// The exit codes of `--exit-code`.
const EXIT_CODES: &str = "Exit codes:
  0  the hooks ran (with --exit-code: continue, approved or respond)
  1  the context could not be read
  2  a usage or configuration error (an unknown event, a hook file that does not load)
  3  with --exit-code: denied, deny_tool, skip or stop
  4  with --exit-code: abort_turn or hard_abort";

#[derive(Debug, Args)]
#[command(after_long_help = EXIT_CODES)]
pub(crate) struct FireArgs {
    /// The event: any canonical name or alias (`pre_tool_execution`, `before_tool`, `PreToolUse`, ...).
    /// With `--agent` it may be left out: the input's `hook_event_name` names it.
    event: Option<String>,
    /// Read the context as this agent's hook input (`claude`, `gemini` or `codex`): what the
    /// agent writes to a hook's stdin (`hook_event_name`, `tool_input`, ...).
    #[arg(long, value_name = "AGENT")]
    agent: Option<Agent>,
    #[command(flatten)]
    config: ConfigArgs,
    /// A JSON object with HookContext fields (plus `tools`, `options`); `-` reads stdin. Default `{}`.
    #[arg(long, value_name = "FILE|-")]
    context: Option<PathBuf>,
    /// Output format (default: json when stdout is not a terminal, else text).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Append one JSON line per hook run to this file.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// OpenAI-compatible base URL for llm hooks (default `OPENAI_BASE_URL`).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Model for llm hooks (default `HOOKWIRE_MODEL`).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// Exit with the decision: 0 continue / approved / respond, 3 denied / deny_tool / skip /
    /// stop, 4 abort_turn / hard_abort (for scripts: `hookwire fire ... --exit-code || exit`).
    #[arg(long)]
    exit_code: bool,
}

/// The exit code `--exit-code` gives `decision`.
pub(crate) fn decision_code(decision: Decision) -> u8 {
    match decision {
        Decision::Continue | Decision::Approved | Decision::Respond => 0,
        Decision::AbortTurn | Decision::HardAbort => 4,
        _ => 3,
    }
}

/// The largest context `fire` reads: a context is a conversation, not a data set.
const MAX_CONTEXT_BYTES: u64 = 64 << 20;

/// Members of an agent's hook input that are no context field: given to `fire` without
/// `--agent`, the input was meant to be read as the agent's.
const AGENT_MEMBERS: &[&str] = &[
    "hook_event_name",
    "tool_input",
    "tool_response",
    "tool_use_id",
    "transcript_path",
    "permission_mode",
    "prompt",
    "last_assistant_message",
    "stop_hook_active",
];

/// The warnings for members of a context object that `fire` does not read: they would be
/// silently dropped, and the hooks would see a context without them.
fn unknown_member_warnings(object: &Map<String, Value>) -> Vec<String> {
    let known = |name: &str| Context::REPLACEABLE.contains(&name) || Context::NOT_REPLACEABLE.contains(&name);
    let mut warnings = Vec::new();
    let agent_shaped: Vec<&str> =
        object.keys().map(String::as_str).filter(|name| AGENT_MEMBERS.contains(name)).collect();
    for name in object.keys().map(String::as_str).filter(|name| !known(name) && !AGENT_MEMBERS.contains(name)) {
        warnings.push(format!("the context field `{name}` is not a hookwire context field; it is ignored"));
    }
    if !agent_shaped.is_empty() {
        let names = agent_shaped.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ");
        warnings.push(format!(
            "the context field(s) {names} belong to an agent's hook input, not to hookwire's context; \
             they are ignored. To read the context as the agent's hook input, add `--agent claude` \
             (or `--agent gemini`, `--agent codex`)"
        ));
    }
    if object.contains_key("tool") {
        warnings.push(
            "the context field `tool` is derived by hookwire from `tool_name` and `tool_arguments`; \
             the one given is ignored"
                .to_owned(),
        );
    }
    warnings
}

/// Reads the context (see [`read_object`]) and the event: EVENT, or with `--agent` the event
/// the agent's input names. Errors carry the exit code.
fn read_event_and_context(args: &FireArgs) -> Result<(Event, Context), (u8, String)> {
    let event = match args.event.as_deref().map(str::parse::<Event>).transpose() {
        Ok(event) => event,
        Err(e) => return Err((2, e.to_string())),
    };
    let object = read_object(args.context.as_ref()).map_err(|e| (1, e))?;
    let Some(agent) = args.agent else {
        let Some(event) = event else {
            return Err((2, "name the EVENT to fire (or give `--agent` and the agent's hook input)".to_owned()));
        };
        for warning in unknown_member_warnings(&object) {
            eprintln!("warning: {warning}");
        }
        return context_from_object(object).map(|context| (event, context)).map_err(|e| (1, e));
    };
    let mut object = object;
    if let Some(event) = event
        && !object.contains_key("hook_event_name")
    {
        let name = agent.event_name(event).ok_or_else(|| {
            (2, format!("{} has no event `{event}`; fire it without `--agent`", agent.display_name()))
        })?;
        object.insert("hook_event_name".into(), name.into());
    }
    let (named, mut context) = hook_agents::context_from_input(agent, Value::Object(object))
        .map_err(|e| (1, format!("the context is not {} hook input: {e}", agent.display_name())))?;
    if let Some(event) = event
        && event != named
    {
        return Err((2, format!("EVENT is `{event}` but the {} input names `{named}`", agent.display_name())));
    }
    if context.cwd.is_none() {
        context.cwd = std::env::current_dir().ok().map(|dir| dir.display().to_string());
    }
    Ok((named, context))
}

/// Reads `--context`: a JSON object (`{}` when absent); `event` in it is ignored in favour of
/// EVENT.
fn read_object(path: Option<&PathBuf>) -> Result<Map<String, Value>, String> {
    let too_big = || {
        format!(
            "the context is over {} MiB; give a smaller one (the conversation, not a data set)",
            MAX_CONTEXT_BYTES >> 20
        )
    };
    let mut text = String::new();
    let read = match path {
        None => {
            text.push_str("{}");
            Ok(0)
        }
        Some(path) if path.as_os_str() == "-" => std::io::stdin()
            .take(MAX_CONTEXT_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read the context from stdin: {e}")),
        Some(path) => std::fs::File::open(path)
            .and_then(|file| file.take(MAX_CONTEXT_BYTES + 1).read_to_string(&mut text))
            .map_err(|e| format!("cannot read {}: {e}", path.display())),
    };
    read?;
    if text.len() as u64 > MAX_CONTEXT_BYTES {
        return Err(too_big());
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| format!("the context is not JSON: {e}"))?;
    let Value::Object(mut object) = value else {
        return Err("the context must be a JSON object with HookContext fields".into());
    };
    object.remove("event");
    Ok(object)
}

/// The context the object describes, with `cwd` defaulting to the current directory.
fn context_from_object(object: Map<String, Value>) -> Result<Context, String> {
    let mut context: Context = hook_protocol::from_json_value(Value::Object(object))
        .map_err(|e| format!("the context does not fit HookContext: {e}"))?;
    if context.cwd.is_none() {
        context.cwd = std::env::current_dir().ok().map(|dir| dir.display().to_string());
    }
    Ok(context)
}

/// The outcome as one JSON object (the `--format json` contract).
pub(crate) fn outcome_json(outcome: &FireOutcome, context: &Context) -> Value {
    let mut out = Map::new();
    out.insert("event".into(), json!(outcome.event.as_str()));
    out.insert("action".into(), json!(outcome.decision.as_str()));
    if let Some(reason) = &outcome.reason {
        out.insert("reason".into(), json!(reason));
    }
    out.insert("context".into(), serde_json::to_value(context).unwrap_or(Value::Null));
    let mut effects = Map::new();
    if !outcome.effects.inject_messages.is_empty() {
        effects.insert("inject_messages".into(), json!(outcome.effects.inject_messages));
    }
    if !outcome.effects.additional_context.is_empty() {
        effects.insert("additional_context".into(), json!(outcome.effects.additional_context.join("\n")));
    }
    if !outcome.effects.system_messages.is_empty() {
        effects.insert("system_message".into(), json!(outcome.effects.system_messages.join("\n")));
    }
    if let Some(feedback) = &outcome.effects.retry_feedback {
        effects.insert("retry_feedback".into(), json!(feedback));
    }
    out.insert("effects".into(), Value::Object(effects));
    if let Some(respond) = &outcome.respond {
        out.insert("respond".into(), json!(respond));
    }
    let trace: Vec<Value> = outcome
        .trace
        .iter()
        .map(|entry| {
            let mut record = json!({
                "id": entry.id.as_str(),
                "outcome": entry.outcome.as_str(),
                "action": entry.action.map(|a| a.as_str()),
                "changed": entry.changed.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
                "attempts": entry.attempts,
                "duration_ms": entry.duration.as_secs_f64() * 1000.0,
            });
            if let Some(error) = &entry.error {
                record["error"] = json!(error.to_string());
            }
            if let Some(reason) = &entry.reason {
                record["reason"] = json!(reason);
            }
            record
        })
        .collect();
    out.insert("trace".into(), Value::Array(trace));
    Value::Object(out)
}

fn print_text(outcome: &FireOutcome, json: &Value) {
    match &outcome.reason {
        Some(reason) => outln!("{} → {}: {}", outcome.event, outcome.decision.as_str(), terminal::safe(reason)),
        None => outln!("{} → {}", outcome.event, outcome.decision.as_str()),
    }
    for entry in json["trace"].as_array().into_iter().flatten() {
        let changed: Vec<&str> = entry["changed"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        outln!(
            "  {}  {}{}{}  attempts={}  {:.1}ms{}{}",
            entry["id"].as_str().unwrap_or_default(),
            entry["outcome"].as_str().unwrap_or_default(),
            entry["action"].as_str().map(|a| format!("  action={a}")).unwrap_or_default(),
            if changed.is_empty() { String::new() } else { format!("  changed={}", changed.join(",")) },
            entry["attempts"],
            entry["duration_ms"].as_f64().unwrap_or(0.0),
            entry["error"].as_str().map(|e| format!("  error: {}", terminal::safe(e))).unwrap_or_default(),
            entry["reason"].as_str().map(|r| format!("  ({})", terminal::safe(r))).unwrap_or_default(),
        );
    }
    for (key, value) in json["effects"].as_object().into_iter().flatten() {
        outln!("  {key}: {value}");
    }
    if let Some(respond) = json.get("respond") {
        outln!("  respond: {respond}");
    }
}

pub(crate) async fn run(args: FireArgs) -> u8 {
    let (event, mut context) = match read_event_and_context(&args) {
        Ok(read) => read,
        Err((code, e)) => {
            eprintln!("error: {e}");
            return code;
        }
    };
    let host = match engine::start(&args.config, args.base_url.as_deref(), args.model.as_deref()).await {
        Ok(host) => host,
        Err(code) => return code,
    };
    let engine = host.engine();
    let started = telemetry::started();
    crate::record::start();
    let clock = std::time::Instant::now();
    let outcome = engine.fire(event, &mut context).await;
    telemetry::record(started, &outcome, &context);
    crate::record::fire(hook_store::Origin::Fire, engine, &outcome, &context, clock.elapsed(), None);
    if context.tool.is_none() && hook_core::capability(event).is_tool_event {
        // No hook ran, so the chain did not derive the view: `fire` shows it all the same.
        hook_agents::refresh_tool_view(&mut context);
    }
    let json = outcome_json(&outcome, &context);
    if let Some(path) = &args.audit
        && let Err(e) = audit::append(path, &outcome)
    {
        eprintln!("warning: cannot write the audit log {}: {e}", path.display());
    }
    match args.format.unwrap_or_else(Format::default_for_stdout) {
        Format::Json => outln!("{}", serde_json::to_string(&json).unwrap_or_default()),
        Format::Text => print_text(&outcome, &json),
    }
    // The outcome is out before the hooks are taken down.
    engine::shutdown_one_shot(engine).await;
    if args.exit_code { decision_code(outcome.decision) } else { 0 }
}
