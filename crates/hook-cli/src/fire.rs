//! `hookwire fire`: fire one event through the configured hooks and print the outcome.

use std::{io::Read, path::PathBuf};

use clap::Args;
use hook_core::{Context, Decision, Event, FireOutcome};
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
    event: String,
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

/// Reads `--context`: a JSON object; `event` in it is ignored in favour of EVENT.
/// The largest context `fire` reads: a context is a conversation, not a data set.
const MAX_CONTEXT_BYTES: u64 = 64 << 20;

fn read_context(path: Option<&PathBuf>) -> Result<Context, String> {
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
            "  {}  {}{}{}  attempts={}  {:.1}ms{}",
            entry["id"].as_str().unwrap_or_default(),
            entry["outcome"].as_str().unwrap_or_default(),
            entry["action"].as_str().map(|a| format!("  action={a}")).unwrap_or_default(),
            if changed.is_empty() { String::new() } else { format!("  changed={}", changed.join(",")) },
            entry["attempts"],
            entry["duration_ms"].as_f64().unwrap_or(0.0),
            entry["error"].as_str().map(|e| format!("  error: {}", terminal::safe(e))).unwrap_or_default(),
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
    let event: Event = match args.event.parse() {
        Ok(event) => event,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut context = match read_context(args.context.as_ref()) {
        Ok(context) => context,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let host = match engine::start(&args.config, args.base_url.as_deref(), args.model.as_deref()).await {
        Ok(host) => host,
        Err(code) => return code,
    };
    let engine = host.engine();
    let started = telemetry::started();
    let outcome = engine.fire(event, &mut context).await;
    telemetry::record(started, &outcome, &context);
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
