//! Rules compiled once at load (a file's regexes built, the packs' on first use, patterns split,
//! names checked), and their evaluation over one tool call.

use std::{
    borrow::Cow,
    cell::{OnceCell, RefCell},
    collections::HashMap,
    fmt,
    path::{Path, PathBuf},
    sync::OnceLock,
};

use hook_protocol::{
    Event, ToolClass,
    rules::{Mode, PackName, Rule, RuleDecision, RulesFile, Undetermined},
    serde_json::{Map, Value},
    tool::{AGENT_TOOLS, tool_class},
};
use regex::Regex;

use crate::{
    command::{
        SimpleCommand, after_home, basename, flags_and_operands, normalize_path, pattern_flags, simple_commands,
    },
    glob::{glob_match, glob_match_under},
    packs,
    when::{When, WhenInput},
};

/// A rule that cannot be compiled: the file refuses to load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rule `{rule}`: `{field}` {message}")]
pub struct RuleError {
    /// The rule's name.
    pub rule: String,
    /// The key holding the mistake.
    pub field: &'static str,
    /// The value as written, to find it in the file.
    pub value: String,
    /// What is wrong and what to write.
    pub message: String,
}

/// Where a rule comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A pack compiled into hookwire.
    Pack(PackName),
    /// A rules file's own `rules:` or `allow:`.
    File,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Pack(pack) => f.write_str(pack.as_str()),
            Origin::File => f.write_str("file"),
        }
    }
}

/// One glob of a rule's `path`: `!` excludes, `>` matches only a file a shell command's output
/// is redirected to (`echo x >> ~/.bashrc`, not `cat ~/.bashrc`).
#[derive(Debug, Clone)]
struct PathGlob {
    negated: bool,
    writes_only: bool,
    /// The glob as matched without a home directory (see [`expand_glob`]), built at load.
    anywhere: String,
    /// For a glob under `~`: what follows `~`, matched under the call's home directory.
    under_home: Option<String>,
}

impl PathGlob {
    fn new(negated: bool, writes_only: bool, glob: &str) -> PathGlob {
        let under_home = after_home(glob);
        PathGlob { negated, writes_only, anywhere: expand_glob(glob, None), under_home: under_home.map(str::to_owned) }
    }

    /// Whether the normalized absolute path `text` matches, `home` being the call's.
    fn matches(&self, text: &str, home: Option<&str>) -> bool {
        match (&self.under_home, home) {
            (Some(rest), Some(home)) => glob_match_under(home, rest, text),
            _ => glob_match(&self.anywhere, text),
        }
    }

    /// A path this glob matches, to try a shell glob or a searched directory against: the
    /// glob's wildcards made a plain name, and a glob that matches anywhere (`**/.env`) put in
    /// `dir`. `None` for an exclusion.
    fn example(&self, dir: &str, home: Option<&str>) -> Option<String> {
        if self.negated {
            return None;
        }
        let glob = match (&self.under_home, home) {
            (Some(rest), Some(home)) => format!("{home}{rest}"),
            _ => match self.anywhere.strip_prefix("**/") {
                // `**/.aws/credentials` in `/root/.aws` is `/root/.aws/credentials`.
                Some(rest) => match rest.rsplit_once('/') {
                    Some((parent, name)) if dir.ends_with(&format!("/{parent}")) => format!("{dir}/{name}"),
                    _ => format!("{dir}/{rest}"),
                },
                None => self.anywhere.clone(),
            },
        };
        Some(glob.replace("**", "x").replace(['*', '?'], "x"))
    }
}

/// One `command` pattern: program, leading operands and flags.
#[derive(Debug, Clone)]
struct CommandPattern {
    program: String,
    operands: Vec<String>,
    flags: Vec<String>,
}

/// A rule's regex. A file's own are built at load, where a bad one must refuse the file; the
/// packs' are built when a call first reaches them: building all of them is most of what
/// loading `recommended` costs (about 25 regexes, several with Unicode classes), every bridge
/// call is a fresh process, and most calls never reach one. The packs' regexes are tested to
/// build (`every_pack_regex_builds` below).
#[derive(Debug, Clone)]
struct Pattern {
    text: String,
    /// `None` inside: the regex does not build (never for a pack, see above).
    built: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// A pattern built now; an error for a bad regex.
    fn eager(text: &str) -> Result<Pattern, regex::Error> {
        let built = OnceLock::new();
        let _ = built.set(Some(Regex::new(text)?));
        Ok(Pattern { text: text.to_owned(), built })
    }

    /// A pattern built on first use.
    fn lazy(text: &str) -> Pattern {
        Pattern { text: text.to_owned(), built: OnceLock::new() }
    }

    /// Whether `text` matches. A regex that does not build matches everything: a guard that
    /// cannot read its own pattern fails closed.
    fn is_match(&self, text: &str) -> bool {
        let built = self.built.get_or_init(|| match Regex::new(&self.text) {
            Ok(regex) => Some(regex),
            Err(error) => {
                tracing::error!(pattern = %self.text, %error, "a guard rule's regex does not build; the rule matches everything");
                None
            }
        });
        built.as_ref().is_none_or(|regex| regex.is_match(text))
    }
}

/// A compiled rule.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    /// Where it comes from.
    pub origin: Origin,
    /// Its name.
    pub name: String,
    /// What a match decides.
    pub decision: RuleDecision,
    /// What the model is told.
    pub reason: Option<String>,
    /// A safer alternative.
    pub suggest: Option<String>,
    /// Whether it only records.
    pub shadow: bool,
    /// The policy for commands whose program is not known.
    pub undetermined: Undetermined,
    events: Vec<Event>,
    tools: Vec<String>,
    commands: Vec<CommandPattern>,
    args: Vec<String>,
    any_flags: Vec<String>,
    not_flags: Vec<String>,
    args_regex: Option<Pattern>,
    into: Vec<String>,
    paths: Vec<PathGlob>,
    content: Option<Pattern>,
    url: Option<Pattern>,
    when: Option<When>,
    /// A pack's rule that does not compile: it matches every call it is tried on.
    broken: bool,
}

impl CompiledRule {
    /// `pack/name` (or `name` for a file's own rule).
    pub fn label(&self) -> String {
        match self.origin {
            Origin::Pack(pack) => format!("{pack}/{}", self.name),
            Origin::File => self.name.clone(),
        }
    }

    /// Whether it has a `command` pattern.
    pub fn has_command(&self) -> bool {
        !self.commands.is_empty()
    }

    /// Compiles `rule`; `allow` forces its decision to `allow` (an entry of `allow:`).
    pub fn compile(rule: &Rule, origin: Origin, allow: bool, file: &RulesFile) -> Result<CompiledRule, RuleError> {
        let error = |field: &'static str, value: &str, message: String| RuleError {
            rule: rule.name.clone(),
            field,
            value: value.to_owned(),
            message,
        };
        let from_pack = matches!(origin, Origin::Pack(_));
        let regex = |field: &'static str, text: &Option<String>| -> Result<Option<Pattern>, RuleError> {
            text.as_deref()
                .map(|text| {
                    if from_pack {
                        Ok(Pattern::lazy(text))
                    } else {
                        Pattern::eager(text).map_err(|e| error(field, text, format!("is not a valid regex: {e}")))
                    }
                })
                .transpose()
        };
        let mut commands = Vec::new();
        for text in rule.command.iter().flat_map(|c| c.iter()) {
            // A pattern of plain words is its words; anything else is read by the parser.
            let words = match hook_shell::plain_words(text) {
                Some(words) => Ok(words),
                None => {
                    hook_shell::invocations(text).map(|all| all.into_iter().next().map(|i| i.words).unwrap_or_default())
                }
            };
            let words: Vec<String> = match words {
                Ok(words) => words,
                Err(e) => return Err(error("command", text, format!("does not parse: {e}"))),
            };
            let Some(program) = words.first() else {
                return Err(error("command", text, "is empty: write `program [operands] [flags]`".to_owned()));
            };
            let program = basename(program);
            let flags = pattern_flags(&program, &words[1..]);
            let operands = flags_and_operands(&program, &words[1..]).1;
            commands.push(CommandPattern { program, operands, flags });
        }
        let refinements = !rule.args.is_empty()
            || !rule.any_flags.is_empty()
            || !rule.not_flags.is_empty()
            || rule.args_regex.is_some()
            || !rule.into.is_empty();
        if refinements && commands.is_empty() {
            return Err(error(
                "command",
                &rule.name,
                "is missing: `args`, `any_flags`, `not_flags`, `args_regex` and `into` refine a `command` pattern"
                    .to_owned(),
            ));
        }
        let program = commands.first().map(|c| c.program.clone()).unwrap_or_default();
        let normalize_flags = |list: &[String]| -> Vec<String> {
            list.iter()
                .flat_map(|flag| {
                    // `d` and `delete` stand for `-d` and `--delete`.
                    let written = match flag.len() {
                        _ if flag.starts_with('-') => flag.clone(),
                        1 => format!("-{flag}"),
                        _ => format!("--{flag}"),
                    };
                    pattern_flags(&program, &[written])
                })
                .collect()
        };
        let paths = rule
            .path
            .iter()
            .flat_map(|p| p.iter())
            .map(|glob| {
                let (negated, glob) = glob.strip_prefix('!').map_or((false, glob), |g| (true, g));
                let (writes_only, glob) = glob.strip_prefix('>').map_or((false, glob), |g| (true, g));
                PathGlob::new(negated, writes_only, glob)
            })
            .collect();
        let when = rule
            .when
            .as_deref()
            .map(|text| {
                // The first line of the expression is what finds it in the file.
                let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or(text);
                When::compile(text).map_err(|e| error("when", first, e.to_string()))
            })
            .transpose()?;
        let decision = if allow { RuleDecision::Allow } else { rule.decision.unwrap_or(RuleDecision::Deny) };
        let mode = rule.mode.or(file.mode).unwrap_or(Mode::Enforce);
        Ok(CompiledRule {
            origin,
            name: rule.name.clone(),
            decision,
            reason: rule.reason.clone(),
            suggest: rule.suggest.clone(),
            shadow: mode == Mode::Shadow,
            undetermined: rule.undetermined.or(file.undetermined).unwrap_or(Undetermined::Ask),
            events: rule.effective_events().to_vec(),
            tools: rule.tools.iter().map(|t| t.as_str().to_owned()).collect(),
            args: rule.args.clone(),
            any_flags: normalize_flags(&rule.any_flags),
            not_flags: normalize_flags(&rule.not_flags),
            args_regex: regex("args_regex", &rule.args_regex)?,
            into: rule.into.clone(),
            commands,
            paths,
            content: regex("content", &rule.content)?,
            url: regex("url", &rule.url)?,
            when,
            broken: false,
        })
    }

    /// The stand-in for a pack's rule that does not compile (`error`): it denies every call
    /// `slot` applies to, saying why.
    fn broken(pack: PackName, name: &str, error: &str, slot: &Slot) -> CompiledRule {
        CompiledRule {
            origin: Origin::Pack(pack),
            name: name.to_owned(),
            decision: RuleDecision::Deny,
            reason: Some(format!(
                "the guard rule `{pack}/{name}` cannot be read ({error}), so the guard refuses what it would check; this is a defect of hookwire, please report it"
            )),
            suggest: None,
            shadow: false,
            undetermined: slot.undetermined,
            events: slot.events.clone(),
            tools: slot.tools.iter().map(|t| t.to_string()).collect(),
            commands: Vec::new(),
            args: Vec::new(),
            any_flags: Vec::new(),
            not_flags: Vec::new(),
            args_regex: None,
            into: Vec::new(),
            paths: Vec::new(),
            content: None,
            url: None,
            when: None,
            broken: true,
        }
    }

    /// The events it runs on.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Whether one simple command of `script` matches.
    fn matches_command(&self, command: &Prepared<'_>, script: &[SimpleCommand], call: &CallFacts<'_>) -> bool {
        if self.broken {
            return true;
        }
        if command.help {
            return false;
        }
        let words = command.command;
        let Some(pattern) = self.commands.iter().find(|p| {
            p.program == words.program
                && words.operands.len() >= p.operands.len()
                && p.operands.iter().zip(&words.operands).all(|(a, b)| a == b)
                && p.flags.iter().all(|f| words.flags.contains(f))
        }) else {
            return false;
        };
        if !self.any_flags.is_empty() && !self.any_flags.iter().any(|f| words.flags.contains(f)) {
            return false;
        }
        if self.not_flags.iter().any(|f| words.flags.contains(f)) {
            return false;
        }
        let first = pattern.operands.len();
        if !self.args.is_empty()
            && !words.operands[first..].iter().enumerate().any(|(k, arg)| {
                let matches = |glob: &str| arg_matches(glob, arg, || command.operand_path(first + k, call), call);
                // `!glob` excludes what the others match.
                self.args.iter().any(|glob| !glob.starts_with('!') && matches(glob))
                    && !self.args.iter().filter_map(|glob| glob.strip_prefix('!')).any(matches)
            })
        {
            return false;
        }
        if let Some(regex) = &self.args_regex
            && !regex.is_match(command.args())
        {
            return false;
        }
        if !self.paths.is_empty() {
            // A search's pattern is no file it reads (`grep .env .gitignore`).
            let first = (first + search_pattern_operands(words, first)).min(words.operands.len());
            let operands = &command.operand_paths(call)[first..];
            let reads = command.read_paths(call);
            let writes = command.write_paths(call);
            let written = command.written_paths(call);
            let home = call.home.as_deref();
            let searches = searches_directories(words);
            if !operands
                .iter()
                .chain(reads)
                .chain(writes)
                .any(|t| self.path_matches(t, home, false) || self.under_directory_matches(t, home, searches))
                && !writes.iter().chain(written).any(|t| self.path_matches(t, home, true))
                // The operands from `first` on, then the input redirections.
                && !command.shell_globs(call)[first..].iter().flatten().any(|t| self.shell_glob_matches(t, home))
            {
                return false;
            }
        }
        if !self.into.is_empty() && !script.iter().any(|other| runs_unseen_code(other, &self.into)) {
            return false;
        }
        true
    }

    /// Whether `path` matches the rule's globs and none of its exclusions. A shell command's
    /// operands are matched against the globs without `>` (`written` false), the files its output
    /// is redirected to and the operands it writes (the destination of `cp`, see
    /// [`SimpleCommand::written`]) against the `>` globs too (`written` true); a file tool's paths are
    /// what it writes or reads, matched against every glob.
    fn path_matches(&self, text: &str, home: Option<&str>, written: bool) -> bool {
        let applies = |glob: &&PathGlob| written || !glob.writes_only;
        self.paths.iter().filter(applies).any(|g| !g.negated && g.matches(text, home))
            && !self.paths.iter().any(|g| g.negated && g.matches(text, home))
    }

    /// Whether `text`, an operand holding a wildcard the shell expands (`.env*`, `~/.aws/*`),
    /// can name a file the rule's globs match: one of their examples (see [`PathGlob::example`])
    /// that the wildcard matches, and the globs without their exclusions. Like the shell, a
    /// leading wildcard does not name a hidden file (`*` is not `.env`).
    fn shell_glob_matches(&self, text: &str, home: Option<&str>) -> bool {
        if !text.contains(['*', '?']) {
            return false;
        }
        let (dir, name) = text.rsplit_once('/').unwrap_or(("", text));
        let leading_wildcard = name.starts_with(['*', '?']);
        self.paths
            .iter()
            // `cat *` may show an `id_rsa` lying in the project, but it is no way to ask for one.
            .filter(|g| !(leading_wildcard && g.under_home.is_none() && g.anywhere.starts_with("**/")))
            .filter_map(|g| g.example(dir, home))
            .any(|example| {
                let example_name = example.rsplit('/').next().unwrap_or(&example);
                !(leading_wildcard && example_name.starts_with('.'))
                    && glob_match(text, &example)
                    && self.path_matches(&example, home, false)
            })
    }

    /// Whether the directory `text`, searched through (`grep -r`, `rg`), holds a file the
    /// rule's globs name by its place (`~/.aws/credentials`, `~/.config/gcloud/**`). A glob that
    /// matches anywhere (`**/.env`) does not count: every search of a project would.
    fn under_directory_matches(&self, text: &str, home: Option<&str>, search: Search) -> bool {
        if search == Search::None {
            return false;
        }
        let dir = format!("{}/", text.trim_end_matches('/'));
        self.paths
            .iter()
            // `**/.aws/credentials` counts in a search of a `.aws` directory itself, not of
            // every directory that might hold one.
            .filter(|g| {
                g.under_home.is_some()
                    || !g.anywhere.starts_with("**")
                    || g.anywhere
                        .strip_prefix("**/")
                        .and_then(|rest| rest.rsplit_once('/'))
                        .is_some_and(|(parent, _)| text.trim_end_matches('/').ends_with(&format!("/{parent}")))
            })
            .filter_map(|g| g.example(text.trim_end_matches('/'), home))
            .any(|example| {
                example
                    .strip_prefix(&dir)
                    .is_some_and(|under| search == Search::All || !under.split('/').any(|part| part.starts_with('.')))
                    && self.path_matches(&example, home, false)
            })
    }

    /// Whether a call that is not a shell command matches (paths, content, url).
    fn matches_call(&self, call: &Call<'_>) -> bool {
        if self.broken {
            return true;
        }
        let home = call.home.map(Path::to_string_lossy);
        // A content search (`Grep`, `search_file_content`; not a `Glob`, which lists names)
        // reads the files under a directory it is given, as `rg` does: hidden ones below it aside.
        let searches =
            call.tool.is_some_and(|tool| tool_class(tool) == ToolClass::Search && !tool.eq_ignore_ascii_case("glob"));
        if !self.paths.is_empty()
            && !call.paths.iter().any(|p| {
                let p = p.to_string_lossy();
                self.path_matches(&p, home.as_deref(), true)
                    || (searches && self.under_directory_matches(&p, home.as_deref(), Search::NotHidden))
            })
        {
            return false;
        }
        if let Some(content) = &self.content
            && !call.content.as_deref().is_some_and(|text| content.is_match(text))
        {
            return false;
        }
        if let Some(url) = &self.url
            && !call.url.as_deref().is_some_and(|text| url.is_match(text))
        {
            return false;
        }
        !self.paths.is_empty() || self.content.is_some() || self.url.is_some() || self.when.is_some()
    }
}

/// Database clients that run the statements they read on their input.
const DATABASE_CLIENTS: [&str; 11] = [
    "psql",
    "mysql",
    "mariadb",
    "sqlite",
    "sqlcmd",
    "duckdb",
    "clickhouse-client",
    "cockroach",
    "mongosh",
    "redis-cli",
    "valkey-cli",
];

/// Whether `command` is one of `programs` running code it reads from its input or from a
/// substitution (`| sh`, `bash <(curl …)`, `sh -c "$(curl …)"`, `python3 -`).
fn runs_unseen_code(command: &SimpleCommand, programs: &[String]) -> bool {
    let program = command.program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if !programs.iter().any(|p| p == &command.program || p == program) {
        return false;
    }
    // A database client given no statement or file to run reads its statements on its input.
    let reads_statements = DATABASE_CLIENTS.contains(&program)
        && !command.flags.iter().any(|f| matches!(f.as_str(), "c" | "e" | "f" | "--command" | "--execute" | "--file"))
        && !command
            .words
            .iter()
            .any(|w| w.starts_with("--command=") || w.starts_with("--execute=") || w.starts_with("--file="));
    command.runs_unknown
        || reads_statements
        || command.operands.is_empty()
        || command
            .operands
            .iter()
            .any(|o| o == "-" || o == "/dev/stdin" || o.starts_with("<(") || o.contains("$(") || o.contains('`'))
}

/// How many of `command`'s operands after the pattern's first `first` are a search pattern, not a
/// file: the first of `grep PATTERN FILE…`, `rg`, `ag`, `ack`, `git grep`, unless the pattern
/// came with `-e`/`-f` (options with a value, so no operand).
fn search_pattern_operands(command: &SimpleCommand, first: usize) -> usize {
    let searches = match command.program.as_str() {
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" => true,
        "git" => first == 1 && command.operands.first().is_some_and(|o| o == "grep"),
        _ => false,
    };
    let given = command.flags.iter().any(|f| matches!(f.as_str(), "e" | "f" | "--regexp" | "--file"));
    usize::from(searches && (command.program == "git" || !given))
}

/// What `command` reads under the directories it is given: `grep -r`, `rg`.
fn searches_directories(command: &SimpleCommand) -> Search {
    match command.program.as_str() {
        // ripgrep and ag skip hidden files and directories under it unless told (`--hidden`,
        // `-uu`): `rg key ~` reads no `~/.aws/credentials`, `rg key ~/.aws` does.
        "rg" | "ag" if command.flags.iter().any(|f| matches!(f.as_str(), "--hidden" | "u" | "--unrestricted")) => {
            Search::All
        }
        "rg" | "ag" => Search::NotHidden,
        "grep" | "egrep" | "fgrep"
            if command
                .flags
                .iter()
                .any(|f| matches!(f.as_str(), "r" | "R" | "--recursive" | "--dereference-recursive")) =>
        {
            Search::All
        }
        _ => Search::None,
    }
}

/// What a command reads of a directory operand ([`searches_directories`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Search {
    /// Nothing (it is no search through directories).
    None,
    /// Every file under it.
    All,
    /// Every file under it but hidden ones and those of hidden directories.
    NotHidden,
}

/// A glob with `~` made the home directory; a glob not anchored at `/` matches anywhere.
fn expand_glob(glob: &str, home: Option<&Path>) -> String {
    match (after_home(glob), home) {
        (Some(rest), Some(home)) => format!("{}{rest}", home.display()),
        _ if glob.starts_with('/') || glob.starts_with("**") => glob.to_owned(),
        _ => format!("**/{glob}"),
    }
}

/// Whether operand `arg` matches `glob`: a glob naming a place (`/…`, `~…`, `$CWD…`,
/// `$CWD_OR_PARENT`) is matched against the operand as a normalized absolute path (`path`),
/// any other against the operand as written.
fn arg_matches<'p>(glob: &str, arg: &str, path: impl FnOnce() -> &'p str, call: &CallFacts<'_>) -> bool {
    if glob == "$CWD_OR_PARENT" {
        return call.call.cwd.starts_with(Path::new(path()));
    }
    if let Some(rest) = glob.strip_prefix("$CWD") {
        return glob_match_under(&call.cwd, rest, path());
    }
    if glob.starts_with('/') || glob.starts_with('~') {
        return match (after_home(glob), call.home.as_deref()) {
            (Some(rest), Some(home)) => glob_match_under(home, rest, path()),
            _ if glob.starts_with('/') => glob_match(glob, path()),
            _ => glob_match(&expand_glob(glob, None), path()),
        };
    }
    // `.git/` names `.git`.
    glob_match(glob, arg) || (arg.len() > 1 && glob_match(glob, arg.trim_end_matches('/')))
}

/// What every rule reads of one call, worked out once per call rather than once per rule.
struct CallFacts<'c> {
    call: &'c Call<'c>,
    cwd: Cow<'c, str>,
    home: Option<Cow<'c, str>>,
}

/// One simple command of a call as rules compare it: its normalized paths and joined words are
/// worked out on first need and shared by every rule tried on it.
struct Prepared<'s> {
    command: &'s SimpleCommand,
    /// `--help` / `--version`: the command only prints.
    help: bool,
    /// The directory it runs in when the script changed it (`cd`).
    cwd: OnceCell<Option<PathBuf>>,
    operands: OnceCell<Vec<String>>,
    reads: OnceCell<Vec<String>>,
    writes: OnceCell<Vec<String>>,
    written: OnceCell<Vec<String>>,
    shell_globs: OnceCell<Vec<Option<String>>>,
    args: OnceCell<String>,
    line: OnceCell<String>,
}

impl<'s> Prepared<'s> {
    fn new(command: &'s SimpleCommand) -> Prepared<'s> {
        Prepared {
            command,
            // `-help`: the single-dash programs' (`terraform destroy -help`).
            help: command
                .flags
                .iter()
                .any(|f| f == "--help" || f == "--version" || f == "-help" && command.program != "find"),
            cwd: OnceCell::new(),
            operands: OnceCell::new(),
            reads: OnceCell::new(),
            writes: OnceCell::new(),
            written: OnceCell::new(),
            shell_globs: OnceCell::new(),
            args: OnceCell::new(),
            line: OnceCell::new(),
        }
    }

    fn normal(&self, words: &[String], call: &CallFacts<'_>) -> Vec<String> {
        let cwd = self.cwd.get_or_init(|| {
            // The directory the script's `cd`s led to, from the call's.
            (!self.command.cds.is_empty()).then(|| {
                self.command
                    .cds
                    .iter()
                    .fold(call.call.cwd.to_path_buf(), |dir, cd| normalize_path(cd, &dir, call.call.home))
            })
        });
        let cwd = cwd.as_deref().unwrap_or(call.call.cwd);
        words.iter().map(|w| normalize_path(w, cwd, call.call.home).to_string_lossy().into_owned()).collect()
    }

    /// Its operands as normalized absolute paths.
    fn operand_paths(&self, call: &CallFacts<'_>) -> &[String] {
        self.operands.get_or_init(|| self.normal(&self.command.operands, call))
    }

    /// Each operand, then each file its input is redirected from, whose last component holds a
    /// wildcard the shell expands (`.env*`, `~/.aws/*`, `.e[n]v`), its directory normalized and
    /// its bracket expressions read as `?` (see [`brackets_as_any_character`]); `None` for the
    /// others.
    fn shell_globs(&self, call: &CallFacts<'_>) -> &[Option<String>] {
        self.shell_globs.get_or_init(|| {
            let command = self.command;
            command
                .operands
                .iter()
                .chain(&command.reads)
                .map(|raw| {
                    let (dir, name) = raw.rsplit_once('/').unwrap_or((".", raw.as_str()));
                    let dir = if dir.is_empty() { "/" } else { dir };
                    (name.contains(['*', '?', '[']) && !dir.contains(['*', '?', '['])).then(|| {
                        let dir = self.normal(&[dir.to_owned()], call).pop().unwrap_or_default();
                        format!("{}/{}", dir.trim_end_matches('/'), brackets_as_any_character(name))
                    })
                })
                .collect()
        })
    }

    /// The files its input is redirected from, normalized.
    fn read_paths(&self, call: &CallFacts<'_>) -> &[String] {
        self.reads.get_or_init(|| self.normal(&self.command.reads, call))
    }

    fn operand_path(&self, index: usize, call: &CallFacts<'_>) -> &str {
        &self.operand_paths(call)[index]
    }

    /// The files its output is redirected to, normalized.
    fn write_paths(&self, call: &CallFacts<'_>) -> &[String] {
        self.writes.get_or_init(|| self.normal(&self.command.writes, call))
    }

    /// The operands it writes, normalized.
    fn written_paths(&self, call: &CallFacts<'_>) -> &[String] {
        self.written.get_or_init(|| self.normal(&self.command.written, call))
    }

    /// Its arguments joined by spaces, then the text it reads on its input when the script
    /// holds it, as `args_regex` reads them.
    fn args(&self) -> &str {
        self.args.get_or_init(|| {
            let mut args = self.command.words[1..].join(" ");
            if let Some(stdin) = &self.command.stdin {
                args.push(' ');
                args.push_str(stdin);
            }
            args
        })
    }

    /// The command line, as a hit names it.
    fn line(&self) -> String {
        self.line.get_or_init(|| self.command.words.join(" ")).clone()
    }
}

/// One call, as rules see it.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    /// The event.
    pub event: Event,
    /// The tool's name, when there is a tool.
    pub tool: Option<&'a str>,
    /// The shell command, for a shell tool.
    pub command: Option<&'a str>,
    /// The paths the call names, absolute.
    pub paths: Vec<PathBuf>,
    /// The text the tool writes.
    pub content: Option<String>,
    /// The URL it fetches.
    pub url: Option<String>,
    /// The working directory.
    pub cwd: &'a Path,
    /// The home directory.
    pub home: Option<&'a Path>,
    /// The tool input object, for `when`.
    pub input: Option<&'a Map<String, Value>>,
}

impl Call<'_> {
    /// The call as a `when` expression sees it.
    fn when_input(&self) -> WhenInput<'_> {
        let tool = self.tool.unwrap_or_default();
        let class = match tool_class(tool) {
            _ if tool.is_empty() => "",
            ToolClass::Other if tool.starts_with("mcp__") => "mcp",
            class => class.as_str(),
        };
        // The agent whose vocabulary has this tool name, when only one has it.
        let mut owners = AGENT_TOOLS.iter().filter(|a| a.tools.iter().any(|(name, _)| *name == tool));
        let agent = match (owners.next(), owners.next()) {
            (Some(only), None) => only.agent,
            _ => "",
        };
        WhenInput {
            tool,
            class,
            command: self.command.unwrap_or_default(),
            paths: self.paths.iter().map(|p| p.to_string_lossy().into_owned()).collect(),
            input: self.input,
            event: self.event.as_str(),
            agent,
            cwd: self.cwd.to_str().unwrap_or_default(),
        }
    }
}

/// What each applicable rule's `when` says of one call (rules without `when` are absent).
struct Whens<'c> {
    call: &'c Call<'c>,
    input: OnceCell<WhenInput<'c>>,
    /// Each rule's result, by the rule's address, once asked.
    results: RefCell<Vec<(*const CompiledRule, Result<bool, String>)>>,
}

impl<'c> Whens<'c> {
    fn of(call: &'c Call<'c>) -> Whens<'c> {
        Whens { call, input: OnceCell::new(), results: RefCell::new(Vec::new()) }
    }

    /// Whether `rule`'s `when` holds, worked out the first time a rule's other matchers match
    /// (an expression costs its compilation and CEL's set-up, which most calls never need);
    /// `Ok(true)` for a rule without `when`.
    fn of_rule(&self, rule: &CompiledRule) -> Result<bool, String> {
        let Some(when) = &rule.when else { return Ok(true) };
        let key = std::ptr::from_ref(rule);
        if let Some((_, known)) = self.results.borrow().iter().find(|(r, _)| *r == key) {
            return known.clone();
        }
        let input = self.input.get_or_init(|| self.call.when_input());
        let result = when.evaluate(input).map_err(|e| e.to_string());
        self.results.borrow_mut().push((key, result.clone()));
        result
    }
}

/// One rule that matched.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The rule (`pack/name`).
    pub rule: String,
    /// What it decides.
    pub decision: RuleDecision,
    /// Whether it only records.
    pub shadow: bool,
    /// What the model is told.
    pub reason: String,
    /// A safer alternative.
    pub suggest: Option<String>,
    /// The simple command it matched (shell calls).
    pub command: Option<String>,
}

/// What the rules decided about one call.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    /// The strongest enforced decision; `None`: no objection.
    pub decision: Option<RuleDecision>,
    /// The hit that decided.
    pub decided_by: Option<Hit>,
    /// Every enforced hit, exceptions applied.
    pub hits: Vec<Hit>,
    /// Hits of shadow rules: what they would have decided.
    pub shadowed: Vec<Hit>,
    /// The simple commands parsed out of the script, as `program word…`.
    pub commands: Vec<String>,
}

/// One rule of a set, with what tells which calls can need it. A file's own rules are compiled
/// at load, where a mistake must refuse the file; a pack's when a call first needs it: every
/// bridge call is a fresh process, and reading and compiling every rule of `recommended` was
/// most of what it paid for the rules, while a call reaches only the few naming the programs
/// its command runs (the packs are tested to compile, `every_pack_rule_compiles` below).
#[derive(Debug, Clone)]
struct Slot {
    events: Vec<Event>,
    tools: Vec<Cow<'static, str>>,
    has_command: bool,
    /// The rule's `undetermined` policy, the file's default applied.
    undetermined: Undetermined,
    /// Boxed: a set holds a slot for each of its pack's rules and compiles few of them; unboxed,
    /// the slots of `recommended` are 14 pages every bridge process writes.
    compiled: OnceLock<Box<CompiledRule>>,
    /// For a pack's rule: the pack, the rule as embedded, and the file's `mode` and
    /// `undetermined`, which apply to it.
    pack: Option<(PackName, &'static packs::PackRule, Option<Mode>, Option<Undetermined>)>,
}

impl Slot {
    fn ready(rule: CompiledRule) -> Slot {
        Slot {
            events: rule.events.clone(),
            tools: rule.tools.iter().cloned().map(Cow::Owned).collect(),
            has_command: rule.has_command(),
            undetermined: rule.undetermined,
            compiled: OnceLock::from(Box::new(rule)),
            pack: None,
        }
    }

    fn pack(pack: PackName, entry: &'static packs::PackRule, file: &RulesFile) -> Slot {
        Slot {
            events: entry.events(),
            tools: entry.tools().iter().map(|t| Cow::Borrowed(*t)).collect(),
            has_command: !entry.commands().is_empty(),
            undetermined: entry.undetermined().or(file.undetermined).unwrap_or(Undetermined::Ask),
            compiled: OnceLock::new(),
            pack: Some((pack, entry, file.mode, file.undetermined)),
        }
    }

    /// The compiled rule. A pack's rule that does not compile (a defect of hookwire, which
    /// tests rule out) matches every call it is tried on: the guard fails closed.
    fn rule(&self) -> &CompiledRule {
        self.compiled.get_or_init(|| {
            let Some((pack, entry, mode, undetermined)) = &self.pack else {
                unreachable!("a file's own rule is compiled at load")
            };
            let defaults = RulesFile { mode: *mode, undetermined: *undetermined, ..RulesFile::default() };
            let compiled = entry
                .rule()
                .map_err(|e| e.to_string())
                .and_then(|rule| CompiledRule::compile(&rule, Origin::Pack(*pack), false, &defaults).map_err(|e| e.to_string()));
            Box::new(compiled.unwrap_or_else(|error| {
                tracing::error!(pack = %pack, rule = entry.name, %error, "a pack's guard rule does not compile; it matches every call");
                CompiledRule::broken(*pack, entry.name, &error, self)
            }))
        })
    }

    /// Whether it applies to a call of `tool` on `event`.
    fn applies(&self, event: Event, tool: Option<&str>) -> bool {
        if !self.events.contains(&event) {
            return false;
        }
        if self.tools.is_empty() {
            return true;
        }
        let Some(tool) = tool else { return false };
        let class = tool_class(tool);
        self.tools.iter().any(|selector| match selector.as_ref() {
            "any" => true,
            "mcp" => tool.starts_with("mcp__"),
            name if name == tool => true,
            name => class != ToolClass::Other && class.as_str() == name,
        })
    }

    /// What its command patterns name: each pattern's program and first operand (`git reset
    /// --hard`: `git`, `reset`; `rm -rf`: `rm`, none); `None` when one cannot be told without
    /// compiling it. A pack's are read at build time (see [`packs::PackRule::keys`]).
    fn keys(&self) -> Option<Vec<PatternKey>> {
        match (&self.pack, self.compiled.get()) {
            (_, Some(rule)) => Some(
                rule.commands
                    .iter()
                    .map(|c| (Cow::Owned(c.program.clone()), c.operands.first().cloned().map(Cow::Owned)))
                    .collect(),
            ),
            (Some((_, entry, ..)), None) => entry.keys().map(|keys| {
                keys.iter()
                    .map(|(program, operand)| {
                        (Cow::Borrowed(*program), Some(*operand).filter(|o| !o.is_empty()).map(Cow::Borrowed))
                    })
                    .collect()
            }),
            (None, None) => None,
        }
    }
}

/// A shell wildcard with each bracket expression (`[n]`, `[a-z]`, `[!x]`) read as `?`, any one
/// character: `cat .e[n]v` can name `.env`. It may name more than the shell would (`.e[x]v`
/// reads as `.e?v`), never less.
fn brackets_as_any_character(text: &str) -> Cow<'_, str> {
    if !text.contains('[') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        // `]` right after `[` (or `[!`) is a member of the set, not its end.
        let body = &rest[open + 1..];
        let skip = usize::from(body.starts_with('!') || body.starts_with('^'));
        let skip = skip + usize::from(body[skip..].starts_with(']'));
        match body[skip..].find(['/', ']']) {
            Some(close) if body.as_bytes()[skip + close] == b']' => {
                out.push('?');
                rest = &body[skip + close + 1..];
            }
            _ => {
                out.push('[');
                rest = body;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// A command pattern's program and first operand.
type PatternKey = (Cow<'static, str>, Option<Cow<'static, str>>);

/// The rules naming one program, by what their patterns of it name next.
#[derive(Debug, Clone, Default)]
struct ByProgram {
    /// Those with a pattern naming no operand (`rm -rf`): tried on every command running it.
    any: Vec<usize>,
    /// Those whose patterns name a first operand (`git reset --hard`): tried on a command whose
    /// first operand it is (a pattern's operands match a command's leading operands exactly).
    /// A list, not a map: a program has a few subcommands with rules of their own (git, the
    /// most, 18), and a map per program made the index of a one-rule file 24 KB.
    by_operand: Vec<(Cow<'static, str>, Vec<usize>)>,
}

/// Every rule of one rules file, packs first.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    slots: Vec<Slot>,
    /// The rules with a `command` pattern, by the programs their patterns name and their first
    /// operands, in evaluation order: a command is only tried against the rules naming its
    /// program, and of those naming a subcommand, the ones naming its own (`git status` never
    /// compiles the rules about `git push`).
    by_program: HashMap<Cow<'static, str>, ByProgram>,
    /// The rules with a pattern whose program is only known compiled: tried on every command.
    any_program: Vec<usize>,
}

impl RuleSet {
    /// Compiles `file`: its rules and its exceptions now, the rules of its packs when a call
    /// first needs them.
    pub fn compile(file: &RulesFile) -> Result<RuleSet, RuleError> {
        let packs = packs::expand(&file.packs);
        let pack_rules: usize = packs.iter().map(|pack| packs::index(*pack).len()).sum();
        // Sized once: a slot is large, and growing the vector rule by rule copies it over and
        // over in every bridge process.
        let mut slots = Vec::with_capacity(pack_rules + file.rules.len() + file.allow.len());
        for pack in packs {
            for entry in packs::index(pack) {
                slots.push(Slot::pack(pack, entry, file));
            }
        }
        for rule in &file.rules {
            slots.push(Slot::ready(CompiledRule::compile(rule, Origin::File, false, file)?));
        }
        for rule in &file.allow {
            slots.push(Slot::ready(CompiledRule::compile(rule, Origin::File, true, file)?));
        }
        let mut by_program: HashMap<Cow<'static, str>, ByProgram> = HashMap::new();
        let mut any_program = Vec::new();
        for (index, slot) in slots.iter().enumerate().filter(|(_, slot)| slot.has_command) {
            let Some(keys) = slot.keys() else {
                any_program.push(index);
                continue;
            };
            for (program, operand) in keys {
                let named = by_program.entry(program).or_default();
                let indices = match operand {
                    Some(operand) => match named.by_operand.iter().position(|(o, _)| *o == operand) {
                        Some(at) => &mut named.by_operand[at].1,
                        None => {
                            named.by_operand.push((operand, Vec::new()));
                            &mut named.by_operand.last_mut().expect("just pushed").1
                        }
                    },
                    None => &mut named.any,
                };
                if indices.last() != Some(&index) {
                    indices.push(index);
                }
            }
        }
        Ok(RuleSet { slots, by_program, any_program })
    }

    /// The rules, in evaluation order (every one compiled).
    pub fn rules(&self) -> Vec<&CompiledRule> {
        self.slots.iter().map(Slot::rule).collect()
    }

    /// How many of its rules are compiled so far.
    pub fn compiled(&self) -> usize {
        self.slots.iter().filter(|slot| slot.compiled.get().is_some()).count()
    }

    /// Every event any rule runs on.
    pub fn events(&self) -> Vec<Event> {
        let mut events: Vec<Event> = Vec::new();
        for event in self.slots.iter().flat_map(|s| s.events.iter()) {
            if !events.contains(event) {
                events.push(*event);
            }
        }
        events
    }

    /// The rules a command running `program` with the first operand `operand` is tried against,
    /// in evaluation order.
    fn candidates(&self, program: &str, operand: Option<&str>) -> Cow<'_, [usize]> {
        let named = self.by_program.get(program);
        let any = named.map_or(&[][..], |n| n.any.as_slice());
        let by_operand = named
            .zip(operand)
            .and_then(|(n, operand)| n.by_operand.iter().find(|(o, _)| o == operand))
            .map_or(&[][..], |(_, indices)| indices.as_slice());
        match (any, by_operand, self.any_program.as_slice()) {
            (only, [], []) | ([], only, []) | ([], [], only) => Cow::Borrowed(only),
            (a, b, c) => {
                let mut all: Vec<usize> = a.iter().chain(b).chain(c).copied().collect();
                all.sort_unstable();
                all.dedup();
                Cow::Owned(all)
            }
        }
    }

    /// Evaluates the rules over `call`.
    pub fn evaluate(&self, call: &Call<'_>) -> Verdict {
        let applies: Vec<bool> = self.slots.iter().map(|s| s.applies(call.event, call.tool)).collect();
        let applicable: Vec<&Slot> =
            self.slots.iter().zip(&applies).filter(|(_, applies)| **applies).map(|(slot, _)| slot).collect();
        let whens = Whens::of(call);
        let mut verdict = Verdict::default();
        let mut hits = Vec::new();
        // A rule whose other matchers match but whose `when` fails on this call follows its
        // `undetermined` policy, once per call; an exception (`allow`) that fails does not apply.
        let mut undetermined: Vec<*const CompiledRule> = Vec::new();
        let mut when_holds = |rule: &CompiledRule, command: Option<String>, hits: &mut Vec<Hit>| -> bool {
            match whens.of_rule(rule) {
                Ok(holds) => holds,
                Err(error) => {
                    let decision = match rule.undetermined {
                        Undetermined::Deny => Some(RuleDecision::Deny),
                        Undetermined::Ask => Some(RuleDecision::Ask),
                        Undetermined::Allow => None,
                    };
                    if let Some(decision) = decision
                        && rule.decision != RuleDecision::Allow
                        && !undetermined.contains(&std::ptr::from_ref(rule))
                    {
                        undetermined.push(std::ptr::from_ref(rule));
                        let reason = format!(
                            "the `when` of the guard rule `{}` could not be evaluated on this call ({error}), so the rule cannot tell whether it applies",
                            rule.label()
                        );
                        hits.push(hit(rule, command, Some((decision, reason))));
                    }
                    false
                }
            }
        };
        if let Some(script) = call.command {
            match simple_commands(script) {
                Ok(commands) => {
                    verdict.commands = commands.iter().map(|c| c.words.join(" ")).collect();
                    let facts =
                        CallFacts { call, cwd: call.cwd.to_string_lossy(), home: call.home.map(Path::to_string_lossy) };
                    // The rule whose `undetermined` policy judges a command whose program is
                    // not known: the first of the strictest of those with a command pattern.
                    let undetermined_rule = applicable
                        .iter()
                        .filter(|s| s.has_command && s.undetermined != Undetermined::Allow)
                        .min_by_key(|s| s.undetermined != Undetermined::Deny);
                    for command in &commands {
                        let prepared = Prepared::new(command);
                        let matched: Vec<&CompiledRule> = self
                            .candidates(&command.program, command.operands.first().map(String::as_str))
                            .iter()
                            .filter(|&&index| applies[index])
                            .map(|&index| self.slots[index].rule())
                            .filter(|r| r.matches_command(&prepared, &commands, &facts))
                            .filter(|r| when_holds(r, Some(prepared.line()), &mut hits))
                            .collect();
                        let excepted = matched.iter().any(|r| r.decision == RuleDecision::Allow && !r.shadow);
                        for rule in matched {
                            if rule.decision != RuleDecision::Allow && !excepted {
                                hits.push(hit(rule, Some(prepared.line()), None));
                            }
                        }
                        if command.runs_unknown
                            && let Some(slot) = undetermined_rule
                        {
                            let decision = match slot.undetermined {
                                Undetermined::Deny => RuleDecision::Deny,
                                _ => RuleDecision::Ask,
                            };
                            let reason = format!(
                                "what `{}` runs cannot be known before it runs, so the guard rules cannot check it",
                                prepared.line()
                            );
                            hits.push(hit(slot.rule(), Some(prepared.line()), Some((decision, reason))));
                        }
                    }
                }
                Err(error) => {
                    if let Some(slot) = applicable.iter().find(|s| s.has_command) {
                        let reason =
                            format!("the command cannot be read ({error}), so the guard rules cannot check it");
                        hits.push(hit(slot.rule(), None, Some((RuleDecision::Ask, reason))));
                    }
                }
            }
        }
        let matched: Vec<&CompiledRule> = applicable
            .iter()
            .filter(|s| !s.has_command)
            .map(|s| s.rule())
            .filter(|r| r.matches_call(call))
            .filter(|r| when_holds(r, None, &mut hits))
            .collect();
        let excepted = matched.iter().any(|r| r.decision == RuleDecision::Allow && !r.shadow);
        for rule in matched {
            if rule.decision != RuleDecision::Allow && !excepted {
                hits.push(hit(rule, None, None));
            }
        }
        for hit in hits {
            if hit.shadow {
                verdict.shadowed.push(hit);
                continue;
            }
            if verdict.decision.is_none_or(|d| hit.decision > d) {
                verdict.decision = Some(hit.decision);
                verdict.decided_by = Some(hit.clone());
            }
            verdict.hits.push(hit);
        }
        verdict
    }
}

/// A hit of `rule`; `instead`: a decision and reason other than the rule's own (a command or a
/// `when` that cannot be checked), which the rule's safer alternative does not answer.
fn hit(rule: &CompiledRule, command: Option<String>, instead: Option<(RuleDecision, String)>) -> Hit {
    let suggest = if instead.is_some() { None } else { rule.suggest.clone() };
    let (decision, reason) = instead.unwrap_or_else(|| {
        (rule.decision, rule.reason.clone().unwrap_or_else(|| format!("the guard rule `{}` matched", rule.label())))
    });
    Hit { rule: rule.label(), decision, shadow: rule.shadow, reason, suggest, command }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Claude Code `Bash` call of `command` in `/p`, home `/home/u`.
    fn bash_call(command: &str) -> Call<'_> {
        Call {
            event: Event::PreToolExecution,
            tool: Some("Bash"),
            command: Some(command),
            paths: Vec::new(),
            content: None,
            url: None,
            cwd: Path::new("/p"),
            home: Some(Path::new("/home/u")),
            input: None,
        }
    }

    /// The packs' regexes are built on first use, not at load: each must build.
    #[test]
    fn every_pack_regex_builds() {
        let mut n = 0;
        for pack in PackName::ALL {
            for rule in packs::rules(pack) {
                for text in [&rule.args_regex, &rule.content, &rule.url].into_iter().flatten() {
                    n += 1;
                    if let Err(e) = Regex::new(text) {
                        panic!("pack `{pack}`, rule `{}`: {e}", rule.name);
                    }
                }
            }
        }
        assert!(n > 10, "only {n} regexes found in the packs");
    }

    /// Loading `recommended` builds none of the packs' regexes; a call that reaches one builds
    /// it, and the rule still decides.
    #[test]
    fn pack_regexes_are_built_when_first_needed() {
        let file = RulesFile { packs: vec![PackName::Recommended], ..RulesFile::default() };
        let rules = RuleSet::compile(&file).expect("recommended compiles");
        let built = |rules: &RuleSet| {
            rules
                .rules()
                .iter()
                .flat_map(|r| [&r.args_regex, &r.content, &r.url])
                .flatten()
                .filter(|p| p.built.get().is_some())
                .count()
        };
        assert_eq!(built(&rules), 0);
        let call = bash_call("psql -c 'DROP DATABASE prod'");
        assert!(rules.evaluate(&call).decision.is_some(), "DROP DATABASE through psql is refused");
        assert!(built(&rules) > 0);
    }

    /// Every rule of every pack compiles (they are compiled when a call first needs them), and
    /// the program and first operand its index reads off each command pattern are the compiled
    /// pattern's.
    #[test]
    fn every_pack_rule_compiles() {
        let mut patterns = 0;
        for pack in PackName::ALL {
            for entry in packs::index(pack) {
                let rule = entry.rule().expect("an indexed rule parses");
                let compiled = CompiledRule::compile(&rule, Origin::Pack(pack), false, &RulesFile::default())
                    .unwrap_or_else(|e| panic!("pack `{pack}`: {e}"));
                assert!(!compiled.broken);
                assert_eq!(entry.commands().len(), compiled.commands.len());
                patterns += compiled.commands.len();
                let keys = entry.keys().expect("a pack's patterns start with plain words");
                assert_eq!(keys.len(), compiled.commands.len());
                for ((program, operand), pattern) in keys.iter().zip(&compiled.commands) {
                    assert_eq!(*program, pattern.program, "pack `{pack}`, rule `{}`", entry.name);
                    // A pattern read as naming no operand is only tried more often.
                    if !operand.is_empty() {
                        assert_eq!(
                            Some(*operand),
                            pattern.operands.first().map(String::as_str),
                            "pack `{pack}`, rule `{}`",
                            entry.name
                        );
                    }
                }
            }
        }
        assert!(patterns > 100, "only {patterns} command patterns in the packs");
    }

    /// A call compiles only the pack rules it can reach; the set answers as the fully compiled
    /// one does.
    #[test]
    fn pack_rules_are_compiled_when_a_call_needs_them() {
        let file = RulesFile { packs: vec![PackName::Recommended], ..RulesFile::default() };
        let lazy = RuleSet::compile(&file).expect("recommended compiles");
        assert_eq!(lazy.compiled(), 0);
        let eager = RuleSet::compile(&file).expect("recommended compiles");
        let every = eager.rules().len();
        assert!(every > 50);
        let call = bash_call("git status && git reset --hard HEAD~1");
        let (a, b) = (lazy.evaluate(&call), eager.evaluate(&call));
        assert_eq!(a.decided_by.map(|h| h.rule), b.decided_by.map(|h| h.rule));
        assert_eq!(a.decision, Some(RuleDecision::Deny));
        let compiled = lazy.compiled();
        assert!(compiled > 0 && compiled < every / 2, "{compiled} of {every} rules compiled for a git command");
        // A program no rule names compiles nothing more.
        assert!(lazy.evaluate(&bash_call("cargo test --workspace")).decision.is_none());
        assert_eq!(lazy.compiled(), compiled);
        // A file tool reaches the rules about paths, not the command rules.
        let read = Call { tool: Some("Read"), command: None, paths: vec![PathBuf::from("/p/.env")], ..bash_call("") };
        assert_eq!(lazy.evaluate(&read).decision, eager.evaluate(&read).decision);
        assert!(lazy.evaluate(&read).decision.is_some(), "reading .env is refused");
        assert!(lazy.compiled() < every);
    }

    /// Of the rules naming a program, a command compiles only those naming its subcommand or
    /// none: `git status` reaches no rule about `git push`; `git -C dir push --force` does.
    #[test]
    fn a_subcommand_reaches_only_its_own_rules() {
        let file = RulesFile { packs: vec![PackName::Recommended], ..RulesFile::default() };
        let set = RuleSet::compile(&file).expect("recommended compiles");
        assert!(set.evaluate(&bash_call("git status --short && git log -1")).decision.is_none());
        let compiled: Vec<&CompiledRule> = set.slots.iter().filter_map(|s| s.compiled.get().map(|r| &**r)).collect();
        for rule in &compiled {
            assert!(
                rule.commands
                    .iter()
                    .any(|p| p.program != "git" || p.operands.first().is_none_or(|o| o == "status" || o == "log")),
                "`{}` was compiled for `git status`",
                rule.label()
            );
        }
        let git_rules = packs::index(PackName::Git).len();
        assert!(compiled.len() < git_rules / 2, "{} rules compiled for `git status`", compiled.len());
        let verdict = set.evaluate(&bash_call("git -C ../other push --force origin main"));
        assert_eq!(verdict.decision, Some(RuleDecision::Deny), "{verdict:?}");
    }

    /// A file's own bad regex still refuses the file at load.
    #[test]
    fn a_files_bad_regex_refuses_it_at_load() {
        let file: RulesFile =
            serde_saphyr::from_str("rules:\n  - name: bad\n    command: psql\n    args_regex: \"(unclosed\"\n")
                .expect("parses");
        let error = RuleSet::compile(&file).expect_err("a bad regex refuses the file");
        assert_eq!(error.field, "args_regex");
    }
}
