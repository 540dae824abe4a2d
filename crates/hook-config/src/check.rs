//! Validation the parser cannot do: names, regexes, names used twice in one level, and tool
//! names written in the wrong case.

use std::collections::HashMap;

use regex::RegexBuilder;

use hook_protocol::Agent;

use super::{ConfigError, ConfigWarning, FileCx, FileLoad, locate::Position};
use hook_agents::matched_member;
use hook_core::{HookDefinition, HookSpec, Level, SourceLocation};
use hook_protocol::tool::AGENT_TOOLS;

/// Compiled size limit for user patterns: generous for any real filter, small enough that a
/// pathological pattern fails at load instead of eating memory.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Checks a hook name; records an error and returns `false` when it is unusable.
pub(super) fn name(cx: &mut FileCx<'_>, name: &str, at: Option<Position>) -> bool {
    let problem = if name.trim().is_empty() {
        "the name is empty; give the hook a name, e.g. `name: guard`"
    } else if name.contains(':') {
        "the name contains `:`, which separates the parts of a hook id (`level:name:event`); use `-` or `_`"
    } else if name.chars().any(char::is_control) {
        "the name contains a control character; use letters, digits, `-` and `_`"
    } else {
        return true;
    };
    cx.error(at, Some(name), problem);
    false
}

/// Compiles one filter pattern the way the engine will; records an error at `at` (where the
/// pattern is written) and returns `false` when it does not compile.
pub(super) fn regex(cx: &mut FileCx<'_>, hook: &str, key: &str, pattern: &str, at: Option<Position>) -> bool {
    if cx.is_shallow {
        // A held-back file: its hooks do not run, so nothing is compiled for them.
        return true;
    }
    let Err(err) = RegexBuilder::new(pattern).size_limit(REGEX_SIZE_LIMIT).build() else {
        return true;
    };
    let reason = regex_reason(&err);
    cx.error(
        at,
        Some(hook),
        format!("`filter.{key}` `{pattern}` is not a valid regular expression: {reason}; fix the pattern (Rust regex syntax, no look-around or back-references)"),
    );
    false
}

/// The one-line reason of a regex error (its Display draws the pattern and a caret over
/// several lines).
fn regex_reason(err: &regex::Error) -> String {
    match err {
        regex::Error::CompiledTooBig(limit) => format!("it compiles to more than {limit} bytes; simplify it"),
        other => {
            let text = other.to_string();
            match text.rfind("error: ") {
                Some(idx) => text[idx + "error: ".len()..].trim().to_owned(),
                None => text.split_whitespace().collect::<Vec<_>>().join(" "),
            }
        }
    }
}

/// Names must be unique per level. A name used twice inside one file is an error in that
/// file; a name a later file of the same level reuses is an error in the later file (the first
/// one keeps running). Either way the file with the error contributes nothing.
pub(crate) fn duplicate_names(files: &mut [FileLoad]) {
    for file in files.iter_mut() {
        let mut seen: HashMap<&str, &HookSpec> = HashMap::new();
        let mut errors = Vec::new();
        for spec in &file.specs {
            match seen.get(spec.name.as_str()) {
                Some(first) => errors.push(duplicate_error(spec, &first.source, file.level)),
                None => {
                    seen.insert(&spec.name, spec);
                }
            }
        }
        if !errors.is_empty() {
            file.errors.extend(errors);
            file.specs.clear();
        }
    }
    let mut seen: HashMap<(Level, String), SourceLocation> = HashMap::new();
    for file in files.iter_mut().filter(|file| file.errors.is_empty()) {
        // Unnamed entries of two files (say ~/.config/hookwire/hooks.yaml and j-cli's
        // ~/.jdata/agent/hooks.yaml) get the same generated `<event>-<index>`: number the later
        // ones on (`pre_tool_execution-0-2`) instead of refusing a file nobody named wrongly.
        for spec in file.specs.iter_mut().filter(|spec| is_generated_name(spec)) {
            let base = spec.name.clone();
            let mut n = 2;
            while seen.contains_key(&(file.level, spec.name.clone())) {
                spec.name = format!("{base}-{n}");
                n += 1;
            }
        }
        let errors: Vec<ConfigError> = file
            .specs
            .iter()
            .filter_map(|spec| {
                seen.get(&(file.level, spec.name.clone())).map(|first| duplicate_error(spec, first, file.level))
            })
            .collect();
        if errors.is_empty() {
            for spec in &file.specs {
                seen.insert((file.level, spec.name.clone()), spec.source.clone());
            }
        } else {
            file.errors.extend(errors);
            file.specs.clear();
        }
    }
}

/// Whether `spec`'s name was generated for an unnamed event-keyed entry, or is an agent
/// hook's label.
fn is_generated_name(spec: &HookSpec) -> bool {
    spec.dir.is_none()
        && match &spec.definition {
            HookDefinition::Command(def) => def.name.is_none(),
            // Agents' hook names are labels, not identities: Gemini CLI runs two hooks of one
            // name side by side, and so does hookwire (numbered on).
            HookDefinition::Agent(_) => true,
            _ => false,
        }
}

fn duplicate_error(spec: &HookSpec, first: &SourceLocation, level: Level) -> ConfigError {
    let fix = if is_generated_name(spec) {
        "this name is generated for an unnamed entry; give one of them a `name:`"
    } else {
        "rename one of them"
    };
    ConfigError {
        file: spec.source.file.clone(),
        line: spec.source.line,
        column: spec.source.line.and(spec.source.column),
        hook: Some(spec.name.clone()),
        message: format!("the name is already used at {first}; names must be unique among {level} hooks: {fix}"),
    }
}

/// How a tool condition selects tools: exact names, or a regex (unanchored).
#[derive(Debug, Clone, Copy)]
pub(crate) enum ToolCondition<'a> {
    /// Any of these names, compared exactly.
    Names(&'a str, char),
    /// A regular expression.
    Regex(&'a str),
}

/// The known tools a condition would select in another case, when it selects none as written
/// (a list of names that holds one known tool selects it, so it is not reported):
/// `bash` → `Bash`, `^read$` → `Read`. Empty when it selects a known tool, or none in any case
/// (an MCP tool, a tool hookwire does not know).
pub(crate) fn miscased(condition: ToolCondition<'_>, known: &[&'static str]) -> Vec<&'static str> {
    match condition {
        ToolCondition::Names(list, separator) => {
            let names: Vec<&str> = list.split([separator, ',']).map(str::trim).filter(|n| !n.is_empty()).collect();
            // A list that names a known tool selects something: its other names may be tools
            // hookwire does not know (j-cli's `Bash|Shell`).
            if names.iter().any(|name| known.contains(name)) {
                return Vec::new();
            }
            let mut found = Vec::new();
            for name in names {
                for other in known.iter().copied().filter(|k| k.eq_ignore_ascii_case(name)) {
                    if !found.contains(&other) {
                        found.push(other);
                    }
                }
            }
            found
        }
        ToolCondition::Regex(pattern) => {
            let build = |insensitive: bool| {
                RegexBuilder::new(pattern).case_insensitive(insensitive).size_limit(REGEX_SIZE_LIMIT).build().ok()
            };
            let (Some(exact), Some(any_case)) = (build(false), build(true)) else { return Vec::new() };
            if known.iter().any(|k| exact.is_match(k)) {
                return Vec::new();
            }
            known.iter().copied().filter(|k| any_case.is_match(k)).collect()
        }
    }
}

/// Warns on tool conditions (a filter's `tool_name`, `tool_matcher`, `tool_regex`; an agent
/// hook's matcher on a tool event) that select no known tool but would in another case: tool
/// names are case-sensitive, and such a hook silently never runs.
pub(crate) fn tool_name_case(files: &mut [FileLoad]) {
    let every: Vec<&'static str> = hook_protocol::tool::known_tool_names().collect();
    // A held-back file's hooks were read only for their names: nothing of them is compiled.
    for file in files.iter_mut().filter(|file| !file.is_untrusted) {
        let mut warnings = Vec::new();
        for spec in &file.specs {
            let filter = &spec.filter;
            let mut conditions: Vec<(String, ToolCondition<'_>)> = Vec::new();
            if let Some(name) = &filter.tool_name {
                conditions.push((format!("`filter.tool_name` `{name}`"), ToolCondition::Names(name, '\0')));
            } else if let Some(matcher) = &filter.tool_matcher {
                conditions.push((format!("`filter.tool_matcher` `{matcher}`"), ToolCondition::Names(matcher, '|')));
            }
            if let Some(pattern) = &filter.tool_regex {
                conditions.push((format!("`filter.tool_regex` `{pattern}`"), ToolCondition::Regex(pattern)));
            }
            for (what, condition) in conditions {
                if let Some(message) = case_message(&what, "of any agent", miscased(condition, &every)) {
                    warnings.push(spec_warning(spec, message));
                }
            }
            if let HookDefinition::Agent(def) = &spec.definition
                && let Some(matcher) = def.matcher.as_deref().filter(|m| !m.is_empty() && *m != "*")
                && spec.events.iter().any(|event| matched_member(def.agent, *event) == Some("tool_name"))
            {
                let known = agent_tools(def.agent);
                let is_names = matcher.chars().all(|c| c.is_ascii_alphanumeric() || "_ ,|-".contains(c));
                // Gemini CLI compares tool matchers as regexes.
                let condition = if is_names && def.agent != Agent::Gemini {
                    ToolCondition::Names(matcher, '|')
                } else {
                    ToolCondition::Regex(matcher)
                };
                let whose = format!("of {}", def.agent.display_name());
                if let Some(message) =
                    case_message(&format!("matcher `{matcher}`"), &whose, miscased(condition, &known))
                {
                    warnings.push(spec_warning(spec, message));
                }
            }
        }
        file.warnings.extend(warnings);
    }
}

/// The known tool names of `agent`.
fn agent_tools(agent: Agent) -> Vec<&'static str> {
    let name = agent.display_name();
    AGENT_TOOLS
        .iter()
        .filter(|tools| tools.agent == name)
        .flat_map(|tools| tools.tools.iter().map(|(n, _)| *n))
        .collect()
}

fn case_message(what: &str, whose: &str, found: Vec<&'static str>) -> Option<String> {
    if found.is_empty() {
        return None;
    }
    let names = found.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ");
    Some(format!(
        "{what} matches no tool {whose}, but would match {names} in another case: tool names are case-sensitive, \
         so this hook never runs on them; write the name as the agent spells it"
    ))
}

fn spec_warning(spec: &HookSpec, message: String) -> ConfigWarning {
    ConfigWarning {
        file: spec.source.file.clone(),
        line: spec.source.line,
        column: spec.source.line.and(spec.source.column),
        hook: Some(spec.name.clone()),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn miscased_names_and_patterns_are_found() {
        let known = ["Bash", "Read", "Write", "run_shell_command", "read_file"];
        let names = |list| miscased(ToolCondition::Names(list, '|'), &known);
        assert_eq!(names("bash"), ["Bash"]);
        assert_eq!(names("write|read"), ["Write", "Read"]);
        assert!(names("write|Read").is_empty(), "the list selects Read");
        assert!(names("Bash|Write").is_empty());
        assert!(names("mcp__db__query").is_empty());
        let regex = |pattern| miscased(ToolCondition::Regex(pattern), &known);
        assert_eq!(regex("^read$"), ["Read"]);
        assert!(regex("^Read$").is_empty());
        assert!(regex("read").is_empty(), "`read` selects read_file as written");
        assert!(regex("mcp__.*").is_empty());
        assert!(regex("(unclosed").is_empty());
    }

    #[test]
    fn the_agent_tables_hold_each_agents_tools() {
        assert!(agent_tools(Agent::Claude).contains(&"Bash"));
        assert!(agent_tools(Agent::Gemini).contains(&"run_shell_command"));
        assert!(agent_tools(Agent::Codex).contains(&"apply_patch"));
        assert!(!agent_tools(Agent::Claude).contains(&"read_file"));
    }
}
