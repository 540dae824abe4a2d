//! Matchers of the Claude Code family's hook configurations (Claude Code, Gemini CLI, Codex),
//! applied as each agent applies them, and Claude Code's per-handler `if` permission rules.
//!
//! Every pattern is compiled at load time: a pattern that does not compile is a [`MatcherError`],
//! never a silently skipped group, because a typo must never switch a guard off.

use regex::{Regex, RegexBuilder};
use serde_json::Value;

/// Largest compiled regex accepted, so that a pathological matcher cannot eat the memory.
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// Deepest `$(...)`/backtick nesting followed before an `if` rule gives up (and matches).
const MAX_SUBSTITUTION_DEPTH: usize = 16;
/// Members of `tool_input` tried, in order, by an `if` pattern on a tool without its own rule.
const GENERIC_KEYS: [&str; 7] = ["command", "file_path", "path", "url", "pattern", "query", "prompt"];
/// Words skipped at the head of a simple command: shell keywords and process wrappers.
const PREFIX_WORDS: [&str; 13] =
    ["!", "{", "if", "then", "else", "elif", "do", "while", "until", "time", "nohup", "exec", "command"];

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

/// How a compiled matcher tests a value.
#[derive(Debug, Clone)]
enum Test {
    /// Everything matches.
    All,
    /// The value must equal one of the names.
    Names(Vec<String>),
    /// The regex must match somewhere in the value (`RegExp.test`, unanchored).
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
                MatcherFlavor::Claude => {
                    names_or_regex(text, |c| c.is_ascii_alphanumeric() || matches!(c, '_' | ' ' | ',' | '|' | '-'))?
                }
                MatcherFlavor::ClaudeNarrow | MatcherFlavor::Codex => {
                    names_or_regex(text, |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '|'))?
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
        (Some(what), _) => (
            true,
            format!(
                "uses {what}, which is not supported (hookwire's regex engine has no look-around `(?=`, `(?!`, \
             `(?<=`, `(?<!` and no backreferences like `\\1`); {fix}, or a plain regex like `^mcp__memory__`"
            ),
        ),
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
        if tool.is_empty() {
            return Err(bad("names no tool"));
        }
        if !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(bad(&format!("has `{name}` where a tool name belongs")));
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
        let Some(arg) = &self.argument else { return tool_matches };
        let field = |key: &str| tool_input.get(key).and_then(Value::as_str);
        tool_matches
            && match (self.tool_prefix, self.tool.as_str()) {
                (false, "Bash") => field("command").is_some_and(|command| bash_matches(arg, command)),
                (false, "Read" | "Edit" | "Write") => field("file_path").is_some_and(|path| path_matches(arg, path)),
                (false, "NotebookEdit") => {
                    field("notebook_path").or_else(|| field("file_path")).is_some_and(|path| path_matches(arg, path))
                }
                (false, "WebFetch") if domain_of(arg).is_some() => {
                    field("url").is_some_and(|url| domain_matches(domain_of(arg).unwrap_or_default(), url))
                }
                (false, "Glob" | "Grep") => {
                    field("path").or_else(|| field("pattern")).is_some_and(|value| wildcard(arg, value))
                }
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

/// The domain of a `domain:example.com` pattern, lowercased, without a leading `*.` or trailing dot.
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

/// Whether a Bash `if` pattern matches the command or any of its simple commands. Fails open
/// (matches) when the command does not parse.
fn bash_matches(pattern: &str, command: &str) -> bool {
    let mut candidates = vec![command.trim().to_owned()];
    if simple_commands(command, 0, &mut candidates).is_none() {
        return true;
    }
    // `git *` also matches a bare `git`, as in Claude Code (`^git( .*)?$`).
    let bare = pattern.strip_suffix(" *");
    candidates.iter().any(|c| wildcard(pattern, c) || bare.is_some_and(|head| wildcard(head, c)))
}

/// Appends the simple commands of `command` (split on `&&`, `||`, `;`, `|`, `&` and newlines outside
/// quotes, plus those inside `$(...)` and backticks) to `out`, each at every stage of stripping its
/// leading assignments, keywords and wrappers. None when a quote or substitution does not close.
fn simple_commands(command: &str, depth: usize, out: &mut Vec<String>) -> Option<()> {
    if depth > MAX_SUBSTITUTION_DEPTH {
        return None;
    }
    let chars: Vec<char> = command.chars().collect();
    let mut current = String::new();
    let (mut single, mut double) = (false, false);
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        i += 1;
        if single {
            single = c != '\'';
            current.push(c);
            continue;
        }
        match c {
            '\\' => {
                current.push(c);
                if let Some(escaped) = next {
                    current.push(escaped);
                    i += 1;
                }
            }
            '\'' if !double => {
                single = true;
                current.push(c);
            }
            '"' => {
                double = !double;
                current.push(c);
            }
            '$' | '`' if c == '`' || next == Some('(') => {
                let (open, end) =
                    if c == '`' { (i, closing_backtick(&chars, i)?) } else { (i + 1, closing_paren(&chars, i)?) };
                simple_commands(&chars.get(open..end)?.iter().collect::<String>(), depth + 1, out)?;
                current.extend(chars.get(i - 1..=end)?);
                i = end + 1;
            }
            ';' | '\n' | '|' if !double => {
                push_stages(&std::mem::take(&mut current), out);
                if c == '|' && matches!(next, Some('|' | '&')) {
                    i += 1;
                }
            }
            // `&` separates, except in the redirections `2>&1`, `<&3` and `&>file`.
            '&' if !double && !current.ends_with(['>', '<']) && next != Some('>') => {
                push_stages(&std::mem::take(&mut current), out);
                if next == Some('&') {
                    i += 1;
                }
            }
            _ => current.push(c),
        }
    }
    if single || double {
        return None;
    }
    push_stages(&current, out);
    Some(())
}

/// The index of the `)` closing the `(` at `open`, skipping quoted text.
fn closing_paren(chars: &[char], open: usize) -> Option<usize> {
    let (mut depth, mut single, mut double) = (0usize, false, false);
    let mut k = open;
    while let Some(&c) = chars.get(k) {
        if single {
            single = c != '\'';
        } else {
            match c {
                '\\' => k += 1,
                '\'' if !double => single = true,
                '"' => double = !double,
                '(' if !double => depth += 1,
                ')' if !double && depth <= 1 => return Some(k),
                ')' if !double => depth -= 1,
                _ => {}
            }
        }
        k += 1;
    }
    None
}

/// The index of the unescaped backtick closing a substitution whose text starts at `start`.
fn closing_backtick(chars: &[char], start: usize) -> Option<usize> {
    let mut k = start;
    while let Some(&c) = chars.get(k) {
        match c {
            '\\' => k += 1,
            '`' => return Some(k),
            _ => {}
        }
        k += 1;
    }
    None
}

/// Appends `command` trimmed, then each stage of stripping its leading `VAR=value` assignments,
/// subshell parentheses, shell keywords and wrappers (`nohup`, `time`, `nice`, `timeout -s 9 10`).
fn push_stages(command: &str, out: &mut Vec<String>) {
    let (mut rest, mut opened) = (command.trim(), 0);
    loop {
        if !rest.is_empty() {
            out.push(rest.to_owned());
        }
        let (word, mut after) = split_word(rest);
        if let Some(inner) = rest.strip_prefix('(') {
            (rest, opened) = (inner.trim_start(), opened + 1);
        } else if let Some(len) = assignment_len(rest) {
            rest = rest.get(len..).unwrap_or_default().trim_start();
        } else if PREFIX_WORDS.contains(&word) && !after.is_empty() {
            rest = after;
        } else if matches!(word, "timeout" | "nice") && !after.is_empty() {
            while let (option, value) = split_word(after)
                && option.starts_with('-')
            {
                after = if matches!(option, "-n" | "-s" | "-k") { split_word(value).1 } else { value };
            }
            rest = if word == "timeout" { split_word(after).1 } else { after }; // timeout: skip the duration
        } else {
            break;
        }
    }
    for _ in 0..opened {
        rest = rest.strip_suffix(')').unwrap_or(rest).trim_end();
    }
    if opened > 0 && !rest.is_empty() {
        out.push(rest.to_owned());
    }
}

/// The first whitespace-separated word of `text`, and the rest with leading whitespace trimmed.
fn split_word(text: &str) -> (&str, &str) {
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    (&text[..end], text[end..].trim_start())
}

/// The byte length of a leading `NAME=value` assignment (value quoted or not), if `text` starts with one.
fn assignment_len(text: &str) -> Option<usize> {
    let equals = text.find('=')?;
    let name = &text[..equals];
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    let (mut single, mut double, mut depth, mut escaped) = (false, false, 0usize, false);
    for (index, c) in text.char_indices().skip(equals + 1) {
        match c {
            _ if escaped => escaped = false,
            '\'' if !double => single = !single,
            _ if single => {}
            '\\' => escaped = true,
            '"' => double = !double,
            '(' if !double => depth += 1,
            ')' if !double => depth = depth.saturating_sub(1),
            _ if c.is_whitespace() && !double && depth == 0 => return Some(index),
            _ => {}
        }
    }
    (!single && !double).then_some(text.len())
}

/// One element of a compiled glob.
#[derive(Debug, Clone, PartialEq)]
enum Glob {
    /// This character.
    Char(char),
    /// `?`: one character but `/`.
    One,
    /// `*` in a path: any run of characters without `/`.
    Star,
    /// `**` in a path, or `*` in a command: any run of characters.
    Any,
    /// `**/` in a path: nothing, or any run ending with `/` (zero or more directories).
    Dirs,
}

/// Whether the `*`-glob `pattern` (`*` = any characters, `\*` = a star) matches all of `text`.
fn wildcard(pattern: &str, text: &str) -> bool {
    let mut tokens = Vec::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        tokens.push(match c {
            '*' => Glob::Any,
            '\\' if matches!(chars.peek(), Some('*' | '\\')) => Glob::Char(chars.next().unwrap_or(c)),
            _ => Glob::Char(c),
        });
    }
    glob_match(&tokens, &text.chars().collect::<Vec<_>>())
}

/// Compiles a gitignore-style path glob: `*`, `**`, `**/`, `?`, `\` escapes (`[` is literal).
fn path_glob(pattern: &str) -> Vec<Glob> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        tokens.push(match c {
            '*' if chars.get(i) == Some(&'*') && chars.get(i + 1) == Some(&'/') => {
                i += 2;
                Glob::Dirs
            }
            '*' if chars.get(i) == Some(&'*') => {
                while chars.get(i) == Some(&'*') {
                    i += 1;
                }
                Glob::Any
            }
            '*' => Glob::Star,
            '?' => Glob::One,
            '\\' => {
                i += 1;
                Glob::Char(chars.get(i - 1).copied().unwrap_or('\\'))
            }
            _ => Glob::Char(c),
        });
    }
    tokens
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
        return glob_match(&path_glob(&format!("/{absolute}")), &path);
    }
    // `/x` (relative to the settings file), `~/x` and `./x`: the root is unknown here, so they match
    // wherever the path ends with them; matching too much only runs a handler, never skips a guard.
    let relative = ["~/", "./", "/"].iter().find_map(|root| pattern.strip_prefix(root)).unwrap_or(pattern);
    let relative = if relative.ends_with('/') { format!("{relative}**") } else { relative.to_owned() };
    let tokens = path_glob(&relative);
    if !relative.contains('/') {
        // No `/`: any one component (the basename, or a directory holding the file).
        return path.split(|&c| c == '/').any(|component| glob_match(&tokens, component));
    }
    let mut starts = std::iter::once(0).chain(path.iter().enumerate().filter(|(_, c)| **c == '/').map(|(i, _)| i + 1));
    starts.any(|start| path.get(start..).is_some_and(|tail| glob_match(&tokens, tail)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use MatcherFlavor::{Claude, ClaudeNarrow, Codex, GeminiExact, GeminiTool};

    fn compiled(flavor: MatcherFlavor, pattern: &str) -> Matcher {
        Matcher::compile(flavor, Some(pattern)).unwrap_or_else(|e| panic!("{flavor:?} `{pattern}`: {e}"))
    }

    fn compile_error(flavor: MatcherFlavor, pattern: &str) -> String {
        match Matcher::compile(flavor, Some(pattern)) {
            Ok(m) => panic!("{flavor:?} `{pattern}` compiled: {m:?}"),
            Err(e) => e.message,
        }
    }

    #[test]
    fn every_flavor_matches_all_on_empty_star_or_absent() {
        for flavor in [Claude, ClaudeNarrow, GeminiTool, GeminiExact, Codex] {
            for pattern in [None, Some(""), Some("*")] {
                let m = Matcher::compile(flavor, pattern).unwrap();
                assert!(m.is_match_all(), "{flavor:?} {pattern:?}");
                assert!(m.matches("Bash") && m.matches("") && m.matches("mcp__x__y"), "{flavor:?} {pattern:?}");
                assert_eq!(m.pattern(), pattern.unwrap_or(""));
            }
            assert!(!compiled(flavor, "Bash").is_match_all(), "{flavor:?}");
        }
    }

    #[test]
    fn matcher_table() {
        let cases: &[(MatcherFlavor, &str, &str, bool)] = &[
            // Exact names and lists.
            (Claude, "Bash", "Bash", true),
            (Claude, "Bash", "BashOutput", false),
            (Claude, "Bash", "bash", false),
            (Claude, "Edit|Write", "Write", true),
            (Claude, "Edit|Write", "NotebookEdit", false),
            (Claude, "Edit, Write", "Write", true),
            (Claude, "Edit, Write", "Edit, Write", false),
            (Claude, " Edit | Write ,", "Edit", true),
            (Claude, "Task|MultiEdit|Write", "MultiEdit", true),
            (Claude, "code-reviewer", "code-reviewer", true),
            (Claude, "code-reviewer", "my-code-reviewer", false),
            (Claude, "mcp__memory", "mcp__memory", true),
            (Claude, "mcp__memory", "mcp__memory__create", false),
            (Claude, "startup", "startup", true),
            (Claude, "startup", "resume", false),
            // Regexes, unanchored.
            (Claude, "Edit.*", "NotebookEdit", true),
            (Claude, "Edit.*", "Write", false),
            (Claude, "mcp__memory__.*", "mcp__memory__create", true),
            (Claude, "mcp__memory__.*", "mcp__memory", false),
            (Claude, "^Write$", "Write", true),
            (Claude, "^Write$", "WriteFile", false),
            (Claude, "Write$", "NotebookWrite", true),
            (Claude, r"mcp__.*\/x", "mcp__a/x", true),
            // Narrow exact set: hyphen and comma go down the regex path.
            (ClaudeNarrow, "Edit|Write", "Write", true),
            (ClaudeNarrow, "Edit|Write", "MyWrite", false),
            (ClaudeNarrow, "code-reviewer", "my-code-reviewer", true),
            (ClaudeNarrow, "a,b", "a", false),
            (ClaudeNarrow, "a,b", "xa,by", true),
            // Codex.
            (Codex, "Bash", "Bash", true),
            (Codex, "Bash", "BashOutput", false),
            (Codex, "Edit|Write", "Edit", true),
            (Codex, "Edit, Write", "Edit", false),
            (Codex, "Edit, Write", "Edit, Write", true),
            (Codex, "Edit, Write", "xEdit, Writey", true),
            (Codex, "code-reviewer", "code-reviewer", true),
            (Codex, "code-reviewer", "my-code-reviewer", true),
            (Codex, "^Bash$", "Bash", true),
            (Codex, "Ba.h", "xBashy", true),
            // Gemini CLI.
            (GeminiTool, "run_shell_command", "run_shell_command", true),
            (GeminiTool, "shell", "run_shell_command", true),
            (GeminiTool, "^write_file$", "write_file", true),
            (GeminiTool, "^write_file$", "write_file2", false),
            (GeminiTool, "[", "[", true),
            (GeminiTool, "[", "a[b", false),
            (GeminiTool, "read(", "read(", true),
            (GeminiExact, "startup", "startup", true),
            (GeminiExact, "start.*", "startup", false),
            (GeminiExact, "start.*", "start.*", true),
            (GeminiExact, "a|b", "a", false),
        ];
        for &(flavor, pattern, value, expected) in cases {
            let m = compiled(flavor, pattern);
            assert_eq!(m.matches(value), expected, "{flavor:?} `{pattern}` on `{value}`");
            assert_eq!(m.pattern(), pattern);
            assert!(!m.is_match_all());
        }
    }

    #[test]
    fn javascript_only_regex_syntax_is_a_load_error_that_says_why() {
        for flavor in [Claude, ClaudeNarrow, Codex, GeminiTool] {
            for pattern in ["^(?!Bash).*", "Edit(?=Foo)", "(?<=mcp__)x", "(?<!a)b", r"(a)\1", r"(?<n>a)\k<n>"] {
                let message = compile_error(flavor, pattern);
                assert!(message.contains("not support") && message.contains("look-around"), "{message}");
                assert!(message.contains("Edit|Write") && message.contains(pattern), "{message}");
            }
        }
        // An escaped backslash before a digit is no backreference; `(?<name>` is no look-behind.
        assert!(compiled(Claude, r"a\\1").matches(r"a\1"));
        assert!(compiled(Claude, "(?<tool>Edit)").matches("Edit"));
    }

    #[test]
    fn invalid_and_huge_regexes_are_load_errors() {
        for flavor in [Claude, ClaudeNarrow, Codex] {
            let message = compile_error(flavor, "Edit[");
            assert!(message.contains("not a valid regex") && message.contains("Edit["), "{message}");
            assert!(!message.contains('\n'), "{message}");
        }
        for flavor in [Claude, Codex, GeminiTool] {
            let message = compile_error(flavor, r"(\w{200}){200}");
            assert!(message.contains("larger than 1 MiB"), "{message}");
        }
        for flavor in [Claude, ClaudeNarrow, Codex] {
            for pattern in ["|", " , ", "||"] {
                if flavor != Claude && pattern.contains(' ') {
                    continue;
                }
                assert!(compile_error(flavor, pattern).contains("names nothing"), "{flavor:?} `{pattern}`");
            }
        }
    }

    fn rule(text: &str) -> IfRule {
        IfRule::parse(text).unwrap_or_else(|e| panic!("`{text}`: {e}"))
    }

    #[test]
    fn malformed_if_rules_are_rejected() {
        for text in [
            "",
            "  ",
            "Bash(git *",
            "Bash git *)",
            "Bash(git (x)",
            "Bash(a))",
            "Bash(git *) && Edit",
            "Bash && Edit",
            "Edit|Write",
            "Edit, Write",
            "(git *)",
            "*",
            "Bash(x)y",
        ] {
            let error = IfRule::parse(text).err().unwrap_or_else(|| panic!("`{text}` parsed"));
            assert!(error.message.contains("Bash(git *)"), "{error}");
        }
        assert!(IfRule::parse("WebFetch(domain:)").is_err());
        assert_eq!(rule(" Bash(git *) ").rule(), " Bash(git *) ");
    }

    #[test]
    fn if_rule_table() {
        let bash = |command: &str| ("Bash", json!({ "command": command }));
        let edit = |path: &str| ("Edit", json!({ "file_path": path }));
        let cases: Vec<(&str, (&str, Value), bool)> = vec![
            // Tool names.
            ("Read", ("Read", json!({})), true),
            ("Read", ("ReadFile", json!({})), false),
            ("Bash(*)", bash("anything"), true),
            ("Bash()", bash("anything"), true),
            ("mcp__srv__tool", ("mcp__srv__tool", json!({})), true),
            ("mcp__srv__tool", ("mcp__srv__tool2", json!({})), false),
            ("mcp__srv__*", ("mcp__srv__query", json!({})), true),
            ("mcp__srv__*", ("mcp__other__query", json!({})), false),
            ("Bash(git *)", edit("git x"), false),
            // Bash: command prefix / glob over every simple command.
            ("Bash(git *)", bash("git status"), true),
            ("Bash(git *)", bash("git  push -f"), true),
            ("Bash(git *)", bash("git"), true),
            ("Bash(git *)", bash("gitx status"), false),
            ("Bash(git *)", bash("FOO=1 git push"), true),
            ("Bash(git *)", bash("FOO='a b' BAR=\"c d\" git push"), true),
            ("Bash(git *)", bash("ls && git push"), true),
            ("Bash(git *)", bash("ls || git push"), true),
            ("Bash(git *)", bash("ls; git push"), true),
            ("Bash(git *)", bash("ls | git apply"), true),
            ("Bash(git *)", bash("ls\ngit push"), true),
            ("Bash(git *)", bash("sleep 1 & git push"), true),
            ("Bash(git *)", bash("echo $(git log)"), true),
            ("Bash(git *)", bash("echo \"$(git log)\""), true),
            ("Bash(git *)", bash("echo `git log`"), true),
            ("Bash(git *)", bash("(cd x && git push)"), true),
            ("Bash(git *)", bash("timeout 10 git push"), true),
            ("Bash(git *)", bash("nice -n 5 git push"), true),
            ("Bash(git *)", bash("echo 'x; git push'"), false),
            ("Bash(git *)", bash("echo \"x && git push\""), false),
            ("Bash(git *)", bash("echo git"), false),
            ("Bash(git *)", bash("echo 'unclosed"), true),
            ("Bash(git *)", bash("echo $(git log"), true),
            ("Bash(git *)", ("Bash", json!({})), false),
            ("Bash(npm run test)", bash("npm run test"), true),
            ("Bash(npm run test)", bash("npm run test --watch"), false),
            ("Bash(npm:*)", bash("npm install"), true),
            ("Bash(npm:*)", bash("npm"), true),
            ("Bash(npm:*)", bash("npmx install"), false),
            ("Bash(git * main)", bash("git merge main"), true),
            ("Bash(git * main)", bash("git merge dev"), false),
            ("Bash(rm -rf \\*)", bash("rm -rf *"), true),
            ("Bash(rm -rf \\*)", bash("rm -rf x"), false),
            ("Bash(python -c print\\(1\\))", bash("python -c print(1)"), true),
            // File globs.
            ("Edit(*.ts)", edit("/a/b/c.ts"), true),
            ("Edit(*.ts)", edit("c.ts"), true),
            ("Edit(*.ts)", edit("/a/b/c.tsx"), false),
            ("Edit(*.ts)", ("MultiEdit", json!({ "file_path": "/a/x.ts" })), true),
            ("Edit(*.ts)", ("Write", json!({ "file_path": "/a/x.ts" })), false),
            ("Edit(src/**)", edit("/project/src/a.ts"), true),
            ("Edit(src/**)", edit("/project/src/deep/er/a.ts"), true),
            ("Edit(src/**)", edit("/project/lib/a.ts"), false),
            ("Edit(src/**)", edit("/project/mysrc/a.ts"), false),
            ("Edit(src/*.ts)", edit("/p/src/a.ts"), true),
            ("Edit(src/*.ts)", edit("/p/src/x/a.ts"), false),
            ("Edit(src/**/*.ts)", edit("/p/src/a.ts"), true),
            ("Edit(src/**/*.ts)", edit("/p/src/x/y/a.ts"), true),
            ("Edit(src/**/*.ts)", edit("/p/src/x/a.js"), false),
            ("Edit(/src/**)", edit("/p/src/a.ts"), true),
            ("Edit(./.env)", edit("/p/.env"), true),
            ("Edit(.env)", edit("/p/.env.local"), false),
            ("Edit(node_modules)", edit("/p/node_modules/x/y.js"), true),
            ("Edit(src/)", edit("/p/src/a.ts"), true),
            ("Read(//etc/**)", ("Read", json!({ "file_path": "/etc/passwd" })), true),
            ("Read(//etc/**)", ("Read", json!({ "file_path": "/home/etc/passwd" })), false),
            ("Read(~/.ssh/*)", ("Read", json!({ "file_path": "/home/me/.ssh/id_rsa" })), true),
            ("Write(?.md)", ("Write", json!({ "file_path": "/d/a.md" })), true),
            ("Write(?.md)", ("Write", json!({ "file_path": "/d/ab.md" })), false),
            ("Write([ab].md)", ("Write", json!({ "file_path": "/d/b.md" })), true),
            ("Write([!ab].md)", ("Write", json!({ "file_path": "/d/b.md" })), false),
            ("Write([a-c].md)", ("Write", json!({ "file_path": "/d/c.md" })), true),
            ("NotebookEdit(*.ipynb)", ("NotebookEdit", json!({ "notebook_path": "/n/a.ipynb" })), true),
            ("NotebookEdit(*.ipynb)", ("NotebookEdit", json!({ "notebook_path": "/n/a.py" })), false),
            // WebFetch domains.
            ("WebFetch(domain:example.com)", ("WebFetch", json!({ "url": "https://example.com/x" })), true),
            ("WebFetch(domain:example.com)", ("WebFetch", json!({ "url": "https://API.example.com:8443/x" })), true),
            ("WebFetch(domain:example.com)", ("WebFetch", json!({ "url": "https://u@docs.example.com" })), true),
            ("WebFetch(domain:example.com)", ("WebFetch", json!({ "url": "https://notexample.com/" })), false),
            ("WebFetch(domain:example.com)", ("WebFetch", json!({ "url": "https://example.com.evil.io/" })), false),
            ("WebFetch(domain:example.com)", ("WebFetch", json!({ "url": "https://evil.io/?example.com" })), false),
            // Glob, Grep and any other tool.
            ("Grep(/src/*)", ("Grep", json!({ "pattern": "TODO", "path": "/src/a/b" })), true),
            ("Grep(TODO*)", ("Grep", json!({ "pattern": "TODO:" })), true),
            ("Glob(*.rs)", ("Glob", json!({ "pattern": "**/*.rs" })), true),
            ("Glob(*.rs)", ("Glob", json!({ "pattern": "**/*.ts" })), false),
            ("WebSearch(rust *)", ("WebSearch", json!({ "query": "rust regex" })), true),
            ("WebSearch(rust *)", ("WebSearch", json!({ "query": "go regex" })), false),
            ("mcp__srv__*(SELECT *)", ("mcp__srv__q", json!({ "query": "SELECT 1" })), true),
            ("Task(review *)", ("Task", json!({ "prompt": "review this", "n": 1 })), true),
            ("Task(review *)", ("Task", json!({ "other": "review this" })), false),
        ];
        for (text, (tool, input), expected) in cases {
            assert_eq!(rule(text).matches(tool, &input), expected, "`{text}` on {tool} {input}");
        }
    }

    #[test]
    fn simple_commands_split_outside_quotes_and_strip_prefixes() {
        let split = |command: &str| {
            let mut out = Vec::new();
            simple_commands(command, 0, &mut out).map(|()| out)
        };
        let s = |items: &[&str]| Some(items.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(split("git push 2>&1 | tee log &>/dev/null"), s(&["git push 2>&1", "tee log &>/dev/null"]));
        assert_eq!(split("a |& b && c"), s(&["a", "b", "c"]));
        assert_eq!(split("A=1 nohup x y"), s(&["A=1 nohup x y", "nohup x y", "x y"]));
        assert_eq!(split("echo \"$(git log) | x\""), s(&["git log", "echo \"$(git log) | x\""]));
        assert_eq!(split(r"echo a\;b"), s(&[r"echo a\;b"]));
        assert_eq!(split("echo \"x"), None);
        assert_eq!(split("echo `x"), None);
        let deep = format!("{}x{}", "$(".repeat(40), ")".repeat(40));
        assert_eq!(split(&deep), None);
        assert!(bash_matches("git *", &deep));
    }
}
