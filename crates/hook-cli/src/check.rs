//! `hookwire check`: load everything and show, per event, the hooks that will run.

use std::path::{Path, PathBuf};

use hook_config::{self as config, ConfigWarning};
use hook_core::{Deadlines, Event, HookDefinition, HookSpec, Level, OnError, fmt_duration};
use hook_protocol::config::{HookFilter, HookKind};
use serde_json::{Value, json};

use crate::{ConfigArgs, Format, discover, engine, terminal};

/// One line of the listing.
fn describe(spec: &HookSpec, event: Event) -> Value {
    let mut line = json!({
        "id": hook_core::HookId::new(spec.level, &spec.name, event).as_str(),
        "level": spec.level.as_str(),
        "kind": spec.kind.as_str(),
        "priority": spec.priority,
        "enabled": spec.enabled,
        "filter": filter_text(&spec.filter),
        "timeout_ms": spec.effective_timeout(event, engine::factory(spec.kind.as_str()).as_deref()).as_millis() as u64,
        "retry": spec.effective_retry(engine::factory(spec.kind.as_str()).as_deref()),
        "on_error": spec.effective_on_error(event).as_str(),
        "source": spec.source.to_string(),
    });
    if let HookDefinition::Agent(def) = &spec.definition {
        let mut filter = Vec::new();
        if let Some(matcher) = def.matcher.as_deref().filter(|m| !m.is_empty()) {
            if hook_agents::matched_member(def.agent, event).is_some() {
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
        if hook_agents::UNSUPPORTED_KINDS.contains(&spec.kind.as_str()) {
            line["unsupported"] =
                json!(format!("hookwire does not run `{}` hooks: it reports a failure, never a pass", spec.kind));
        }
    }
    if let Some(policy) = sandbox_of(spec) {
        let plan = hook_sandbox::plan(&policy);
        line["sandbox"] = json!({"policy": policy.summary(), "abi": plan.abi, "not_enforced": plan.missing});
    }
    if !agent_loop::FIRED_EVENTS.contains(&event) {
        line["never_fired"] = json!("hookwire's own agent never fires this event; it runs through `hookwire hook`");
    }
    line
}

/// The sandbox `spec`'s processes run under, for the kinds that start processes.
fn sandbox_of(spec: &HookSpec) -> Option<hook_protocol::config::SandboxPolicy> {
    ["bash", "command", "process"].contains(&spec.kind.as_str()).then(|| spec.effective_sandbox()).flatten()
}

/// A warning for each sandboxed hook the kernel cannot fully confine (`best-effort`), an error
/// for each that will not run (`required`).
fn sandbox_diagnostics(specs: &[HookSpec], errors: &mut Vec<Value>, warnings: &mut Vec<Value>) {
    use hook_protocol::config::SandboxMode;
    for spec in specs {
        let Some(policy) = sandbox_of(spec) else { continue };
        let plan = hook_sandbox::plan(&policy);
        if plan.missing.is_empty() {
            continue;
        }
        let support = hook_sandbox::support().describe();
        let (message, into) =
            if policy.mode == SandboxMode::Required && plan.missing.iter().any(|what| !what.starts_with("signal")) {
                let message = format!(
                    "`sandbox: required` cannot be enforced here ({support}; missing: {}): the hook will not run; \
                 use a Linux kernel with Landlock ABI {} or later and seccomp, or `sandbox: best-effort`",
                    plan.missing.join(", "),
                    hook_sandbox::REQUIRED_NET_ABI
                );
                (message, &mut *errors)
            } else {
                (
                    format!("sandbox runs with {support}, which does not enforce: {}", plan.missing.join(", ")),
                    &mut *warnings,
                )
            };
        let text = format!("{}: hook `{}`: {message}", spec.source, spec.name);
        into.push(diagnostic(
            Some(&spec.source.file),
            spec.source.line,
            spec.source.column,
            Some(&spec.name),
            &message,
            text,
        ));
    }
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
    /// Files holding hookwire's own `hookwire hook` entries, and how many: not hooks.
    bridge: Vec<Value>,
    /// What the bridge tells the person about held-back project hooks.
    held_back: Option<String>,
    specs: Vec<HookSpec>,
    errors: Vec<Value>,
    warnings: Vec<Value>,
    untrusted: Vec<Value>,
    searched: Vec<Value>,
}

/// What `check` loads: everything (`agent: None`), or exactly what `hookwire hook <agent>`
/// loads in this directory (`--agent`): without the agent's own settings files, discovered from
/// the project directory the agent names, with trust checked the way that bridge checks it.
fn load(args: &ConfigArgs, agent: Option<hook_protocol::Agent>) -> Checked {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let (loaded, sources) = match agent {
        None => (engine::load(args), discover::discover(&args.configs, args.no_default_config, &cwd).sources),
        Some(agent) => {
            let host = crate::hook::bridge_host(agent, &[], &args.configs, args.no_default_config, &cwd).build();
            (host.read().unwrap_or_default(), host.sources().unwrap_or_default())
        }
    };
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
    let mut errors: Vec<Value> = loaded.errors.iter().map(structured).collect();
    for error in &mut errors {
        seconds_hint(error);
    }
    let mut warnings: Vec<Value> = loaded.warnings.iter().map(structured).collect();
    warnings.extend(
        lint(&loaded.specs, &cwd)
            .iter()
            .map(|w| diagnostic(Some(&w.file), w.line, w.column, w.hook.as_deref(), &w.message, w.to_string())),
    );
    sandbox_diagnostics(&loaded.specs, &mut errors, &mut warnings);
    if !args.no_default_config {
        warnings.extend(managed_writable());
    }
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
    let held_back = crate::held_back::note(&loaded.untrusted);
    let bridge = raw
        .files
        .iter()
        .filter(|file| file.bridge_entries > 0)
        .map(|file| json!({"file": file.path.display().to_string(), "entries": file.bridge_entries}))
        .collect();
    Checked {
        bridge,
        specs: loaded.specs,
        errors,
        warnings,
        untrusted,
        searched: searched(args, &cwd, &sources, agent),
        held_back,
    }
}

/// What the kernel offers for sandboxes, for `check --format json`.
fn support_json() -> Value {
    let support = hook_sandbox::support();
    let socket_filter = hook_sandbox::socket_filter();
    json!({
        "landlock_abi": support.abi,
        "kernel_abi": support.kernel_abi,
        "socket_filter": socket_filter.is_ok(),
        "socket_filter_unavailable": socket_filter.err(),
        "text": support_text(),
    })
}

/// `Landlock ABI 7; socket filter (seccomp) available`, or why one of them is not.
fn support_text() -> String {
    let filter = match hook_sandbox::socket_filter() {
        Ok(()) => "socket filter (seccomp) available".to_owned(),
        Err(why) => format!("socket filter (seccomp) unavailable: {why}"),
    };
    format!("{}; {filter}", hook_sandbox::support().describe())
}

/// Every place configuration is looked for, whether it exists, and at which level; for
/// `hookwire hook <agent>` (`agent`), from the project directory the agent names, without the
/// agent's own settings files.
fn searched(
    args: &ConfigArgs,
    cwd: &std::path::Path,
    sources: &[config::ConfigSource],
    agent: Option<hook_protocol::Agent>,
) -> Vec<Value> {
    use hook_host::discover::{HOOK_FILES, RULES_FILES};
    const AGENT_FILES: [&str; 4] =
        [".claude/settings.json", ".claude/settings.local.json", ".gemini/settings.json", ".codex/hooks.json"];
    use hook_protocol::Agent;
    let mut places: Vec<(std::path::PathBuf, &str)> = Vec::new();
    // The default places the agent runs itself (left out with `--agent`, as the bridge does).
    let mut left_to_agent: Vec<std::path::PathBuf> = Vec::new();
    if !args.no_default_config {
        if let Some(dir) = hook_host::Locations::from_env().managed_dir {
            places.extend(HOOK_FILES.iter().chain(&RULES_FILES).map(|f| (dir.join(f), "managed")));
        }
        if let Some(dir) = discover::user_config_dir() {
            places.extend(HOOK_FILES.iter().chain(&RULES_FILES).map(|f| (dir.join(f), "user")));
        }
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(std::path::PathBuf::from) {
            let jdata = home.join(".jdata").join("agent");
            places.extend(HOOK_FILES.iter().map(|f| (jdata.join(f), "user")));
            places.extend(AGENT_FILES.iter().map(|f| (home.join(f), "user")));
            left_to_agent.extend(agent.iter().flat_map(|agent| {
                let home = home.clone();
                AGENT_FILES.iter().filter(move |f| agent.owns_file(std::path::Path::new(f))).map(move |f| home.join(f))
            }));
            let copilot = hook_host::discover::copilot_home(&home);
            let mut copilot_user = copilot_places(&copilot.join("hooks"), "user");
            copilot_user.push((copilot.join("settings.json"), "user"));
            if agent == Some(Agent::Copilot) {
                left_to_agent.extend(copilot_user.iter().map(|(path, _)| path.clone()));
            }
            places.extend(copilot_user);
        }
        let start = agent.map_or_else(|| cwd.to_path_buf(), |agent| crate::hook::discovery_start(agent, cwd));
        let roots = discover::project_roots(&start);
        for root in &roots {
            places.extend(HOOK_FILES.iter().chain(&RULES_FILES).map(|f| (root.join(".hookwire").join(f), "project")));
            places.extend(HOOK_FILES.iter().map(|f| (root.join(".jcli").join(f), "project")));
            let mut agent_places: Vec<_> = AGENT_FILES.iter().map(|f| (root.join(f), "project")).collect();
            agent_places.extend(copilot_places(&root.join(hook_host::discover::COPILOT_PROJECT_DIR), "project"));
            agent_places
                .extend(hook_host::discover::COPILOT_PROJECT_SETTINGS.iter().map(|f| (root.join(f), "project")));
            if let Some(agent) = agent {
                left_to_agent.extend(
                    agent_places
                        .iter()
                        .filter(|(path, _)| {
                            path.strip_prefix(root).is_ok_and(|relative| {
                                agent.runs_project_file(relative)
                                    || (agent == Agent::Copilot
                                        && relative == std::path::Path::new(hook_host::discover::COPILOT_PROJECT_DIR))
                            })
                        })
                        .map(|(path, _)| path.clone()),
                );
            }
            places.extend(agent_places);
        }
        if roots.is_empty() {
            places.push((cwd.join(".hookwire"), "project (no project directory found from here upward)"));
        }
    }
    for path in &args.configs {
        places.push((if path.is_absolute() { path.clone() } else { cwd.join(path) }, "--config"));
    }
    places
        .into_iter()
        .filter(|(path, level)| *level == "--config" || !left_to_agent.contains(path))
        .map(|(path, level)| {
            let is_loaded = sources.iter().any(|s| s.path == path);
            json!({"path": path.display().to_string(), "level": level, "exists": path.exists(), "loaded": is_loaded})
        })
        .collect()
}

/// Copilot CLI's hook files in `dir` (each `*.json`), or the directory itself when it has none.
fn copilot_places<'a>(dir: &std::path::Path, level: &'a str) -> Vec<(std::path::PathBuf, &'a str)> {
    let files: Vec<_> = hook_host::discover::copilot_sources(dir, hook_core::Level::User)
        .into_iter()
        .map(|source| (source.path, level))
        .collect();
    if files.is_empty() { vec![(dir.to_path_buf(), level)] } else { files }
}

pub(crate) fn run(args: &ConfigArgs, format: Format, agent: Option<hook_protocol::Agent>) -> u8 {
    let checked = load(args, agent);
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
                "held_back": checked.held_back,
                "bridge_entries": checked.bridge,
                "errors": checked.errors,
                "searched": checked.searched,
            });
            // Only with a sandboxed hook: what the kernel offers differs from machine to machine.
            let mut out = out;
            let (rules_files, packs) = rules_listing(&checked.specs, &checked.errors);
            out["rules_files"] = json!(rules_files);
            out["packs"] = json!(packs);
            if checked.specs.iter().any(|spec| sandbox_of(spec).is_some()) {
                out["sandbox_support"] = support_json();
            }
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
                    let mut notes: String = ["unsupported", "never_fired"]
                        .iter()
                        .filter_map(|key| hook[*key].as_str().map(|note| format!("\n       note: {note}")))
                        .collect();
                    if let Some(policy) = hook["sandbox"]["policy"].as_str() {
                        notes.push_str(&format!("\n       sandbox: {}", terminal::safe(policy)));
                    }
                    outln!(
                        "  {}. {}  kind={} filter={} timeout={} retry={} on_error={}{}  ({}){notes}",
                        idx + 1,
                        terminal::safe(hook["id"].as_str().unwrap_or_default()),
                        hook["kind"].as_str().unwrap_or_default(),
                        terminal::safe(hook["filter"].as_str().unwrap_or_default()),
                        fmt_duration(std::time::Duration::from_millis(hook["timeout_ms"].as_u64().unwrap_or(0))),
                        hook["retry"],
                        hook["on_error"].as_str().unwrap_or_default(),
                        if hook["enabled"] == Value::Bool(false) { " disabled" } else { "" },
                        hook["source"].as_str().unwrap_or_default(),
                    );
                }
            }
            if checked.specs.iter().any(|spec| sandbox_of(spec).is_some()) {
                outln!("sandbox: {}", support_text());
            }
            print_rules_listing(&checked.specs, &checked.errors);
            for warning in &checked.warnings {
                outln!("warning: {}", terminal::safe(&text_of(warning)));
            }
            for untrusted in &checked.untrusted {
                outln!("untrusted: {}", terminal::safe(&text_of(untrusted)));
            }
            for file in &checked.bridge {
                outln!(
                    "bridge: {} calls `hookwire hook` on {} events (hookwire's own entries, not hooks it runs)",
                    terminal::safe(file["file"].as_str().unwrap_or_default()),
                    file["entries"]
                );
            }
            if let (Some(agent), Some(note)) = (agent, &checked.held_back) {
                let what = if agent == hook_protocol::Agent::Claude { "asks you before" } else { "denies" };
                outln!(
                    "held back: while this holds, `hookwire hook {agent}` {what} every tool call and tells you once per session: {}",
                    terminal::safe(note)
                );
            }
            for error in &checked.errors {
                outln!("error: {}", terminal::safe(&text_of(error)));
            }
        }
    }
    if is_valid { 0 } else { 2 }
}

// ---------------------------------------------------------------------------------------------
// What `check` reports beyond what loading finds.
//
// Warnings (the hooks load and run, but probably not as meant):
// - an llm prompt's `{{name}}` that is not one of `hook_llm::PLACEHOLDERS`: it reaches the model
//   as written;
// - a script a hook runs that is missing or lacks the exec bit: the first word of a bash hook's
//   command, of a process hook's `command` and of an agent `command` handler when it is a path
//   (holds a `/`), and for project hooks every project file the command would run that does not
//   exist (`hook_trust::files_run`, which also reads `python3 tools/x.py`);
// - a hookwire-dialect hook (j-cli `bash` / `llm`, PicoClaw process) on `approve_tool` whose
//   `on_error` is `skip`: a failure or a timeout then approves the call. `stop` and `deny`
//   deny on an approval (fail closed), so only `skip` is reported. Agent handlers (Claude
//   Code, Gemini CLI, Codex) keep their agent's own semantics (a failing PreToolUse command
//   lets the call through unless it says otherwise) and are not reported, nor are
//   `pre_tool_execution` hooks, which fail open by design (most rewrite or observe).
//
// Errors (every error of every file comes from loading, which reports them all in one pass):
// - a duration written as a string (`timeout: "5s"`) says that `timeout` is a number of seconds.
// ---------------------------------------------------------------------------------------------

/// Warnings about hooks that load but probably do not do what was meant.
fn lint(specs: &[HookSpec], cwd: &Path) -> Vec<ConfigWarning> {
    let mut warnings = Vec::new();
    for spec in specs {
        let mut warn = |message: String| {
            warnings.push(ConfigWarning {
                file: spec.source.file.clone(),
                line: spec.source.line,
                column: spec.source.line.and(spec.source.column),
                hook: Some(spec.name.clone()),
                message,
            });
        };
        if let HookDefinition::Command(def) = &spec.definition
            && def.kind == HookKind::Llm
            && let Some(prompt) = &def.prompt
        {
            for name in unknown_placeholders(prompt) {
                warn(format!(
                    "the prompt's `{{{{{name}}}}}` is not a placeholder hookwire fills: the model sees it as written; use one of {}",
                    hook_llm::PLACEHOLDERS.iter().map(|p| format!("{{{{{p}}}}}")).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        for message in script_problems(spec, cwd) {
            warn(message);
        }
        let is_hookwire_dialect = matches!(spec.definition, HookDefinition::Command(_) | HookDefinition::Process(_));
        if is_hookwire_dialect
            && spec.events.contains(&Event::ApproveTool)
            && spec.effective_on_error(Event::ApproveTool) == OnError::Skip
        {
            warn(
                "guards `approve_tool` with `on_error: skip`: when it fails or times out the tool call is approved; use `on_error: deny` (the default) so a failure refuses the call"
                    .to_owned(),
            );
        }
    }
    warnings
}

/// The names of the `{{...}}` in `prompt` that the template does not fill, each once.
fn unknown_placeholders(prompt: &str) -> Vec<String> {
    let mut unknown: Vec<String> = Vec::new();
    let mut rest = prompt;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        let name = &after[..end];
        // Text with braces that is no placeholder at all (JSON in a prompt) is left alone.
        let is_placeholder_like = !name.trim().is_empty()
            && name.len() <= 64
            && name.trim().chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-');
        if is_placeholder_like && !hook_llm::PLACEHOLDERS.contains(&name) && !unknown.iter().any(|n| n == name) {
            unknown.push(name.to_owned());
        }
        rest = &after[end + 2..];
    }
    unknown
}

/// The program a command line starts with, when it is a path (holds a `/`) hookwire can read
/// without running anything: after `VAR=value` words, quotes removed; `None` for a program
/// found on `PATH`, or one built from a variable, `~` or a substitution.
fn program_path(command: &str) -> Option<String> {
    let word = command.split_whitespace().find(|word| {
        let is_assignment = word
            .split_once('=')
            .is_some_and(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        !is_assignment
    })?;
    let word = word.trim_matches(|c| c == '"' || c == '\'');
    let is_plain = !word.is_empty() && !word.contains(['$', '`', '~', '*', '?', '(', ';', '|', '&', '<', '>']);
    (is_plain && word.contains('/')).then(|| word.to_owned())
}

/// What is wrong with the scripts `spec` runs: missing, or not executable.
fn script_problems(spec: &HookSpec, cwd: &Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let program = match &spec.definition {
        HookDefinition::Command(def) if def.kind == HookKind::Bash => def.command.as_deref().and_then(program_path),
        HookDefinition::Process(def) => def.command.first().filter(|p| p.contains('/')).cloned(),
        HookDefinition::Agent(def) if def.handler.kind == "command" => {
            def.handler.command.as_deref().and_then(program_path)
        }
        _ => None,
    };
    let base = spec.work_dir.clone().unwrap_or_else(|| cwd.to_owned());
    let mut problems = Vec::new();
    let mut reported: Vec<PathBuf> = Vec::new();
    if let Some(program) = program {
        let path = base.join(&program);
        match std::fs::metadata(&path) {
            Err(_) => {
                problems.push(format!("runs `{program}`, which does not exist ({})", path.display()));
                reported.push(path);
            }
            Ok(metadata) if metadata.is_file() && metadata.permissions().mode() & 0o111 == 0 => {
                problems.push(format!("runs `{program}`, which is not executable: `chmod +x {}`", path.display()));
            }
            Ok(_) => {}
        }
    }
    if spec.level == Level::Project {
        let root = hook_trust::project_root(&spec.source.file);
        for absent in hook_trust::files_run(spec, &root).absent {
            let is_reported =
                reported.iter().any(|p| p == &absent || p.ends_with(absent.strip_prefix(&root).unwrap_or(&absent)));
            if !is_reported {
                problems.push(format!("runs `{}`, which does not exist", absent.display()));
            }
        }
    }
    problems
}

/// Rewrites the message of an error at a `timeout:` written as a string (`"5s"`, `5s`,
/// `"500ms"`): `timeout` is a number of seconds.
fn seconds_hint(error: &mut Value) {
    let (Some(file), Some(line)) = (error["file"].as_str(), error["line"].as_u64()) else { return };
    let Ok(text) = std::fs::read_to_string(file) else { return };
    let Some(line_text) = text.lines().nth(line.saturating_sub(1) as usize) else { return };
    let written = line_text.trim().trim_start_matches("- ").trim_start();
    let value = ["timeout:", "\"timeout\":"].iter().find_map(|key| written.strip_prefix(key));
    let Some(value) = value.map(|v| v.trim().trim_end_matches(',').trim()) else { return };
    if value.is_empty() || value.parse::<f64>().is_ok() {
        return;
    }
    let bare = value.trim_matches(|c| c == '"' || c == '\'').trim();
    let seconds = if let Some(ms) = bare.strip_suffix("ms").and_then(|n| n.trim().parse::<f64>().ok()) {
        Some(ms / 1000.0)
    } else if let Some(s) = bare.strip_suffix('s').and_then(|n| n.trim().parse::<f64>().ok()) {
        Some(s)
    } else if let Some(m) = bare.strip_suffix('m').and_then(|n| n.trim().parse::<f64>().ok()) {
        Some(m * 60.0)
    } else {
        bare.parse::<f64>().ok()
    };
    let fix = match seconds {
        Some(seconds) => format!("write `timeout: {seconds}`"),
        None => "write a number, e.g. `timeout: 5`".to_owned(),
    };
    let message = format!("`timeout` is a number of seconds, not the string {value}: {fix}");
    let old = error["message"].as_str().unwrap_or_default().to_owned();
    let text = error["text"].as_str().unwrap_or_default();
    let new_text = match text.strip_suffix(old.as_str()) {
        Some(head) if !old.is_empty() => format!("{head}{message}"),
        _ => text.to_owned(),
    };
    error["message"] = json!(message);
    error["text"] = json!(new_text);
}

// ---------------------------------------------------------------------------------------------
// Rules files: each with its level, its rule count, the packs it enables and its mode, and the
// refused ones (an error refuses the whole file; the bridge then fails closed on blocking
// events), so a person sees which guards are in force.
// ---------------------------------------------------------------------------------------------

/// The rules files loaded (and those refused) and the packs in use, as JSON.
fn rules_listing(specs: &[HookSpec], errors: &[Value]) -> (Vec<Value>, Vec<&'static str>) {
    use hook_protocol::rules::{Mode, PackName};
    let mut files = Vec::new();
    let mut in_use: Vec<PackName> = Vec::new();
    for spec in specs {
        let HookDefinition::Rules(file) = &spec.definition else { continue };
        let packs = hook_rules::packs::expand(&file.packs);
        let count = match hook_rules::RuleSet::compile(file) {
            Ok(set) => set.rules().len(),
            Err(_) => file.rules.len() + file.allow.len(),
        };
        for pack in &packs {
            if !in_use.contains(pack) {
                in_use.push(*pack);
            }
        }
        let shadow_rules = file.rules.iter().chain(&file.allow).filter(|r| r.mode == Some(Mode::Shadow)).count();
        files.push(json!({
            "path": spec.source.file.display().to_string(),
            "level": spec.level.as_str(),
            "hook": spec.name,
            "rules": count,
            "own_rules": file.rules.len(),
            "allow": file.allow.len(),
            "packs": file.packs.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
            "mode": if file.mode == Some(Mode::Shadow) { "shadow" } else { "enforce" },
            "shadow_rules": shadow_rules,
            "error": Value::Null,
        }));
    }
    let mut refused: Vec<String> = Vec::new();
    for error in errors {
        let Some(path) = error["file"].as_str() else { continue };
        if refused.iter().any(|p| p == path) || !is_rules_file(Path::new(path)) {
            continue;
        }
        refused.push(path.to_owned());
        files.push(json!({
            "path": path,
            "level": Value::Null,
            "rules": 0,
            "packs": [],
            "mode": Value::Null,
            "error": error["text"],
        }));
    }
    in_use.sort();
    (files, in_use.into_iter().map(PackName::as_str).collect())
}

/// Whether the file at `path` is a rules file (a top-level `rules:`, `packs:` or `allow:`),
/// read without validating it: a refused one must still be listed as one.
fn is_rules_file(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else { return false };
    const KEYS: [&str; 3] = hook_protocol::rules::RulesFile::KEYS;
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&text) {
        return map.keys().any(|key| KEYS.contains(&key.as_str()));
    }
    text.lines().any(|line| {
        KEYS.iter().any(|key| line.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with(':')))
    })
}

/// The text listing of [`rules_listing`].
fn print_rules_listing(specs: &[HookSpec], errors: &[Value]) {
    let (files, packs) = rules_listing(specs, errors);
    if files.is_empty() {
        return;
    }
    outln!("rules files:");
    for file in &files {
        let path = terminal::safe(file["path"].as_str().unwrap_or_default()).into_owned();
        if let Some(error) = file["error"].as_str() {
            outln!("  {path}  refused (fails closed on blocking events): {}", terminal::safe(error));
            continue;
        }
        let packs: Vec<&str> = file["packs"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        outln!(
            "  {path}  [{}]  {} rules  packs={}  mode={}",
            file["level"].as_str().unwrap_or_default(),
            file["rules"],
            if packs.is_empty() { "-".to_owned() } else { packs.join(",") },
            file["mode"].as_str().unwrap_or_default(),
        );
    }
    if !packs.is_empty() {
        outln!("packs in use: {}", packs.join(", "));
    }
}

/// A warning for each part of the managed configuration directory the current (non-root)
/// user can write: the managed level is not trust-gated because only root should be able to
/// change it, so a writable one is a policy anyone here can weaken.
fn managed_writable() -> Vec<Value> {
    use nix::unistd::{AccessFlags, access};
    use std::os::unix::fs::MetadataExt as _;
    let Some(dir) = hook_host::Locations::from_env().managed_dir else { return Vec::new() };
    // `/proc/self` belongs to the process's effective user; root may write anything.
    let is_root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if is_root || !dir.is_dir() {
        return Vec::new();
    }
    let mut paths = vec![dir.clone()];
    paths.extend(["hooks.yaml", "hooks.yml", "hooks.json", "hooks"].iter().map(|f| dir.join(f)).filter(|p| p.exists()));
    paths
        .into_iter()
        .filter(|path| access(path.as_path(), AccessFlags::W_OK).is_ok())
        .map(|path| {
            let message = format!(
                "the managed configuration {} is writable by this user: anyone who can write it can change the machine's policy, which no trust check guards; make it root-owned and not writable by others (`sudo chown -R root: {} && sudo chmod -R go-w {}`)",
                path.display(),
                dir.display(),
                dir.display()
            );
            let text = format!("{}: {message}", path.display());
            diagnostic(Some(&path), None, None, None, &message, text)
        })
        .collect()
}
