//! The rule language of `rules` hooks: a hookwire configuration file with a top-level
//! `rules:`, `packs:` or `allow:` is a rules file, evaluated in-process by hook-rules.
//!
//! These are the types as written (what `schemas/rules-file.schema.json` describes). Every
//! mapping refuses unknown keys and every name (pack, tool class or tool, event) is checked
//! while the file is read: a typo must never switch a guard off.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Event, tool::known_tool_names};

/// A rules file: packs to enable, rules of its own and exceptions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    /// Packs compiled into hookwire to enable (`recommended` is every pack).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packs: Vec<PackName>,
    /// The file's own rules, evaluated after the packs'.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Rule>,
    /// Exceptions: rules whose match cancels a `deny` or `ask` of this file for the same
    /// command or call (their `decision` is `allow` whatever they say).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<Rule>,
    /// `shadow` for every rule of the file (packs included) that says nothing itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// The default `undetermined` policy of the file's rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undetermined: Option<Undetermined>,
}

impl RulesFile {
    /// The top-level keys that make a configuration file a rules file.
    pub const KEYS: [&'static str; 3] = ["rules", "packs", "allow"];
}

/// A pack of rules compiled into hookwire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PackName {
    /// Recursive or forced deletes of home, `/`, system directories, the project; disk wipes.
    Filesystem,
    /// History- and work-destroying git commands.
    Git,
    /// Reading, printing or sending credentials; writing keys into files.
    Secrets,
    /// A download piped or substituted into a shell or interpreter.
    RemoteCode,
    /// Writes to shell start-up files, `authorized_keys`, crontab, systemd user units.
    Persistence,
    /// `DROP`, `TRUNCATE`, `DELETE` without `WHERE`, Redis `FLUSHALL`.
    Databases,
    /// `terraform destroy`, `kubectl delete` of namespaces or `--all`, bucket removal.
    Cloud,
    /// `docker system prune -a --volumes`, volume removal, `compose down -v`.
    Containers,
    /// Every pack above.
    Recommended,
}

impl PackName {
    /// Every pack, `recommended` last.
    pub const ALL: [PackName; 9] = [
        PackName::Filesystem,
        PackName::Git,
        PackName::Secrets,
        PackName::RemoteCode,
        PackName::Persistence,
        PackName::Databases,
        PackName::Cloud,
        PackName::Containers,
        PackName::Recommended,
    ];

    /// The name as written (`remote-code`).
    pub fn as_str(self) -> &'static str {
        match self {
            PackName::Filesystem => "filesystem",
            PackName::Git => "git",
            PackName::Secrets => "secrets",
            PackName::RemoteCode => "remote-code",
            PackName::Persistence => "persistence",
            PackName::Databases => "databases",
            PackName::Cloud => "cloud",
            PackName::Containers => "containers",
            PackName::Recommended => "recommended",
        }
    }
}

impl fmt::Display for PackName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rule: where it applies, what it matches and what it decides.
///
/// A rule matches a call when every matcher it has matches (a rule without matchers matches
/// every call of its events and tools). `command` and its refinements (`args`, `any_flags`,
/// `not_flags`, `args_regex`, `into`, and `path` over its operands) are matched against each simple command of a shell call;
/// `when` against the call as a whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Unique within its file or pack.
    pub name: String,
    /// The events it runs on (canonical or any agent's names); default: before a tool runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
    /// Tool classes (`shell`, `read`, `write`, `edit`, `search`, `fetch`, `list`, `other`,
    /// `mcp`, `any`) or tool names of any agent; default: any tool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSelector>,
    /// Command patterns, `program [subcommand...] [flags...]` (`git reset --hard`, `rm -rf`):
    /// a simple command matches when its program's basename is the pattern's, its first
    /// operands are the pattern's operands and it has every flag of the pattern (flags
    /// normalized: `-rf` = `-fr` = `-r -f` = `--recursive --force`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<OneOrMany>,
    /// With `command`: at least one operand after the pattern's, as a normalized absolute path
    /// (`~`, `$HOME`, `..` and relative paths resolved), matches one of these globs; `$CWD` is
    /// the working directory, `$CWD_OR_PARENT` the working directory or any directory above it;
    /// a glob starting with `!` excludes what the others match (`["~/**", "!$CWD/**"]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// With `command`: at least one of these flags is present.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub any_flags: Vec<String>,
    /// With `command`: none of these flags is present.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_flags: Vec<String>,
    /// With `command`: a regex over the command's words after the program, joined by spaces,
    /// then the text it reads from a here-document or here-string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args_regex: Option<String>,
    /// With `command`: the script also runs one of these programs on code it reads from its
    /// input or a substitution (`curl … | sh`, `bash <(curl …)`; a database client given no
    /// statement or file: `echo 'DROP TABLE t;' | psql app`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub into: Vec<String>,
    /// Globs over the normalized absolute paths the call names (a shell call: its operands);
    /// a glob starting with `!` excludes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<OneOrMany>,
    /// A regex over the text the tool writes (`content`, `new_string`, a patch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// A regex over the URL a fetch tool calls (or any URL in a shell command).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A CEL expression over the call (`tool`, `class`, `command`, `paths`, `input`, `event`,
    /// `agent`, `cwd`) that must be true for the rule to match, with its other matchers
    /// (`size(input.content) > 1000000`). Checked when the file loads: a syntax error or an
    /// unknown variable or function refuses the file. An error while evaluating it (a missing
    /// key, a type mismatch) follows `undetermined`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// What a match decides (default `deny`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<RuleDecision>,
    /// What the model is told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A safer alternative.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggest: Option<String>,
    /// `shadow`: decide nothing, record what it would have decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// What a shell call whose program cannot be told before it runs (`$X -rf /`) gets, and
    /// a call on which `when` cannot be evaluated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undetermined: Option<Undetermined>,
}

impl Rule {
    /// The events it runs on: the ones written, or before a tool runs when none are.
    pub fn effective_events(&self) -> &[Event] {
        if self.events.is_empty() { &[Event::PreToolExecution] } else { &self.events }
    }
}

/// One string or a list of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    /// One.
    One(String),
    /// Several.
    Many(Vec<String>),
}

impl OneOrMany {
    /// Every string.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let slice: &[String] = match self {
            OneOrMany::One(one) => std::slice::from_ref(one),
            OneOrMany::Many(many) => many,
        };
        slice.iter().map(String::as_str)
    }
}

/// What a matching rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuleDecision {
    /// An exception: cancels this file's `deny` and `ask` for the same command or call.
    Allow,
    /// Adds the reason as a note for the model.
    Context,
    /// Asks the person (where the agent cannot ask: deny).
    Ask,
    /// Refuses the call.
    Deny,
}

impl RuleDecision {
    /// `allow`, `context`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleDecision::Allow => "allow",
            RuleDecision::Context => "context",
            RuleDecision::Ask => "ask",
            RuleDecision::Deny => "deny",
        }
    }
}

/// Whether a rule decides or only records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Decide.
    Enforce,
    /// Record "would have decided" in the log; decide nothing.
    Shadow,
}

/// The policy for a command whose program is not known before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Undetermined {
    /// Let it run.
    Allow,
    /// Ask the person.
    Ask,
    /// Refuse it.
    Deny,
}

/// A tool class or a tool name, checked against hookwire's tool vocabulary when read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "String", into = "String")]
pub struct ToolSelector(String);

impl ToolSelector {
    /// The classes a selector may name, besides tool names.
    pub const CLASSES: [&'static str; 10] =
        ["shell", "read", "write", "edit", "search", "fetch", "list", "other", "mcp", "any"];

    /// As written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A tool selector names neither a class nor a tool of any agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownToolError(String);

impl std::error::Error for UnknownToolError {}

impl fmt::Display for UnknownToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown tool class or tool `{}`: write a class ({}), a tool name of an agent (Bash, run_shell_command, shell, ...) or `mcp__server__tool`",
            self.0,
            ToolSelector::CLASSES.join(", ")
        )
    }
}

impl TryFrom<String> for ToolSelector {
    type Error = UnknownToolError;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        let known = ToolSelector::CLASSES.contains(&name.as_str())
            || name.starts_with("mcp__")
            || known_tool_names().any(|tool| tool == name)
            || name == "bash";
        if known { Ok(ToolSelector(name)) } else { Err(UnknownToolError(name)) }
    }
}

impl From<ToolSelector> for String {
    fn from(selector: ToolSelector) -> String {
        selector.0
    }
}
