//! Validation the parser cannot do: names, regexes, and names used twice in one level.

use std::collections::HashMap;

use regex::RegexBuilder;

use super::{ConfigError, FileCx, FileLoad, locate::Position};
use crate::{HookDefinition, HookSpec, Level, SourceLocation};

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
