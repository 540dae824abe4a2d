//! Matchers of the Claude Code family's hook configurations (Claude Code, Gemini CLI, Codex),
//! applied as each agent applies them, and Claude Code's per-handler `if` permission rules.
//!
//! Every pattern is compiled at load time: a pattern that does not compile is a [`MatcherError`],
//! never a silently skipped group, because a typo must never switch a guard off.

use hook_protocol::Agent;

use hook_shell as shell;
use regex::{Regex, RegexBuilder};
use serde_json::Value;

/// Largest compiled regex accepted, so that a pathological matcher cannot eat the memory.
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// Members of `tool_input` tried, in order, by an `if` pattern on a tool without its own rule.
const GENERIC_KEYS: [&str; 7] = ["command", "file_path", "path", "url", "pattern", "query", "prompt"];

/// Which agent's matcher rules apply, and on what kind of event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatcherFlavor {
    /// Claude Code, most events.
    Claude,
    /// Claude Code's `FileChanged` and `StopFailure`: the narrower exact-name character set.
    ClaudeNarrow,
    /// Gemini CLI on tool events (BeforeTool, AfterTool): a regex, an invalid regex compares exactly.
    GeminiTool,
    /// Gemini CLI on other events: exact string.
    GeminiExact,
    /// Codex.
    Codex,
}

/// How a compiled matcher tests a value: everything matches, the value equals one of the names, or
/// the regex matches somewhere in the value (`RegExp.test`, unanchored).
#[derive(Debug, Clone)]
enum Test {
    All,
    Names(Vec<String>),
    Regex(Regex),
}

/// A compiled `matcher` of one matcher group.
#[derive(Debug, Clone)]
pub struct Matcher {
    pattern: String,
    test: Test,
}

impl Matcher {
    /// Compiles `pattern` (None = the field was absent).
    pub fn compile(flavor: MatcherFlavor, pattern: Option<&str>) -> Result<Matcher, MatcherError> {
        let text = pattern.unwrap_or("");
        let test = if text.is_empty() || text == "*" {
            Test::All
        } else {
            match flavor {
                MatcherFlavor::Claude => names_or_regex(text, |c| c.is_ascii_alphanumeric() || "_ ,|-".contains(c))?,
                MatcherFlavor::ClaudeNarrow | MatcherFlavor::Codex => {
                    names_or_regex(text, |c| c.is_ascii_alphanumeric() || "_|".contains(c))?
                }
                MatcherFlavor::GeminiExact => Test::Names(vec![text.to_owned()]),
                MatcherFlavor::GeminiTool => match compile_regex(text) {
                    Ok(regex) => Test::Regex(regex),
                    // Gemini CLI catches the `RegExp` error and compares the name exactly.
                    Err(BadRegex { javascript_accepts: false, .. }) => Test::Names(vec![text.to_owned()]),
                    Err(bad) => return Err(bad.error),
                },
            }
        };
        Ok(Matcher { pattern: text.to_owned(), test })
    }

    /// Whether `value` (a tool name, a SessionStart source, a notification type, ...) matches.
    pub fn matches(&self, value: &str) -> bool {
        match &self.test {
            Test::All => true,
            Test::Names(names) => names.iter().any(|name| name == value),
            Test::Regex(regex) => regex.is_match(value),
        }
    }

    /// Whether it matches everything ("", "*" or absent).
    pub fn is_match_all(&self) -> bool {
        matches!(self.test, Test::All)
    }

    /// The pattern as written ("" when absent).
    pub fn pattern(&self) -> &str {
        &self.pattern
    }
}

/// The other names under which `agent` lets a matcher (or an `if` rule) select `tool_name`.
///
/// Claude Code resolves the legacy names of renamed tools, so a matcher written before the
/// rename still selects the tool (`Task` was renamed `Agent` in 2.1.63; matchers and `if` rules
/// saying `Task` still select it). Codex gives its own tools Claude Code's names as matcher
/// aliases, so Claude Code file guards (`Edit|Write`) select `apply_patch`.
pub fn tool_name_aliases(agent: Agent, tool_name: &str) -> &'static [&'static str] {
    match (agent, tool_name) {
        (Agent::Claude, "Agent") => &["Task"],
        (Agent::Claude, "TaskStop") => &["KillShell"],
        (Agent::Claude, "TaskOutput") => &["AgentOutputTool", "BashOutputTool"],
        (Agent::Codex, "apply_patch") => &["Write", "Edit"],
        (Agent::Codex, "spawn_agent") => &["Agent"],
        _ => &[],
    }
}

/// A matcher that does not compile; the message says what is wrong and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct MatcherError {
    /// What is wrong with the pattern, and how to fix it.
    pub message: String,
}

fn error(message: String) -> MatcherError {
    MatcherError { message }
}

/// An exact-name list when every character is in `exact`, else an unanchored regex.
fn names_or_regex(text: &str, exact: impl Fn(char) -> bool) -> Result<Test, MatcherError> {
    if !text.chars().all(exact) {
        return compile_regex(text).map(Test::Regex).map_err(|bad| bad.error);
    }
    let names: Vec<String> =
        text.split(['|', ',']).map(str::trim).filter(|name| !name.is_empty()).map(str::to_owned).collect();
    if names.is_empty() {
        return Err(error(format!(
            "matcher `{text}` names nothing, so the group could never run; write names like `Edit|Write`, \
             or `*` (or no matcher) to match everything"
        )));
    }
    Ok(Test::Names(names))
}

/// A regex that did not compile.
struct BadRegex {
    /// Whether JavaScript's `RegExp` would have accepted it (look-around, backreferences, size).
    javascript_accepts: bool,
    error: MatcherError,
}

fn compile_regex(text: &str) -> Result<Regex, BadRegex> {
    let failure = match RegexBuilder::new(text).size_limit(REGEX_SIZE_LIMIT).build() {
        Ok(regex) => return Ok(regex),
        Err(failure) => failure,
    };
    let fix = "write a list of exact names like `Edit|Write`";
    let (javascript_accepts, why) = match (javascript_only_syntax(text), &failure) {
        (Some(what), _) => (true, format!("uses {what}, {UNSUPPORTED}; {fix}, or a plain regex like `^mcp__memory__`")),
        (None, regex::Error::CompiledTooBig(_)) => {
            (true, format!("compiles to a regex larger than 1 MiB; use fewer or smaller repetitions, or {fix}"))
        }
        (None, _) => {
            let detail = failure.to_string();
            let detail = detail.lines().rev().find_map(|line| line.strip_prefix("error: ")).unwrap_or(&detail);
            (false, format!("is not a valid regex ({detail}); escape special characters with `\\`, or {fix}"))
        }
    };
    Err(BadRegex { javascript_accepts, error: error(format!("matcher `{text}` {why}")) })
}

/// Why look-around and backreferences fail to compile.
const UNSUPPORTED: &str = "which is not supported (hookwire's regex engine has no look-around `(?=`, `(?!`, `(?<=`, \
                           `(?<!` and no backreferences like `\\1`)";

/// Names the JavaScript-only regex syntax in `text` (look-around, backreferences), if any.
fn javascript_only_syntax(text: &str) -> Option<&'static str> {
    let mut chars = text.chars().peekable();
    let mut rest = text;
    while let Some(c) = chars.next() {
        rest = &rest[c.len_utf8()..];
        match c {
            '\\' => match chars.next() {
                Some('1'..='9') => return Some("a backreference"),
                Some('k') if chars.peek() == Some(&'<') => return Some("a named backreference"),
                Some(escaped) => rest = &rest[escaped.len_utf8()..],
                None => {}
            },
            '(' if ["?=", "?!", "?<=", "?<!"].iter().any(|look| rest.starts_with(look)) => return Some("look-around"),
            _ => {}
        }
    }
    None
}

/// Claude Code's per-handler `if` permission rule: `Bash(git *)`, `Edit(*.ts)`, `mcp__srv__tool`, `Read`.
#[derive(Debug, Clone)]
pub struct IfRule {
    rule: String,
    /// The tool name, without a trailing `*`.
    tool: String,
    /// Whether the tool name ended with `*` (a prefix wildcard: `mcp__server__*`).
    tool_prefix: bool,
    /// The pattern inside the parentheses; None when absent, empty or `*` (any use of the tool).
    argument: Option<String>,
}

impl IfRule {
    /// Parses one rule: `ToolName` or `ToolName(pattern)`; anything else is an error.
    pub fn parse(rule: &str) -> Result<IfRule, MatcherError> {
        let bad = |why: &str| {
            error(format!(
                "`if` rule `{rule}` {why}; write one rule `ToolName` or `ToolName(pattern)`, like `Bash(git *)`, \
                 `Edit(*.ts)` or `mcp__server__tool` (no `&&`, `||` or lists: use one handler per rule)"
            ))
        };
        let text = rule.trim();
        let (name, argument) = match text.find('(') {
            None if text.contains(')') => return Err(bad("has a `)` without `(`")),
            None => (text, None),
            Some(open) => {
                let Some(inner) = text[open + 1..].strip_suffix(')') else {
                    return Err(bad("does not end with `)`"));
                };
                if !parentheses_balance(inner) {
                    return Err(bad("has unbalanced parentheses"));
                }
                (&text[..open], Some(inner.replace("\\(", "(").replace("\\)", ")")))
            }
        };
        let (tool, tool_prefix) = name.strip_suffix('*').map_or((name, false), |head| (head, true));
        if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(bad("does not start with a tool name (letters, digits, `_`, `-`, then optionally `*`)"));
        }
        let mut argument = argument.filter(|arg| !arg.is_empty() && arg != "*");
        if let (false, "Bash", Some(arg)) = (tool_prefix, tool, &argument)
            && let Some(head) = arg.strip_suffix(":*")
        {
            // The legacy prefix form `npm:*` means what `npm *` means.
            argument = Some(format!("{head} *"));
        }
        if let (false, "WebFetch", Some(domain)) = (tool_prefix, tool, argument.as_deref().and_then(domain_of))
            && domain.is_empty()
        {
            return Err(bad("names no domain after `domain:`"));
        }
        Ok(IfRule { rule: rule.to_owned(), tool: tool.to_owned(), tool_prefix, argument })
    }

    /// Whether a call of `tool_name` with `tool_input` (the tool's input object) matches.
    pub fn matches(&self, tool_name: &str, tool_input: &Value) -> bool {
        let tool_matches = if self.tool_prefix {
            tool_name.starts_with(&self.tool)
        } else {
            // Claude Code applies `Edit` rules to every built-in file-editing tool.
            tool_name == self.tool || (self.tool == "Edit" && tool_name == "MultiEdit")
        };
        let (Some(arg), true) = (&self.argument, tool_matches) else { return tool_matches };
        let field = |key: &str| tool_input.get(key).and_then(Value::as_str);
        let domain = domain_of(arg);
        match if self.tool_prefix { "" } else { self.tool.as_str() } {
            "Bash" => field("command").is_some_and(|command| bash_matches(arg, command)),
            "Read" | "Edit" | "Write" => field("file_path").is_some_and(|path| path_matches(arg, path)),
            "NotebookEdit" => field("notebook_path").or(field("file_path")).is_some_and(|p| path_matches(arg, p)),
            "WebFetch" if domain.is_some() => field("url").zip(domain).is_some_and(|(url, d)| domain_matches(d, url)),
            "Glob" | "Grep" => field("path").or(field("pattern")).is_some_and(|value| wildcard(arg, value)),
            _ => GENERIC_KEYS.iter().find_map(|key| field(key)).is_some_and(|value| wildcard(arg, value)),
        }
    }

    /// The rule as written.
    pub fn rule(&self) -> &str {
        &self.rule
    }
}

/// Whether every unescaped `(` in `text` has its `)`.
fn parentheses_balance(text: &str) -> bool {
    let mut depth = 0usize;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => _ = chars.next(),
            '(' => depth += 1,
            ')' if depth == 0 => return false,
            ')' => depth -= 1,
            _ => {}
        }
    }
    depth == 0
}

/// The domain of a `domain:example.com` pattern, without a leading `*.` or trailing dot.
fn domain_of(arg: &str) -> Option<&str> {
    let domain = arg.strip_prefix("domain:")?.trim();
    Some(domain.strip_prefix("*.").unwrap_or(domain).trim_end_matches('.'))
}

/// Whether the host of `url` is `domain` or one of its subdomains.
fn domain_matches(domain: &str, url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = match host_port.strip_prefix('[') {
        Some(ipv6) => ipv6.split(']').next().unwrap_or_default(),
        None => host_port.split(':').next().unwrap_or_default(),
    };
    let (host, domain) = (host.trim_end_matches('.').to_ascii_lowercase(), domain.to_ascii_lowercase());
    host == domain || host.strip_suffix(&domain).is_some_and(|head| head.ends_with('.'))
}

/// Whether a Bash `if` pattern matches the command or any command it runs.
///
/// The command is read by the shell parser trust uses ([`hook_shell::invocations`]):
/// each command it runs (after `&&`, `;`, `|`, inside `$(...)`, `sh -c '...'`, `eval`, ...) is
/// compared at every stage of stripping its assignments, reserved words and wrappers (`sudo`,
/// `env`, `timeout`, `xargs`, ...), both as written and with quotes and escapes removed
/// (`'rm' -rf x` is `rm -rf x`), and with a program path as its base name (`/bin/rm` is `rm`).
/// Matching more only runs a handler more often, so where the text cannot tell — a quote that
/// does not close, nesting past the limit, a program that is an expansion (`$X -rf /`), a shell
/// reading its script from its input — the rule matches.
fn bash_matches(pattern: &str, command: &str) -> bool {
    let Ok(invocations) = shell::invocations(command) else { return true };
    // `git *` also matches a bare `git`, as in Claude Code (`^git( .*)?$`).
    let bare = pattern.strip_suffix(" *");
    let matches = |candidate: &str| wildcard(pattern, candidate) || bare.is_some_and(|head| wildcard(head, candidate));
    if matches(command.trim()) {
        return true;
    }
    invocations.iter().any(|invocation| {
        if invocation.runs_unknown {
            return true;
        }
        let mut words = invocation.words.clone();
        let written = invocation.raw.join(" ");
        let normalized = words.join(" ");
        let base = match words.first_mut() {
            Some(program) if program.contains('/') => {
                *program = program.rsplit('/').next().unwrap_or_default().to_owned();
                Some(words.join(" "))
            }
            _ => None,
        };
        matches(&written) || matches(&normalized) || base.is_some_and(|base| matches(&base))
    })
}

/// One element of a compiled glob: a character; `?` (one character but `/`); `*` in a path (any run
/// without `/`); `**` in a path or `*` in a command (any run); `**/` in a path (nothing, or any run
/// ending with `/`: zero or more directories).
#[derive(Debug, Clone, PartialEq)]
enum Glob {
    Char(char),
    One,
    Star,
    Any,
    Dirs,
}

/// Compiles a glob. Paths (gitignore style): `*` (not `/`), `**`, `**/`, `?`, `\` escapes; `[` is
/// literal. Commands and other text: only `*` (any characters) and the escapes `\*`, `\\`.
fn glob(pattern: &str, path: bool) -> Vec<Glob> {
    let chars: Vec<char> = pattern.chars().collect();
    let (mut tokens, mut i) = (Vec::new(), 0);
    while let Some(&c) = chars.get(i) {
        let stars = chars.get(i..).unwrap_or_default().iter().take_while(|&&s| s == '*').count();
        i += 1;
        tokens.push(match c {
            '*' if !path => Glob::Any,
            '*' if stars == 1 => Glob::Star,
            '*' => {
                i += stars - 1;
                let dirs = chars.get(i) == Some(&'/');
                i += usize::from(dirs);
                if dirs { Glob::Dirs } else { Glob::Any }
            }
            '?' if path => Glob::One,
            '\\' if path || matches!(chars.get(i), Some('*' | '\\')) => {
                i += 1;
                Glob::Char(chars.get(i - 1).copied().unwrap_or(c))
            }
            _ => Glob::Char(c),
        });
    }
    tokens
}

/// Whether the `*`-glob `pattern` matches all of `text`.
fn wildcard(pattern: &str, text: &str) -> bool {
    glob_match(&glob(pattern, false), &text.chars().collect::<Vec<_>>())
}

/// Whether `tokens` match all of `text`, by dynamic programming (no exponential backtracking).
fn glob_match(tokens: &[Glob], text: &[char]) -> bool {
    // row[j]: whether the tokens so far match text[..j].
    let mut row = vec![false; text.len() + 1];
    row[0] = true;
    for token in tokens {
        let mut next = vec![false; text.len() + 1];
        let mut any_before = false;
        for j in 0..=text.len() {
            let last = j.checked_sub(1).and_then(|k| text.get(k).copied());
            let extends = |next: &[bool]| j > 0 && next.get(j - 1).copied().unwrap_or(false);
            next[j] = match (token, last) {
                (Glob::Star, _) => row[j] || (extends(&next) && last != Some('/')),
                (Glob::Any, _) => row[j] || extends(&next),
                (Glob::Dirs, _) => row[j] || (last == Some('/') && any_before),
                (_, None) => false,
                (Glob::Char(want), Some(c)) => row[j - 1] && c == *want,
                (Glob::One, Some(c)) => row[j - 1] && c != '/',
            };
            any_before |= row[j];
        }
        row = next;
    }
    row[text.len()]
}

/// Whether a gitignore-style file pattern (`*.ts`, `src/**`, `//abs/**`, `~/x`) matches `path`.
fn path_matches(pattern: &str, path: &str) -> bool {
    let path: Vec<char> = path.chars().collect();
    if let Some(absolute) = pattern.strip_prefix("//") {
        return glob_match(&glob(&format!("/{absolute}"), true), &path);
    }
    // `/x` (relative to the settings file), `~/x` and `./x`: the root is unknown here, so they match
    // wherever the path ends with them; matching too much only runs a handler, never skips a guard.
    let relative = ["~/", "./", "/"].iter().find_map(|root| pattern.strip_prefix(root)).unwrap_or(pattern);
    let relative = if relative.ends_with('/') { format!("{relative}**") } else { relative.to_owned() };
    let tokens = glob(&relative, true);
    if !relative.contains('/') {
        // No `/`: any one component (the basename, or a directory holding the file).
        return path.split(|&c| c == '/').any(|component| glob_match(&tokens, component));
    }
    let mut starts = std::iter::once(0).chain(path.iter().enumerate().filter(|(_, c)| **c == '/').map(|(i, _)| i + 1));
    starts.any(|start| path.get(start..).is_some_and(|tail| glob_match(&tokens, tail)))
}

#[cfg(test)]
mod tests {
    use super::MatcherFlavor::{Claude, ClaudeNarrow, Codex, GeminiExact, GeminiTool};
    use super::*;
    use serde_json::json;

    fn compiled(flavor: MatcherFlavor, pattern: &str) -> Matcher {
        Matcher::compile(flavor, Some(pattern)).unwrap_or_else(|e| panic!("{flavor:?} `{pattern}`: {e}"))
    }

    fn compile_error(flavor: MatcherFlavor, pattern: &str) -> String {
        Matcher::compile(flavor, Some(pattern)).map(|m| panic!("{flavor:?} `{m:?}` compiled")).unwrap_err().message
    }

    #[test]
    fn every_flavor_matches_all_on_empty_star_or_absent() {
        for flavor in [Claude, ClaudeNarrow, GeminiTool, GeminiExact, Codex] {
            for pattern in [None, Some(""), Some("*")] {
                let m = Matcher::compile(flavor, pattern).unwrap();
                assert!(m.is_match_all() && m.matches("Bash") && m.matches(""), "{flavor:?} {pattern:?}");
                assert_eq!(m.pattern(), pattern.unwrap_or(""));
            }
            assert!(!compiled(flavor, "Bash").is_match_all(), "{flavor:?}");
        }
    }

    #[test]
    fn matcher_table() {
        // (flavor, pattern, values that match, values that do not)
        let cases: &[(MatcherFlavor, &str, &[&str], &[&str])] = &[
            (Claude, "Bash", &["Bash"], &["BashOutput", "bash", "xBash"]),
            (Claude, "Edit|Write", &["Edit", "Write"], &["NotebookEdit", "Edit|Write"]),
            (Claude, "Edit, Write", &["Edit", "Write"], &["Edit, Write"]),
            (Claude, " Edit | Write ,", &["Edit", "Write"], &[" Edit ", ""]),
            (Claude, "Task|MultiEdit|Write", &["MultiEdit"], &["Edit"]),
            (Claude, "code-reviewer", &["code-reviewer"], &["my-code-reviewer"]),
            (Claude, "mcp__memory", &["mcp__memory"], &["mcp__memory__create"]),
            (Claude, "Edit.*", &["Edit", "NotebookEdit"], &["Write"]),
            (Claude, "mcp__memory__.*", &["mcp__memory__create"], &["mcp__memory", "mcp__other__create"]),
            (Claude, "^Write$", &["Write"], &["WriteFile", "NotebookWrite"]),
            (Claude, r"mcp__.*\/x", &["mcp__a/x"], &["mcp__a"]),
            (ClaudeNarrow, "Edit|Write", &["Write"], &["MyWrite"]),
            (ClaudeNarrow, "code-reviewer", &["code-reviewer", "my-code-reviewer"], &["code"]),
            (ClaudeNarrow, "a,b", &["xa,by"], &["a", "b"]),
            (Codex, "Bash", &["Bash"], &["BashOutput"]),
            (Codex, "Edit|Write", &["Edit", "Write"], &["MultiEdit"]),
            (Codex, "Edit, Write", &["Edit, Write", "xEdit, Writey"], &["Edit", "Write"]),
            (Codex, "code-reviewer", &["code-reviewer", "my-code-reviewer"], &["code"]),
            (Codex, "^Bash$", &["Bash"], &["BashOutput"]),
            (GeminiTool, "shell", &["run_shell_command"], &["read_file"]),
            (GeminiTool, "^write_file$", &["write_file"], &["write_file2"]),
            (GeminiTool, "[", &["["], &["a[b", ""]),
            (GeminiTool, "read(", &["read("], &["read(x"]),
            (GeminiExact, "startup", &["startup"], &["startup2", "Startup"]),
            (GeminiExact, "start.*", &["start.*"], &["startup"]),
            (GeminiExact, "a|b", &["a|b"], &["a"]),
        ];
        for &(flavor, pattern, yes, no) in cases {
            let m = compiled(flavor, pattern);
            assert_eq!(m.pattern(), pattern);
            for value in yes {
                assert!(m.matches(value), "{flavor:?} `{pattern}` should match `{value}`");
            }
            for value in no {
                assert!(!m.matches(value), "{flavor:?} `{pattern}` should not match `{value}`");
            }
        }
    }

    #[test]
    fn javascript_only_regex_syntax_is_a_load_error_that_says_why() {
        for flavor in [Claude, ClaudeNarrow, Codex, GeminiTool] {
            for pattern in ["^(?!Bash).*", "Edit(?=Foo)", "(?<=mcp__)x", "(?<!a)b", r"(a)\1", r"(?<n>a)\k<n>"] {
                let message = compile_error(flavor, pattern);
                assert!(message.contains("not supported") && message.contains("look-around"), "{message}");
                assert!(message.contains("Edit|Write") && message.contains(pattern), "{message}");
            }
        }
        // An escaped backslash before a digit is no backreference; `(?<name>` is no look-behind.
        assert!(compiled(Claude, r"a\\1").matches(r"a\1"));
        assert!(compiled(Claude, "(?<tool>Edit)").matches("Edit"));
    }

    #[test]
    fn invalid_huge_and_empty_matchers_are_load_errors() {
        for flavor in [Claude, ClaudeNarrow, Codex] {
            let message = compile_error(flavor, "Edit[");
            assert!(message.contains("not a valid regex") && !message.contains('\n'), "{message}");
            for pattern in ["|", "||"] {
                assert!(compile_error(flavor, pattern).contains("names nothing"), "{flavor:?} `{pattern}`");
            }
        }
        assert!(compile_error(Claude, " , ").contains("names nothing"));
        for flavor in [Claude, Codex, GeminiTool] {
            assert!(compile_error(flavor, r"(\w{200}){200}").contains("larger than 1 MiB"), "{flavor:?}");
        }
    }

    #[test]
    fn malformed_if_rules_are_rejected() {
        for text in ["", " ", "Bash(git *", "Bash git *)", "Bash(git (x)", "Bash(a))", "Bash(git *) && Edit"] {
            let message = IfRule::parse(text).err().unwrap_or_else(|| panic!("`{text}` parsed")).message;
            assert!(message.contains("Bash(git *)") && message.contains(text), "{message}");
        }
        for text in ["Bash && Edit", "Edit|Write", "Edit, Write", "(git *)", "*", "Bash(x)y", "WebFetch(domain:)"] {
            assert!(IfRule::parse(text).is_err(), "`{text}` parsed");
        }
        assert_eq!(IfRule::parse(" Bash(git *) ").unwrap().rule(), " Bash(git *) ");
    }

    #[test]
    fn if_rule_table() {
        // (rule, tool, the `tool_input` member set, values that match, values that do not)
        type Case = (&'static str, &'static str, &'static str, &'static [&'static str], &'static [&'static str]);
        let cases: &[Case] = &[
            ("Bash(*)", "Bash", "command", &["anything"], &[]),
            ("Bash()", "Bash", "command", &["anything"], &[]),
            ("Bash(git *)", "Bash", "command", &["git status", "git  push -f", "git", " git log\n"], &["gitx status"]),
            ("Bash(git *)", "Bash", "command", &["FOO=1 git push", "A='a b' B=\"c d\" C=$(x y) git push"], &[]),
            ("Bash(git *)", "Bash", "command", &["ls && git push", "ls || git push", "ls; git push"], &["echo git"]),
            ("Bash(git *)", "Bash", "command", &["ls | git apply", "ls\ngit push", "sleep 1 & git push"], &[]),
            ("Bash(git *)", "Bash", "command", &["echo $(git log)", "echo \"$(git log)\"", "echo `git log`"], &[]),
            ("Bash(git *)", "Bash", "command", &["(cd x && git push)", "timeout -s 9 10 git push"], &[]),
            ("Bash(git *)", "Bash", "command", &["nice -n 5 git push", "if git diff; then ls; fi"], &[]),
            ("Bash(git *)", "Bash", "command", &["echo 'unclosed", "echo $(git log"], &["echo 'x; git push'"]),
            ("Bash(git *)", "Bash", "command", &[], &["echo \"x && git push\"", "echo git\\;push"]),
            ("Bash(npm run test)", "Bash", "command", &["npm run test", "cd x && npm run test"], &["npm run test -w"]),
            ("Bash(npm:*)", "Bash", "command", &["npm install", "npm"], &["npmx install"]),
            ("Bash(git * main)", "Bash", "command", &["git merge main"], &["git merge dev"]),
            ("Bash(rm -rf \\*)", "Bash", "command", &["rm -rf *"], &["rm -rf x"]),
            ("Bash(python -c print\\(1\\))", "Bash", "command", &["python -c print(1)"], &[]),
            ("Edit(*.ts)", "Edit", "file_path", &["/a/b/c.ts", "c.ts", "/a.ts/b"], &["/a/b/c.tsx"]),
            ("Edit(*.ts)", "MultiEdit", "file_path", &["/a/x.ts"], &[]),
            ("Edit(src/**)", "Edit", "file_path", &["/project/src/a.ts", "/p/src/deep/er/a.ts", "src/a"], &[]),
            ("Edit(src/**)", "Edit", "file_path", &[], &["/project/lib/a.ts", "/project/mysrc/a.ts", "/p/src"]),
            ("Edit(src/*.ts)", "Edit", "file_path", &["/p/src/a.ts"], &["/p/src/x/a.ts"]),
            ("Edit(src/**/*.ts)", "Edit", "file_path", &["/p/src/a.ts", "/p/src/x/y/a.ts"], &["/p/src/x/a.js"]),
            ("Edit(/src/**)", "Edit", "file_path", &["/p/src/a.ts"], &["/p/lib/a.ts"]),
            ("Edit(./.env)", "Edit", "file_path", &["/p/.env"], &["/p/.env.local"]),
            ("Edit(node_modules)", "Edit", "file_path", &["/p/node_modules/x/y.js"], &["/p/node_modules2/y.js"]),
            ("Edit(src/)", "Edit", "file_path", &["/p/src/a.ts"], &["/p/src"]),
            ("Read(//etc/**)", "Read", "file_path", &["/etc/passwd"], &["/home/etc/passwd"]),
            ("Read(~/.ssh/*)", "Read", "file_path", &["/home/me/.ssh/id_rsa"], &["/home/me/.ssh/x/y"]),
            ("Write(?.md)", "Write", "file_path", &["/d/a.md"], &["/d/ab.md", "/d/.md"]),
            ("Write([ab].md)", "Write", "file_path", &["/d/[ab].md"], &["/d/a.md"]),
            ("NotebookEdit(*.ipynb)", "NotebookEdit", "notebook_path", &["/n/a.ipynb"], &["/n/a.py"]),
            ("WebFetch(domain:example.com)", "WebFetch", "url", &["https://example.com/x", "http://example.com"], &[]),
            ("WebFetch(domain:example.com)", "WebFetch", "url", &["https://u@API.example.com:8443/x"], &[]),
            ("WebFetch(domain:example.com)", "WebFetch", "url", &[], &["https://notexample.com/"]),
            ("WebFetch(domain:example.com)", "WebFetch", "url", &[], &["https://example.com.evil.io/"]),
            ("WebFetch(domain:example.com)", "WebFetch", "url", &[], &["https://evil.io/?example.com"]),
            ("WebFetch(https://x.io/*)", "WebFetch", "url", &["https://x.io/a/b"], &["https://y.io/a"]),
            ("Grep(/src/*)", "Grep", "path", &["/src/a/b"], &["/lib/a"]),
            ("Grep(TODO*)", "Grep", "pattern", &["TODO:"], &["FIXME"]),
            ("Glob(*.rs)", "Glob", "pattern", &["**/*.rs"], &["**/*.ts"]),
            ("WebSearch(rust *)", "WebSearch", "query", &["rust regex"], &["go regex"]),
            ("mcp__srv__*(SELECT *)", "mcp__srv__q", "query", &["SELECT 1"], &["DROP x"]),
            ("Task(review *)", "Task", "prompt", &["review this"], &["write this"]),
        ];
        for &(text, tool, key, yes, no) in cases {
            let rule = IfRule::parse(text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
            for value in yes {
                assert!(rule.matches(tool, &json!({ key: value })), "`{text}` should match {tool} {key}={value:?}");
            }
            for value in no {
                assert!(
                    !rule.matches(tool, &json!({ key: value })),
                    "`{text}` should not match {tool} {key}={value:?}"
                );
            }
        }
        // (rule, tool, tool_input, expected): tool names and missing members.
        let cases = [
            ("Read", "Read", json!({}), true),
            ("Read", "ReadFile", json!({}), false),
            ("mcp__srv__tool", "mcp__srv__tool2", json!({}), false),
            ("mcp__srv__*", "mcp__srv__query", json!({}), true),
            ("mcp__srv__*", "mcp__other__query", json!({}), false),
            ("Bash(git *)", "Edit", json!({ "command": "git x" }), false),
            ("Edit(*.ts)", "Write", json!({ "file_path": "/a/x.ts" }), false),
            ("Bash(git *)", "Bash", json!({}), false),
            ("Task(review *)", "Task", json!({ "other": "review this", "prompt": 1 }), false),
            ("Grep(/src/*)", "Grep", json!({ "pattern": "/src/x", "path": "/lib" }), false),
        ];
        for (text, tool, input, expected) in cases {
            assert_eq!(IfRule::parse(text).unwrap().matches(tool, &input), expected, "`{text}` on {tool} {input}");
        }
    }

    /// Commands written to slip past `Bash(rm *)` the way an attacker (or a model) would: quoted or
    /// escaped program names, a path, a wrapper, a nested shell, a substitution, a variable.
    #[test]
    fn bash_rules_see_through_quoting_wrappers_and_nested_shells() {
        let rule = IfRule::parse("Bash(rm *)").unwrap();
        let runs = |command: &str| rule.matches("Bash", &json!({ "command": command }));
        for command in [
            "'rm' -rf x",
            "\"rm\" -rf x",
            "r\\m -rf x",
            "r\"\"m -rf x",
            "r''m -rf x",
            "\\rm -rf x",
            "/bin/rm -rf x",
            "./rm -rf x",
            "sudo rm -rf x",
            "sudo -u root rm -rf x",
            "sudo -E FOO=1 rm -rf x",
            "doas rm -rf x",
            "env rm -rf x",
            "env -i PATH=/bin rm -rf x",
            "env -S 'rm -rf x'",
            "command rm -rf x",
            "exec rm -rf x",
            "nice -n 5 rm -rf x",
            "timeout -s KILL 10 rm -rf x",
            "stdbuf -o L rm -rf x",
            "echo x | xargs rm -rf",
            "echo x | xargs -n 1 -I {} rm -rf {}",
            "bash -c \"rm -rf x\"",
            "sh -c 'rm -rf x'",
            "/bin/bash -lc 'cd /; rm -rf x'",
            "bash -c \"bash -c 'rm -rf x'\"",
            "sudo sh -c 'timeout 5 /usr/bin/rm -rf x'",
            "echo $(rm -rf x)",
            "echo \"$(r'm' -rf x)\"",
            "cat <(rm -rf x)",
            "eval 'rm -rf x'",
            "eval \"$CMD\"",
            "find . -name x -exec rm -rf {} \\;",
            "X=rm; $X -rf x",
            "$(echo rm) -rf x",
            "echo rm -rf x | sh",
            "bash <<< 'rm -rf x'",
            "sh -c \"$SCRIPT\"",
            "function f { rm -rf x; }; f",
            "if true; then rm -rf x; fi",
        ] {
            assert!(runs(command), "`Bash(rm *)` should match {command:?}");
        }
        for command in ["echo rm -rf x", "echo 'x; rm -rf x'", "ls rm", "rmdir x", "sh script.sh", "firm -rf"] {
            assert!(!runs(command), "`Bash(rm *)` should not match {command:?}");
        }
        // A pattern written with quotes still matches the command as written.
        let quoted = IfRule::parse("Bash(git commit -m \"wip\")").unwrap();
        assert!(quoted.matches("Bash", &json!({ "command": "git commit -m \"wip\"" })));
        assert!(quoted.matches("Bash", &json!({ "command": "ls && git commit -m \"wip\"" })));
        // The normalized words do not make a prefix rule swallow a longer program name.
        let git = IfRule::parse("Bash(git status)").unwrap();
        assert!(git.matches("Bash", &json!({ "command": "'git' \"status\"" })));
        assert!(!git.matches("Bash", &json!({ "command": "git status --porcelain" })));
    }

    #[test]
    fn unreadable_or_too_deep_commands_match() {
        let deep = format!("{}x{}", "$(".repeat(40), ")".repeat(40));
        for command in [deep.as_str(), "echo \"x", "echo `x", "echo $(git log", "echo ${x"] {
            assert!(bash_matches("git *", command), "{command:?}");
        }
        assert!(!bash_matches("git *", &format!("{}x{}", "echo $(".repeat(10), ")".repeat(10))));
        assert!(bash_matches("git *", &format!("{}git{}", "echo $(".repeat(10), ")".repeat(10))));
        assert!(bash_matches("git *", &format!("{}x{}", "echo $(".repeat(40), ")".repeat(40))));
    }
}
