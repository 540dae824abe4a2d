//! `hookwire rules list` and `hookwire rules explain`: the packs compiled into hookwire, and
//! what the configured guard rules decide about one tool call and why — computed by
//! hook-rules' own evaluation (`hook_rules::explain`), the one the hook runs.
//!
//! `explain` exits 0 when the call is allowed (or only gets a note), 2 when it is denied, 3
//! when the person would be asked, and 1 when it cannot explain (a configuration error, bad
//! input), so a script can branch on it.

use std::{
    io::Read as _,
    path::{Path, PathBuf},
};

use clap::{Args, Subcommand};
use hook_core::{HookDefinition, HookSpec, Kind, Level};
use hook_protocol::{
    Agent, Context, Event,
    rules::{Mode, PackName, Rule, RuleDecision, RulesFile},
    serde_json,
};
use hook_rules::explain::{Explanation, Finding, pack_rule_line};
use serde_json::{Value, json};

use crate::{ConfigArgs, Format, terminal};

/// Exit code of `explain` for a denied call.
const EXIT_DENY: u8 = 2;
/// Exit code of `explain` for a call the person would be asked about.
const EXIT_ASK: u8 = 3;
/// Exit code of `explain` when it cannot explain.
const EXIT_ERROR: u8 = 1;

/// `hookwire rules`.
#[derive(Debug, Args)]
pub(crate) struct RulesArgs {
    #[command(subcommand)]
    command: RulesCommand,
}

#[derive(Debug, Subcommand)]
enum RulesCommand {
    /// Every pack compiled into hookwire and its rules (or one pack's): name, decision,
    /// reason, safer alternative, events and tools.
    List {
        /// Only this pack.
        #[arg(long, value_name = "PACK")]
        pack: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// What the configured rules decide about one call, the rule that decides (pack, or
    /// file:line), the simple commands parsed out of the script, what cannot be determined,
    /// and the safer alternative. Exit code: 0 allow, 2 deny, 3 ask, 1 error.
    Explain(ExplainArgs),
}

/// `hookwire rules explain`.
#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    /// The shell command to explain (a call of the shell tool, `Bash` unless `--tool` says).
    command: Option<String>,
    /// The tool's name, of any agent (`Write`, `read_file`, `run_shell_command`, ...).
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// The path the tool reads or writes (relative paths from the current directory).
    #[arg(long, value_name = "PATH")]
    path: Option<String>,
    /// The text the tool writes.
    #[arg(long, value_name = "TEXT")]
    content: Option<String>,
    /// The URL the tool fetches.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Read a whole hook input of this agent (claude, gemini, codex) on stdin, and load the
    /// configuration as `hookwire hook AGENT` does.
    #[arg(long, value_name = "AGENT", conflicts_with_all = ["command", "tool", "path", "content", "url"])]
    agent: Option<Agent>,
    /// Explain against this pack alone, not the configuration.
    #[arg(long, value_name = "PACK")]
    pack: Option<String>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub(crate) fn run(args: RulesArgs) -> u8 {
    match args.command {
        RulesCommand::List { pack, format } => list(pack.as_deref(), format),
        RulesCommand::Explain(args) => explain(&args),
    }
}

/// The pack named `name`, or an error listing the known ones.
fn pack_named(name: &str) -> Result<PackName, String> {
    PackName::ALL.iter().copied().find(|p| p.as_str() == name).ok_or_else(|| {
        let known: Vec<&str> = PackName::ALL.iter().map(|p| p.as_str()).collect();
        format!("unknown pack `{name}`; the packs are: {}", known.join(", "))
    })
}

/// One pack rule as listed.
fn rule_json(pack: PackName, rule: &Rule) -> Value {
    let events: Vec<String> = if rule.events.is_empty() {
        vec![Event::PreToolExecution.to_string()]
    } else {
        rule.events.iter().map(ToString::to_string).collect()
    };
    let tools: Vec<&str> = rule.tools.iter().map(|t| t.as_str()).collect();
    json!({
        "rule": format!("{pack}/{}", rule.name),
        "name": rule.name,
        "decision": rule.decision.unwrap_or(RuleDecision::Deny).as_str(),
        "reason": rule.reason,
        "suggest": rule.suggest,
        "events": events,
        "tools": if tools.is_empty() { vec!["any"] } else { tools },
        "mode": if rule.mode == Some(Mode::Shadow) { "shadow" } else { "enforce" },
        "line": pack_rule_line(pack, &rule.name),
    })
}

fn list(pack: Option<&str>, format: Format) -> u8 {
    let packs: Vec<PackName> = match pack.map(pack_named) {
        Some(Ok(pack)) => vec![pack],
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
        None => PackName::ALL.to_vec(),
    };
    let listing: Vec<Value> = packs
        .iter()
        .map(|pack| {
            let members: Vec<&str> =
                hook_rules::packs::expand(&[*pack]).into_iter().filter(|m| m != pack).map(PackName::as_str).collect();
            let rules: Vec<Value> = hook_rules::packs::rules(*pack).iter().map(|r| rule_json(*pack, r)).collect();
            json!({"pack": pack.as_str(), "includes": members, "rules": rules})
        })
        .collect();
    match format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&json!({ "packs": listing })).unwrap_or_default()),
        Format::Text => {
            for pack in &listing {
                let name = pack["pack"].as_str().unwrap_or_default();
                let includes: Vec<&str> =
                    pack["includes"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                if includes.is_empty() {
                    outln!("{name}");
                } else {
                    outln!("{name}: every rule of {}", includes.join(", "));
                }
                for rule in pack["rules"].as_array().into_iter().flatten() {
                    let list = |key: &str| -> String {
                        rule[key]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join(",")
                    };
                    let shadow = if rule["mode"] == "shadow" { " (shadow)" } else { "" };
                    outln!(
                        "  {:<44} {:<7}{shadow} events={} tools={}",
                        rule["rule"].as_str().unwrap_or_default(),
                        rule["decision"].as_str().unwrap_or_default(),
                        list("events"),
                        list("tools"),
                    );
                    if let Some(reason) = rule["reason"].as_str() {
                        outln!("      reason: {reason}");
                    }
                    if let Some(suggest) = rule["suggest"].as_str() {
                        outln!("      safer:  {suggest}");
                    }
                }
            }
        }
    }
    0
}

/// The call `args` describe: the event and the context the hook would get, and the agent
/// whose discovery loads the configuration (`--agent`).
fn call_of(args: &ExplainArgs, cwd: &Path) -> Result<(Event, Context), String> {
    if let Some(agent) = args.agent {
        let mut text = String::new();
        std::io::stdin()
            .take(64 << 20)
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read the hook input on stdin: {e}"))?;
        let input: Value = serde_json::from_str(&text)
            .map_err(|e| format!("the {} hook input on stdin is not JSON: {e}", agent.display_name()))?;
        return hook_agents::context_from_input(agent, input).map_err(|e| e.to_string());
    }
    let mut arguments = serde_json::Map::new();
    if let Some(command) = &args.command {
        arguments.insert("command".into(), json!(command));
    }
    if let Some(path) = &args.path {
        arguments.insert("file_path".into(), json!(path));
    }
    if let Some(content) = &args.content {
        arguments.insert("content".into(), json!(content));
    }
    if let Some(url) = &args.url {
        arguments.insert("url".into(), json!(url));
    }
    let tool = match (&args.tool, &args.command, &args.path, &args.content, &args.url) {
        (Some(tool), ..) => tool.clone(),
        (None, Some(_), ..) => "Bash".to_owned(),
        (None, None, _, Some(_), _) => "Write".to_owned(),
        (None, None, Some(_), None, _) => "Read".to_owned(),
        (None, None, None, None, Some(_)) => "WebFetch".to_owned(),
        (None, None, None, None, None) => {
            return Err("nothing to explain: give a COMMAND, or --tool/--path/--content/--url, or --agent AGENT with a hook input on stdin".to_owned());
        }
    };
    let context = Context {
        cwd: Some(cwd.display().to_string()),
        tool_name: Some(tool),
        tool_arguments: Some(Value::Object(arguments).to_string()),
        ..Context::default()
    };
    Ok((Event::PreToolExecution, context))
}

/// The rules hooks to explain against: one pack's (`--pack`), or the configuration's as
/// `hookwire hook` (`--agent`) or any other command loads it.
fn specs_of(args: &ExplainArgs, cwd: &Path, context: &Context) -> Result<Vec<HookSpec>, Vec<String>> {
    if let Some(pack) = &args.pack {
        let pack = pack_named(pack).map_err(|e| vec![e])?;
        let file = RulesFile { packs: vec![pack], ..RulesFile::default() };
        let events = hook_rules::RuleSet::compile(&file).map_err(|e| vec![e.to_string()])?.events();
        return Ok(vec![HookSpec::new(
            format!("pack:{pack}"),
            Level::User,
            Kind::RULES,
            events,
            HookDefinition::Rules(Box::new(file)),
        )]);
    }
    let missing = crate::engine::missing_configs(&args.config.configs, cwd);
    if !missing.is_empty() {
        return Err(missing);
    }
    let loaded = match args.agent {
        Some(agent) => {
            let dir = context.cwd.as_deref().map_or_else(|| cwd.to_path_buf(), PathBuf::from);
            crate::hook::bridge_host(agent, &[], &args.config.configs, args.config.no_default_config, &dir)
                .build()
                .read()
                .map_err(|e| vec![e.to_string()])?
        }
        None => crate::engine::load(&args.config),
    };
    if !loaded.errors.is_empty() {
        return Err(loaded.errors.iter().map(ToString::to_string).collect());
    }
    for untrusted in &loaded.untrusted {
        eprintln!("warning: {}: {}; {}", untrusted.config.display(), untrusted.reason, untrusted.how_to_trust);
    }
    Ok(loaded.specs)
}

fn explain(args: &ExplainArgs) -> u8 {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let fail = |errors: &[String]| {
        for error in errors {
            eprintln!("error: {error}");
        }
        EXIT_ERROR
    };
    let (event, context) = match call_of(args, &cwd) {
        Ok(call) => call,
        Err(e) => return fail(&[e]),
    };
    let specs = match specs_of(args, &cwd, &context) {
        Ok(specs) => specs,
        Err(errors) => return fail(&errors),
    };
    let explained = match hook_rules::explain::explain(&specs, event, &context) {
        Ok(explained) => explained,
        Err(e) => return fail(&[format!("rules hook `{}`: {e}", e.hook)]),
    };
    let code = match explained.decision {
        Some(RuleDecision::Deny) => EXIT_DENY,
        Some(RuleDecision::Ask) => EXIT_ASK,
        _ => 0,
    };
    match args.format {
        Format::Json => {
            let mut out = explanation_json(&explained, &context);
            out["exit_code"] = json!(code);
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        Format::Text => print_text(&explained, &context),
    }
    code
}

/// `allow` when no rule objects, else the decision's name.
fn decision_name(decision: Option<RuleDecision>) -> &'static str {
    decision.map_or("allow", RuleDecision::as_str)
}

fn finding_json(finding: &Finding) -> Value {
    json!({
        "rule": finding.rule.label(),
        "pack": finding.rule.pack.map(PackName::as_str),
        "name": finding.rule.name,
        "file": finding.rule.file.as_ref().map(|f| f.display().to_string()),
        "line": finding.rule.line,
        "place": finding.rule.place(),
        "hook": finding.hook,
        "level": finding.level.as_str(),
        "rules_file": finding.rules_file.as_ref().map(|f| f.display().to_string()),
        "decision": finding.decision.as_str(),
        "reason": finding.reason,
        "suggest": finding.suggest,
        "command": finding.command,
        "shadow": finding.shadow,
    })
}

/// The documented JSON shape of `rules explain --format json` (docs/rules.md).
fn explanation_json(explained: &Explanation, context: &Context) -> Value {
    let commands: Vec<Value> = explained
        .commands
        .iter()
        .map(|c| {
            json!({
                "words": c.words,
                "program": c.program,
                "flags": c.flags,
                "operands": c.operands,
                "undetermined": c.runs_unknown,
            })
        })
        .collect();
    json!({
        "event": explained.event.as_str(),
        "tool": context.tool_name,
        "script": explained.script,
        "decision": decision_name(explained.decision),
        "decided_by": explained.decided_by.as_ref().map(finding_json),
        "suggest": explained.suggest(),
        "commands": commands,
        "undetermined": explained.undetermined().map(|c| c.words.join(" ")).collect::<Vec<_>>(),
        "unreadable": explained.unreadable,
        "hits": explained.hits.iter().map(finding_json).collect::<Vec<_>>(),
        "shadowed": explained.shadowed.iter().map(finding_json).collect::<Vec<_>>(),
        "rules_files": explained.evaluated.iter().map(|(hook, level, file)| json!({
            "hook": hook,
            "level": level.as_str(),
            "file": file.as_ref().map(|f| f.display().to_string()),
        })).collect::<Vec<_>>(),
    })
}

fn print_text(explained: &Explanation, context: &Context) {
    let safe = |text: &str| terminal::safe(text).into_owned();
    outln!("decision: {}", decision_name(explained.decision));
    match &explained.decided_by {
        Some(finding) => {
            outln!(
                "rule: {}  ({}; {} level, hook {})",
                safe(&finding.rule.label()),
                safe(&finding.rule.place()),
                finding.level,
                safe(&finding.hook)
            );
            outln!("reason: {}", safe(&finding.reason));
            if let Some(command) = &finding.command {
                outln!("matched: {}", safe(command));
            }
            if let Some(suggest) = &finding.suggest {
                outln!("safer: {}", safe(suggest));
            }
        }
        None if explained.evaluated.is_empty() => outln!("rule: none (no rules file is configured)"),
        None => outln!("rule: none matched"),
    }
    if let Some(script) = &explained.script {
        outln!("commands parsed from `{}`:", safe(script));
        if explained.commands.is_empty() && explained.unreadable.is_none() {
            outln!("  (none)");
        }
        for command in &explained.commands {
            let unknown = if command.runs_unknown { "  [undetermined]" } else { "" };
            outln!(
                "  {}  (program={} flags=[{}] operands=[{}]){unknown}",
                safe(&command.words.join(" ")),
                safe(&command.program),
                safe(&command.flags.join(" ")),
                safe(&command.operands.join(" "))
            );
        }
        if let Some(why) = &explained.unreadable {
            outln!("  unreadable: {}", safe(why));
        }
    } else if let Some(tool) = &context.tool_name {
        outln!("tool: {}", safe(tool));
    }
    let undetermined: Vec<String> = explained.undetermined().map(|c| safe(&c.words.join(" "))).collect();
    if !undetermined.is_empty() {
        outln!("undetermined: {}", undetermined.join("; "));
    }
    for finding in explained.hits.iter().filter(|f| {
        explained.decided_by.as_ref().is_none_or(|d| d.rule != f.rule || d.command != f.command || d.hook != f.hook)
    }) {
        outln!("also: {} {} ({})", finding.decision.as_str(), safe(&finding.rule.label()), safe(&finding.rule.place()));
    }
    for finding in &explained.shadowed {
        outln!(
            "shadow: {} would {} ({})",
            safe(&finding.rule.label()),
            finding.decision.as_str(),
            safe(&finding.rule.place())
        );
    }
}
