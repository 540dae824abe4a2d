//! `hookwire check`: load everything and show, per event, the hooks that will run.

use hook_core::{Deadlines, Event, HookDefinition, HookSpec, config, fmt_duration};
use hook_protocol::config::HookFilter;
use serde_json::{Value, json};

use crate::{ConfigArgs, Format, discover, engine};

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

/// One diagnostic (error or warning) as a JSON object, with its one-line text.
fn diagnostic(
    file: Option<&std::path::Path>,
    line: Option<usize>,
    column: Option<usize>,
    hook: Option<&str>,
    message: &str,
    text: String,
) -> Value {
    json!({
        "file": file.map(|f| f.display().to_string()),
        "line": line,
        "column": column,
        "hook": hook,
        "message": message,
        "text": text,
    })
}

/// A diagnostic line (`path:line:col: hook `name`: message`, parts left out when unknown) taken
/// apart, for the lines of which no structured form is at hand.
fn parse_diagnostic(text: &str) -> Value {
    let (location, hook, message) = match text.find(": hook `") {
        Some(at) => {
            let rest = &text[at + ": hook `".len()..];
            match rest.find('`') {
                Some(end) => {
                    let message = rest[end + 1..].trim_start_matches(':').trim_start();
                    (&text[..at], Some(&rest[..end]), message)
                }
                None => (&text[..at], None, rest),
            }
        }
        None => match text.split_once(": ") {
            Some((location, message)) if location.starts_with('/') || location.starts_with("--config") => {
                (location, None, message)
            }
            _ => return diagnostic(None, None, None, None, text, text.to_owned()),
        },
    };
    // `path:line:col`, `path:line` or `path`.
    let mut file = location;
    let mut numbers = Vec::new();
    while let Some((head, tail)) = file.rsplit_once(':') {
        match tail.parse::<usize>() {
            Ok(n) if numbers.len() < 2 => {
                numbers.insert(0, n);
                file = head;
            }
            _ => break,
        }
    }
    let file = file.strip_prefix("--config ").unwrap_or(file);
    diagnostic(
        Some(std::path::Path::new(file)),
        numbers.first().copied(),
        numbers.get(1).copied(),
        hook,
        message,
        text.to_owned(),
    )
}

/// What `check` found: the hooks that run, and every error, warning and untrusted file as a
/// JSON object (the text lines are their `text`). The loading is every command's
/// (`engine::load`); the files' own diagnostics keep their file, line, column and hook apart.
struct Checked {
    specs: Vec<HookSpec>,
    errors: Vec<Value>,
    warnings: Vec<Value>,
    untrusted: Vec<Value>,
    searched: Vec<Value>,
}

fn load(args: &ConfigArgs) -> Checked {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let loaded = engine::load(args);
    let sources = discover::discover(&args.configs, args.no_default_config, &cwd).sources;
    // The same files read again (no trust review) for the structured form of their diagnostics.
    let raw = config::load(&sources, Deadlines::default(), None);
    let structured = |text: &String| -> Value {
        let error = raw
            .errors
            .iter()
            .find(|e| e.to_string() == *text)
            .map(|e| diagnostic(Some(&e.file), e.line, e.column, e.hook.as_deref(), &e.message, text.clone()));
        let warning = || {
            raw.warnings
                .iter()
                .find(|w| w.to_string() == *text)
                .map(|w| diagnostic(Some(&w.file), w.line, w.column, w.hook.as_deref(), &w.message, text.clone()))
        };
        error.or_else(warning).unwrap_or_else(|| parse_diagnostic(text))
    };
    let errors = loaded.errors.iter().map(structured).collect();
    let warnings = loaded.warnings.iter().map(structured).collect();
    let untrusted = loaded
        .untrusted
        .iter()
        .map(|u| {
            json!({
                "config": u.config.display().to_string(),
                "reason": u.reason,
                "hooks": u.hooks,
                "how_to_trust": u.how_to_trust,
                "undetermined": u.undetermined,
                "text": format!("{}: {} (hooks: {}); {}", u.config.display(), u.reason, u.hooks.join(", "), u.how_to_trust),
            })
        })
        .collect();
    Checked { specs: loaded.specs, errors, warnings, untrusted, searched: searched(args, &cwd, &sources) }
}

/// Every place configuration is looked for, whether it exists, and at which level.
fn searched(args: &ConfigArgs, cwd: &std::path::Path, sources: &[config::ConfigSource]) -> Vec<Value> {
    const HOOK_FILES: [&str; 4] = ["hooks.yaml", "hooks.yml", "hooks.json", "hooks"];
    const AGENT_FILES: [&str; 4] =
        [".claude/settings.json", ".claude/settings.local.json", ".gemini/settings.json", ".codex/hooks.json"];
    let mut places: Vec<(std::path::PathBuf, &str)> = Vec::new();
    if !args.no_default_config {
        if let Some(dir) = discover::user_config_dir() {
            places.extend(HOOK_FILES.iter().map(|f| (dir.join(f), "user")));
        }
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(std::path::PathBuf::from) {
            let jdata = home.join(".jdata").join("agent");
            places.extend(HOOK_FILES.iter().map(|f| (jdata.join(f), "user")));
            places.extend(AGENT_FILES.iter().map(|f| (home.join(f), "user")));
        }
        match discover::project_root(cwd) {
            Some(root) => {
                for dir in [".hookwire", ".jcli"] {
                    places.extend(HOOK_FILES.iter().map(|f| (root.join(dir).join(f), "project")));
                }
                places.extend(AGENT_FILES.iter().map(|f| (root.join(f), "project")));
            }
            None => places.push((cwd.join(".hookwire"), "project (no project directory found from here upward)")),
        }
    }
    for path in &args.configs {
        places.push((if path.is_absolute() { path.clone() } else { cwd.join(path) }, "--config"));
    }
    places
        .into_iter()
        .map(|(path, level)| {
            let is_loaded = sources.iter().any(|s| s.path == path);
            json!({"path": path.display().to_string(), "level": level, "exists": path.exists(), "loaded": is_loaded})
        })
        .collect()
}

pub(crate) fn run(args: &ConfigArgs, format: Format) -> u8 {
    let checked = load(args);
    let events: Vec<(Event, Vec<Value>)> = Event::ALL
        .into_iter()
        .map(|event| (event, in_run_order(&checked.specs, event).into_iter().map(|s| describe(s, event)).collect()))
        .filter(|(_, hooks): &(Event, Vec<Value>)| !hooks.is_empty())
        .collect();
    let is_valid = checked.errors.is_empty();
    let text_of = |v: &Value| v["text"].as_str().unwrap_or_default().to_owned();
    match format {
        Format::Json => {
            let listing: serde_json::Map<String, Value> =
                events.into_iter().map(|(event, hooks)| (event.to_string(), Value::Array(hooks))).collect();
            let out = json!({
                "valid": is_valid,
                "events": listing,
                "warnings": checked.warnings,
                "untrusted": checked.untrusted,
                "errors": checked.errors,
                "searched": checked.searched,
            });
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        Format::Text => {
            if events.is_empty() {
                outln!("no hooks configured");
                if checked.errors.is_empty() {
                    outln!("looked in:");
                    for place in &checked.searched {
                        let state = if place["exists"] == Value::Bool(true) { "" } else { " (not found)" };
                        outln!(
                            "  {}  [{}]{state}",
                            place["path"].as_str().unwrap_or_default(),
                            place["level"].as_str().unwrap_or_default()
                        );
                    }
                    if checked.searched.is_empty() {
                        outln!("  nowhere: --no-default-config and no --config");
                    }
                }
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
            for warning in &checked.warnings {
                outln!("warning: {}", text_of(warning));
            }
            for untrusted in &checked.untrusted {
                outln!("untrusted: {}", text_of(untrusted));
            }
            for error in &checked.errors {
                outln!("error: {}", text_of(error));
            }
        }
    }
    if is_valid { 0 } else { 2 }
}
