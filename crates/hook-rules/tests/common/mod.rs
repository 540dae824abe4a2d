//! The corpus harness shared by `corpus.rs` and `peers.rs`: a case file's actions sent through
//! `packs: [recommended]` the way each agent sends them (Claude Code, Gemini CLI and Codex tool
//! names and input shapes, read through the same tool view the bridge uses), and the tally.

#![allow(dead_code, unreachable_pub)]

use std::path::Path;

use hook_protocol::{
    Context, Event, ToolClass,
    rules::{PackName, RuleDecision, RulesFile},
    serde_json::{Value, json},
    tool::{tool_class, tool_view},
};
use hook_rules::{Call, RuleSet, Verdict, call_of};
use serde::Deserialize;

/// The working directory every case runs in.
pub const CWD: &str = "/home/u/proj";
/// The home directory every case runs with.
pub const HOME: &str = "/home/u";

/// A case file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Corpus {
    /// Its cases.
    pub cases: Vec<Case>,
}

/// One action and what the packs must decide about it.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// A shell command (the shell tool of every agent).
    #[serde(default)]
    pub command: Option<String>,
    /// The tool: a class (`read`, `write`, `edit`, `search`) or any agent's tool name, which
    /// stands for its class. Default: `read` for a path without command.
    #[serde(default)]
    pub tool: Option<String>,
    /// The file a file tool names.
    #[serde(default)]
    pub path: Option<String>,
    /// The text a write or edit tool writes.
    #[serde(default)]
    pub content: Option<String>,
    /// `block` (deny or ask) or `pass`.
    pub expect: Expect,
    /// `pending`: a miss that is the shell parser's to fix (heredocs, …); tolerated and
    /// counted apart until the parser rewrite lands.
    #[serde(default)]
    pub parser: Option<String>,
    /// Where a peer's case comes from (its corpus file).
    #[serde(default)]
    pub source: Option<String>,
}

/// An expectation.
#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// Denied or asked.
    Block,
    /// No objection.
    Pass,
}

/// An agent and the shape of its tool calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Bash, Read, Write, Edit, Grep.
    Claude,
    /// run_shell_command, read_file, write_file, replace, search_file_content.
    Gemini,
    /// exec_command `{cmd}`, apply_patch; it reads and searches through its shell.
    Codex,
}

/// Every agent.
pub const AGENTS: [Agent; 3] = [Agent::Claude, Agent::Gemini, Agent::Codex];

impl Case {
    /// The class of the case's tool.
    pub fn class(&self) -> ToolClass {
        if self.command.is_some() {
            return ToolClass::Shell;
        }
        match self.tool.as_deref() {
            None | Some("read") => ToolClass::Read,
            Some("write") => ToolClass::Write,
            Some("edit") => ToolClass::Edit,
            Some("search") => ToolClass::Search,
            Some(name) => tool_class(name),
        }
    }

    /// A one-line description.
    pub fn describe(&self) -> String {
        match &self.command {
            Some(command) => format!("{command:?}"),
            None => format!(
                "{:?} {} {}",
                self.class(),
                self.path.as_deref().unwrap_or_default(),
                self.content.as_deref().map(|c| format!("content {c:?}")).unwrap_or_default()
            ),
        }
    }

    /// The tool name and input `agent` sends for this case.
    pub fn payload(&self, agent: Agent) -> (&'static str, Value) {
        let path = self.path.clone().unwrap_or_default();
        let content = self.content.clone().unwrap_or_default();
        let patch = |verb: &str| {
            let body: String = content.lines().map(|l| format!("+{l}\n")).collect();
            json!({ "command": format!("*** Begin Patch\n*** {verb} File: {path}\n{body}*** End Patch\n") })
        };
        let quoted = format!("'{}'", path.replace('\'', r"'\''"));
        match (self.class(), agent) {
            (ToolClass::Shell, Agent::Claude) => ("Bash", json!({ "command": self.command })),
            (ToolClass::Shell, Agent::Gemini) => ("run_shell_command", json!({ "command": self.command })),
            (ToolClass::Shell, Agent::Codex) => ("exec_command", json!({ "cmd": self.command })),
            (ToolClass::Write, Agent::Claude) => ("Write", json!({ "file_path": path, "content": content })),
            (ToolClass::Write, Agent::Gemini) => ("write_file", json!({ "file_path": path, "content": content })),
            (ToolClass::Write, Agent::Codex) => ("apply_patch", patch("Add")),
            (ToolClass::Edit, Agent::Claude) => {
                ("Edit", json!({ "file_path": path, "old_string": "x", "new_string": content }))
            }
            (ToolClass::Edit, Agent::Gemini) => {
                ("replace", json!({ "file_path": path, "old_string": "x", "new_string": content }))
            }
            (ToolClass::Edit, Agent::Codex) => ("apply_patch", patch("Update")),
            (ToolClass::Search, Agent::Claude) => ("Grep", json!({ "pattern": "KEY", "path": path })),
            (ToolClass::Search, Agent::Gemini) => ("search_file_content", json!({ "pattern": "KEY", "path": path })),
            (ToolClass::Search, Agent::Codex) => ("exec_command", json!({ "cmd": format!("rg KEY {quoted}") })),
            (_, Agent::Claude) => ("Read", json!({ "file_path": path })),
            (_, Agent::Gemini) => ("read_file", json!({ "file_path": path })),
            (_, Agent::Codex) => ("exec_command", json!({ "cmd": format!("cat {quoted}") })),
        }
    }
}

/// `packs: [recommended]`, compiled.
pub fn recommended() -> RuleSet {
    RuleSet::compile(&RulesFile { packs: vec![PackName::Recommended], ..RulesFile::default() })
        .expect("recommended compiles")
}

/// The verdict on `case` sent by `agent`, read the way the rules hook reads a call.
pub fn verdict(rules: &RuleSet, case: &Case, agent: Agent) -> Verdict {
    let (tool, input) = case.payload(agent);
    verdict_of(rules, tool, &input)
}

/// The verdict on a call of `tool` with `input`.
pub fn verdict_of(rules: &RuleSet, tool: &str, input: &Value) -> Verdict {
    let context = Context {
        tool_name: Some(tool.to_owned()),
        tool_arguments: Some(input.to_string()),
        cwd: Some(CWD.to_owned()),
        ..Context::default()
    };
    let view = tool_view(&context);
    let call = call_of(Event::PreToolExecution, Some(tool), view.as_ref(), Path::new(CWD), Some(Path::new(HOME)));
    rules.evaluate(&call)
}

/// The decision on a Bash call of `command` in [`CWD`], handed straight to the rules (no tool
/// view): what the property and grammar tests compare.
pub fn shell_decision(rules: &RuleSet, command: &str) -> Option<RuleDecision> {
    let call = Call {
        event: Event::PreToolExecution,
        tool: Some("Bash"),
        command: Some(command),
        paths: vec![],
        content: None,
        url: None,
        cwd: Path::new(CWD),
        home: Some(Path::new(HOME)),
        input: None,
    };
    rules.evaluate(&call).decision
}

/// Whether `verdict` blocks (deny or ask).
pub fn blocks(verdict: &Verdict) -> bool {
    verdict.decision.is_some_and(|d| d >= RuleDecision::Ask)
}

/// The tally of one case file.
#[derive(Debug, Default)]
pub struct Tally {
    /// Must-block cases, and how many were blocked.
    pub block: (usize, usize),
    /// Must-pass cases, and how many passed.
    pub pass: (usize, usize),
    /// Misses outside `parser: pending`.
    pub misses: Vec<String>,
    /// Cases marked `parser: pending`, and which of them still miss.
    pub pending: (usize, Vec<String>),
    /// Cases the agents decided differently.
    pub disagreements: Vec<String>,
}

/// Runs every case of `corpus` through `rules` as every agent sends it.
pub fn run(rules: &RuleSet, corpus: &Corpus) -> Tally {
    let mut tally = Tally::default();
    for case in &corpus.cases {
        let mut verdicts: Vec<(Agent, Verdict)> = AGENTS.iter().map(|&a| (a, verdict(rules, case, a))).collect();
        if case.class() == ToolClass::Shell {
            // Codex's argv `shell` tool, which runs the script through `bash -lc`.
            let input = json!({ "command": ["bash", "-lc", case.command] });
            verdicts.push((Agent::Codex, verdict_of(rules, "shell", &input)));
        }
        let decisions: Vec<bool> = verdicts.iter().map(|(_, v)| blocks(v)).collect();
        if decisions.iter().any(|d| *d != decisions[0]) {
            let each: Vec<String> = verdicts
                .iter()
                .map(|(a, v)| format!("{a:?}: {:?} by {:?}", v.decision, v.decided_by.as_ref().map(|h| &h.rule)))
                .collect();
            tally.disagreements.push(format!("{}: {}", case.describe(), each.join(", ")));
        }
        let (_, claude) = &verdicts[0];
        let blocked = decisions[0];
        let hit = blocked == (case.expect == Expect::Block);
        match case.expect {
            Expect::Block => {
                tally.block.0 += 1;
                tally.block.1 += usize::from(blocked);
            }
            Expect::Pass => {
                tally.pass.0 += 1;
                tally.pass.1 += usize::from(!blocked);
            }
        }
        let line = format!(
            "{}{}: expected {:?}, got {:?} by {:?} (commands {:?})",
            case.source.as_deref().map(|s| format!("[{s}] ")).unwrap_or_default(),
            case.describe(),
            case.expect,
            claude.decision,
            claude.decided_by.as_ref().map(|h| &h.rule),
            claude.commands
        );
        if case.parser.as_deref() == Some("pending") {
            tally.pending.0 += 1;
            if !hit {
                tally.pending.1.push(line);
            }
        } else if !hit {
            tally.misses.push(line);
        }
    }
    tally
}

/// Loads a case file.
pub fn load(text: &str, name: &str) -> Corpus {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{name} does not parse: {e}"))
}
