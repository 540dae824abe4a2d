//! `hookwire install claude|gemini|codex|copilot`: one catch-all `hookwire hook <agent>` entry per
//! event in the agent's settings file, so that every hook hookwire is configured with runs in
//! that agent.
//!
//! Copilot CLI reads every `*.json` of its hook directories, so hookwire gets a file of its own
//! there (`.github/hooks/hookwire.json`, or `hooks/hookwire.json` in `$COPILOT_HOME`), written
//! whole: one `hookwire hook copilot --event <name>` entry per event, since Copilot's input
//! does not name its event. `--uninstall` removes that file (it refuses a file of that name
//! holding entries of someone else's).
//!
//! The file is edited as text: only the `hooks` section changes, by insertions and removals at
//! the byte positions of its JSON values, so every other key keeps its place, its formatting and
//! its comments (serde_json here has no order-preserving map, and a re-serialization would
//! reorder keys and drop comments). Gemini CLI reads its settings as JSONC (`//` and `/* */`
//! comments, trailing commas), so a Gemini file may have them and keeps them; Claude Code and
//! Codex read strict JSON, so theirs must be. Our entries are recognized by their command (`...
//! hookwire hook <agent>`): a second install changes nothing, and `--uninstall` removes exactly
//! them.
//!
//! A symlinked settings file (a dotfiles manager's) is written through: the link's target is
//! replaced atomically in its own directory and the link stays. Backups, and the note that
//! `install` created a file (so `--uninstall` may delete it again), live in hookwire's state
//! directory, `$XDG_STATE_HOME/hookwire` (default `~/.local/state/hookwire`), not beside the
//! settings file, where an agent or a dotfiles repository would pick them up.

use std::{
    fs, io,
    io::Write as _,
    os::unix::fs::{OpenOptionsExt, PermissionsExt},
    path::{Path, PathBuf},
    time::SystemTime,
};

use clap::Args;
use hook_protocol::{Agent, rules::PackName, serde_json};

use crate::{discover, serve::utc_stamp};

#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// The agent: `claude`, `gemini`, `codex` or `copilot`.
    agent: Agent,
    /// Edit the project's settings file (`.claude/settings.json`, `.gemini/settings.json`,
    /// `.codex/hooks.json`, `.github/hooks/hookwire.json` in the project root); the default.
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// Edit the user's settings file in the home directory.
    #[arg(long)]
    user: bool,
    /// Remove the entries `install` added.
    #[arg(long)]
    uninstall: bool,
    /// Show the change without writing anything.
    #[arg(long)]
    dry_run: bool,
    /// Only these events (the agent's names, comma-separated: `PreToolUse,Stop`); the default
    /// is every event. With `--uninstall`, remove only these events' entries.
    #[arg(long, value_delimiter = ',', value_name = "EVENT,...")]
    events: Vec<String>,
    /// Also guard with these rule packs (`recommended`, or some of `filesystem,git,secrets,...`):
    /// writes `packs: [...]` to `rules.yaml` of hookwire's user directory (with `--user`) or of
    /// the project's `.hookwire/` (then run `hookwire trust`), unless that file exists.
    #[arg(long, value_delimiter = ',', value_name = "PACK,...")]
    packs: Vec<String>,
}

/// Events left out: a `WorktreeCreate` hook replaces Claude Code's own worktree creation and
/// must print the new worktree's path, which a catch-all bridge does not know.
const NOT_INSTALLED: [(Agent, &str); 1] = [(Agent::Claude, "WorktreeCreate")];

/// Deadline of an installed entry, in seconds: the longest a Claude Code hook may take by
/// default, so the agent never cuts the chain of hooks hookwire runs inside it.
pub(crate) const ENTRY_TIMEOUT_SECS: u64 = 600;

/// The events an installed entry is added to, in the agent's order.
pub(crate) fn events_for(agent: Agent) -> Vec<&'static str> {
    agent.event_names().filter(|name| !NOT_INSTALLED.contains(&(agent, name))).collect()
}

/// The events `names` picks (all of [`events_for`] when empty); an unknown name, or one
/// `install` leaves out, is an error naming it and the valid ones.
fn chosen_events(agent: Agent, names: &[String]) -> Result<Vec<&'static str>, String> {
    let all = events_for(agent);
    if names.is_empty() {
        return Ok(all);
    }
    let mut chosen = Vec::new();
    for name in names.iter().map(|n| n.trim()) {
        if let Some((_, _)) = NOT_INSTALLED.iter().find(|(a, e)| *a == agent && *e == name) {
            return Err(format!(
                "--events {name}: a catch-all entry cannot answer {name} (its hook must print the new \
                 worktree's path); leave it out"
            ));
        }
        match all.iter().find(|event| **event == name) {
            Some(event) if !chosen.contains(event) => chosen.push(*event),
            Some(_) => {}
            None => {
                return Err(format!("--events {name:?}: not an event of {agent}; the events are {}", all.join(", ")));
            }
        }
    }
    Ok(chosen)
}

/// The settings file of `agent`: the project's (under `root`) or the user's.
fn settings_file(agent: Agent, user: bool, root: &Path) -> Result<PathBuf, String> {
    let env_dir = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = || env_dir("HOME").ok_or_else(|| "HOME is not set: cannot find the user's settings".to_owned());
    Ok(match (agent, user) {
        (Agent::Claude, false) => root.join(".claude/settings.json"),
        (Agent::Gemini, false) => root.join(".gemini/settings.json"),
        (Agent::Codex, false) => root.join(".codex/hooks.json"),
        (Agent::Claude, true) => {
            env_dir("CLAUDE_CONFIG_DIR").map_or_else(|| home().map(|h| h.join(".claude")), Ok)?.join("settings.json")
        }
        (Agent::Gemini, true) => home()?.join(".gemini/settings.json"),
        (Agent::Codex, true) => {
            env_dir("CODEX_HOME").map_or_else(|| home().map(|h| h.join(".codex")), Ok)?.join("hooks.json")
        }
        (Agent::Copilot, false) => root.join(hook_host::discover::COPILOT_PROJECT_DIR).join(COPILOT_FILE),
        (Agent::Copilot, true) => hook_host::discover::copilot_home(&home()?).join("hooks").join(COPILOT_FILE),
    })
}

/// `text` as one shell word.
pub(crate) fn shell_word(text: &str) -> String {
    let is_plain = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if is_plain { text.to_owned() } else { format!("'{}'", text.replace('\'', r"'\''")) }
}

/// The command of an installed entry: the absolute path of this executable.
fn bridge_command(agent: Agent) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the hookwire executable: {e}"))?;
    Ok(format!("{} hook {agent}", shell_word(&exe.display().to_string())))
}

/// Whether `command` runs `hookwire hook <agent>` (any path to hookwire, any options): such an
/// entry, even one the user wrote, already brings hookwire in.
fn is_bridge_command(command: &str, agent: Agent) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    words.windows(3).any(|w| is_hookwire(w[0]) && w[1] == "hook" && w[2] == agent.as_str()) || is_ours(command, agent)
}

/// Whether `command` is exactly what `install` writes: `<path to hookwire> hook <agent>`.
fn is_ours(command: &str, agent: Agent) -> bool {
    command.trim().strip_suffix(&format!(" hook {agent}")).is_some_and(is_hookwire)
}

/// Whether `program` (possibly quoted) is a `hookwire` executable.
fn is_hookwire(program: &str) -> bool {
    let program = program.trim().trim_matches(['"', '\'']);
    Path::new(program).file_name().is_some_and(|name| name == "hookwire")
}

// ----------------------------------------------------------------------------------------------
// JSON with byte positions.

/// A JSON value and where it is in the text.
#[derive(Debug)]
struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    String(String),
    Other,
}

#[derive(Debug)]
struct Member {
    key: String,
    /// Where the key's opening quote is.
    start: usize,
    value: Node,
}

impl Member {
    fn end(&self) -> usize {
        self.value.end
    }
}

impl Node {
    fn member(&self, key: &str) -> Option<&Member> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|m| m.key == key),
            _ => None,
        }
    }

    fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(items) => items,
            _ => &[],
        }
    }

    fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(text) => Some(text),
            _ => None,
        }
    }

    /// The spans of its children (members or items), in order.
    fn child_spans(&self) -> Vec<(usize, usize)> {
        match &self.kind {
            Kind::Object(members) => members.iter().map(|m| (m.start, m.end())).collect(),
            Kind::Array(items) => items.iter().map(|n| (n.start, n.end)).collect(),
            _ => Vec::new(),
        }
    }
}

/// A parser over text already known to be valid JSON (or JSONC: comments are skipped like
/// whitespace, and a trailing comma like a separator).
struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

/// Where the whitespace and comments from `pos` on end.
fn skip_blank(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    loop {
        match (bytes.get(pos), bytes.get(pos + 1)) {
            (Some(b' ' | b'\t' | b'\n' | b'\r'), _) => pos += 1,
            (Some(b'/'), Some(b'/')) => pos = text[pos..].find('\n').map_or(bytes.len(), |i| pos + i + 1),
            (Some(b'/'), Some(b'*')) => pos = text[pos + 2..].find("*/").map_or(bytes.len(), |i| pos + 2 + i + 2),
            _ => return pos,
        }
    }
}

/// Whether `text` has a comment (outside strings: called on the text between values).
fn has_comment(text: &str) -> bool {
    text.contains("//") || text.contains("/*")
}

/// `text` with its comments and trailing commas turned into spaces: strict JSON at the same
/// byte positions (so an error's line and column are the file's).
fn without_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => {
                let end = skip_blank(text, i);
                for byte in &mut out[i..end.min(bytes.len())] {
                    if *byte != b'\n' {
                        *byte = b' ';
                    }
                }
                i = end;
            }
            b',' => {
                if matches!(bytes.get(skip_blank(text, i + 1)), Some(b']' | b'}')) {
                    out[i] = b' ';
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced, by ASCII spaces: still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        self.pos = skip_blank(self.text, self.pos);
    }

    fn peek(&self) -> u8 {
        self.text.as_bytes().get(self.pos).copied().unwrap_or(0)
    }

    fn string_end(&self, start: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = start + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => return i + 1,
                _ => i += 1,
            }
        }
        bytes.len()
    }

    fn value(&mut self) -> Node {
        self.skip_ws();
        let start = self.pos;
        match self.peek() {
            b'{' => {
                self.pos += 1;
                let mut members = Vec::new();
                loop {
                    self.skip_ws();
                    match self.peek() {
                        b'}' | 0 => break,
                        b',' => self.pos += 1,
                        _ => {
                            let key_start = self.pos;
                            let key_end = self.string_end(key_start);
                            let key = serde_json::from_str(&self.text[key_start..key_end]).unwrap_or_default();
                            self.pos = key_end;
                            self.skip_ws();
                            self.pos += 1; // ':'
                            let value = self.value();
                            members.push(Member { key, start: key_start, value });
                        }
                    }
                }
                self.pos += 1;
                Node { start, end: self.pos, kind: Kind::Object(members) }
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_ws();
                    match self.peek() {
                        b']' | 0 => break,
                        b',' => self.pos += 1,
                        _ => items.push(self.value()),
                    }
                }
                self.pos += 1;
                Node { start, end: self.pos, kind: Kind::Array(items) }
            }
            b'"' => {
                self.pos = self.string_end(start);
                let text = serde_json::from_str(&self.text[start..self.pos]).unwrap_or_default();
                Node { start, end: self.pos, kind: Kind::String(text) }
            }
            _ => {
                let bytes = self.text.as_bytes();
                while self.pos < bytes.len()
                    && !matches!(bytes[self.pos], b',' | b']' | b'}' | b'/' | b' ' | b'\t' | b'\n' | b'\r')
                {
                    self.pos += 1;
                }
                Node { start, end: self.pos, kind: Kind::Other }
            }
        }
    }
}

/// Parses `text`, JSONC when `agent` reads JSONC (Gemini CLI); an error names line and column.
fn parse(text: &str, file: &Path, agent: Agent) -> Result<Node, String> {
    let jsonc = without_comments(text);
    let checked = if agent == Agent::Gemini { jsonc.as_str() } else { text };
    if let Err(e) = serde_json::from_str::<serde_json::Value>(checked) {
        let at = format!("{}:{}:{}", file.display(), e.line(), e.column());
        if checked != jsonc && serde_json::from_str::<serde_json::Value>(&jsonc).is_ok() {
            return Err(format!(
                "{at}: comments or a trailing comma, which {agent} does not read (its settings are strict \
                 JSON); remove them first"
            ));
        }
        return Err(format!("{at}: not valid JSON: {e}; fix it first"));
    }
    let root = Parser { text, pos: 0 }.value();
    match root.kind {
        Kind::Object(_) => Ok(root),
        _ => Err(format!("{}: the settings are not a JSON object", file.display())),
    }
}

// ----------------------------------------------------------------------------------------------
// Writing new JSON in the file's style.

/// A value to insert (also what `hookwire plugin build` writes its JSON files from, so that
/// its entries are these).
#[derive(Debug)]
pub(crate) enum Json {
    Object(Vec<(&'static str, Json)>),
    Array(Vec<Json>),
    String(String),
    Number(u64),
}

/// How the file is laid out: one member per line (`pretty`) indented by `unit`, or one line.
#[derive(Debug, Clone)]
struct Style {
    pretty: bool,
    unit: String,
}

impl Style {
    fn of(text: &str, root: &Node) -> Style {
        let spans = root.child_spans();
        let pretty = match spans.first() {
            Some((first, _)) => text[root.start..*first].contains('\n'),
            None => true,
        };
        let unit = spans
            .first()
            .map(|(first, _)| line_indent(text, *first))
            .filter(|indent| !indent.is_empty())
            .unwrap_or_else(|| "  ".to_owned());
        Style { pretty, unit }
    }

    fn render(&self, value: &Json, indent: &str) -> String {
        let inner = format!("{indent}{}", self.unit);
        let (open, close, parts): (&str, &str, Vec<String>) = match value {
            Json::String(text) => return serde_json::to_string(text).unwrap_or_default(),
            Json::Number(n) => return n.to_string(),
            Json::Object(members) => (
                "{",
                "}",
                members
                    .iter()
                    .map(|(key, v)| {
                        format!("{}: {}", serde_json::to_string(key).unwrap_or_default(), self.render(v, &inner))
                    })
                    .collect(),
            ),
            Json::Array(items) => ("[", "]", items.iter().map(|v| self.render(v, &inner)).collect()),
        };
        if parts.is_empty() {
            format!("{open}{close}")
        } else if self.pretty {
            format!("{open}\n{inner}{}\n{indent}{close}", parts.join(&format!(",\n{inner}")))
        } else {
            format!("{open}{}{close}", parts.join(", "))
        }
    }
}

/// `value` as a new file's text: one member per line, indented by two spaces, in the order
/// given (serde_json here would sort the keys).
pub(crate) fn render_new(value: &Json) -> String {
    format!("{}\n", Style { pretty: true, unit: "  ".to_owned() }.render(value, ""))
}

/// The whitespace at the start of the line holding `pos`.
fn line_indent(text: &str, pos: usize) -> String {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

/// `text` with `child` (rendered by `render` at the indent it gets) appended to `container`.
fn append(text: &str, container: &Node, style: &Style, render: impl Fn(&str) -> String) -> String {
    let spans = container.child_spans();
    let mut out = String::with_capacity(text.len() + 256);
    match spans.last() {
        Some((last_start, last_end)) => {
            let (sep, indent) = if style.pretty {
                let indent = line_indent(text, *last_start);
                (format!(",\n{indent}"), indent)
            } else {
                (", ".to_owned(), String::new())
            };
            out.push_str(&text[..*last_end]);
            out.push_str(&sep);
            out.push_str(&render(&indent));
            out.push_str(&text[*last_end..]);
        }
        None => {
            let outer = line_indent(text, container.start);
            let inner = format!("{outer}{}", style.unit);
            out.push_str(&text[..=container.start]);
            let kept = text[container.start + 1..container.end - 1].trim_end();
            if has_comment(kept) {
                // `{ // a note }`: the note stays, the new child goes on the line after it.
                out.push_str(kept);
                out.push_str(&format!("\n{inner}{}\n{outer}", render(&inner)));
            } else if style.pretty {
                out.push_str(&format!("\n{inner}{}\n{outer}", render(&inner)));
            } else {
                out.push_str(&render(""));
            }
            out.push_str(&text[container.end - 1..]);
        }
    }
    out
}

/// `text` without child `idx` of `container`, and without the separator that goes with it. A
/// comment next to the child stays: it may be about its neighbour.
fn remove(text: &str, container: &Node, idx: usize) -> String {
    let spans = container.child_spans();
    let (start, end) = spans[idx];
    // Past the comma after `pos`, if one follows.
    let after_comma = |pos: usize| {
        let next = skip_blank(text, pos);
        if text.as_bytes().get(next) == Some(&b',') { next + 1 } else { pos }
    };
    let cuts: Vec<(usize, usize)> = match (spans.len(), idx) {
        (1, _) if !has_comment(&text[container.start + 1..container.end - 1]) => {
            vec![(container.start + 1, container.end - 1)]
        }
        (1, _) => vec![(start, after_comma(end))],
        (n, i) if i + 1 < n => {
            // Up to the next child, or to a comment before it.
            let rest = &text[after_comma(end)..];
            let to = after_comma(end) + (rest.len() - rest.trim_start().len());
            vec![(start, to)]
        }
        (_, i) => {
            let prev_end = spans[i - 1].1;
            if has_comment(&text[prev_end..start]) {
                // `prev, // note` + `ours`: the comma goes, the note stays with `prev`.
                match after_comma(prev_end) {
                    past if past > prev_end => {
                        let blank_start = text[..start].trim_end().len();
                        vec![(past - 1, past), (blank_start, end)]
                    }
                    _ => vec![(prev_end, end)],
                }
            } else {
                vec![(prev_end, end)]
            }
        }
    };
    let mut out = text.to_owned();
    for (from, to) in cuts.into_iter().rev() {
        out.replace_range(from..to, "");
    }
    out
}

// ----------------------------------------------------------------------------------------------
// The edits.

/// The matcher group `install` adds (and `plugin build` writes).
pub(crate) fn entry(agent: Agent, command: &str) -> Json {
    let mut handler = Vec::new();
    if agent == Agent::Gemini {
        handler.push(("name", Json::String("hookwire".into())));
    }
    handler.push(("type", Json::String("command".into())));
    handler.push(("command", Json::String(command.to_owned())));
    let timeout = if agent == Agent::Gemini { ENTRY_TIMEOUT_SECS * 1000 } else { ENTRY_TIMEOUT_SECS };
    handler.push(("timeout", Json::Number(timeout)));
    Json::Object(vec![("hooks", Json::Array(vec![Json::Object(handler)]))])
}

/// Where the handlers whose command passes `is_wanted` are in an event's groups: (group,
/// handler) indexes.
fn handlers_where(groups: &Node, is_wanted: impl Fn(&str) -> bool) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (group_idx, group) in groups.items().iter().enumerate() {
        let Some(handlers) = group.member("hooks") else { continue };
        for (handler_idx, handler) in handlers.value.items().iter().enumerate() {
            let command = handler.member("command").and_then(|m| m.value.as_str());
            if command.is_some_and(&is_wanted) {
                found.push((group_idx, handler_idx));
            }
        }
    }
    found
}

/// One step of installing: the text after it, or `None` when nothing is left to do.
fn install_step(
    text: &str,
    file: &Path,
    agent: Agent,
    command: &str,
    events: &[&str],
) -> Result<Option<String>, String> {
    let root = parse(text, file, agent)?;
    let style = Style::of(text, &root);
    let Some(hooks) = root.member("hooks") else {
        let member = |indent: &str| format!("\"hooks\": {}", style.render(&Json::Object(Vec::new()), indent));
        return Ok(Some(append(text, &root, &style, member)));
    };
    if !matches!(hooks.value.kind, Kind::Object(_)) {
        return Err(format!("{}: `hooks` is not an object; fix it by hand first", file.display()));
    }
    for &event in events {
        let Some(groups) = hooks.value.member(event) else {
            // The event with no group first; the next step adds the group, in the file's style.
            let member = |indent: &str| {
                format!(
                    "{}: {}",
                    serde_json::to_string(event).unwrap_or_default(),
                    style.render(&Json::Array(vec![]), indent)
                )
            };
            return Ok(Some(append(text, &hooks.value, &style, member)));
        };
        if !matches!(groups.value.kind, Kind::Array(_)) {
            return Err(format!("{}: `hooks.{event}` is not an array; fix it by hand first", file.display()));
        }
        let ours = |c: &str| c == command || is_ours(c, agent);
        if let Some((group_idx, handler_idx)) = handlers_where(&groups.value, ours).first() {
            {
                let handler =
                    &groups.value.items()[*group_idx].member("hooks").map(|m| m.value.items()).unwrap_or_default()
                        [*handler_idx];
                let Some(current) = handler.member("command") else { continue };
                if current.value.as_str() != Some(command) {
                    // hookwire moved: point the entry at this executable.
                    let quoted = serde_json::to_string(command).unwrap_or_default();
                    return Ok(Some(format!("{}{quoted}{}", &text[..current.value.start], &text[current.value.end..])));
                }
            }
            continue;
        }
        if handlers_where(&groups.value, |c| c == command || is_bridge_command(c, agent)).is_empty() {
            let group = entry(agent, command);
            return Ok(Some(append(text, &groups.value, &style, |indent| style.render(&group, indent))));
        }
    }
    Ok(None)
}

/// One step of uninstalling: the text after it, or `None` when nothing is left to do.
/// `touched` collects the events an entry was removed from: those left empty go too, and so does
/// a `hooks` object left empty (unless a comment is left in it). `only`: the events to touch
/// (`None`: every one).
fn uninstall_step(
    text: &str,
    file: &Path,
    agent: Agent,
    command: &str,
    only: Option<&[&str]>,
    touched: &mut Vec<String>,
) -> Result<Option<String>, String> {
    let root = parse(text, file, agent)?;
    let Some(hooks) = root.member("hooks") else { return Ok(None) };
    let Kind::Object(events) = &hooks.value.kind else { return Ok(None) };
    for (event_idx, event) in events.iter().enumerate() {
        if !matches!(event.value.kind, Kind::Array(_)) || only.is_some_and(|only| !only.contains(&event.key.as_str())) {
            continue;
        }
        if let Some((group_idx, handler_idx)) =
            handlers_where(&event.value, |c| c == command || is_ours(c, agent)).first().copied()
        {
            let group = &event.value.items()[group_idx];
            let Some(handlers) = group.member("hooks") else { continue };
            touched.push(event.key.clone());
            return Ok(Some(if handlers.value.items().len() == 1 {
                // The whole group is ours.
                remove(text, &event.value, group_idx)
            } else {
                remove(text, &handlers.value, handler_idx)
            }));
        }
        let list_text = &text[event.value.start + 1..event.value.end - 1];
        if event.value.items().is_empty() && touched.contains(&event.key) && !has_comment(list_text) {
            return Ok(Some(remove(text, &hooks.value, event_idx)));
        }
    }
    let hooks_text = &text[hooks.value.start + 1..hooks.value.end - 1];
    if events.is_empty() && !touched.is_empty() && !has_comment(hooks_text) {
        let idx = root.child_spans().iter().position(|(start, _)| *start == hooks.start).unwrap_or(0);
        touched.clear();
        return Ok(Some(remove(text, &root, idx)));
    }
    Ok(None)
}

/// What to change.
#[derive(Debug, Clone, Copy)]
struct Edit<'a> {
    agent: Agent,
    /// The command of our entries.
    command: &'a str,
    /// The events to install on, or to uninstall from.
    events: &'a [&'static str],
    /// Whether `events` was given (`--events`): uninstall then touches only those.
    chosen: bool,
    uninstall: bool,
}

/// The file's text after installing (or uninstalling) entries running `command`.
fn edited(text: &str, file: &Path, edit: Edit<'_>) -> Result<String, String> {
    let Edit { agent, command, events, chosen, uninstall } = edit;
    let mut text = text.to_owned();
    let mut touched = Vec::new();
    // Each step parses afresh: a few dozen steps over a settings file.
    for _ in 0..1000 {
        let step = if uninstall {
            uninstall_step(&text, file, agent, command, chosen.then_some(events), &mut touched)?
        } else {
            install_step(&text, file, agent, command, events)?
        };
        match step {
            Some(next) => text = next,
            None => return Ok(text),
        }
    }
    Err(format!("{}: the edit does not settle; edit the file by hand", file.display()))
}

// ----------------------------------------------------------------------------------------------
// Diff, backup, write.

/// A unified diff of two texts, with three lines of context.
fn diff(old: &str, new: &str, file: &Path) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Longest common subsequence, by table: settings files are small.
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    // Each line: (' ' | '-' | '+', old line no, new line no, text).
    let mut ops: Vec<(char, usize, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((' ', i, j, a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', i, j, a[i]));
            i += 1;
        } else {
            ops.push(('+', i, j, b[j]));
            j += 1;
        }
    }
    let mut out = format!("--- {}\n+++ {}\n", file.display(), file.display());
    let changed: Vec<usize> = ops.iter().enumerate().filter(|(_, op)| op.0 != ' ').map(|(k, _)| k).collect();
    let mut k = 0;
    while k < changed.len() {
        let first = changed[k].saturating_sub(3);
        let mut last = changed[k];
        while k + 1 < changed.len() && changed[k + 1] <= last + 7 {
            k += 1;
            last = changed[k];
        }
        let last = (last + 3).min(ops.len() - 1);
        let hunk = &ops[first..=last];
        let old_len = hunk.iter().filter(|op| op.0 != '+').count();
        let new_len = hunk.iter().filter(|op| op.0 != '-').count();
        out.push_str(&format!("@@ -{},{old_len} +{},{new_len} @@\n", hunk[0].1 + 1, hunk[0].2 + 1));
        for (sign, _, _, line) in hunk {
            out.push_str(&format!("{sign}{line}\n"));
        }
        k += 1;
    }
    out
}

/// hookwire's state directory: `$XDG_STATE_HOME/hookwire`, else `~/.local/state/hookwire`.
fn state_dir() -> Result<PathBuf, String> {
    crate::discover::state_dir()
        .ok_or_else(|| "neither XDG_STATE_HOME nor HOME is set: no place for the backup; set one".to_owned())
}

/// `file` as one file name: its absolute path with `/` as `%` (and `%` as `%%`), as editors name
/// their backups, so a backup says which file it is.
fn file_key(file: &Path) -> String {
    let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let text = absolute.to_string_lossy().replace('%', "%%");
    text.trim_start_matches('/').replace('/', "%")
}

/// Creates `dir` and its missing parents, private (`0700`): settings files may hold secrets.
fn private_dir(dir: &Path) -> io::Result<()> {
    std::os::unix::fs::DirBuilderExt::mode(fs::DirBuilder::new().recursive(true), 0o700).create(dir)
}

/// Writes `text` to a new private file in `dir` named `name`, or `name-2`, `name-3`... when
/// taken; returns its path.
fn write_new(dir: &Path, name: &str, text: &str) -> io::Result<PathBuf> {
    private_dir(dir)?;
    for n in 1.. {
        let path = if n == 1 { dir.join(name) } else { dir.join(format!("{name}-{n}")) };
        match fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
            Ok(mut file) => return file.write_all(text.as_bytes()).map(|()| path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1000 => {}
            Err(e) => return Err(e),
        }
    }
    unreachable!("the loop returns")
}

/// Saves `text`, the previous version of `file`, as `<state>/backups/<file key>.<UTC time>`.
fn back_up(state: &Path, file: &Path, text: &str) -> io::Result<PathBuf> {
    let stamp: String = utc_stamp(SystemTime::now()).chars().filter(|c| *c != '-' && *c != ':').collect();
    write_new(&state.join("backups"), &format!("{}.{stamp}", file_key(file)), text)
}

/// The note that `install` created `file` (and the directories listed in it): only then does
/// `--uninstall` delete the file again.
fn created_note(state: &Path, file: &Path) -> PathBuf {
    state.join("created").join(file_key(file))
}

/// Where a write to `file` lands: the last target of its chain of symlinks (which need not
/// exist yet), or `file` itself.
fn through_links(file: &Path) -> io::Result<PathBuf> {
    let mut path = file.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&path)?;
                path = match path.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The directories above `file` that do not exist, deepest first.
fn missing_dirs(file: &Path) -> Vec<PathBuf> {
    file.ancestors()
        .skip(1)
        .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
        .map(Path::to_path_buf)
        .collect()
}

/// Writes `text` to `file` (a regular file or none, not a link: see [`through_links`]) through
/// a new temporary file in its directory renamed over it, keeping its permissions.
fn write_atomically(file: &Path, text: &str) -> io::Result<()> {
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let temp = dir.join(format!(
        ".{}.hookwire-{}",
        file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        std::process::id()
    ));
    // `create_new`: never through a link someone left at the temporary name.
    let written = fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&temp).and_then(|mut out| {
        out.write_all(text.as_bytes())?;
        if let Ok(meta) = fs::metadata(file) {
            out.set_permissions(fs::Permissions::from_mode(meta.permissions().mode()))?;
        }
        Ok(())
    });
    written.and_then(|()| fs::rename(&temp, file)).inspect_err(|_| {
        let _ = fs::remove_file(&temp);
    })
}

/// Whether `text` holds nothing but an empty object (and whitespace or comments).
fn is_empty_object(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(&without_comments(text))
        .is_ok_and(|value| value.as_object().is_some_and(|o| o.is_empty()))
        && !has_comment(text)
}

/// The name of hookwire's own file among Copilot CLI's hook files.
const COPILOT_FILE: &str = "hookwire.json";

/// The whole Copilot hook file `install` writes: one entry per event, each running
/// `<command> --event <name>` (Copilot's input does not name its event).
fn copilot_file_text(command: &str, events: &[&str]) -> String {
    let mut hooks = serde_json::Map::new();
    for event in events {
        let entry = serde_json::json!([{
            "type": "command",
            "bash": format!("{command} --event {event}"),
            "timeoutSec": ENTRY_TIMEOUT_SECS,
        }]);
        hooks.insert((*event).to_owned(), entry);
    }
    let file = serde_json::json!({"version": 1, "hooks": hooks});
    format!("{}\n", serde_json::to_string_pretty(&file).unwrap_or_default())
}

/// The commands of a Copilot hook file's entries that are not `hookwire hook copilot` ones:
/// what `install` must not overwrite or remove. `Err`: the file is not a hook file at all.
fn foreign_copilot_entries(text: &str) -> Result<Vec<String>, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let hooks = value.get("hooks").and_then(serde_json::Value::as_object).cloned().unwrap_or_default();
    let mut foreign = Vec::new();
    for entries in hooks.values() {
        for entry in entries.as_array().into_iter().flatten() {
            let command = entry.get("bash").and_then(serde_json::Value::as_str).unwrap_or_default();
            if !is_bridge_command(command, Agent::Copilot) {
                foreign.push(if command.is_empty() { entry.to_string() } else { command.to_owned() });
            }
        }
    }
    Ok(foreign)
}

/// `install copilot`: writes (or removes) hookwire's own hook file.
fn run_copilot(args: &InstallArgs, file: &Path, events: &[&str]) -> Result<(), String> {
    let what = "`hookwire hook copilot`";
    let old = match fs::read_to_string(file) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
    };
    if let Some(text) = &old {
        let foreign =
            foreign_copilot_entries(text).map_err(|e| format!("{}: {e}; move it away first", file.display()))?;
        if !foreign.is_empty() {
            return Err(format!(
                "{}: holds entries install did not write ({}); move them to another file of {} first",
                file.display(),
                foreign.join(", "),
                file.parent().map(|d| d.display().to_string()).unwrap_or_default()
            ));
        }
    }
    let command = format!("{} --event", bridge_command(Agent::Copilot)?);
    let command = command.trim_end_matches(" --event");
    let new = if args.uninstall { None } else { Some(copilot_file_text(command, events)) };
    if old == new {
        if args.uninstall {
            outln!("{}: no {what} entry; nothing to change", file.display());
        } else {
            outln!("{}: {what} is already installed on every chosen event; nothing to change", file.display());
        }
        return Ok(());
    }
    outln!("{}", diff(old.as_deref().unwrap_or_default(), new.as_deref().unwrap_or_default(), file).trim_end());
    if args.dry_run {
        let verb = if new.is_none() { "deleted" } else { "written" };
        outln!("dry run: {} not {verb}", file.display());
        return Ok(());
    }
    let state = state_dir()?;
    let note = created_note(&state, file);
    let backup = match &old {
        Some(text) => Some(
            back_up(&state, file, text)
                .map_err(|e| format!("cannot write the backup of {} in {}: {e}", file.display(), state.display()))?,
        ),
        None => None,
    };
    let backup = backup.map(|b| format!(" (previous version: {})", b.display())).unwrap_or_default();
    let Some(new) = new else {
        fs::remove_file(file).map_err(|e| format!("cannot delete {}: {e}", file.display()))?;
        // The directories `install` created, if nothing else came into them.
        let dirs = fs::read_to_string(&note).unwrap_or_default();
        for dir in dirs.lines().filter(|l| !l.is_empty()) {
            let _ = fs::remove_dir(dir);
        }
        let _ = fs::remove_file(&note);
        outln!("removed {what}: deleted {}{backup}", file.display());
        return Ok(());
    };
    let created_dirs = missing_dirs(file);
    write_atomically(file, &new).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    if old.is_none() {
        let dirs: String = created_dirs.iter().map(|d| format!("{}\n", d.display())).collect();
        if let Err(e) = private_dir(&state.join("created")).and_then(|()| fs::write(&note, dirs)) {
            eprintln!("hookwire: warning: cannot note that install created {}: {e}", file.display());
        }
    }
    outln!("installed {what} on {} events in {}{backup}", events.len(), file.display());
    Ok(())
}

pub(crate) fn run(args: &InstallArgs) -> u8 {
    // A misspelt pack is refused before anything is written.
    let packs = parse_packs(&args.packs);
    match packs.and_then(|packs| run_checked(args).and_then(|()| guard_with_packs(args, &packs))) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

fn run_checked(args: &InstallArgs) -> Result<(), String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = discover::project_root(&cwd).unwrap_or(cwd);
    let file = settings_file(args.agent, args.user, &root)?;
    let events = chosen_events(args.agent, &args.events)?;
    if args.agent == Agent::Copilot {
        return run_copilot(args, &file, &events);
    }
    let target = through_links(&file).map_err(|e| format!("cannot follow {}: {e}", file.display()))?;
    let old = match fs::read_to_string(&target) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
    };
    let start = old.clone().filter(|t| !t.trim().is_empty()).unwrap_or_else(|| "{}\n".to_owned());
    let command = bridge_command(args.agent)?;
    let edit = Edit {
        agent: args.agent,
        command: &command,
        events: &events,
        chosen: !args.events.is_empty(),
        uninstall: args.uninstall,
    };
    let new = edited(&start, &file, edit)?;
    let what = format!("`hookwire hook {}`", args.agent);
    let state = state_dir()?;
    let note = created_note(&state, &file);
    // Uninstalling what left a file `install` created with nothing else in it: the file goes.
    let delete = args.uninstall && old.is_some() && note.is_file() && is_empty_object(&new);
    if !delete && (old.as_deref() == Some(new.as_str()) || (old.is_none() && args.uninstall)) {
        if args.uninstall {
            outln!("{}: no {what} entry; nothing to change", file.display());
        } else {
            outln!("{}: {what} is already installed on every chosen event; nothing to change", file.display());
        }
        return Ok(());
    }
    let shown = if delete { "" } else { new.as_str() };
    outln!("{}", diff(old.as_deref().unwrap_or_default(), shown, &file).trim_end());
    if target != file {
        outln!("{} is a symlink: writing its target {}", file.display(), target.display());
    }
    if args.dry_run {
        let verb = if delete { "deleted" } else { "written" };
        outln!("dry run: {} not {verb}", file.display());
        return Ok(());
    }
    let backup = match &old {
        Some(text) => Some(
            back_up(&state, &file, text)
                .map_err(|e| format!("cannot write the backup of {} in {}: {e}", file.display(), state.display()))?,
        ),
        None => None,
    };
    let backup = backup.map(|b| format!(" (previous version: {})", b.display())).unwrap_or_default();
    if delete {
        fs::remove_file(&target).map_err(|e| format!("cannot delete {}: {e}", target.display()))?;
        // The directories `install` created, if nothing else came into them.
        let dirs = fs::read_to_string(&note).unwrap_or_default();
        for dir in dirs.lines().filter(|l| !l.is_empty()) {
            let _ = fs::remove_dir(dir);
        }
        let _ = fs::remove_file(&note);
        outln!("removed {what} and {}, which install had created{backup}", file.display());
        return Ok(());
    }
    let created_dirs = missing_dirs(&target);
    write_atomically(&target, &new).map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    if old.is_none() {
        let dirs: String = created_dirs.iter().map(|d| format!("{}\n", d.display())).collect();
        if let Err(e) = private_dir(&state.join("created")).and_then(|()| fs::write(&note, dirs)) {
            eprintln!("hookwire: warning: cannot note that install created {}: {e}", file.display());
        }
    } else if args.uninstall {
        // What is left is the user's now: a later uninstall keeps the file.
        let _ = fs::remove_file(&note);
    }
    if args.uninstall {
        outln!("removed {what} from {}{backup}", file.display());
    } else {
        outln!("installed {what} on {} events in {}{backup}", events.len(), file.display());
    }
    Ok(())
}

/// The packs `names` name, each once; an unknown name is an error listing the packs.
fn parse_packs(names: &[String]) -> Result<Vec<PackName>, String> {
    let mut packs = Vec::new();
    for name in names {
        let pack = PackName::ALL.into_iter().find(|pack| pack.as_str() == name).ok_or_else(|| {
            let known: Vec<&str> = PackName::ALL.iter().map(|pack| pack.as_str()).collect();
            format!("unknown pack `{name}`: the packs are {}", known.join(", "))
        })?;
        if !packs.contains(&pack) {
            packs.push(pack);
        }
    }
    Ok(packs)
}

/// The rules file `install --packs` writes: `rules.yaml` of hookwire's user directory, or of
/// the project's `.hookwire/`.
fn rules_file(user: bool, root: &Path) -> Result<PathBuf, String> {
    if user {
        let dir = crate::discover::user_config_dir()
            .ok_or("no user configuration directory: set HOME (or XDG_CONFIG_HOME)")?;
        Ok(dir.join("rules.yaml"))
    } else {
        Ok(root.join(".hookwire").join("rules.yaml"))
    }
}

/// After an install: writes the rule packs `--packs` names; without it, proposes the
/// `recommended` packs when no rules file guards the agent yet (a hint, never a prompt).
fn guard_with_packs(args: &InstallArgs, packs: &[PackName]) -> Result<(), String> {
    if args.uninstall {
        return Ok(());
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = discover::project_root(&cwd).unwrap_or(cwd);
    if packs.is_empty() {
        let user = rules_file(true, &root).ok();
        let places = [user, Some(rules_file(false, &root)?)];
        if !places.iter().flatten().any(|file| file.exists()) {
            outln!(
                "no rules guard {} yet: `hookwire install {} --packs recommended` adds hookwire's recommended \
                 packs (recursive deletes of home, force pushes, secret reads, curl | sh, ...; see docs/rules.md)",
                args.agent,
                args.agent
            );
        }
        return Ok(());
    }
    let file = rules_file(args.user, &root)?;
    let text = format!("packs: [{}]\n", packs.iter().map(|pack| pack.as_str()).collect::<Vec<_>>().join(", "));
    if file.exists() {
        outln!("{} exists: left as it is (add `{}` to it yourself)", file.display(), text.trim_end());
        return Ok(());
    }
    if args.dry_run {
        outln!("dry run: {} not written ({})", file.display(), text.trim_end());
        return Ok(());
    }
    if let Some(dir) = file.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    write_atomically(&file, &text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    outln!("wrote {} ({})", file.display(), text.trim_end());
    if !args.user {
        outln!("project rules run once trusted: `hookwire trust` (after reading {})", file.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(agent: Agent) -> String {
        format!("/usr/local/bin/hookwire hook {agent}")
    }

    fn edit(text: &str, agent: Agent, uninstall: bool) -> String {
        let events = events_for(agent);
        let edit = Edit { agent, command: &command(agent), events: &events, chosen: false, uninstall };
        edited(text, Path::new("s.json"), edit).unwrap()
    }

    fn install(text: &str, agent: Agent) -> String {
        edit(text, agent, false)
    }

    fn uninstall(text: &str, agent: Agent) -> String {
        edit(text, agent, true)
    }

    #[test]
    fn install_keeps_other_keys_in_place_and_uninstall_restores_the_text() {
        let original = "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard.sh\"}]}\n        ]\n    },\n    \"env\": {\"A\": \"1\"}\n}\n";
        let installed = install(original, Agent::Claude);
        assert!(installed.starts_with("{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\"matcher\": \"Bash\""), "{installed}");
        assert!(installed.ends_with("    \"env\": {\"A\": \"1\"}\n}\n"), "{installed}");
        let value: serde_json::Value = serde_json::from_str(&installed).unwrap();
        let events = value["hooks"].as_object().unwrap();
        assert_eq!(events.len(), events_for(Agent::Claude).len());
        assert!(!events.contains_key("WorktreeCreate"));
        assert_eq!(value["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        assert_eq!(install(&installed, Agent::Claude), installed);
        assert_eq!(uninstall(&installed, Agent::Claude), original);
    }

    #[test]
    fn a_file_without_hooks_and_an_empty_one() {
        let compact = r#"{"theme":"dark"}"#;
        let installed = install(compact, Agent::Gemini);
        let value: serde_json::Value = serde_json::from_str(&installed).unwrap();
        assert_eq!(value["theme"], "dark");
        assert_eq!(value["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"], 600_000);
        assert_eq!(value["hooks"]["BeforeTool"][0]["hooks"][0]["name"], "hookwire");
        assert_eq!(uninstall(&installed, Agent::Gemini), compact);
        let fresh = install("{}\n", Agent::Codex);
        assert!(
            fresh.starts_with("{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"hooks\": ["),
            "{fresh}"
        );
        assert_eq!(uninstall(&fresh, Agent::Codex), "{}\n");
    }

    #[test]
    fn only_the_named_agents_entries_are_ours() {
        assert!(is_bridge_command("/usr/local/bin/hookwire hook claude", Agent::Claude));
        assert!(is_ours("'/opt/my tools/hookwire' hook claude", Agent::Claude));
        assert!(is_bridge_command("hookwire hook claude --no-daemon", Agent::Claude));
        assert!(!is_ours("hookwire hook claude --no-daemon", Agent::Claude));
        assert!(!is_bridge_command("/usr/local/bin/hookwire hook gemini", Agent::Claude));
        assert!(!is_bridge_command("hookwire check", Agent::Claude));
        assert_eq!(shell_word("/a b/it's"), r"'/a b/it'\''s'");
    }

    #[test]
    fn uninstalling_from_jsonc_keeps_the_comments_around_our_entry() {
        let ours = r#"{"hooks": [{"type": "command", "command": "/usr/local/bin/hookwire hook gemini"}]}"#;
        let mine = r#"{"hooks": [{"type": "command", "command": "a.sh"}]}"#;
        let wrap = |groups: &str| format!("{{\n  \"hooks\": {{\n    \"Stop\": [\n{groups}\n    ]\n  }}\n}}\n");
        // Ours last, after a note on the user's group: the note stays with it.
        let last = wrap(&format!("      {mine}, // mine\n      {ours}"));
        assert_eq!(uninstall(&last, Agent::Gemini), wrap(&format!("      {mine} // mine")));
        // Ours first, before a note on the user's group: the note stays too.
        let first = wrap(&format!("      {ours},\n      // mine\n      {mine}"));
        assert_eq!(uninstall(&first, Agent::Gemini), wrap(&format!("      // mine\n      {mine}")));
        // Alone with a note in its list: the note stays, the empty event too.
        let alone = wrap(&format!("      // keep me\n      {ours},"));
        assert_eq!(uninstall(&alone, Agent::Gemini), wrap("      // keep me\n      "));
    }

    #[test]
    fn the_diff_shows_changed_lines_with_context() {
        let d = diff("a\nb\nc\n", "a\nB\nc\n", Path::new("f"));
        assert_eq!(d, "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    }
}
