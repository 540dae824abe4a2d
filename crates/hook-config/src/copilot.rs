//! GitHub Copilot CLI's hook files — a repository's `.github/hooks/*.json` and the user's
//! `$COPILOT_HOME/hooks/*.json` — into specs.
//!
//! The shape: `{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": CMD,
//! "powershell": CMD, "cwd": DIR, "env": {...}, "timeoutSec": N}]}}`. There is no matcher: every
//! entry runs for its event. Event names are Copilot's camelCase ones (`preToolUse`, ...), or
//! Claude Code's PascalCase names of the same events (`PreToolUse`, ...), whose hooks get a
//! Claude-like payload. Each entry becomes one `command` spec named `copilot-<event>-<index>`.
//!
//! Copilot's settings files (the user's `$COPILOT_HOME/settings.json`, a repository's
//! `.github/copilot/settings.json` and `settings.local.json`) hold hooks too, with the events
//! directly under `"hooks"` and no version; their other members are Copilot's settings and are
//! not read. A `version` or a nested `hooks` inside their `"hooks"` is an error: Copilot silently
//! runs nothing from that shape.
//!
//! Stricter than Copilot, as every hookwire reader: an unknown version, an unknown member or a
//! member of the wrong type is an error at its file:line:col (a typo must not switch a guard
//! off); an entry with only a `powershell` command is reported as not runnable here (Copilot
//! runs it on Windows only), never dropped without a word.

use std::{collections::BTreeMap, path::Path};

use hook_core::{AgentHookDef, HookDefinition, HookSpec, Kind};
use hook_protocol::{
    Agent,
    agent_config::AgentHandler,
    serde_json::{self, Map, Value},
};

use super::{
    FileCx,
    agent::{Positions, find_key},
};

/// The members of an entry.
const ENTRY_KEYS: [&str; 7] = ["type", "bash", "powershell", "cwd", "env", "timeoutSec", "comment"];

/// Whether `path` is one of Copilot's settings files (`settings.json` or `settings.local.json`
/// outside a `hooks` directory), whose hooks sit directly under `"hooks"`.
fn is_settings_file(path: &Path) -> bool {
    let is_named = path.file_name().is_some_and(|n| n == "settings.json" || n == "settings.local.json");
    is_named && path.parent().and_then(Path::file_name).is_none_or(|dir| dir != "hooks")
}

/// Whether `path` / `text` is a Copilot hook file: a `*.json` of `.github/hooks/` or
/// `.copilot/hooks/`, a settings file of `.copilot/` or `.github/copilot/`, or a document with a
/// top-level `version` beside a `hooks` object whose entries carry `bash` or `powershell`.
pub(crate) fn is_copilot_file(path: &Path, text: &str) -> bool {
    let dir = path.parent();
    let in_settings_dir = dir.is_some_and(|dir| {
        dir.file_name().is_some_and(|n| n == ".copilot")
            || (dir.file_name().is_some_and(|n| n == "copilot")
                && dir.parent().and_then(Path::file_name).is_some_and(|n| n == ".github"))
    });
    if in_settings_dir && is_settings_file(path) {
        return true;
    }
    let dir = path.parent();
    let in_hooks_dir = dir.is_some_and(|dir| {
        dir.file_name().is_some_and(|n| n == "hooks")
            && dir.parent().and_then(Path::file_name).is_some_and(|n| n == ".github" || n == ".copilot")
    });
    if in_hooks_dir && path.extension().is_some_and(|e| e == "json") {
        return true;
    }
    let Ok(Value::Object(top)) = serde_json::from_str::<Value>(text) else { return false };
    let Some(Value::Object(hooks)) = top.get("hooks") else { return false };
    top.contains_key("version")
        && hooks
            .values()
            .filter_map(Value::as_array)
            .flatten()
            .any(|entry| entry.get("bash").is_some() || entry.get("powershell").is_some())
}

/// Reads one Copilot hook file.
pub(crate) fn copilot_file(cx: &mut FileCx<'_>) -> Vec<HookSpec> {
    let text = cx.text;
    let top = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(top)) => top,
        Ok(_) => {
            cx.error(
                Some((1, 1)),
                None,
                "a Copilot CLI hook file is a JSON object: {\"version\": 1, \"hooks\": {...}}",
            );
            return Vec::new();
        }
        Err(err) => {
            cx.error(Some((err.line(), err.column())), None, format!("not valid JSON: {err}"));
            return Vec::new();
        }
    };
    let mut positions = Positions::new(text);
    let mut at = |key: &str, from: usize| find_key(text, key, from).map(|offset| (offset, positions.at(offset)));
    if is_settings_file(cx.file) {
        return settings_file(cx, &top);
    }
    for key in top.keys().filter(|k| !matches!(k.as_str(), "version" | "hooks")) {
        let place = at(key, 0).map(|(_, p)| p);
        cx.error(place, None, format!("unknown member `{key}`; a Copilot CLI hook file has `version` and `hooks`"));
    }
    let version_at = at("version", 0).map(|(_, p)| p);
    match top.get("version") {
        Some(v) if v.as_u64() == Some(1) => {}
        None => cx.error(Some((1, 1)), None, "missing `\"version\": 1`; Copilot CLI reads hook files of version 1"),
        Some(other) => cx.error(
            version_at,
            None,
            format!("unknown version {other}; Copilot CLI reads hook files of version 1 (write `\"version\": 1`)"),
        ),
    }
    let hooks = match top.get("hooks") {
        Some(Value::Object(hooks)) => hooks.clone(),
        None => Map::new(),
        Some(other) => {
            let place = at("hooks", 0).map(|(_, p)| p);
            cx.error(place, None, format!("`hooks` must be an object of event name → list of entries, not {other}"));
            return Vec::new();
        }
    };
    events_specs(cx, hooks)
}

/// Reads the hooks of a Copilot settings file: `"hooks": {"<event>": [entries]}`, the rest of
/// the file being Copilot's settings.
fn settings_file(cx: &mut FileCx<'_>, top: &Map<String, Value>) -> Vec<HookSpec> {
    let text = cx.text;
    let hooks_at = find_key(text, "hooks", 0).map(|offset| Positions::new(text).at(offset));
    let hooks = match top.get("hooks") {
        Some(Value::Object(hooks)) => hooks.clone(),
        None | Some(Value::Null) => return Vec::new(),
        Some(other) => {
            cx.error(hooks_at, None, format!("`hooks` must be an object of event name → list of entries, not {other}"));
            return Vec::new();
        }
    };
    if hooks.contains_key("version") || hooks.contains_key("hooks") {
        cx.error(
            hooks_at,
            None,
            "in a Copilot CLI settings file the events go directly under `hooks` (`\"hooks\": {\"preToolUse\": [...]}`), \
             without `version` or a nested `hooks`: Copilot CLI silently runs nothing from this shape",
        );
        return Vec::new();
    }
    events_specs(cx, hooks)
}

/// The specs of the `hooks` object of a Copilot file: event name → list of entries.
fn events_specs(cx: &mut FileCx<'_>, hooks: Map<String, Value>) -> Vec<HookSpec> {
    let text = cx.text;
    let hooks_from = find_key(text, "hooks", 0).unwrap_or(0);
    // Events in file order.
    let mut events: Vec<(usize, String, Value)> = hooks
        .into_iter()
        .map(|(name, entries)| (find_key(text, &name, hooks_from).unwrap_or(usize::MAX), name, entries))
        .collect();
    events.sort_by_key(|(offset, _, _)| *offset);
    let mut specs = Vec::new();
    for (offset, event_name, entries) in events {
        let event_at = (offset != usize::MAX).then(|| Positions::new(text).at(offset));
        let Some(event) = Agent::Copilot.event(&event_name).or_else(|| Agent::copilot_pascal_event(&event_name)) else {
            cx.error(
                event_at,
                None,
                format!(
                    "`{event_name}` is not a Copilot CLI hook event; known events: {} (or their PascalCase names, \
                     e.g. PreToolUse)",
                    Agent::Copilot.event_names().collect::<Vec<_>>().join(", ")
                ),
            );
            continue;
        };
        let Value::Array(entries) = entries else {
            cx.error(event_at, None, format!("`{event_name}` must be a list of entries"));
            continue;
        };
        let mut cursor = if offset == usize::MAX { 0 } else { offset };
        for (i, entry) in entries.iter().enumerate() {
            let name = format!("copilot-{event_name}-{i}");
            // Each entry starts at the next `{` after the previous entry's end.
            let start = text.get(cursor..).and_then(|rest| rest.find('{')).map(|o| cursor + o);
            let entry_at = start.map(|start| Positions::new(text).at(start));
            if let Some(start) = start {
                cursor = start + 1 + entry_len_hint(text, start + 1) + 1;
            }
            if let Some(spec) = entry_spec(cx, event, &event_name, entry, name, entry_at) {
                specs.push(spec);
            }
        }
    }
    specs
}

/// Where (from `from`) the object whose `{` is just before `from` closes.
fn entry_len_hint(text: &str, from: usize) -> usize {
    let mut depth = 1usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.get(from..).unwrap_or_default().char_indices() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    0
}

fn entry_spec(
    cx: &mut FileCx<'_>,
    event: hook_protocol::Event,
    event_name: &str,
    entry: &Value,
    name: String,
    at: Option<(usize, usize)>,
) -> Option<HookSpec> {
    let Value::Object(entry) = entry else {
        cx.error(at, Some(&name), format!("an entry of `{event_name}` must be an object with `type` and `bash`"));
        return None;
    };
    let mut is_valid = true;
    for key in entry.keys().filter(|k| !ENTRY_KEYS.contains(&k.as_str())) {
        cx.error(at, Some(&name), format!("unknown member `{key}`; an entry has {}", ENTRY_KEYS[..6].join(", ")));
        is_valid = false;
    }
    let string = |cx: &mut FileCx<'_>, key: &str| match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => {
            cx.error(at, Some(&name), format!("`{key}` must be a string, not {other}"));
            Err(())
        }
    };
    let kind = string(cx, "type").ok()?;
    if kind.as_deref() != Some("command") {
        cx.error(
            at,
            Some(&name),
            format!("`type` must be \"command\" (the only kind Copilot CLI runs), not {:?}", kind.unwrap_or_default()),
        );
        return None;
    }
    let bash = string(cx, "bash").ok()?.filter(|c| !c.trim().is_empty());
    let powershell = string(cx, "powershell").ok()?.filter(|c| !c.trim().is_empty());
    let cwd = string(cx, "cwd").ok()?;
    let env = match entry.get("env") {
        None | Some(Value::Null) => None,
        Some(Value::Object(vars)) => {
            let mut env = BTreeMap::new();
            for (key, value) in vars {
                match value {
                    Value::String(text) => {
                        env.insert(key.clone(), text.clone());
                    }
                    other => {
                        cx.error(at, Some(&name), format!("`env.{key}` must be a string, not {other}"));
                        is_valid = false;
                    }
                }
            }
            Some(env)
        }
        Some(other) => {
            cx.error(at, Some(&name), format!("`env` must be an object of names → strings, not {other}"));
            return None;
        }
    };
    let timeout = match entry.get("timeoutSec") {
        None | Some(Value::Null) => Agent::Copilot.default_timeout_secs("command", event),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(secs) if secs > 0.0 && secs <= super::MAX_TIMEOUT.as_secs_f64() => secs,
            _ => {
                cx.error(
                    at,
                    Some(&name),
                    format!("`timeoutSec` must be a number of seconds above 0 and at most 24 hours, not {n}"),
                );
                return None;
            }
        },
        Some(other) => {
            cx.error(at, Some(&name), format!("`timeoutSec` must be a number of seconds, not {other}"));
            return None;
        }
    };
    let Some(bash) = bash else {
        if powershell.is_some() {
            cx.warn(
                at,
                Some(&name),
                format!(
                    "this `{event_name}` entry has only a `powershell` command, which Copilot CLI runs on Windows; \
                     it is not runnable here and does not run (add a `bash` command)"
                ),
            );
        } else {
            cx.error(at, Some(&name), format!("an entry of `{event_name}` needs a non-empty `bash` command"));
        }
        return None;
    };
    if !is_valid {
        return None;
    }
    let handler = AgentHandler {
        kind: "command".to_owned(),
        command: Some(bash),
        timeout_sec: Some(timeout),
        env,
        cwd,
        ..AgentHandler::default()
    };
    let def = AgentHookDef {
        agent: Agent::Copilot,
        event_name: event_name.to_owned(),
        matcher: None,
        handler,
        plugin_root: None,
        http_allowed_urls: None,
        http_allowed_env_vars: Vec::new(),
    };
    let mut spec = HookSpec::new(name, cx.level, Kind::new("command"), [event], HookDefinition::Agent(Box::new(def)));
    spec.source = cx.location(at);
    spec.timeout = Some(std::time::Duration::from_secs_f64(timeout));
    spec.deadlines = cx.deadlines;
    Some(spec)
}
