//! `hookwire check`: load everything and show, per event, the hooks that will run.

use hook_core::{Event, HookDefinition, HookSpec, fmt_duration};
use hook_protocol::config::HookFilter;
use serde_json::{Value, json};

use crate::{ConfigArgs, Format, engine};

/// One line of the listing.
fn describe(spec: &HookSpec, event: Event) -> Value {
    let mut line = json!({
        "id": hook_core::HookId::new(spec.level, &spec.name, event).as_str(),
        "level": spec.level.as_str(),
        "kind": spec.kind,
        "priority": spec.priority,
        "enabled": spec.enabled,
        "filter": filter_text(&spec.filter),
        "timeout_ms": spec.effective_timeout(event, engine::factory(&spec.kind).as_deref()).as_millis() as u64,
        "retry": spec.effective_retry(engine::factory(&spec.kind).as_deref()),
        "on_error": spec.effective_on_error(event).as_str(),
        "source": spec.source.to_string(),
    });
    if let HookDefinition::Agent(def) = &spec.definition {
        let mut filter = Vec::new();
        if let Some(matcher) = def.matcher.as_deref().filter(|m| !m.is_empty()) {
            if hook_core::agent::matched_member(def.agent, event).is_some() {
                filter.push(format!("matcher={matcher}"));
            } else {
                filter.push(format!("matcher={matcher} (ignored on {})", def.event_name));
            }
        }
        if let Some(rule) = &def.handler.if_rule {
            filter.push(format!("if={rule}"));
        }
        line["filter"] = json!(if filter.is_empty() { "-".to_owned() } else { filter.join(" ") });
        line["agent"] = json!(def.agent.as_str());
        line["agent_event"] = json!(def.event_name);
        if hook_core::agent::UNSUPPORTED_KINDS.contains(&spec.kind.as_str()) {
            line["unsupported"] =
                json!(format!("hookwire does not run `{}` hooks: it reports a failure, never a pass", spec.kind));
        }
    }
    if !agent_loop::FIRED_EVENTS.contains(&event) {
        line["never_fired"] = json!("hookwire's own agent never fires this event; it runs through `hookwire hook`");
    }
    line
}

/// `tool_matcher=Bash|Shell model_prefix=gpt-4`, or `-` for none.
pub(crate) fn filter_text(filter: &HookFilter) -> String {
    let parts: Vec<String> = [
        ("tool_name", &filter.tool_name),
        ("tool_matcher", &filter.tool_matcher),
        ("model_prefix", &filter.model_prefix),
        ("tool_regex", &filter.tool_regex),
        ("args_regex", &filter.args_regex),
    ]
    .into_iter()
    .filter_map(|(key, value)| value.as_ref().map(|v| format!("{key}={v}")))
    .collect();
    if parts.is_empty() { "-".into() } else { parts.join(" ") }
}

/// Specs running on `event`, in run order: level, then priority, then declaration order.
pub(crate) fn in_run_order(specs: &[HookSpec], event: Event) -> Vec<&HookSpec> {
    let mut on_event: Vec<&HookSpec> = specs.iter().filter(|spec| spec.events.contains(&event)).collect();
    on_event.sort_by_key(|spec| (spec.level, spec.priority));
    on_event
}

pub(crate) fn run(args: &ConfigArgs, format: Format) -> u8 {
    let loaded = engine::load(args);
    let events: Vec<(Event, Vec<Value>)> = Event::ALL
        .into_iter()
        .map(|event| (event, in_run_order(&loaded.specs, event).into_iter().map(|s| describe(s, event)).collect()))
        .filter(|(_, hooks): &(Event, Vec<Value>)| !hooks.is_empty())
        .collect();
    let warnings = &loaded.warnings;
    let untrusted: Vec<String> = loaded
        .untrusted
        .iter()
        .map(|u| format!("{}: {} (hooks: {}); {}", u.config.display(), u.reason, u.hooks.join(", "), u.how_to_trust))
        .collect();
    match format {
        Format::Json => {
            let listing: serde_json::Map<String, Value> =
                events.into_iter().map(|(event, hooks)| (event.to_string(), Value::Array(hooks))).collect();
            let out = json!({
                "valid": loaded.errors.is_empty(),
                "events": listing,
                "warnings": warnings,
                "untrusted": untrusted,
                "errors": loaded.errors,
            });
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        Format::Text => {
            if events.is_empty() {
                outln!("no hooks configured");
            }
            for (event, hooks) in &events {
                outln!("{event}");
                for (idx, hook) in hooks.iter().enumerate() {
                    let notes: String = ["unsupported", "never_fired"]
                        .iter()
                        .filter_map(|key| hook[*key].as_str().map(|note| format!("\n       note: {note}")))
                        .collect();
                    outln!(
                        "  {}. {}  kind={} filter={} timeout={} retry={} on_error={}{}  ({}){notes}",
                        idx + 1,
                        hook["id"].as_str().unwrap_or_default(),
                        hook["kind"].as_str().unwrap_or_default(),
                        hook["filter"].as_str().unwrap_or_default(),
                        fmt_duration(std::time::Duration::from_millis(hook["timeout_ms"].as_u64().unwrap_or(0))),
                        hook["retry"],
                        hook["on_error"].as_str().unwrap_or_default(),
                        if hook["enabled"] == Value::Bool(false) { " disabled" } else { "" },
                        hook["source"].as_str().unwrap_or_default(),
                    );
                }
            }
            for warning in warnings {
                outln!("warning: {warning}");
            }
            for line in &untrusted {
                outln!("untrusted: {line}");
            }
            for error in &loaded.errors {
                outln!("error: {error}");
            }
        }
    }
    if loaded.errors.is_empty() { 0 } else { 2 }
}
