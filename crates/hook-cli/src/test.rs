//! `hookwire test [PATH]...`: runs `*.hooktest.yaml` files — hook inputs in an agent's own terms
//! and the answer that agent should get — through the same engine and answer path as the bridge
//! (`hookwire hook <agent>`), with the agent's own settings files' hooks too, so a passing case
//! means the agent, with hookwire installed, decides that.
//!
//! A test run trusts the project the way `cargo test` trusts the code it builds: the project's
//! hooks run without a trust check (a fresh CI clone has no trust record) and no trust is
//! recorded. Command and process hooks run for real, in the project directory.

use std::{
    collections::BTreeSet,
    future::Future,
    path::{Path, PathBuf},
    pin::Pin,
    task::Poll,
};

use clap::{Args, ValueEnum};
use hook_config::ConfigSource;
use hook_core::{Engine, FireOutcome, HookDefinition, HookId, HookSpec, Level};
use hook_host::{Locations, TrustPolicy};
use hook_protocol::{
    Agent, Event,
    hooktest::{ExpectedDecision, HookTestAgent, HookTestCase, HookTestExpect, HookTestFile, TextMatch},
    serde_json::{self, Map, Value, json},
};

use crate::{discover, engine, hook};

/// The line every report starts with: a test run does not ask for trust.
const TRUST_NOTE: &str = "hookwire test: the project's hooks run without a trust check (as `cargo test` runs a \
                          project's code); no trust is recorded";

/// How `hookwire test` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TestFormat {
    /// A line per case, details for failures.
    Text,
    /// One JSON object.
    Json,
    /// JUnit XML, as CI systems read it.
    Junit,
}

#[derive(Debug, Args)]
pub(crate) struct TestArgs {
    /// Test files, or directories searched for `*.hooktest.yaml` (default: `.hookwire/` and
    /// `hooktests/` of the project).
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TestFormat::Text)]
    format: TestFormat,
    /// Run only the cases whose name contains this text.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// List every configured hook that no case ran.
    #[arg(long)]
    coverage: bool,
    /// Fail (exit 1) when a configured hook is left that no case ran; implies `--coverage`.
    #[arg(long)]
    require_coverage: bool,
    /// Write each case's `expect` from what the hooks answer now (the rest of the file, comments
    /// included, stays as written).
    #[arg(long)]
    update: bool,
    /// Run up to N cases of a file at once (default: the number of CPUs). The report keeps the
    /// file and case order whatever N is.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
}

/// Why a test file cannot run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LoadError {
    /// The file cannot be read.
    #[error("{file}: cannot read it: {source}")]
    Read {
        /// The test file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file does not parse (with its line and column when known).
    #[error("{file}:{error}")]
    Parse {
        /// The test file.
        file: String,
        /// The parser's error.
        error: hook_config::ParseError,
    },
    /// `--update` cannot edit the file.
    #[error("{file}: {error}")]
    Update {
        /// The test file.
        file: String,
        /// Why.
        error: crate::test_update::UpdateError,
    },
    /// `--update` cannot write the file.
    #[error("{file}: cannot write it: {source}")]
    Write {
        /// The test file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The configuration the file names does not load, or its hooks cannot start.
    #[error("{file}: the configuration does not load: {message}")]
    Config {
        /// The test file.
        file: String,
        /// Every error, joined.
        message: String,
    },
}

/// What the agent read from an answer.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub(crate) struct Got {
    /// `allow`, `deny`, `ask`, `defer`, `block`, `stop`; `None`: nothing decided.
    pub(crate) decision: Option<&'static str>,
    /// The reason given with the decision.
    pub(crate) reason: Option<String>,
    /// The additional context for the model.
    pub(crate) context: Option<String>,
    /// The rewritten tool input.
    pub(crate) updated_input: Option<Value>,
    exit_code: i32,
    stderr: String,
}

/// One hook's part in a case, as reports show it.
#[derive(Debug, Clone, serde::Serialize)]
struct TraceLine {
    hook: String,
    outcome: &'static str,
    source: Option<String>,
    detail: Option<String>,
}

/// The result of one case.
#[derive(Debug)]
struct CaseResult {
    /// The case's place in its file.
    index: usize,
    /// The event fired; `None` when the input could not be read.
    event: Option<Event>,
    name: String,
    file: String,
    expected: Option<HookTestExpect>,
    got: Got,
    failures: Vec<String>,
    trace: Vec<TraceLine>,
}

/// Test files under `dir`, sorted.
fn find_test_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if path.is_dir() {
            if !name.starts_with('.') || name == ".hookwire" {
                find_test_files(&path, out);
            }
        } else if name.ends_with(".hooktest.yaml") || name.ends_with(".hooktest.yml") {
            out.push(path);
        }
    }
}

/// The test files of `paths`, or of the project when none is given.
fn test_files(paths: &[PathBuf], cwd: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if paths.is_empty() {
        let root = discover::project_root(cwd).unwrap_or_else(|| cwd.to_path_buf());
        for dir in [".hookwire", "hooktests"] {
            find_test_files(&root.join(dir), &mut files);
        }
    }
    for path in paths {
        let path = hook::absolute(path, cwd);
        if path.is_dir() {
            find_test_files(&path, &mut files);
        } else {
            files.push(path);
        }
    }
    files
}

/// A path for messages: relative to `cwd` when under it.
fn shown(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}

/// The events of a test file in hookwire's terms, read a second time as [`Event`]s: an event
/// name hookwire does not know is then a load error at its line and column, not a case that
/// fails at run time.
#[derive(serde::Deserialize)]
struct HookwireEvents {
    #[serde(rename = "cases")]
    _cases: Vec<HookwireEvent>,
}

/// One case's event (its other members are read with the file).
#[derive(serde::Deserialize)]
struct HookwireEvent {
    #[serde(rename = "event")]
    _event: Event,
}

fn parse_file(path: &Path, name: &str) -> Result<HookTestFile, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read { file: name.to_owned(), source })?;
    let parse_error = |error| LoadError::Parse { file: name.to_owned(), error };
    let test = hook_config::parse_yaml::<HookTestFile>(&text).map_err(parse_error)?;
    if test.agent == HookTestAgent::Hookwire {
        hook_config::parse_yaml::<HookwireEvents>(&text).map_err(parse_error)?;
    }
    Ok(test)
}

/// The project a test file belongs to: the nearest project root above it; else the directory
/// holding its `hooktests/` (or `.hookwire/`) directory; else its own directory.
fn project_of(file: &Path) -> PathBuf {
    let dir = file.parent().unwrap_or(Path::new("."));
    discover::project_root(dir).unwrap_or_else(|| {
        let is_test_dir = dir.file_name().is_some_and(|name| name == "hooktests" || name == ".hookwire");
        match dir.parent() {
            Some(parent) if is_test_dir => parent.to_path_buf(),
            _ => dir.to_path_buf(),
        }
    })
}

/// The sources a test file decides with: the files it names (relative to the project; a
/// directory is a hook directory), else
/// everything that decides for its agent here — the agent's own settings files included, which
/// the bridge leaves to the agent.
fn sources_of(test: &HookTestFile, project: &Path) -> Result<Vec<ConfigSource>, String> {
    match &test.config {
        Some(paths) => paths
            .iter()
            .map(|path| {
                let path = hook::absolute(Path::new(path), project);
                if !path.exists() {
                    return Err(format!("config {}: no such file or directory", path.display()));
                }
                Ok(ConfigSource::new(path, Level::Project))
            })
            .collect(),
        None => Ok(Locations::from_env().discover(&[], false, project, None)),
    }
}

/// Loads and mounts the configuration of `test`, trusted.
async fn start(test: &HookTestFile, project: &Path, name: &str) -> Result<(Engine, Vec<HookSpec>), LoadError> {
    let config_error = |message: String| LoadError::Config { file: name.to_owned(), message };
    let sources = sources_of(test, project).map_err(config_error)?;
    let loaded = hook_host::load_sources(&sources, &TrustPolicy::Trusted);
    if !loaded.errors.is_empty() {
        return Err(config_error(loaded.errors.join("; ")));
    }
    let engine = engine::engine_for(engine::lazy_model(None, None), Some(project.to_path_buf()));
    let specs = loaded.specs.clone();
    let errors = engine::mount(&engine, loaded.specs).await;
    if !errors.is_empty() {
        engine.shutdown().await;
        return Err(config_error(format!("cannot start the hooks: {}", errors.join("; "))));
    }
    Ok((engine, specs))
}

/// The hook input of `case`: its `input`, with the common members filled in when omitted.
fn input_of(agent: Agent, case: &HookTestCase, project: &Path, transcript: &Path) -> Value {
    let mut input = case.input.clone();
    let mut fill = |key: &str, value: Value| {
        input.entry(key.to_owned()).or_insert(value);
    };
    fill("hook_event_name", case.event.clone().into());
    if agent == Agent::Copilot && !case.event.starts_with(|c: char| c.is_ascii_uppercase()) {
        // Copilot's camelCase input (the event name above is what `--event` tells the bridge).
        fill("sessionId", "hookwire-test".into());
        fill("cwd", project.display().to_string().into());
        fill("timestamp", 0.into());
        return Value::Object(input);
    }
    fill("session_id", "hookwire-test".into());
    fill("cwd", project.display().to_string().into());
    fill("transcript_path", transcript.display().to_string().into());
    Value::Object(input)
}

/// The text of `value` when it is a string.
fn text_of(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).map(str::to_owned)
}

/// What `agent` reads from the bridge's answer on `event`: the decision, its reason, the
/// context for the model, the rewritten tool input.
pub(crate) fn read_answer(event: Event, answer: &hook_agents::BridgeAnswer) -> Got {
    let mut got = Got { exit_code: answer.exit_code, stderr: answer.stderr.clone(), ..Got::default() };
    if answer.exit_code == 2 {
        got.decision = Some(if event == Event::PreToolExecution { "deny" } else { "block" });
        got.reason = Some(answer.stderr.trim().to_owned());
        return got;
    }
    let Ok(Value::Object(top)) = serde_json::from_str::<Value>(answer.stdout.trim()) else { return got };
    let mut specific = top.get("hookSpecificOutput").and_then(Value::as_object).cloned().unwrap_or_default();
    let word = |text: &str| -> Option<&'static str> {
        ["allow", "deny", "ask", "defer", "block", "continue", "stop"].into_iter().find(|w| *w == text)
    };
    // Copilot CLI's answer is top-level: read it as the others' `hookSpecificOutput`.
    for (key, as_key) in [
        ("permissionDecision", "permissionDecision"),
        ("permissionDecisionReason", "permissionDecisionReason"),
        ("additionalContext", "additionalContext"),
        ("modifiedArgs", "updatedInput"),
    ] {
        if let Some(value) = top.get(key) {
            specific.insert(as_key.into(), value.clone());
        }
    }
    if let Some(behavior) = top.get("behavior") {
        let message = top.get("message").cloned().unwrap_or_default();
        specific.insert("decision".into(), serde_json::json!({"behavior": behavior, "message": message}));
    }
    if let Some(decision) = specific.get("permissionDecision").and_then(Value::as_str) {
        got.decision = word(decision);
        got.reason = text_of(specific.get("permissionDecisionReason"));
    } else if let Some(verdict) = specific.get("decision").and_then(Value::as_object) {
        got.decision = verdict.get("behavior").and_then(Value::as_str).and_then(word);
        got.reason = text_of(verdict.get("message"));
        got.updated_input = verdict.get("updatedInput").cloned();
    } else if let Some(decision) = top.get("decision").and_then(Value::as_str) {
        got.decision = word(decision).or(if decision == "approve" { Some("allow") } else { None });
        got.reason = text_of(top.get("reason"));
    }
    if top.get("continue") == Some(&Value::Bool(false)) {
        got.decision = Some("stop");
        got.reason = text_of(top.get("stopReason")).or(got.reason);
    }
    got.context = text_of(specific.get("additionalContext"));
    if let Some(input) = specific.get("updatedInput").or_else(|| specific.get("tool_input")) {
        got.updated_input = Some(input.clone());
    }
    got
}

fn text_matches(want: &TextMatch, got: Option<&str>) -> Result<bool, String> {
    let got = got.unwrap_or_default();
    Ok(match want {
        TextMatch::Contains(text) => got.contains(text.as_str()),
        TextMatch::Equals(text) => got == text,
        TextMatch::Matches(pattern) => regex::Regex::new(pattern)
            .map_err(|e| format!("`matches: {pattern}` is not a regular expression: {e}"))?
            .is_match(got),
    })
}

fn describe_text(want: &TextMatch) -> String {
    match want {
        TextMatch::Contains(text) => format!("contains {text:?}"),
        TextMatch::Equals(text) => format!("equals {text:?}"),
        TextMatch::Matches(text) => format!("matches /{text}/"),
    }
}

/// The event and context of a case written in hookwire's own terms: `event` a canonical name or
/// alias, `input` HookContext fields as `hookwire fire --context` reads them (`tool_arguments`
/// may also be written as an object: it is the tool's arguments as JSON text), `cwd` the
/// project's when omitted.
fn hookwire_context(case: &HookTestCase, project: &Path) -> Result<(Event, hook_protocol::Context), String> {
    let event: Event = case.event.parse().map_err(|e| format!("{e}"))?;
    let known = |name: &str| {
        hook_protocol::Context::REPLACEABLE.contains(&name) || hook_protocol::Context::NOT_REPLACEABLE.contains(&name)
    };
    // A field the context does not have would be dropped silently, and the case would test
    // a context without it.
    if let Some(name) = case.input.keys().find(|name| !known(name) || name.as_str() == "tool") {
        return Err(format!(
            "`{name}` is not a hookwire context field (write `tool_name`, `tool_arguments`, `user_input`, ...; \
             `tool` is derived from `tool_name` and `tool_arguments`)"
        ));
    }
    let mut object = case.input.clone();
    if let Some(arguments) = object.get_mut("tool_arguments")
        && !arguments.is_string()
        && !arguments.is_null()
    {
        *arguments = Value::String(arguments.to_string());
    }
    object.entry("cwd").or_insert_with(|| project.display().to_string().into());
    let context: hook_protocol::Context = hook_protocol::from_json_value(Value::Object(object))
        .map_err(|e| format!("the input does not fit HookContext: {e}"))?;
    Ok((event, context))
}

/// What a case in hookwire's terms reads from the engine's outcome, in the words the agents'
/// expectations use: a refused call (`deny_tool`, `skip`, `respond`, `stop` on a tool event,
/// `denied` approval) is `deny`; the same on another event is `block`; `abort_turn` and
/// `hard_abort` are `stop`; otherwise the permission a hook gave (`allow`, `ask`, `defer`),
/// or nothing decided.
fn read_outcome(outcome: &FireOutcome, context: &hook_protocol::Context) -> Got {
    use hook_core::{Decision, Field, Permission};
    let mut got = Got::default();
    let is_tool_call = matches!(outcome.event, Event::PreToolExecution | Event::ApproveTool);
    let reason = outcome.reason.clone().filter(|r| !r.is_empty());
    match outcome.decision {
        Decision::AbortTurn | Decision::HardAbort => {
            got.decision = Some("stop");
            got.reason = reason;
        }
        Decision::Stop | Decision::Skip | Decision::DenyTool | Decision::Respond | Decision::Denied => {
            got.decision = Some(if is_tool_call || outcome.decision == Decision::Denied { "deny" } else { "block" });
            got.reason = reason.or_else(|| outcome.respond.as_ref().map(|result| result.for_llm.clone()));
        }
        // Continue, Approved (and any decision added later) decide nothing of their own.
        _ => match outcome.permission {
            Some(Permission::Allow) => got.decision = Some("allow"),
            Some(Permission::Ask) => {
                got.decision = Some("ask");
                got.reason = outcome.permission_reason.clone();
            }
            Some(Permission::Defer) => got.decision = Some("defer"),
            Some(_) => {}
            None if outcome.effects.retry_feedback.is_some() && outcome.event == Event::Stop => {
                // A Stop hook's feedback keeps the agent going: the stop is blocked.
                got.decision = Some("block");
                got.reason = outcome.effects.retry_feedback.clone();
            }
            None => {}
        },
    }
    if !outcome.effects.additional_context.is_empty() {
        got.context = Some(outcome.effects.additional_context.join("\n"));
    }
    if outcome.changed.contains(&Field::ToolArguments) {
        got.updated_input = context.tool_arguments_value();
    }
    got
}

/// Whether the agent's `got` decision is the expected one. `allow` also matches an answer that
/// decides nothing (the agent goes on); `continue` is exactly that.
fn decision_matches(want: ExpectedDecision, got: Option<&str>) -> bool {
    match want {
        ExpectedDecision::Allow => got.is_none() || got == Some("allow"),
        ExpectedDecision::Continue => got.is_none() || got == Some("continue"),
        other => got == Some(other.as_str()),
    }
}

/// Every way `got` differs from `expect`, one line each.
fn compare(expect: &HookTestExpect, got: &Got) -> Vec<String> {
    let mut failures = Vec::new();
    if let Some(want) = expect.decision
        && !decision_matches(want, got.decision)
    {
        failures.push(format!(
            "decision: expected {}, got {}",
            want.as_str(),
            got.decision.unwrap_or("no decision (the agent goes on)")
        ));
    }
    for (what, want, text) in [("reason", &expect.reason, &got.reason), ("context", &expect.context, &got.context)] {
        let Some(want) = want else { continue };
        match text_matches(want, text.as_deref()) {
            Ok(true) => {}
            Ok(false) => failures.push(format!(
                "{what}: expected text that {}, got {}",
                describe_text(want),
                text.as_deref().map_or_else(|| "none".to_owned(), |t| format!("{t:?}"))
            )),
            Err(e) => failures.push(format!("{what}: {e}")),
        }
    }
    if let Some(want) = &expect.updated_input
        && got.updated_input.as_ref() != Some(want)
    {
        failures.push(format!(
            "updated_input: expected {want}, got {}",
            got.updated_input.as_ref().map_or_else(|| "none (the input is not rewritten)".to_owned(), Value::to_string)
        ));
    }
    failures
}

/// The spec of a trace entry's hook id on `event`.
fn spec_of<'a>(specs: &'a [HookSpec], id: &HookId, event: Event) -> Option<&'a HookSpec> {
    specs.iter().find(|spec| HookId::new(spec.level, &spec.name, event) == *id)
}

fn trace_lines(outcome: &FireOutcome, specs: &[HookSpec]) -> Vec<TraceLine> {
    outcome
        .trace
        .iter()
        .map(|entry| TraceLine {
            hook: entry.id.to_string(),
            outcome: entry.outcome.as_str(),
            source: spec_of(specs, &entry.id, outcome.event).map(|spec| spec.source.to_string()),
            detail: entry
                .error
                .as_ref()
                .map(ToString::to_string)
                .or_else(|| entry.reason.clone())
                .or_else(|| entry.action.map(|a| format!("{}{}", a.as_str(), reason_suffix(outcome)))),
        })
        .collect()
}

fn reason_suffix(outcome: &FireOutcome) -> String {
    outcome.reason.as_deref().map_or_else(String::new, |r| format!(": {}", hook_core::tail_chars(r, 400)))
}

/// The key coverage records for `rule` (its `label()`, `pack/name` or `name`) of the rules file
/// of `spec`.
fn rule_key(spec: &HookSpec, rule: &str) -> String {
    format!("rule {}:{} {rule}", spec.level, spec.name)
}

/// The rules that decided or would have decided (shadow rules) on the call of `context`, in
/// each rules file whose hook ran in `outcome`, as [`rule_key`]s. A rules file runs as one hook,
/// so the trace names the file, not the rule: the file's verdict on the same input (the same
/// evaluation its hook made, `RulesHook::verdict`) says which of its rules matched.
fn rules_reached(specs: &[HookSpec], outcome: &FireOutcome, context: &hook_protocol::Context) -> Vec<String> {
    let mut reached = Vec::new();
    for spec in specs {
        let HookDefinition::Rules(file) = &spec.definition else { continue };
        let id = HookId::new(spec.level, &spec.name, outcome.event);
        if !outcome.trace.iter().any(|entry| entry.id == id && !entry.outcome.is_skip()) {
            continue;
        }
        let Ok(rules) = hook_rules::RuleSet::compile(file) else { continue };
        let verdict = hook_rules::RulesHook::new(spec.name.clone(), rules).verdict(outcome.event, context);
        reached.extend(verdict.hits.iter().chain(&verdict.shadowed).map(|hit| rule_key(spec, &hit.rule)));
    }
    reached
}

/// The rules of the rules files among `specs` (each pack rule in use as `pack/name`) that no
/// case reached: `(rule, id of its file's hook, source)`. `allow:` exceptions are left out:
/// they decide nothing of their own.
fn uncovered_rules(specs: &[HookSpec], ran: &BTreeSet<String>) -> Vec<(String, String, String)> {
    let mut left = Vec::new();
    for spec in specs.iter().filter(|spec| spec.enabled) {
        let HookDefinition::Rules(file) = &spec.definition else { continue };
        let Ok(rules) = hook_rules::RuleSet::compile(file) else { continue };
        let event = spec.events.first().copied().unwrap_or(Event::PreToolExecution);
        for rule in rules.rules() {
            let label = rule.label();
            if rule.decision != hook_protocol::rules::RuleDecision::Allow && !ran.contains(&rule_key(spec, &label)) {
                left.push((label, HookId::new(spec.level, &spec.name, event).to_string(), spec.source.to_string()));
            }
        }
    }
    left
}

/// The hooks `specs` that no trace of `ran` shows running: `(id of its first event, source)`.
fn uncovered(specs: &[HookSpec], ran: &BTreeSet<String>) -> Vec<(String, String)> {
    specs
        .iter()
        .filter(|spec| spec.enabled)
        .filter(|spec| {
            !spec.events.iter().any(|event| ran.contains(HookId::new(spec.level, &spec.name, *event).as_str()))
        })
        .map(|spec| {
            let event = spec.events.first().copied().unwrap_or(Event::PreToolExecution);
            (HookId::new(spec.level, &spec.name, event).to_string(), spec.source.to_string())
        })
        .collect()
}

/// A future run by [`run_bounded`].
type Job<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// One case running: its result and the ids of the hooks that ran in it.
type CaseFuture<'a> = Job<'a, (CaseResult, Vec<String>)>;

/// Runs one case through the bridge's path.
#[allow(clippy::too_many_arguments)] // the parts of one file's run, borrowed for one case
async fn run_case(
    engine: &Engine,
    test: &HookTestFile,
    case: &HookTestCase,
    index: usize,
    name: &str,
    project: &Path,
    transcript: &Path,
    specs: &[HookSpec],
) -> (CaseResult, Vec<String>) {
    let mut result = CaseResult {
        index,
        event: None,
        name: case.name.clone(),
        file: name.to_owned(),
        expected: case.expect.clone(),
        got: Got::default(),
        failures: Vec::new(),
        trace: Vec::new(),
    };
    let mut ran = Vec::new();
    let agent = match test.agent {
        HookTestAgent::Agent(agent) => agent,
        HookTestAgent::Hookwire => {
            match hookwire_context(case, project) {
                Err(e) => result.failures.push(format!("input: {e}")),
                Ok((event, mut context)) => {
                    let before = context.clone();
                    // As `hookwire fire` fires it: the engine's outcome, no agent's answer.
                    let outcome = engine.fire(event, &mut context).await;
                    ran.extend(
                        outcome.trace.iter().filter(|entry| !entry.outcome.is_skip()).map(|entry| entry.id.to_string()),
                    );
                    ran.extend(rules_reached(specs, &outcome, &before));
                    result.event = Some(event);
                    result.got = read_outcome(&outcome, &context);
                    result.trace = trace_lines(&outcome, specs);
                    if let Some(expect) = &case.expect {
                        result.failures = compare(expect, &result.got);
                    }
                }
            }
            return (result, ran);
        }
    };
    match hook_agents::context_from_input(agent, input_of(agent, case, project, transcript)) {
        Err(e) => result.failures.push(format!("input: {e}")),
        Ok((event, context)) => {
            let before = context.clone();
            let (answer, outcome) = hook::fire_bridge_traced(engine, agent, event, context, project).await;
            ran.extend(outcome.trace.iter().filter(|entry| !entry.outcome.is_skip()).map(|entry| entry.id.to_string()));
            ran.extend(rules_reached(specs, &outcome, &before));
            result.event = Some(event);
            result.got = read_answer(event, &answer);
            result.trace = trace_lines(&outcome, specs);
            if let Some(expect) = &case.expect {
                result.failures = compare(expect, &result.got);
            }
        }
    }
    (result, ran)
}

/// Runs `futures` on this task, at most `jobs` at a time, and returns their outputs in the
/// order of `futures` whatever order they finish in. Polled together on one task (no spawn):
/// a case borrows the file's engine and specs, and what takes time in a case is waiting on a
/// hook's process or connection, which overlaps without threads.
async fn run_bounded<'a, T>(futures: Vec<Job<'a, T>>, jobs: usize) -> Vec<T> {
    let total = futures.len();
    let mut waiting = futures.into_iter().enumerate();
    let mut running: Vec<(usize, Job<'a, T>)> = Vec::new();
    let mut done: Vec<Option<T>> = (0..total).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        loop {
            while running.len() < jobs.max(1) {
                match waiting.next() {
                    Some(next) => running.push(next),
                    None => break,
                }
            }
            if running.is_empty() {
                return Poll::Ready(());
            }
            let before = running.len();
            let mut i = 0;
            while i < running.len() {
                if let Poll::Ready(output) = running[i].1.as_mut().poll(cx) {
                    let (index, _) = running.swap_remove(i);
                    done[index] = Some(output);
                } else {
                    i += 1;
                }
            }
            // Nothing finished: every running future has registered its waker. Otherwise
            // start the next ones.
            if running.len() == before {
                return Poll::Pending;
            }
        }
    })
    .await;
    done.into_iter().flatten().collect()
}

/// Runs one loaded test file; adds the ids of the hooks that ran to `ran`.
async fn run_file(
    test: &HookTestFile,
    path: &Path,
    name: &str,
    filter: Option<&str>,
    ran: &mut BTreeSet<String>,
    configured: &mut Vec<HookSpec>,
    jobs: usize,
) -> Result<Vec<CaseResult>, LoadError> {
    let project = project_of(path);
    let (engine, specs) = start(test, &project, name).await?;
    let transcript = std::env::temp_dir().join(format!("hookwire-test-{}.jsonl", std::process::id()));
    let _ = std::fs::write(&transcript, "");
    let cases = test
        .cases
        .iter()
        .enumerate()
        .filter(|(_, case)| filter.is_none_or(|text| case.name.contains(text)))
        .map(|(index, case)| -> CaseFuture<'_> {
            Box::pin(run_case(&engine, test, case, index, name, &project, &transcript, &specs))
        })
        .collect();
    let mut results = Vec::new();
    for (result, hooks_ran) in run_bounded(cases, jobs).await {
        ran.extend(hooks_ran);
        results.push(result);
    }
    engine::shutdown_one_shot(&engine).await;
    let _ = std::fs::remove_file(&transcript);
    for spec in specs {
        let known = configured.iter().any(|s| s.level == spec.level && s.name == spec.name && s.source == spec.source);
        if !known {
            configured.push(spec);
        }
    }
    Ok(results)
}

fn describe_expect(expect: Option<&HookTestExpect>) -> String {
    let Some(expect) = expect else { return "nothing (no `expect`)".to_owned() };
    let mut parts = Vec::new();
    if let Some(decision) = expect.decision {
        parts.push(format!("decision {}", decision.as_str()));
    }
    if let Some(reason) = &expect.reason {
        parts.push(format!("reason {}", describe_text(reason)));
    }
    if let Some(context) = &expect.context {
        parts.push(format!("context {}", describe_text(context)));
    }
    if let Some(input) = &expect.updated_input {
        parts.push(format!("updated_input {input}"));
    }
    if parts.is_empty() { "anything".to_owned() } else { parts.join(", ") }
}

fn describe_got(got: &Got) -> String {
    let mut parts = vec![format!("decision {}", got.decision.unwrap_or("none (the agent goes on)"))];
    if let Some(reason) = &got.reason {
        parts.push(format!("reason {reason:?}"));
    }
    if let Some(context) = &got.context {
        parts.push(format!("context {context:?}"));
    }
    if let Some(input) = &got.updated_input {
        parts.push(format!("updated_input {input}"));
    }
    parts.join(", ")
}

/// The failure text of one case: what differs, expected vs got, and the trace.
fn failure_text(result: &CaseResult) -> String {
    let mut text = String::new();
    for failure in &result.failures {
        text.push_str(&format!("{failure}\n"));
    }
    text.push_str(&format!("expected: {}\n", describe_expect(result.expected.as_ref())));
    text.push_str(&format!("got:      {}\n", describe_got(&result.got)));
    text.push_str("trace:\n");
    if result.trace.is_empty() {
        text.push_str("  (no hook is configured on this event)\n");
    }
    for line in &result.trace {
        text.push_str(&format!("  {} {}", line.hook, line.outcome));
        if let Some(source) = &line.source {
            text.push_str(&format!(" ({source})"));
        }
        if let Some(detail) = &line.detail {
            text.push_str(&format!(": {detail}"));
        }
        text.push('\n');
    }
    let stderr = result.got.stderr.trim();
    if !stderr.is_empty() {
        text.push_str(&format!("stderr: {}\n", hook_core::tail_chars(stderr, 1000)));
    }
    text
}

/// Text safe inside an XML attribute or element.
fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(c),
            // XML 1.0 has no way to write other control characters.
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn junit(results: &[CaseResult], failed: usize) -> String {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!("<testsuites name=\"hookwire test\" tests=\"{}\" failures=\"{failed}\">\n", results.len()));
    let mut files: Vec<&str> = results.iter().map(|r| r.file.as_str()).collect();
    files.dedup();
    for file in files {
        let cases: Vec<&CaseResult> = results.iter().filter(|r| r.file == file).collect();
        let failures = cases.iter().filter(|r| !r.failures.is_empty()).count();
        xml.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">\n",
            xml_escape(file),
            cases.len()
        ));
        for case in cases {
            let open = format!("    <testcase name=\"{}\" classname=\"{}\"", xml_escape(&case.name), xml_escape(file));
            if case.failures.is_empty() {
                xml.push_str(&format!("{open}/>\n"));
            } else {
                xml.push_str(&format!(
                    "{open}>\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                    xml_escape(&case.failures.join("; ")),
                    xml_escape(&failure_text(case))
                ));
            }
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn json_report(results: &[CaseResult], passed: usize, failed: usize, coverage: Option<&[(String, String)]>) -> Value {
    let cases: Vec<Value> = results
        .iter()
        .map(|r| {
            json!({
                "name": r.name,
                "file": r.file,
                "status": if r.failures.is_empty() { "passed" } else { "failed" },
                "failures": r.failures,
                "expected": r.expected,
                "got": r.got,
                "trace": r.trace,
            })
        })
        .collect();
    let mut report = Map::new();
    report.insert("passed".into(), passed.into());
    report.insert("failed".into(), failed.into());
    report.insert("cases".into(), cases.into());
    if let Some(left) = coverage {
        let left: Vec<Value> = left.iter().map(|(hook, source)| json!({"hook": hook, "source": source})).collect();
        report.insert("uncovered".into(), left.into());
    }
    Value::Object(report)
}

/// The `expect` `--update` writes for `result`; `None` when its input could not be read.
fn new_expect(result: &CaseResult) -> Option<crate::test_update::NewExpect> {
    let event = result.event?;
    let decision = result.got.decision.unwrap_or(match event {
        Event::PreToolExecution | Event::ApproveTool => "allow",
        _ => "continue",
    });
    Some(crate::test_update::NewExpect {
        decision,
        reason: result.got.reason.clone().filter(|r| !r.is_empty()),
        context: result.got.context.clone(),
        updated_input: result.got.updated_input.clone(),
    })
}

/// `--update`: writes the answers of `results` into the `expect` of each case that has none or
/// fails; the updated cases then pass.
fn update_file(
    path: &Path,
    name: &str,
    test: &HookTestFile,
    mut results: Vec<CaseResult>,
) -> Result<Vec<CaseResult>, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read { file: name.to_owned(), source })?;
    let mut updates = vec![None; test.cases.len()];
    for result in &results {
        // A case that passes keeps its expectation as written (a `contains` stays a `contains`).
        let passes = result.expected.is_some() && result.failures.is_empty();
        updates[result.index] = if passes { None } else { new_expect(result) };
    }
    let updated = crate::test_update::rewrite(&text, test.cases.len(), &updates)
        .map_err(|error| LoadError::Update { file: name.to_owned(), error })?;
    if updated != text {
        std::fs::write(path, updated).map_err(|source| LoadError::Write { file: name.to_owned(), source })?;
    }
    for result in &mut results {
        if result.event.is_some() {
            result.failures.clear();
        }
    }
    eprintln!("updated: {name}");
    Ok(results)
}

/// `hookwire test`.
pub(crate) async fn run(args: TestArgs) -> u8 {
    // A test case is not a decision an agent met: the decision store stays the agents' record.
    crate::record::switch_off();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let files = test_files(&args.paths, &cwd);
    let text = args.format == TestFormat::Text;
    if text {
        outln!("{TRUST_NOTE}");
    } else {
        eprintln!("{TRUST_NOTE}");
    }
    if files.is_empty() {
        eprintln!(
            "error: no test files: give a file or directory, or put `*.hooktest.yaml` files in the project's \
             `.hookwire/` or `hooktests/` (docs/testing.md)"
        );
        return 2;
    }
    let mut load_errors = Vec::new();
    let mut results = Vec::new();
    let mut ran = BTreeSet::new();
    let mut configured = Vec::new();
    let jobs = args.jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, usize::from), usize::from);
    for path in &files {
        let name = shown(path, &cwd);
        let loaded = match parse_file(path, &name) {
            Ok(test) => {
                match run_file(&test, path, &name, args.filter.as_deref(), &mut ran, &mut configured, jobs).await {
                    Ok(results) if args.update => update_file(path, &name, &test, results),
                    other => other,
                }
            }
            Err(e) => Err(e),
        };
        match loaded {
            Ok(mut file_results) => {
                if text {
                    for result in &file_results {
                        if result.failures.is_empty() {
                            outln!("ok    {}: {}", result.file, result.name);
                        } else {
                            outln!("FAIL  {}: {}", result.file, result.name);
                            for line in failure_text(result).lines() {
                                outln!("      {line}");
                            }
                        }
                    }
                }
                results.append(&mut file_results);
            }
            Err(e) => {
                eprintln!("error: {e}");
                load_errors.push(e);
            }
        }
    }
    let failed = results.iter().filter(|r| !r.failures.is_empty()).count();
    let passed = results.len() - failed;
    let want_coverage = args.coverage || args.require_coverage;
    let left = want_coverage.then(|| uncovered(&configured, &ran));
    let left_rules = want_coverage.then(|| uncovered_rules(&configured, &ran));
    match args.format {
        TestFormat::Text => {
            if let Some(left) = &left {
                if left.is_empty() {
                    outln!("coverage: every configured hook ran in some case");
                } else {
                    outln!("coverage: {} configured hook(s) no case ran:", left.len());
                    for (hook, source) in left {
                        outln!("  {hook} ({source})");
                    }
                }
            }
            if let Some(rules) = left_rules.as_ref().filter(|rules| !rules.is_empty()) {
                outln!("coverage: {} rule(s) no case reached:", rules.len());
                for (rule, hook, source) in rules {
                    outln!("  rule {rule} of {hook} ({source})");
                }
            }
            outln!("{passed} passed, {failed} failed");
        }
        TestFormat::Json => {
            let mut report = json_report(&results, passed, failed, left.as_deref());
            if let (Some(rules), Some(uncovered)) =
                (&left_rules, report.get_mut("uncovered").and_then(Value::as_array_mut))
            {
                uncovered.extend(
                    rules.iter().map(|(rule, hook, source)| json!({"rule": rule, "hook": hook, "source": source})),
                );
            }
            outln!("{report}");
        }
        TestFormat::Junit => outln!("{}", junit(&results, failed).trim_end()),
    }
    if !load_errors.is_empty() {
        2
    } else if failed > 0
        || (args.require_coverage && (left.is_some_and(|l| !l.is_empty()) || left_rules.is_some_and(|l| !l.is_empty())))
    {
        1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(exit_code: i32, stdout: &str) -> hook_agents::BridgeAnswer {
        hook_agents::BridgeAnswer { exit_code, stdout: stdout.to_owned(), stderr: "why".to_owned() }
    }

    #[test]
    fn answers_read_in_the_agents_terms() {
        let deny = answer(
            0,
            r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no home","hookEventName":"PreToolUse"}}"#,
        );
        let got = read_answer(Event::PreToolExecution, &deny);
        assert_eq!((got.decision, got.reason.as_deref()), (Some("deny"), Some("no home")));
        let none = read_answer(Event::PreToolExecution, &answer(0, ""));
        assert_eq!(none.decision, None);
        assert!(decision_matches(ExpectedDecision::Allow, none.decision));
        assert!(!decision_matches(ExpectedDecision::Deny, none.decision));
        let blocked = read_answer(Event::PreSendMessage, &answer(2, ""));
        assert_eq!(blocked.decision, Some("block"));
        let stop = read_answer(Event::Stop, &answer(0, r#"{"continue":false,"stopReason":"enough"}"#));
        assert_eq!((stop.decision, stop.reason.as_deref()), (Some("stop"), Some("enough")));
    }

    #[test]
    fn junit_escapes_what_xml_cannot_hold() {
        assert_eq!(xml_escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;\u{fffd}");
    }
}
