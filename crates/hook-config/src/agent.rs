//! Claude Code, Gemini CLI and Codex settings files: their `hooks` section into specs.
//!
//! Each handler becomes one spec on the event its key names, named
//! `<agent>-<Event>-<group>-<handler>` (Gemini's `name` when given), with the group's matcher
//! and the handler kept in [`AgentHookDef`]. Unknown members are ignored, as the agents ignore
//! them; an event name the agent does not document is an error (a typo must not switch a guard
//! off); a matcher or `if` rule that does not compile is an error. Gemini CLI's files are read as
//! Gemini reads them: JSON with comments and trailing commas, with its `enabled` / `disabled`
//! switches inside `hooks` (or `hooksConfig`) taken as switches, not events.

use std::path::{Path, PathBuf};

use hook_protocol::{
    Agent, Event,
    agent_config::{AgentHandler, AgentSettings},
    config::OnError,
    serde_json::{self, Value},
};

use super::FileCx;
use hook_agents::{AgentGate, url_allowed};
use hook_core::{AgentHookDef, HookDefinition, HookSpec, Kind};

/// The longest deadline a handler gets.
const MAX_TIMEOUT_SECS: f64 = super::MAX_TIMEOUT.as_secs() as f64;

/// The longest `timeout` the agents honour: Claude Code and Gemini CLI hand it to a JavaScript
/// timer, which holds at most 2^31 - 1 milliseconds and fires at once beyond that (so a larger
/// value switches the hook off there). Up to it, a value over [`MAX_TIMEOUT_SECS`] is accepted
/// and capped: published settings often write milliseconds (`"timeout": 120000` meaning two
/// minutes), which the agents read as seconds and run.
const AGENT_MAX_TIMEOUT_SECS: f64 = 2_147_483.647;

/// Handler types the family documents.
const KINDS: [&str; 5] = ["command", "http", "prompt", "mcp_tool", "agent"];

/// The 1-based line and column of byte `offset` in `text`.
fn position(text: &str, offset: usize) -> (usize, usize) {
    Positions::new(text).at(offset)
}

/// Line and column of offsets asked for in increasing order, in one pass over the text (a file
/// of thousands of handlers must not be re-scanned from its start for each).
pub(crate) struct Positions<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
    line_start: usize,
}

impl<'a> Positions<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Positions { text, offset: 0, line: 1, line_start: 0 }
    }

    pub(crate) fn at(&mut self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            *self = Positions::new(self.text);
        }
        let passed = &self.text[self.offset..offset];
        if let Some(last) = passed.rfind('\n') {
            self.line += passed.matches('\n').count();
            self.line_start = self.offset + last + 1;
        }
        self.offset = offset;
        (self.line, self.text[self.line_start..offset].chars().count() + 1)
    }
}

/// Where `"key"` first appears at or after byte `from`.
pub(crate) fn find_key(text: &str, key: &str, from: usize) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    text.get(from..)?.find(&quoted).map(|i| from + i)
}

/// Which agent a settings file belongs to: from its path (`.gemini/` → Gemini CLI, `.codex/` →
/// Codex, `.claude/` → Claude Code), else from its event names (a file using Gemini CLI's own
/// names, such as `BeforeTool`, is Gemini's), else Claude Code.
pub fn agent_of(path: &Path, text: &str) -> Agent {
    let in_dir = |name: &str| path.components().any(|c| c.as_os_str() == name);
    if in_dir(".gemini") {
        return Agent::Gemini;
    }
    if in_dir(".codex") {
        return Agent::Codex;
    }
    if in_dir(".claude") {
        return Agent::Claude;
    }
    let Ok(Value::Object(top)) = parse_lenient(text) else { return Agent::Claude };
    let is_gemini_only = |name: &String| Agent::Gemini.event(name).is_some() && Agent::Claude.event(name).is_none();
    match top.get("hooks") {
        Some(Value::Object(hooks)) if hooks.keys().any(is_gemini_only) => Agent::Gemini,
        _ => Agent::Claude,
    }
}

/// `text` as JSON, else as JSON with comments (a Gemini CLI file found by its content).
fn parse_lenient(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str::<Value>(text).or_else(|_| serde_json::from_str::<Value>(&strip_jsonc(text)))
}

/// Whether a document with a top-level `hooks` object is an agent settings file rather than a
/// PicoClaw config: its `hooks` keys are event names, not `enabled` / `processes` / ...
pub(crate) fn looks_like_agent_settings(text: &str) -> bool {
    let Ok(Value::Object(top)) = parse_lenient(text) else { return false };
    match top.get("hooks") {
        Some(Value::Object(hooks)) => {
            hooks.keys().any(|k| Agent::ALL.iter().any(|agent| agent.event(k).is_some()))
                || (!hooks.is_empty()
                    && !hooks.keys().any(|k| matches!(k.as_str(), "enabled" | "defaults" | "processes" | "builtins")))
        }
        _ => false,
    }
}

/// The plugin root of a plugin's `hooks/hooks.json` (the directory above `hooks/`).
fn plugin_root(path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    (path.file_name()? == "hooks.json" && dir.file_name()? == "hooks")
        .then(|| dir.parent().map(Path::to_path_buf))
        .flatten()
        .filter(|root| !root.ends_with(".codex"))
}

/// Gemini CLI reads its settings as JSON with comments (`//`, `/* */`) and trailing commas;
/// `text` with those blanked out (each character of a comment becomes a space, its line breaks
/// stay, a trailing comma becomes a space), so every line and column stays where it was.
pub(crate) fn strip_jsonc(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let blank = |c: char| if c == '\n' || c == '\r' { c } else { ' ' };
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match (c, chars.get(i + 1).copied()) {
            ('"', _) => {
                // A string, escapes included, copied as it is.
                out.push(c);
                i += 1;
                while let Some(&s) = chars.get(i) {
                    out.push(s);
                    i += 1;
                    match s {
                        '\\' => {
                            out.extend(chars.get(i).copied());
                            i += 1;
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            ('/', Some('/')) => {
                while let Some(&s) = chars.get(i).filter(|s| **s != '\n') {
                    out.push(blank(s));
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                let end = (i + 2..chars.len().saturating_sub(1))
                    .find(|&k| chars[k] == '*' && chars[k + 1] == '/')
                    .map_or(chars.len(), |k| k + 2);
                if end == chars.len() && !chars.ends_with(&['*', '/']) {
                    // An open comment: left as it is, for the parser to report where it starts.
                    out.extend(&chars[i..]);
                } else {
                    out.extend(chars[i..end].iter().map(|s| blank(*s)));
                }
                i = end;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    // Trailing commas: a `,` whose next non-space character closes the object or array.
    let mut in_string = false;
    let mut k = 0;
    while k < out.len() {
        match out[k] {
            '\\' if in_string => k += 1,
            '"' => in_string = !in_string,
            ',' if !in_string => {
                let next = out[k + 1..].iter().find(|c| !c.is_whitespace());
                if matches!(next, Some('}' | ']')) {
                    out[k] = ' ';
                }
            }
            _ => {}
        }
        k += 1;
    }
    out.into_iter().collect()
}

/// What a settings file says about its own hooks besides the hooks: Gemini CLI's switches
/// `hooks.enabled` / `hooksConfig.enabled` and `hooks.disabled` / `hooksConfig.disabled`.
#[derive(Debug, Default)]
pub(crate) struct Switches {
    /// The switch that turns every hook of the file off (`hooks.enabled: false`), if one does.
    pub(crate) off: Option<&'static str>,
    /// Names (or commands) of the file's hooks that are switched off.
    pub(crate) disabled: Vec<String>,
}

/// Gemini CLI's members of `hooks` (older versions) and `hooksConfig` (newer) that are switches,
/// not events.
const GEMINI_SWITCHES: [&str; 3] = ["enabled", "disabled", "notifications"];

/// A settings file of `agent` read as the agent reads it: the text parsed (comments and
/// trailing commas blanked out for Gemini CLI, see [`strip_jsonc`]) and its settings and
/// switches, or what is wrong.
pub(crate) fn read_settings(
    agent: Agent,
    text: &str,
) -> (String, Result<(AgentSettings, Switches), hook_protocol::ParseError>) {
    let text = if agent == Agent::Gemini { strip_jsonc(text) } else { text.to_owned() };
    if agent != Agent::Gemini {
        let parsed = hook_protocol::from_json_str(&text).map(|settings| (settings, Switches::default()));
        return (text, parsed);
    }
    let parse_error = |path: &str, message: String| hook_protocol::ParseError { path: path.to_owned(), message };
    let mut value = match serde_json::from_str::<Value>(&text) {
        Ok(value) => value,
        Err(err) => return (text, Err(parse_error(".", err.to_string()))),
    };
    let mut switches = Switches::default();
    for section in ["hooksConfig", "hooks"] {
        let Some(Value::Object(members)) = value.get_mut(section) else { continue };
        for switch in GEMINI_SWITCHES {
            let Some(member) = members.remove(switch) else { continue };
            let path = format!("{section}.{switch}");
            match (switch, member) {
                ("enabled", Value::Bool(false)) => {
                    switches.off = Some(if section == "hooks" { "hooks.enabled" } else { "hooksConfig.enabled" });
                }
                ("enabled", Value::Bool(true)) | ("notifications", _) => {}
                ("disabled", Value::Array(names)) if names.iter().all(Value::is_string) => {
                    switches.disabled.extend(names.iter().filter_map(Value::as_str).map(str::to_owned));
                }
                ("enabled", other) => {
                    return (text, Err(parse_error(&path, format!("`{path}` must be true or false, not {other}"))));
                }
                (_, other) => {
                    return (
                        text,
                        Err(parse_error(&path, format!("`{path}` must be a list of hook names, not {other}"))),
                    );
                }
            }
        }
    }
    (text, hook_protocol::from_json_value(value).map(|settings| (settings, switches)))
}

/// Reads one settings file of `agent`.
pub(crate) fn agent_settings(cx: &mut FileCx<'_>, agent: Agent) -> Vec<HookSpec> {
    let (text, parsed) = read_settings(agent, cx.text);
    let text = text.as_str();
    let (settings, switches) = match parsed {
        Ok(parsed) => parsed,
        Err(err) => {
            // serde_json's message ends with "at line L column C": use it as the position.
            let at =
                serde_json::from_str::<Value>(text).err().map(|e| (e.line(), e.column())).filter(|(line, _)| *line > 0);
            let at = at.or_else(|| {
                let member = err.path.split('.').find(|part| !part.is_empty() && part.parse::<usize>().is_err())?;
                let key = member.split('[').next()?;
                // `hooks.enabled`: the last key named, after the first.
                let last = err.path.rsplit('.').next().and_then(|part| part.split('[').next()).unwrap_or(key);
                let from = find_key(text, key, 0).unwrap_or(0);
                find_key(text, last, from).or(find_key(text, key, 0)).map(|offset| position(text, offset))
            });
            cx.error(at, None, format!("{err}; see the {} hooks documentation for the shape", agent.display_name()));
            return Vec::new();
        }
    };
    cx.http_allowlist = settings.allowed_http_hook_urls.clone().map(|list| (agent, list));
    if settings.disable_all_hooks == Some(true) {
        cx.warn(Some((1, 1)), None, "`disableAllHooks` is true: no hook of this file runs");
        return Vec::new();
    }
    if let Some(switch) = switches.off {
        let at = find_key(text, switch.rsplit('.').next().unwrap_or(switch), 0).map(|offset| position(text, offset));
        cx.warn(at, None, format!("`{switch}` is false: no hook of this file runs, as in Gemini CLI"));
        return Vec::new();
    }
    let Some(hooks) = settings.hooks else { return Vec::new() };
    let plugin_root = plugin_root(cx.file);
    let mut specs = Vec::new();
    let mut names = std::collections::HashSet::new();
    // Keys in file order (a BTreeMap sorted them): by their position in the text.
    let mut events: Vec<(usize, String, Vec<_>)> = hooks
        .into_iter()
        .map(|(name, groups)| (find_key(text, &name, 0).unwrap_or(usize::MAX), name, groups))
        .collect();
    events.sort_by_key(|(offset, _, _)| *offset);
    let mut positions = Positions::new(text);
    for (offset, event_name, groups) in events {
        let at = (offset != usize::MAX).then(|| positions.at(offset));
        let Some(event) = agent.event(&event_name) else {
            cx.error(
                at,
                None,
                format!(
                    "`{event_name}` is not a {} hook event; known events: {}",
                    agent.display_name(),
                    agent.event_names().collect::<Vec<_>>().join(", ")
                ),
            );
            continue;
        };
        let mut cursor = if offset == usize::MAX { 0 } else { offset };
        for (g, group) in groups.iter().enumerate() {
            for (h, handler) in group.hooks.iter().enumerate() {
                let handler_at = find_key(text, "type", cursor).map(|o| {
                    cursor = o + 1;
                    positions.at(o)
                });
                let listed = [&handler.name, &handler.command]
                    .into_iter()
                    .flatten()
                    .find(|id| switches.disabled.iter().any(|disabled| disabled == *id));
                if let Some(listed) = listed {
                    cx.warn(
                        handler_at.or(at),
                        handler.name.as_deref(),
                        format!(
                            "`{listed}` is in the file's `disabled` list: this hook does not run, as in Gemini CLI"
                        ),
                    );
                    continue;
                }
                let mut name = handler
                    .name
                    .clone()
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| format!("{}-{}-{g}-{h}", agent.as_str(), event_name));
                // A name is a label here: Gemini CLI runs two hooks of one name (on one event or
                // several) side by side, so they are numbered on.
                let base = name.clone();
                let mut n = 2;
                while !names.insert(name.clone()) {
                    name = format!("{base}-{n}");
                    n += 1;
                }
                if let Some(spec) = handler_spec(
                    cx,
                    agent,
                    event,
                    &event_name,
                    group.matcher.clone(),
                    handler,
                    name,
                    handler_at.or(at),
                    &plugin_root,
                    &settings.allowed_http_hook_urls,
                    settings.http_hook_allowed_env_vars.clone().unwrap_or_default(),
                ) {
                    specs.push(spec);
                }
            }
        }
    }
    specs
}

#[allow(clippy::too_many_arguments, reason = "one handler with everything around it that shapes it")]
fn handler_spec(
    cx: &mut FileCx<'_>,
    agent: Agent,
    event: Event,
    event_name: &str,
    matcher: Option<String>,
    handler: &AgentHandler,
    name: String,
    at: Option<(usize, usize)>,
    plugin_root: &Option<PathBuf>,
    allowed_urls: &Option<Vec<String>>,
    allowed_env_vars: Vec<String>,
) -> Option<HookSpec> {
    let kind = handler.kind.as_str();
    if !KINDS.contains(&kind) {
        cx.error(at, Some(&name), format!("unknown handler type `{kind}`; write one of {}", KINDS.join(", ")));
        return None;
    }
    let required = match kind {
        "command" => ("command", handler.command.as_deref()),
        "http" => ("url", handler.url.as_deref()),
        "prompt" | "agent" => ("prompt", handler.prompt.as_deref()),
        _ => ("tool", handler.tool.as_deref()),
    };
    if required.1.is_none_or(|v| v.trim().is_empty()) {
        cx.error(at, Some(&name), format!("a `{kind}` handler on {event_name} needs a non-empty `{}`", required.0));
        return None;
    }
    // Gemini gives milliseconds; Claude Code and Codex seconds (Codex also as `timeoutSec`).
    let raw = handler.timeout.or(handler.timeout_sec);
    let secs = match raw {
        None => agent.default_timeout_secs(kind, event),
        // The agents treat a zero or negative timeout as unset; so does hookwire, with a word.
        Some(t) if t <= 0.0 => {
            cx.warn(at, Some(&name), format!("`timeout: {t}` is not a deadline; the agent's default applies"));
            agent.default_timeout_secs(kind, event)
        }
        Some(t) if agent == Agent::Gemini => t / 1000.0,
        Some(t) => t,
    };
    let unit = if agent == Agent::Gemini { "milliseconds" } else { "seconds" };
    if !secs.is_finite() || secs > AGENT_MAX_TIMEOUT_SECS {
        cx.error(
            at,
            Some(&name),
            format!(
                "`timeout` must be a number of {unit} the agent can wait (at most 24 days); got {}",
                number(raw.unwrap_or(secs))
            ),
        );
        return None;
    }
    let secs = if secs > MAX_TIMEOUT_SECS {
        cx.warn(
            at,
            Some(&name),
            format!(
                "`timeout: {}` {unit} is over 24 hours (were milliseconds meant?); hookwire waits at most 24 hours",
                number(raw.unwrap_or(secs))
            ),
        );
        MAX_TIMEOUT_SECS
    } else {
        secs
    };
    let on_error = match handler.on_failure.as_deref() {
        None | Some("continue") => None,
        Some("block") => Some(OnError::Deny),
        Some(other) => {
            cx.error(at, Some(&name), format!("`onFailure` must be \"block\" or \"continue\", not {other:?}"));
            return None;
        }
    };
    let def = AgentHookDef {
        agent,
        event_name: event_name.to_owned(),
        matcher,
        handler: handler.clone(),
        plugin_root: plugin_root.clone(),
        http_allowed_urls: allowed_urls.clone(),
        http_allowed_env_vars: allowed_env_vars,
    };
    if let Err(err) = AgentGate::compile(&def, event) {
        cx.error(at, Some(&name), format!("{err}"));
        return None;
    }
    if handler.runs_async() {
        cx.warn(
            at,
            Some(&name),
            "`async` hooks run in order here (the agent would not wait); as in the agent, only their \
             `systemMessage` and `additionalContext` count",
        );
    }
    // Gemini's AfterTool also sees failed calls.
    let mut events = vec![event];
    if agent == Agent::Gemini && event == Event::PostToolExecution {
        events.push(Event::PostToolExecutionFailure);
    }
    let mut spec =
        HookSpec::new(name, cx.level, Kind::new(kind.to_owned()), events, HookDefinition::Agent(Box::new(def)));
    spec.source = cx.location(at);
    spec.timeout = Some(std::time::Duration::from_secs_f64(secs));
    spec.on_error = on_error;
    spec.deadlines = cx.deadlines;
    Some(spec)
}

/// A number as the user wrote it: `120000`, `2.5`, `1e30` (not thirty-one digits).
fn number(value: f64) -> String {
    if value.is_finite() && value.abs() < 1e15 { format!("{value}") } else { format!("{value:e}") }
}

/// The stricter level wins: a user's `allowedHttpHookUrls` also restricts the http handlers of
/// every project file of the same agent, whatever (or whether) the project's own list allows.
///
/// An http handler's URL is known at load time, so "allowed by the project's list AND by each
/// user list" is decided here and written as the one list the http executor checks: a user list
/// that refuses the URL replaces the handler's list (the executor then refuses it, naming that
/// list), and with no list of its own the handler gets the user's.
pub(crate) fn apply_user_http_allowlists(files: &mut [super::FileLoad]) {
    let user_lists: Vec<(Agent, Vec<String>)> = files
        .iter()
        .filter(|file| file.level == hook_core::Level::User)
        .filter_map(|file| file.http_allowlist.clone())
        .collect();
    if user_lists.is_empty() {
        return;
    }
    for file in files.iter_mut().filter(|file| file.level == hook_core::Level::Project) {
        for spec in &mut file.specs {
            let HookDefinition::Agent(def) = &mut spec.definition else { continue };
            if def.handler.kind != "http" {
                continue;
            }
            let url = def.handler.url.as_deref().map(str::trim).unwrap_or_default();
            let mut lists = user_lists.iter().filter(|(agent, _)| *agent == def.agent).map(|(_, list)| list);
            let Some(first) = lists.clone().next() else { continue };
            if let Some(refusing) = lists.find(|list| !url_allowed(list, url)) {
                def.http_allowed_urls = Some(refusing.clone());
            } else if def.http_allowed_urls.is_none() {
                def.http_allowed_urls = Some(first.clone());
            }
        }
    }
}

/// What makes two handlers "identical" to Claude Code: the same event, type and command (or
/// url, or prompt), arguments and shell. Its matcher and `if` rule are part of it too, so a
/// handler kept is never narrower than one dropped.
fn identity(spec: &HookSpec) -> Option<String> {
    let HookDefinition::Agent(def) = &spec.definition else { return None };
    let handler = &def.handler;
    Some(format!(
        "{:?}\u{0}{}\u{0}{}\u{0}{:?}\u{0}{:?}\u{0}{:?}\u{0}{:?}\u{0}{:?}\u{0}{:?}\u{0}{:?}\u{0}{:?}",
        spec.events,
        handler.kind,
        def.event_name,
        handler.command,
        handler.args,
        handler.shell,
        handler.url,
        handler.prompt,
        def.matcher.as_deref().filter(|m| !m.is_empty() && *m != "*"),
        handler.if_rule,
        def.plugin_root,
    ))
}

/// Identical handlers from several settings files run once, as in Claude Code (a hook copied
/// into both `~/.claude/settings.json` and the project's must not run twice); the first one, in
/// load order, is kept.
pub(crate) fn drop_identical_handlers(files: &mut [super::FileLoad]) {
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for file in files.iter_mut().filter(|file| file.is_runnable()) {
        let mut in_this_file: Vec<String> = Vec::new();
        file.specs.retain(|spec| {
            let Some(key) = identity(spec) else { return true };
            if seen.contains(&key) {
                tracing::debug!(hook = %spec.name, file = %spec.source, "an identical handler of another file runs instead");
                return false;
            }
            in_this_file.push(key);
            true
        });
        seen.extend(in_this_file);
    }
}
