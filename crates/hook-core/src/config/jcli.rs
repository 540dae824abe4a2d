//! j-cli's two dialects: the event-keyed `hooks.yaml` and the hook directory's `HOOK.yaml`.

use std::{path::Path, time::Duration};

use hook_protocol::{
    Event,
    config::{HookDef, HookKind, HooksFile},
};

use super::{FileCx, check, locate, tool_conditions};
use crate::{HookDefinition, HookSpec, capability};

/// The specs of an event-keyed file: one per entry, named by its `name:` or `<event>-<index>`.
pub(super) fn event_keyed(cx: &mut FileCx<'_>) -> Vec<HookSpec> {
    let file: HooksFile = match cx.parse() {
        Ok(file) => file,
        Err(err) => {
            cx.parse_error(err, None);
            return Vec::new();
        }
    };
    let mut specs = Vec::new();
    for (event, hooks) in file.events {
        // The key may be written under any of the event's names.
        let key = std::iter::once(event.as_str())
            .chain(event.aliases().iter().copied())
            .find_map(|name| cx.locate(name, None, 1).map(|at| (name, at)));
        for (hook_idx, def) in hooks.into_iter().enumerate() {
            let name = def.name.clone().unwrap_or_else(|| format!("{event}-{hook_idx}"));
            let at = key.and_then(|(key, key_at)| match def.name.as_deref() {
                Some(name) => cx.locate("name", Some(name), key_at.0),
                None => locate::locate_item(cx.text, key, hook_idx, key_at.0).or(Some(key_at)),
            });
            if let Some(spec) = command_spec(cx, name, vec![event], def, None, at) {
                specs.push(spec);
            }
        }
    }
    specs
}

/// The spec of a hook directory's `HOOK.yaml`: named after the directory, which is also its
/// `dir` (for `JCLI_HOOK_DIR` and `PATH`).
pub(super) fn dir_hook(cx: &mut FileCx<'_>, name: &str, dir: &Path) -> Vec<HookSpec> {
    let def: HookDef = match super::parse_yaml(cx.text) {
        Ok(def) => def,
        Err(err) => {
            cx.parse_error(err, Some(name));
            return Vec::new();
        }
    };
    let Some(events) = def.events.clone() else {
        cx.error(
            None,
            Some(name),
            "HOOK.yaml needs an `events:` list naming the events it runs on, e.g. `events: [pre_tool_execution]`",
        );
        return Vec::new();
    };
    for (event_idx, event) in events.iter().enumerate() {
        if events[..event_idx].contains(event) {
            let at = cx.locate("events", None, 1);
            cx.error(
                at,
                Some(name),
                format!("event `{event}` is listed twice in `events` (perhaps under an alias); list it once"),
            );
        }
    }
    if let Some(written) = def.name.as_deref().filter(|written| *written != name) {
        let at = cx.locate("name", Some(written), 1);
        cx.warn(
            at,
            Some(name),
            format!("`name: {written}` is ignored: a directory hook is named after its directory; rename the directory to rename the hook"),
        );
    }
    command_spec(cx, name.to_owned(), events, def, Some(dir), None).into_iter().collect()
}

/// Validates a command hook and builds its spec. Records errors and warnings in `cx`; `None`
/// when the hook is invalid.
fn command_spec(
    cx: &mut FileCx<'_>,
    name: String,
    events: Vec<Event>,
    def: HookDef,
    dir: Option<&Path>,
    at: Option<locate::Position>,
) -> Option<HookSpec> {
    let from_line = at.map_or(1, |(line, _)| line);
    let mut is_valid = check::name(cx, &name, at);
    let filter = def.filter.clone().unwrap_or_default();
    for (key, pattern) in [("tool_regex", &filter.tool_regex), ("args_regex", &filter.args_regex)] {
        if let Some(pattern) = pattern {
            is_valid &= check::regex(cx, &name, key, pattern, from_line, at);
        }
    }
    let timeout = match def.timeout.map(Duration::try_from_secs_f64) {
        Some(Err(_)) | Some(Ok(_)) if def.timeout.is_some_and(|t| t > super::MAX_TIMEOUT.as_secs_f64()) => {
            let at = cx.locate("timeout", None, from_line).or(at);
            cx.error(
                at,
                Some(&name),
                "`timeout` is over 24 hours (86400 seconds); write the deadline in seconds, e.g. `timeout: 30`",
            );
            is_valid = false;
            None
        }
        Some(Err(_)) => {
            let at = cx.locate("timeout", None, from_line).or(at);
            cx.error(at, Some(&name), "`timeout` is too large; write the deadline in seconds, e.g. `timeout: 30`");
            is_valid = false;
            None
        }
        Some(Ok(timeout)) => Some(timeout),
        None => None,
    };
    let conditions = tool_conditions(&filter);
    if !conditions.is_empty() {
        for event in events.iter().filter(|event| !capability(**event).is_tool_event) {
            cx.warn(
                at,
                Some(&name),
                format!(
                    "filter on the tool (`{}`) can never match on {event}, which has no tool; remove the filter or move the hook to a tool event",
                    conditions.join("`, `")
                ),
            );
        }
    }
    let ignored: Vec<&str> = match def.kind {
        HookKind::Bash => [("prompt", def.prompt.is_some()), ("model", def.model.is_some())]
            .into_iter()
            .filter_map(|(key, is_set)| is_set.then_some(key))
            .collect(),
        HookKind::Llm => def.command.is_some().then_some("command").into_iter().collect(),
    };
    for key in ignored {
        cx.warn(
            cx.locate(key, None, from_line).or(at),
            Some(&name),
            format!("`{key}` is ignored by {} hook; remove it or set `type`", article(def.kind)),
        );
    }
    if !is_valid {
        return None;
    }
    Some(HookSpec {
        level: cx.level,
        kind: def.kind.as_str().to_owned(),
        events,
        dir: dir.map(Path::to_path_buf),
        source: cx.location(at),
        priority: def.priority.unwrap_or(0),
        enabled: def.enabled.unwrap_or(true),
        filter,
        timeout,
        retry: def.retry,
        on_error: def.on_error,
        env: def.env.clone().unwrap_or_default(),
        respond_tools: Vec::new(),
        deadlines: cx.deadlines,
        session: None,
        definition: HookDefinition::Command(def),
        name,
    })
}

/// "a bash" / "an llm".
fn article(kind: HookKind) -> &'static str {
    match kind {
        HookKind::Bash => "a bash",
        HookKind::Llm => "an llm",
    }
}

/// The name of the event-keyed entry around `line`, for parse errors: its `name:` or
/// `<event>-<index>`.
pub(super) fn entry_name_at(text: &str, line: usize) -> Option<String> {
    let (key, hook_idx, name) = locate::entry_at(text, line)?;
    let event: Event = key.parse().ok()?;
    Some(name.unwrap_or_else(|| format!("{event}-{hook_idx}")))
}
