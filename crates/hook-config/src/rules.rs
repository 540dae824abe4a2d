//! Rules files: a configuration file with a top-level `rules:`, `packs:` or `allow:` becomes
//! one hook of kind `rules` (hook-rules), loaded at its level like any hook (a project's is
//! trust-gated with its file). Unknown keys, packs, tool classes and bad patterns refuse the
//! whole file, with the place of the mistake.

use hook_core::{HookDefinition, HookSpec, Kind};
use hook_protocol::rules::RulesFile;

use crate::FileCx;

/// Whether a file with these top-level keys is a rules file.
pub(crate) fn is_rules_file(keys: &[String]) -> bool {
    keys.iter().any(|key| RulesFile::KEYS.contains(&key.as_str()))
}

/// The one spec of a rules file (none when it has errors).
pub(crate) fn rules_file(cx: &mut FileCx<'_>) -> Vec<HookSpec> {
    let file: RulesFile = match cx.parse() {
        Ok(file) => file,
        Err(err) => {
            cx.parse_error(err, None);
            return Vec::new();
        }
    };
    // The file's own rules are compiled here to refuse a bad one at its place; the packs are
    // tested when they are built, and compiling them is most of the cost of loading the file
    // (paid again when the hook is mounted), so only their events are read.
    let own = RulesFile { packs: Vec::new(), ..file.clone() };
    let rules = match hook_rules::RuleSet::compile(&own) {
        Ok(rules) => rules,
        Err(error) => {
            let at = position_of(cx.text, &error.value);
            cx.error(at, Some(&error.rule), error.to_string());
            return Vec::new();
        }
    };
    let mut names = std::collections::HashSet::new();
    for rule in file.rules.iter().chain(&file.allow) {
        if !names.insert(rule.name.as_str()) {
            let at = position_of(cx.text, &rule.name);
            cx.error(
                at,
                Some(&rule.name),
                format!("the rule name `{}` is used twice in this file; give each rule its own name", rule.name),
            );
        }
    }
    if !cx.errors.is_empty() {
        return Vec::new();
    }
    let name = format!("rules:{}", cx.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    let mut events = rules.events();
    for event in hook_rules::packs::expand(&file.packs).into_iter().flat_map(hook_rules::packs::events) {
        if !events.contains(&event) {
            events.push(event);
        }
    }
    let mut spec = HookSpec::new(name, cx.level, Kind::RULES, events, HookDefinition::Rules(Box::new(file)));
    spec.source = cx.location(Some((1, 1)));
    spec.deadlines = cx.deadlines;
    vec![spec]
}

/// The line and column where `value` is first written, for an error about it.
fn position_of(text: &str, value: &str) -> Option<(usize, usize)> {
    if value.is_empty() {
        return None;
    }
    text.lines().enumerate().find_map(|(i, line)| line.find(value).map(|col| (i + 1, col + 1)))
}
