//! Why the rules decide what they decide about one call: every rules hook's verdict, computed by
//! the very evaluation the hook runs ([`crate::RulesHook::verdict`]), combined the way the engine
//! combines hooks (level by level; the first deny halts, the strongest ask or note stands),
//! with each deciding rule located — its pack, or its file and line — and the simple commands
//! the shell parser found. This backs `hookwire rules explain` and `hookwire rules list`; it
//! never decides anything itself.

use std::path::{Path, PathBuf};

use hook_core::{HookDefinition, HookSpec, Level};
use hook_protocol::{
    Context, Event,
    rules::{PackName, RuleDecision, RulesFile},
    tool::tool_view,
};

use crate::{Hit, RulesFactory, SimpleCommand, packs, simple_commands};

/// A rules file that cannot be built: the hook refuses it (and fails closed on blocking events).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExplainError {
    /// The hook's name (`rules:hooks.yaml`).
    pub hook: String,
    /// What is wrong and where.
    pub message: String,
}

/// Where a rule is written: a pack compiled into hookwire, or a rules file's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRef {
    /// The pack, for a pack's rule.
    pub pack: Option<PackName>,
    /// The rule's name within its pack or file.
    pub name: String,
    /// The rules file, for a file's own rule (or `allow:` entry).
    pub file: Option<PathBuf>,
    /// The 1-based line of its `name:` in that file, when found.
    pub line: Option<usize>,
}

impl RuleRef {
    /// `pack/name` for a pack's rule, `name` for a file's own.
    pub fn label(&self) -> String {
        match self.pack {
            Some(pack) => format!("{pack}/{}", self.name),
            None => self.name.clone(),
        }
    }

    /// `file:line` (or `file`) for a file's rule, `pack <name>` for a pack's.
    pub fn place(&self) -> String {
        match (&self.pack, &self.file, self.line) {
            (Some(pack), _, _) => format!("pack {pack}"),
            (None, Some(file), Some(line)) => format!("{}:{line}", file.display()),
            (None, Some(file), None) => file.display().to_string(),
            (None, None, _) => "-".to_owned(),
        }
    }
}

/// One rule that matched the call, in the hook of one rules file.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The rules hook (`rules:hooks.yaml`).
    pub hook: String,
    /// Its level.
    pub level: Level,
    /// The rules file (where the hook was loaded from; for `--pack`, none).
    pub rules_file: Option<PathBuf>,
    /// The rule.
    pub rule: RuleRef,
    /// What it decides (or would decide, for a shadow rule).
    pub decision: RuleDecision,
    /// What the model is told.
    pub reason: String,
    /// The safer alternative.
    pub suggest: Option<String>,
    /// The simple command it matched, for a shell call.
    pub command: Option<String>,
    /// Whether it only records.
    pub shadow: bool,
}

/// What the rules make of one call.
#[derive(Debug, Clone)]
pub struct Explanation {
    /// The event explained.
    pub event: Event,
    /// The combined decision; `None`: no rule objects.
    pub decision: Option<RuleDecision>,
    /// The rule whose decision stands: the first in run order with the strongest decision.
    pub decided_by: Option<Finding>,
    /// Every enforced match, in run order (exceptions of each file applied).
    pub hits: Vec<Finding>,
    /// What shadow rules would have decided.
    pub shadowed: Vec<Finding>,
    /// The shell script, for a shell call.
    pub script: Option<String>,
    /// The simple commands the shell parser found in it (wrappers unwrapped, `sh -c`, `$(…)`
    /// and one-liners entered), in order.
    pub commands: Vec<SimpleCommand>,
    /// Why the script cannot be read, when it cannot (the rules then ask).
    pub unreadable: Option<String>,
    /// The rules hooks evaluated, in run order: name, level, file.
    pub evaluated: Vec<(String, Level, Option<PathBuf>)>,
}

impl Explanation {
    /// The commands whose program cannot be known before they run (`$X -rf /`, `curl … | sh`).
    pub fn undetermined(&self) -> impl Iterator<Item = &SimpleCommand> {
        self.commands.iter().filter(|c| c.runs_unknown)
    }

    /// The safer alternative of the deciding rule.
    pub fn suggest(&self) -> Option<&str> {
        self.decided_by.as_ref().and_then(|f| f.suggest.as_deref())
    }
}

/// Explains `event` with `context` against the rules hooks among `specs` (other kinds are
/// ignored; disabled hooks are left out, as the engine leaves them out). `Err` names the first
/// rules file that does not build.
pub fn explain(specs: &[HookSpec], event: Event, context: &Context) -> Result<Explanation, ExplainError> {
    let mut rules: Vec<&HookSpec> =
        specs.iter().filter(|spec| spec.enabled && matches!(spec.definition, HookDefinition::Rules(_))).collect();
    // The engine's run order: level, then priority, then declaration order.
    rules.sort_by_key(|spec| (spec.level, spec.priority));
    let view = context.tool.clone().or_else(|| tool_view(context));
    let script = view.as_ref().and_then(|v| v.command.clone());
    let (commands, unreadable) = match script.as_deref().map(simple_commands) {
        Some(Ok(commands)) => (commands, None),
        Some(Err(error)) => (Vec::new(), Some(error.to_string())),
        None => (Vec::new(), None),
    };
    let mut out = Explanation {
        event,
        decision: None,
        decided_by: None,
        hits: Vec::new(),
        shadowed: Vec::new(),
        script,
        commands,
        unreadable,
        evaluated: Vec::new(),
    };
    for spec in rules {
        let HookDefinition::Rules(file) = &spec.definition else { continue };
        let hook = RulesFactory
            .build_hook(spec)
            .map_err(|e| ExplainError { hook: spec.name.clone(), message: e.to_string() })?;
        let rules_file = (!spec.source.file.as_os_str().is_empty()).then(|| spec.source.file.clone());
        out.evaluated.push((spec.name.clone(), spec.level, rules_file.clone()));
        if !spec.events.contains(&event) {
            continue;
        }
        let verdict = hook.verdict(event, context);
        let text = rules_file.as_deref().and_then(|path| std::fs::read_to_string(path).ok());
        let finding = |hit: &Hit| Finding {
            hook: spec.name.clone(),
            level: spec.level,
            rules_file: rules_file.clone(),
            rule: locate(&hit.rule, file, rules_file.as_deref(), text.as_deref()),
            decision: hit.decision,
            reason: hit.reason.clone(),
            suggest: hit.suggest.clone(),
            command: hit.command.clone(),
            shadow: hit.shadow,
        };
        out.shadowed.extend(verdict.shadowed.iter().map(finding));
        out.hits.extend(verdict.hits.iter().map(finding));
        if let (Some(decision), Some(hit)) = (verdict.decision, &verdict.decided_by)
            && out.decision.is_none_or(|d| decision > d)
        {
            out.decision = Some(decision);
            out.decided_by = Some(finding(hit));
        }
        if out.decision == Some(RuleDecision::Deny) {
            // A denial halts the engine's chain: later levels never run.
            break;
        }
    }
    Ok(out)
}

/// The rule a hit's label (`pack/name` or `name`) names in `file`, located.
fn locate(label: &str, file: &RulesFile, path: Option<&Path>, text: Option<&str>) -> RuleRef {
    let own = file.rules.iter().chain(&file.allow).any(|rule| rule.name == label);
    if !own
        && let Some((pack, name)) = label.split_once('/')
        && let Some(pack) = PackName::ALL.iter().copied().find(|p| p.as_str() == pack)
    {
        return RuleRef { pack: Some(pack), name: name.to_owned(), file: None, line: None };
    }
    RuleRef {
        pack: None,
        name: label.to_owned(),
        file: path.map(Path::to_path_buf),
        line: text.and_then(|text| name_line(text, label)),
    }
}

/// The 1-based line where a rule named `name` is declared in `text` (YAML `name: x`, `- name:
/// "x"`, JSON `"name": "x"`).
pub fn name_line(text: &str, name: &str) -> Option<usize> {
    text.lines().position(|line| declares(line, name)).map(|i| i + 1)
}

fn declares(line: &str, name: &str) -> bool {
    let mut rest = line;
    while let Some(at) = rest.find("name") {
        let after = rest[at + 4..].trim_start_matches(['"', '\'']).trim_start();
        if let Some(value) = after.strip_prefix(':') {
            let value = value.trim();
            let unquoted = value
                .strip_prefix('"')
                .and_then(|v| v.split_once('"').map(|(v, _)| v))
                .or_else(|| value.strip_prefix('\'').and_then(|v| v.split_once('\'').map(|(v, _)| v)))
                .unwrap_or_else(|| value.split([',', '}', '#']).next().unwrap_or_default().trim());
            if unquoted == name {
                return true;
            }
        }
        rest = &rest[at + 4..];
    }
    false
}

/// The 1-based line of the rule `name` in `pack`'s YAML as shipped.
pub fn pack_rule_line(pack: PackName, name: &str) -> Option<usize> {
    name_line(packs::source(pack), name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_in_yaml_and_json() {
        let yaml = "rules:\n  - name: a\n    command: x\n  - name: \"b-c\"\nallow:\n  - {name: 'd', command: y}\n";
        assert_eq!(name_line(yaml, "a"), Some(2));
        assert_eq!(name_line(yaml, "b-c"), Some(4));
        assert_eq!(name_line(yaml, "d"), Some(6));
        assert_eq!(name_line(yaml, "b"), None);
        let json = "{\n \"rules\": [\n  {\"name\": \"x\", \"command\": \"rm\"}\n ]\n}";
        assert_eq!(name_line(json, "x"), Some(3));
        assert!(pack_rule_line(PackName::Git, "reset-hard").is_some());
    }
}
