//! j-cli's two dialects: the event-keyed `hooks.yaml` and the hook directory's `HOOK.yaml`.

use std::{path::Path, time::Duration};

use hook_protocol::{
    Event,
    config::{HookDef, HookKind, HooksFile},
};

use super::{FileCx, check, locate, tool_conditions};
use hook_core::{HookDefinition, HookSpec, Kind, capability};

/// The specs of an event-keyed file: one per entry, named by its `name:` or `<event>-<index>`.
pub(super) fn event_keyed(cx: &mut FileCx<'_>) -> Vec<HookSpec> {
    let file: HooksFile = match cx.parse() {
        Ok(file) => file,
        Err(err) => {
            cx.parse_error(err, None);
            return Vec::new();
        }
    };
    let spans = cx.spans();
    let top = spans.as_ref().map(|tree| &tree.root);
    let mut specs = Vec::new();
    for (event, hooks) in file.events {
        // The key may be written under any of the event's names.
        let key = top.and_then(|top| top.keys().find(|(key, _, _)| key.parse::<Event>().is_ok_and(|e| e == event)));
        for (hook_idx, def) in hooks.into_iter().enumerate() {
            let entry = key.and_then(|(_, _, list)| list.item(hook_idx));
            // Items cut out of this list before this one (see `every_error`) still count.
            let n_cut = match (key.and_then(|(_, at, _)| at), entry.and_then(|entry| entry.at)) {
                (Some(key_at), Some(entry_at)) => {
                    cx.cut_items.iter().filter(|cut| key_at < **cut && **cut < entry_at).count()
                }
                _ => 0,
            };
            let name = def.name.clone().unwrap_or_else(|| format!("{event}-{}", hook_idx + n_cut));
            // A named entry is where its `name:` is written; an unnamed one where it starts.
            let at = entry
                .and_then(|entry| if def.name.is_some() { entry.key_at("name") } else { None })
                .or_else(|| entry.and_then(|entry| entry.at))
                .or_else(|| key.and_then(|(_, at, _)| at));
            if let Some(spec) = command_spec(cx, name, vec![event], def, None, at, entry) {
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
    let spans = cx.spans();
    let top = spans.as_ref().map(|tree| &tree.root);
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
            let at = top.and_then(|top| top.key_at("events"));
            cx.error(
                at,
                Some(name),
                format!("event `{event}` is listed twice in `events` (perhaps under an alias); list it once"),
            );
        }
    }
    if let Some(written) = def.name.as_deref().filter(|written| *written != name) {
        let at = top.and_then(|top| top.key_at("name"));
        cx.warn(
            at,
            Some(name),
            format!("`name: {written}` is ignored: a directory hook is named after its directory; rename the directory to rename the hook"),
        );
    }
    command_spec(cx, name.to_owned(), events, def, Some(dir), None, top).into_iter().collect()
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
    entry: Option<&locate::Node>,
) -> Option<HookSpec> {
    // Where `key` is written in this entry, else the entry.
    let key_at = |key: &str| entry.and_then(|entry| entry.key_at(key)).or(at);
    let mut is_valid = check::name(cx, &name, at);
    let filter = def.filter.clone().unwrap_or_default();
    let filter_node = entry.and_then(|entry| entry.get("filter"));
    for (key, pattern) in [("tool_regex", &filter.tool_regex), ("args_regex", &filter.args_regex)] {
        if let Some(pattern) = pattern {
            let pattern_at = filter_node.and_then(|filter| filter.key_at(key)).or(at);
            is_valid &= check::regex(cx, &name, key, pattern, pattern_at);
        }
    }
    let timeout = match def.timeout.map(Duration::try_from_secs_f64) {
        Some(Err(_)) | Some(Ok(_)) if def.timeout.is_some_and(|t| t > super::MAX_TIMEOUT.as_secs_f64()) => {
            cx.error(
                key_at("timeout"),
                Some(&name),
                "`timeout` is over 24 hours (86400 seconds); write the deadline in seconds, e.g. `timeout: 30`",
            );
            is_valid = false;
            None
        }
        Some(Err(_)) => {
            cx.error(
                key_at("timeout"),
                Some(&name),
                "`timeout` is too large; write the deadline in seconds, e.g. `timeout: 30`",
            );
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
            key_at(key),
            Some(&name),
            format!("`{key}` is ignored by {} hook; remove it or set `type`", article(def.kind)),
        );
    }
    if !is_valid {
        return None;
    }
    Some(HookSpec {
        level: cx.level,
        kind: Kind::new(def.kind.as_str()),
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
        work_dir: None,
        trust: None,
        sandbox: def.sandbox.clone(),
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
