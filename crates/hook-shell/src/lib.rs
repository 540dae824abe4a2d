//! Just enough of POSIX `sh` to tell which files a hook command runs: a word splitter (quotes,
//! escapes, expansions, operators) and a walk over the simple commands that follows `cd DIR`,
//! `;` / `&&` / `||` / `|`, `( ... )`, `.` / `source`, `sh -c`, wrappers (`env`, `exec`,
//! `timeout`, ...) and interpreter arguments.
//!
//! What the walk cannot know before the hook runs — a command substitution, a variable other
//! than the project-directory ones, `eval`, a glob, a relative path after `cd $X` — is reported
//! as *undetermined*, never guessed.
//!
//! It is hookwire's one shell parser: Claude Code `if` rules (`Bash(rm *)`) read a tool call's
//! command through [`invocations`], every command it runs with quotes and escapes removed, so the
//! two never disagree about what a command line runs. Nothing here does I/O.
//!
//! ```
//! // Every command a line runs, wrappers and quotes stripped: what an `if` rule compares.
//! let runs = hook_shell::invocations("sudo FOO=1 'r'm -rf build && echo done").expect("it parses");
//! assert!(runs.iter().any(|run| run.words == ["rm", "-rf", "build"]));
//! assert!(runs.iter().any(|run| run.words == ["echo", "done"]));
//! ```

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
};

/// A piece of a word before expansion.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    /// Text, quoted or not.
    Text(String),
    /// An unquoted glob character (`*`, `?`, a `[...]` class).
    Glob(String),
    /// `$NAME` / `${NAME}`; `modified`: `${NAME:-x}` and the like.
    Var { name: String, modified: bool },
    /// `$?`, `$$`, `$#`, `$1`, `$@`: values that never name a project file.
    Special,
    /// `$(...)`, `` `...` `` or `<(...)`: the command inside, as written.
    Substitution(String),
    /// `$((...))`.
    Arithmetic,
    /// An unquoted `~` at the start of a word.
    Tilde,
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Redirect {
    /// `<`, `<>`: the file is read.
    Input,
    /// `>`, `>>`, `>|`, `&>`: the file is written.
    Output,
    /// `<&`, `>&`: a file descriptor.
    Duplicate,
    /// `<<`, `<<-`.
    HereDoc,
    /// `<<<`.
    HereString,
}

/// An operator between commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `;`, `&`, a newline, `&&`, `||`, `|`.
    Separator,
    /// `(`.
    Open,
    /// `)`.
    Close,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word { pieces: Vec<Piece>, raw: String },
    Op(Op),
    Redirect(Redirect),
}

/// Splits `text` into words and operators; the flag says whether every quote, `$(...)` and
/// backquote closes (an open one takes the rest of the text).
fn tokenize(text: &str) -> (Vec<Token>, bool) {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut is_closed = true;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' => i += 1,
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\n' | ';' => {
                tokens.push(Token::Op(Op::Separator));
                i += 1;
            }
            '&' => {
                if chars.get(i + 1) == Some(&'>') {
                    tokens.push(Token::Redirect(Redirect::Output));
                    i += if chars.get(i + 2) == Some(&'>') { 3 } else { 2 };
                } else {
                    tokens.push(Token::Op(Op::Separator));
                    i += if chars.get(i + 1) == Some(&'&') { 2 } else { 1 };
                }
            }
            '|' => {
                tokens.push(Token::Op(Op::Separator));
                i += if matches!(chars.get(i + 1), Some('|' | '&')) { 2 } else { 1 };
            }
            '(' => {
                tokens.push(Token::Op(Op::Open));
                i += 1;
            }
            ')' => {
                tokens.push(Token::Op(Op::Close));
                i += 1;
            }
            '<' | '>' => {
                let next = chars.get(i + 1).copied();
                if next == Some('(') {
                    // `<(cmd)` / `>(cmd)`: process substitution, a word.
                    let start = i;
                    let closed;
                    (i, closed) = skip_balanced(&chars, i + 2, '(', ')');
                    is_closed &= closed;
                    let inner = chars[start + 2..if closed { i - 1 } else { i }].iter().collect();
                    tokens.push(Token::Word {
                        pieces: vec![Piece::Substitution(inner)],
                        raw: chars[start..i].iter().collect(),
                    });
                    continue;
                }
                let (redirect, len) = match (c, next, chars.get(i + 2).copied()) {
                    ('<', Some('<'), Some('<')) => (Redirect::HereString, 3),
                    ('<', Some('<'), Some('-')) => (Redirect::HereDoc, 3),
                    ('<', Some('<'), _) => (Redirect::HereDoc, 2),
                    ('<', Some('&'), _) | ('>', Some('&'), _) => (Redirect::Duplicate, 2),
                    ('<', Some('>'), _) => (Redirect::Input, 2),
                    ('<', _, _) => (Redirect::Input, 1),
                    (_, Some('>' | '|'), _) => (Redirect::Output, 2),
                    _ => (Redirect::Output, 1),
                };
                tokens.push(Token::Redirect(redirect));
                i += len;
            }
            _ => {
                let start = i;
                let (pieces, end, closed) = read_word(&chars, i);
                is_closed &= closed;
                i = end;
                // `2>file`: the digits are the descriptor of a redirection.
                let is_descriptor = matches!(chars.get(i), Some('<' | '>'))
                    && matches!(pieces.as_slice(), [Piece::Text(text)] if text.chars().all(|c| c.is_ascii_digit()));
                if !is_descriptor {
                    tokens.push(Token::Word { pieces, raw: chars[start..i].iter().collect() });
                }
            }
        }
    }
    (tokens, is_closed)
}

/// Whether `c` ends an unquoted word.
fn is_meta(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>')
}

/// The index just after the `close` that balances an `open` already consumed before `i`, and
/// whether there is one (else the index is the end of the text). Quoted text is skipped.
fn skip_balanced(chars: &[char], mut i: usize, open: char, close: char) -> (usize, bool) {
    let mut depth = 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            quote @ ('\'' | '"') => {
                i += 1;
                while i < chars.len() && chars[i] != quote {
                    i += usize::from(quote == '"' && chars[i] == '\\') + 1;
                }
                if i >= chars.len() {
                    return (chars.len(), false);
                }
            }
            c if c == open => depth += 1,
            c if c == close => {
                depth -= 1;
                if depth == 0 {
                    return (i + 1, true);
                }
            }
            _ => {}
        }
        i += 1;
    }
    (chars.len(), false)
}

/// Pushes `c` onto the text piece at the end of `pieces`.
fn push_text(pieces: &mut Vec<Piece>, c: char) {
    match pieces.last_mut() {
        Some(Piece::Text(text)) => text.push(c),
        _ => pieces.push(Piece::Text(c.to_string())),
    }
}

/// Reads one word starting at `i`; returns its pieces, the index after it, and whether every
/// quote and substitution in it closes.
fn read_word(chars: &[char], mut i: usize) -> (Vec<Piece>, usize, bool) {
    let mut pieces = Vec::new();
    let mut is_closed = true;
    let start = i;
    while i < chars.len() && !is_meta(chars[i]) {
        match chars[i] {
            '\\' => {
                if let Some(&next) = chars.get(i + 1)
                    && next != '\n'
                {
                    push_text(&mut pieces, next);
                }
                i += 2;
            }
            '\'' => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    push_text(&mut pieces, chars[i]);
                    i += 1;
                }
                is_closed &= i < chars.len();
                // An empty '' still makes a (possibly empty) word.
                if !matches!(pieces.last(), Some(Piece::Text(_))) {
                    pieces.push(Piece::Text(String::new()));
                }
                i += 1;
            }
            '"' => {
                i += 1;
                if !matches!(pieces.last(), Some(Piece::Text(_))) {
                    pieces.push(Piece::Text(String::new()));
                }
                while i < chars.len() && chars[i] != '"' {
                    match chars[i] {
                        '\\' if matches!(chars.get(i + 1), Some('$' | '`' | '"' | '\\' | '\n')) => {
                            if chars[i + 1] != '\n' {
                                push_text(&mut pieces, chars[i + 1]);
                            }
                            i += 2;
                        }
                        '$' => i = read_dollar(chars, i, &mut pieces, &mut is_closed),
                        '`' => i = read_backquoted(chars, i + 1, &mut pieces, &mut is_closed),
                        c => {
                            push_text(&mut pieces, c);
                            i += 1;
                        }
                    }
                }
                is_closed &= i < chars.len();
                i += 1;
            }
            '$' => i = read_dollar(chars, i, &mut pieces, &mut is_closed),
            '`' => i = read_backquoted(chars, i + 1, &mut pieces, &mut is_closed),
            '~' if i == start => {
                pieces.push(Piece::Tilde);
                i += 1;
            }
            '*' | '?' => {
                pieces.push(Piece::Glob(chars[i].to_string()));
                i += 1;
            }
            '[' => {
                // A class is `[` ... `]` with something between; a lone `[` is the test command.
                let end = chars[i + 1..].iter().take_while(|c| !is_meta(**c)).position(|c| *c == ']');
                match end {
                    Some(offset) if offset > 0 => {
                        pieces.push(Piece::Glob(chars[i..i + offset + 2].iter().collect()));
                        i += offset + 2;
                    }
                    _ => {
                        push_text(&mut pieces, '[');
                        i += 1;
                    }
                }
            }
            c => {
                push_text(&mut pieces, c);
                i += 1;
            }
        }
    }
    (pieces, i.min(chars.len()), is_closed)
}

/// Reads a backquoted command whose text starts at `i` (after the opening backquote) into a
/// substitution piece; returns the index after the closing backquote.
fn read_backquoted(chars: &[char], mut i: usize, pieces: &mut Vec<Piece>, is_closed: &mut bool) -> usize {
    let mut inner = String::new();
    while i < chars.len() && chars[i] != '`' {
        // Inside backquotes `\` escapes only `$`, `` ` `` and `\`.
        if chars[i] == '\\'
            && let Some(&next @ ('$' | '`' | '\\')) = chars.get(i + 1)
        {
            inner.push(next);
            i += 2;
            continue;
        }
        inner.push(chars[i]);
        i += 1;
    }
    *is_closed &= i < chars.len();
    pieces.push(Piece::Substitution(inner));
    i + 1
}

/// Reads an expansion starting with the `$` at `i`; returns the index after it.
fn read_dollar(chars: &[char], i: usize, pieces: &mut Vec<Piece>, is_closed: &mut bool) -> usize {
    let is_name_start = |c: char| c.is_ascii_alphabetic() || c == '_';
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    match chars.get(i + 1).copied() {
        Some('(') if chars.get(i + 2) == Some(&'(') => {
            pieces.push(Piece::Arithmetic);
            let (end, closed) = skip_balanced(chars, i + 2, '(', ')');
            *is_closed &= closed;
            end
        }
        Some('(') => {
            let (end, closed) = skip_balanced(chars, i + 2, '(', ')');
            *is_closed &= closed;
            pieces.push(Piece::Substitution(chars[i + 2..if closed { end - 1 } else { end }].iter().collect()));
            end
        }
        Some('{') => {
            let (end, closed) = skip_balanced(chars, i + 2, '{', '}');
            *is_closed &= closed;
            let inner: String = chars[i + 2..end.saturating_sub(1).max(i + 2)].iter().collect();
            let name: String = inner.chars().take_while(|c| is_name(*c)).collect();
            if name.is_empty() || !name.starts_with(is_name_start) {
                // `${#x}`, `${1}`, `${@}`, ...
                pieces.push(Piece::Special);
            } else {
                let modified = inner.len() > name.len();
                pieces.push(Piece::Var { name, modified });
            }
            end
        }
        Some(c) if is_name_start(c) => {
            let name: String = chars[i + 1..].iter().take_while(|c| is_name(**c)).collect();
            let end = i + 1 + name.chars().count();
            pieces.push(Piece::Var { name, modified: false });
            end
        }
        Some(c) if c.is_ascii_digit() || matches!(c, '?' | '$' | '#' | '!' | '-' | '@' | '*') => {
            pieces.push(Piece::Special);
            i + 2
        }
        _ => {
            push_text(pieces, '$');
            i + 1
        }
    }
}

/// Variables whose values are known before the hook runs: the hook's own `env`, the project
/// and hook directories hookwire sets, `HOME`.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    known: HashMap<String, String>,
    /// Assigned in the command from something unknown.
    unknown: Vec<String>,
}

impl Vars {
    /// Knows `name` as `value`.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        self.unknown.retain(|n| n != name);
        self.known.insert(name.to_owned(), value.into());
    }

    /// Forgets `name`: from now on it is unknown.
    fn unset(&mut self, name: &str) {
        self.known.remove(name);
        self.unknown.push(name.to_owned());
    }

    /// The value of `name`, if known.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.known.get(name).map(String::as_str)
    }
}

/// How a named file is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Run: a program, a script given to a shell or an interpreter, a file sourced. A missing
    /// one is recorded (creating it later must withdraw the trust).
    Run,
    /// Any other word: a file the command may read (a config, a module). Recorded when it exists.
    Argument,
}

/// A file a command names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// A path (absolute), as the command reaches it.
    Path {
        /// The path.
        path: PathBuf,
        /// How the command uses it.
        role: Role,
    },
    /// A bare program name, found through `PATH` (searched from `cwd` for relative entries).
    Program {
        /// The name as written.
        name: String,
        /// The directory relative `PATH` entries are searched from.
        cwd: PathBuf,
    },
    /// A path relative to a directory (of a `PATH` entry or an interpreter's module path)
    /// that is a candidate when it exists.
    Directory {
        /// The candidate path.
        path: PathBuf,
    },
}

/// What a command names and what cannot be told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    /// The files named, in order.
    pub named: Vec<Named>,
    /// What cannot be told before the command runs, one note per part.
    pub undetermined: Vec<String>,
}

impl Analysis {
    fn undetermined(&mut self, note: String) {
        if !self.undetermined.contains(&note) {
            self.undetermined.push(note);
        }
    }
}

/// The directory relative paths resolve against at this point of the command.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cwd {
    Known(PathBuf),
    /// After `cd` to something not known: why.
    Unknown(String),
}

/// A word after expansion.
#[derive(Debug, Clone)]
struct Word {
    /// The value (unknown parts left out).
    text: String,
    /// As written, for messages.
    raw: String,
    /// Why the value cannot be known, if it cannot.
    unknown: Option<String>,
    /// Holds a `$?`-like value: not a file name.
    is_opaque: bool,
}

fn expand(pieces: &[Piece], raw: &str, vars: &Vars, home: Option<&Path>) -> Word {
    let mut word = Word { text: String::new(), raw: raw.to_owned(), unknown: None, is_opaque: false };
    let unknown = |word: &mut Word, why: String| {
        if word.unknown.is_none() {
            word.unknown = Some(why);
        }
    };
    for piece in pieces {
        match piece {
            Piece::Text(text) => word.text.push_str(text),
            Piece::Glob(glob) => {
                word.text.push_str(glob);
                unknown(&mut word, "a pattern: the files it matches can change".to_owned());
            }
            Piece::Var { name, modified } => match vars.get(name) {
                Some(value) if !modified => word.text.push_str(value),
                Some(_) => unknown(&mut word, format!("`${{{name}...}}` changes the value of a variable")),
                None => unknown(&mut word, format!("`${name}` is not known before the hook runs")),
            },
            Piece::Special => word.is_opaque = true,
            Piece::Substitution(_) => unknown(&mut word, "its value is the output of a command".to_owned()),
            Piece::Arithmetic => unknown(&mut word, "an arithmetic expansion".to_owned()),
            Piece::Tilde => match home {
                Some(home) => word.text.push_str(&home.display().to_string()),
                None => unknown(&mut word, "`~` without a HOME".to_owned()),
            },
        }
    }
    word
}

/// Programs that run the program named by their first operand.
const WRAPPERS: [&str; 14] = [
    "exec", "command", "builtin", "nohup", "time", "nice", "env", "sudo", "doas", "xargs", "stdbuf", "timeout",
    "setsid", "ionice",
];

/// Shells: `-c STRING` is a command, else the first operand is a script.
const SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"];

/// Interpreters whose first operand is the script they run.
const INTERPRETERS: [&str; 12] =
    ["python", "python3", "python2", "node", "deno", "bun", "ruby", "perl", "php", "lua", "Rscript", "tclsh"];

/// Reserved words that may start a command; the command proper follows them.
const KEYWORDS: [&str; 12] = ["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}"];

/// One argument of a wrapper, as [`wrapped_program`] needs it.
struct WrapperArg<'a> {
    /// Its value, when known before the command runs.
    text: Option<&'a str>,
    /// Whether it is a `NAME=value` assignment (`env`, `sudo`).
    is_assignment: bool,
}

/// The options of each wrapper that take the next word as their value (`sudo -u root`,
/// `nice -n 5`, `timeout -s KILL`, `xargs -I {}`): that word is not the wrapped program.
fn option_takes_value(wrapper: &str, option: &str) -> bool {
    let options: &[&str] = match wrapper {
        "sudo" => &["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R", "--user", "--group"],
        "doas" => &["-u", "-C"],
        "nice" => &["-n", "--adjustment"],
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "env" => &["-u", "-C", "--unset", "--chdir"],
        "xargs" => &["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args"],
        "stdbuf" => &["-i", "-o", "-e"],
        "ionice" => &["-c", "-n", "--class", "--classdata"],
        "time" => &["-f", "-o", "--format", "--output"],
        "exec" => &["-a"],
        _ => &[],
    };
    options.contains(&option)
}

/// Where in `args` of wrapper `kind` (one of [`WRAPPERS`]) the program it runs starts: past
/// its options (and their values), `NAME=value` assignments and, for `timeout`, the duration.
/// `args.len()` when it names none.
fn wrapped_program(kind: &str, args: &[WrapperArg<'_>]) -> usize {
    let mut i = 0;
    let mut skipped_duration = kind != "timeout";
    while let Some(arg) = args.get(i) {
        match arg.text {
            Some("--") => return i + 1,
            Some(option) if option.starts_with('-') && option.len() > 1 => {
                i += 1 + usize::from(option_takes_value(kind, option));
            }
            _ if arg.is_assignment => i += 1,
            _ if !skipped_duration => {
                skipped_duration = true;
                i += 1;
            }
            _ => return i,
        }
    }
    args.len()
}

/// The program's name without its directory and version suffix (`python3.12` → `python3`).
fn program_kind(program: &str) -> &str {
    let name = Path::new(program).file_name().and_then(|n| n.to_str()).unwrap_or(program);
    match name.find(|c: char| c == '.' && name.starts_with("python")) {
        Some(dot) => &name[..dot],
        None => name,
    }
}

/// What a shell command string runs, starting in `cwd`.
pub fn analyze_shell(command: &str, cwd: &Path, vars: &Vars, home: Option<&Path>) -> Analysis {
    let mut analysis = Analysis::default();
    let mut walk = Walk { vars: vars.clone(), home, cwd: Cwd::Known(cwd.to_owned()), stack: Vec::new() };
    walk.script(command, &mut analysis, 0);
    analysis
}

/// What a command given as an argument vector runs (no shell), starting in `cwd`.
pub fn analyze_argv(argv: &[String], cwd: &Path, vars: &Vars, home: Option<&Path>) -> Analysis {
    let mut analysis = Analysis::default();
    let mut walk = Walk { vars: vars.clone(), home, cwd: Cwd::Known(cwd.to_owned()), stack: Vec::new() };
    let words: Vec<Word> =
        argv.iter().map(|arg| Word { text: arg.clone(), raw: arg.clone(), unknown: None, is_opaque: false }).collect();
    walk.simple(&words, &mut analysis, 0);
    analysis
}

/// The state of the walk over a command.
struct Walk<'h> {
    vars: Vars,
    home: Option<&'h Path>,
    cwd: Cwd,
    /// Directories to return to at each `)`.
    stack: Vec<Cwd>,
}

/// How deep `sh -c 'sh -c ...'` is followed.
const MAX_DEPTH: usize = 8;

impl Walk<'_> {
    fn script(&mut self, command: &str, analysis: &mut Analysis, depth: usize) {
        let mut words: Vec<Word> = Vec::new();
        let mut pending: Option<Redirect> = None;
        let mut redirects: Vec<(Redirect, Word)> = Vec::new();
        let (tokens, _) = tokenize(command);
        let mut tokens = tokens.into_iter().peekable();
        loop {
            let token = tokens.next();
            match token {
                Some(Token::Word { pieces, raw }) => {
                    let word = expand(&pieces, &raw, &self.vars, self.home);
                    match pending.take() {
                        Some(redirect) => redirects.push((redirect, word)),
                        None => words.push(word),
                    }
                }
                Some(Token::Redirect(Redirect::HereDoc)) => {
                    self.finish(&mut words, &mut redirects, analysis, depth);
                    analysis.undetermined(format!(
                        "`{}`: a here-document; hookwire does not follow the command past it",
                        command.trim()
                    ));
                    return;
                }
                Some(Token::Redirect(redirect)) => pending = Some(redirect),
                Some(Token::Op(op)) => {
                    self.finish(&mut words, &mut redirects, analysis, depth);
                    match op {
                        Op::Separator => {}
                        Op::Open => self.stack.push(self.cwd.clone()),
                        Op::Close => {
                            if let Some(cwd) = self.stack.pop() {
                                self.cwd = cwd;
                            }
                        }
                    }
                }
                None => {
                    self.finish(&mut words, &mut redirects, analysis, depth);
                    return;
                }
            }
            if words.first().is_some_and(|w| w.unknown.is_none() && w.text == "case") {
                analysis.undetermined(format!(
                    "`{}`: a `case` statement; hookwire does not follow its branches",
                    command.trim()
                ));
                return;
            }
        }
    }

    /// Ends the simple command of `words` and `redirects`.
    fn finish(
        &mut self,
        words: &mut Vec<Word>,
        redirects: &mut Vec<(Redirect, Word)>,
        analysis: &mut Analysis,
        depth: usize,
    ) {
        let program = self.simple(words, analysis, depth);
        let reads_scripts = program.as_deref().is_some_and(|p| {
            let kind = program_kind(p);
            SHELLS.contains(&kind) || INTERPRETERS.contains(&kind)
        });
        for (redirect, word) in redirects.drain(..) {
            match redirect {
                // `sh < script.sh` runs what it reads.
                Redirect::Input => {
                    self.name(&word, if reads_scripts { Role::Run } else { Role::Argument }, analysis);
                }
                Redirect::Output | Redirect::Duplicate | Redirect::HereString | Redirect::HereDoc => {}
            }
        }
        words.clear();
    }

    /// One simple command; returns its program (after assignments, keywords and wrappers).
    fn simple(&mut self, words: &[Word], analysis: &mut Analysis, depth: usize) -> Option<String> {
        let mut rest = words;
        // Reserved words, then `NAME=value` assignments.
        loop {
            match rest.first() {
                Some(word) if word.unknown.is_none() && KEYWORDS.contains(&word.text.as_str()) => rest = &rest[1..],
                Some(word) if assignment(word).is_some() => {
                    if let Some((name, value)) = assignment(word) {
                        match &word.unknown {
                            None => self.vars.set(name, value),
                            Some(_) => self.vars.unset(name),
                        }
                    }
                    rest = &rest[1..];
                }
                _ => break,
            }
        }
        let (first, args) = rest.split_first()?;
        if first.unknown.is_none() && first.text == "for" {
            // `for NAME in ...; do`: NAME takes values hookwire does not follow.
            if let Some(name) = args.first() {
                self.vars.unset(&name.text);
            }
            return None;
        }
        self.command(first, args, analysis, depth)
    }

    fn command(&mut self, program: &Word, args: &[Word], analysis: &mut Analysis, depth: usize) -> Option<String> {
        if let Some(why) = &program.unknown {
            analysis.undetermined(format!("`{}`: the program is not known before the hook runs: {why}", program.raw));
            for arg in args {
                self.name(arg, Role::Argument, analysis);
            }
            return None;
        }
        let kind = program_kind(&program.text).to_owned();
        match kind.as_str() {
            "cd" => {
                self.cd(args.first(), analysis);
                return Some(program.text.clone());
            }
            "pushd" | "popd" => {
                self.cwd = Cwd::Unknown(format!("`{}`", program.raw));
                return Some(program.text.clone());
            }
            "eval" => {
                let text: Vec<&str> = args.iter().map(|w| w.raw.as_str()).collect();
                analysis.undetermined(format!("`eval {}`: eval runs text built when the hook runs", text.join(" ")));
                return Some(program.text.clone());
            }
            "." | "source" => {
                if let Some((script, rest)) = args.split_first() {
                    // Looked up on PATH, and (bash) in the working directory.
                    self.run(script, analysis);
                    if !script.text.contains('/') {
                        self.name(script, Role::Run, analysis);
                    }
                    for arg in rest {
                        self.name(arg, Role::Argument, analysis);
                    }
                }
                return Some(program.text.clone());
            }
            _ => {}
        }
        self.run(program, analysis);
        if WRAPPERS.contains(&kind.as_str()) {
            // `env FOO=1 timeout 5 ./x.sh`: the wrapped program is a program too.
            let shape: Vec<WrapperArg<'_>> = args
                .iter()
                .map(|word| WrapperArg {
                    text: word.unknown.is_none().then_some(word.text.as_str()),
                    is_assignment: assignment(word).is_some(),
                })
                .collect();
            let rest = &args[wrapped_program(&kind, &shape).min(args.len())..];
            return match rest.split_first() {
                Some((wrapped, tail)) => self.command(wrapped, tail, analysis, depth),
                None => Some(program.text.clone()),
            };
        }
        if SHELLS.contains(&kind.as_str()) {
            self.shell_args(args, analysis, depth);
        } else if INTERPRETERS.contains(&kind.as_str()) {
            self.interpreter_args(args, analysis);
        } else {
            for arg in args {
                self.name(arg, Role::Argument, analysis);
            }
        }
        Some(program.text.clone())
    }

    /// `sh [options] -c STRING ...` or `sh [options] SCRIPT ...`.
    fn shell_args(&mut self, args: &[Word], analysis: &mut Analysis, depth: usize) {
        let mut has_c = false;
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            let is_option = arg.unknown.is_none() && arg.text.starts_with(['-', '+']) && arg.text.len() > 1;
            if is_option && arg.text != "--" {
                has_c |= arg.text.starts_with('-') && !arg.text.starts_with("--") && arg.text.contains('c');
                if arg.text == "-o" || arg.text == "+o" {
                    iter.next();
                }
                continue;
            }
            let operand = if arg.text == "--" && arg.unknown.is_none() { iter.next() } else { Some(arg) };
            let Some(operand) = operand else { return };
            if has_c {
                match &operand.unknown {
                    None if depth < MAX_DEPTH => {
                        let mut inner =
                            Walk { vars: self.vars.clone(), home: self.home, cwd: self.cwd.clone(), stack: Vec::new() };
                        inner.script(&operand.text, analysis, depth + 1);
                    }
                    None => analysis.undetermined(format!("`{}`: shells nested too deep", operand.raw)),
                    Some(why) => analysis.undetermined(format!("`{}`: the command is not known: {why}", operand.raw)),
                }
            } else {
                // `sh script`: the working directory, then (bash) PATH when it has no `/`.
                self.name(operand, Role::Run, analysis);
                if !operand.text.contains('/') && operand.unknown.is_none() {
                    self.run(operand, analysis);
                }
            }
            for rest in iter {
                self.name(rest, Role::Argument, analysis);
            }
            return;
        }
    }

    /// `python3 [options] SCRIPT ...`, `python3 -m module`, `node -e CODE`.
    fn interpreter_args(&mut self, args: &[Word], analysis: &mut Analysis) {
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            if arg.unknown.is_none() && arg.text.starts_with('-') && arg.text.len() > 1 {
                match arg.text.as_str() {
                    // Code on the command line (in the config, so hashed with it).
                    "-c" | "-e" | "--eval" | "-p" | "--print" | "-r" => {
                        iter.next();
                        break;
                    }
                    "-m" => {
                        if let Some(module) = iter.next() {
                            self.module(module, analysis);
                        }
                        break;
                    }
                    // Options with a value.
                    "-X" | "-W" | "-I" | "--require" | "--import" | "--loader" => {
                        if let Some(value) = iter.next() {
                            self.name(value, Role::Argument, analysis);
                        }
                    }
                    _ => self.name(arg, Role::Argument, analysis),
                }
                continue;
            }
            // The script is a path: the interpreter does not search PATH for it.
            self.name(arg, Role::Run, analysis);
            break;
        }
        for rest in iter {
            self.name(rest, Role::Argument, analysis);
        }
    }

    /// `python3 -m pkg.tool`: `pkg/tool.py` or `pkg/tool/__main__.py` under the directory.
    fn module(&mut self, module: &Word, analysis: &mut Analysis) {
        if let Some(why) = &module.unknown {
            analysis.undetermined(format!("`{}`: the module is not known: {why}", module.raw));
            return;
        }
        let Cwd::Known(cwd) = &self.cwd else { return };
        let relative = module.text.replace('.', "/");
        for candidate in
            [format!("{relative}.py"), format!("{relative}/__main__.py"), format!("{relative}/__init__.py")]
        {
            analysis.named.push(Named::Directory { path: cwd.join(candidate) });
        }
    }

    fn cd(&mut self, target: Option<&Word>, analysis: &mut Analysis) {
        let Some(target) = target else {
            self.cwd = match self.home {
                Some(home) => Cwd::Known(home.to_owned()),
                None => Cwd::Unknown("`cd` without a HOME".to_owned()),
            };
            return;
        };
        if let Some(why) = &target.unknown {
            self.cwd = Cwd::Unknown(format!("`cd {}`: {why}", target.raw));
            return;
        }
        if target.text == "-" || target.is_opaque {
            self.cwd = Cwd::Unknown(format!("`cd {}`", target.raw));
            return;
        }
        self.cwd = match &self.cwd {
            _ if Path::new(&target.text).is_absolute() => Cwd::Known(PathBuf::from(&target.text)),
            Cwd::Known(cwd) => Cwd::Known(cwd.join(&target.text)),
            Cwd::Unknown(why) => {
                analysis.undetermined(format!("`cd {}`: relative to a directory not known ({why})", target.raw));
                Cwd::Unknown(why.clone())
            }
        };
    }

    /// `word` is run: as a path, or looked up on PATH when it has no `/`.
    fn run(&mut self, word: &Word, analysis: &mut Analysis) {
        if word.is_opaque || word.text.is_empty() && word.unknown.is_none() {
            return;
        }
        if word.unknown.is_none() && !word.text.contains('/') {
            match &self.cwd {
                Cwd::Known(cwd) => analysis.named.push(Named::Program { name: word.text.clone(), cwd: cwd.clone() }),
                Cwd::Unknown(why) => {
                    analysis.undetermined(format!("`{}`: looked up from a directory not known ({why})", word.raw));
                }
            }
            return;
        }
        self.name(word, Role::Run, analysis);
    }

    /// `word` may name a file used as `role`.
    fn name(&mut self, word: &Word, role: Role, analysis: &mut Analysis) {
        if word.is_opaque {
            return;
        }
        if let Some(why) = &word.unknown {
            analysis.undetermined(format!("`{}`: {why}", word.raw));
            return;
        }
        let mut texts = vec![word.text.as_str()];
        // `--config=conf/x.yaml`: the value may be a file too.
        if let Some((option, value)) = word.text.split_once('=')
            && option.starts_with('-')
        {
            texts.push(value);
        }
        for text in texts {
            if text.is_empty() || text.starts_with('-') && role == Role::Argument {
                continue;
            }
            let path = Path::new(text);
            let absolute = if path.is_absolute() {
                path.to_owned()
            } else {
                match &self.cwd {
                    Cwd::Known(cwd) => cwd.join(path),
                    Cwd::Unknown(why) => {
                        // A word with no `/` is most likely data, not a file.
                        if text.contains('/') || role == Role::Run {
                            analysis.undetermined(format!("`{}`: relative to a directory not known ({why})", word.raw));
                        }
                        continue;
                    }
                }
            };
            analysis.named.push(Named::Path { path: absolute, role });
        }
    }
}

/// `NAME=value` → (`NAME`, `value`).
fn assignment(word: &Word) -> Option<(&str, &str)> {
    let name = assigned_name(&word.raw)?;
    let value_start = word.text.find('=').map_or(word.text.len(), |i| i + 1);
    Some((name, &word.text[value_start..]))
}

/// The `NAME` of a word written `NAME=value`.
fn assigned_name(raw: &str) -> Option<&str> {
    let (name, _) = raw.split_once('=')?;
    let is_name = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    is_name.then_some(name)
}

/// How deep `$(...)`, `sh -c '...'` and `eval` are followed by [`invocations`].
const MAX_NESTING: usize = 16;

/// One command a shell script runs, as an `if` permission rule compares it: its words with
/// quotes and escapes removed (`'rm' -rf x`, `r""m -rf x` and `r\m -rf x` all read `rm -rf x`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The words, quotes and escapes removed; a word holding an expansion (`$X`, `$(...)`) is
    /// kept as written.
    pub words: Vec<String>,
    /// The words as written.
    pub raw: Vec<String>,
    /// What it runs cannot be told from the text: its program is an expansion (`$X -rf /`), or
    /// it runs text only known when it runs (`sh` reading its input, `eval "$X"`, `sh -c "$X"`).
    pub runs_unknown: bool,
    /// The files its output is redirected to (`> f`, `>> f`, `&> f`, `>| f`), quotes removed.
    pub writes: Vec<String>,
}

/// Why a script cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ShellError {
    /// A quote, `$(`, `${` or backquote does not close.
    #[error("a quote, `$(` or backquote does not close")]
    Unclosed,
    /// Substitutions and nested shells go deeper than 16 levels.
    #[error("commands are nested more than {MAX_NESTING} deep")]
    TooDeep,
}

/// Every command `script` runs, each at every stage of stripping what runs it: leading
/// `NAME=value` assignments, reserved words (`if`, `!`, `{`, ...) and wrappers (`sudo -u root`,
/// `env -i`, `nice -n 5`, `timeout 10`, `xargs -n1`, `command`, `exec`, ...), so
/// `sudo FOO=1 rm -rf x` gives `sudo FOO=1 rm -rf x`, `FOO=1 rm -rf x` and `rm -rf x`. The
/// commands inside `$(...)`, backquotes, `<(...)`, `sh -c '...'` (any shell), `eval ...`,
/// `env -S '...'` and `find ... -exec ... ;` are listed too.
pub fn invocations(script: &str) -> Result<Vec<Invocation>, ShellError> {
    let mut out = Vec::new();
    collect_invocations(script, 0, &mut out)?;
    Ok(out)
}

/// A word before expansion: its pieces and its text as written.
type RawWord = (Vec<Piece>, String);

fn collect_invocations(script: &str, depth: usize, out: &mut Vec<Invocation>) -> Result<(), ShellError> {
    if depth > MAX_NESTING {
        return Err(ShellError::TooDeep);
    }
    let (tokens, is_closed) = tokenize(script);
    if !is_closed {
        return Err(ShellError::Unclosed);
    }
    let mut words: Vec<RawWord> = Vec::new();
    let mut redirect: Option<Redirect> = None;
    let mut writes: Vec<String> = Vec::new();
    for token in tokens.into_iter().map(Some).chain([None]) {
        match token {
            Some(Token::Word { pieces, raw }) => {
                for piece in &pieces {
                    if let Piece::Substitution(inner) = piece {
                        collect_invocations(inner, depth + 1, out)?;
                    }
                }
                match redirect.take() {
                    None => words.push((pieces, raw)),
                    Some(Redirect::Output) => writes.push(plain_text(&pieces).unwrap_or(raw)),
                    Some(_) => {}
                }
            }
            Some(Token::Redirect(kind)) => redirect = Some(kind),
            Some(Token::Op(_)) | None => {
                let first = out.len();
                command_stages(&words, depth, out)?;
                // The command's stages and what it runs (`sh -c '… > f'`) write its
                // redirections; a nested command keeps its own as well.
                for invocation in &mut out[first..] {
                    invocation.writes.extend(writes.iter().cloned());
                }
                words.clear();
                writes.clear();
                redirect = None;
            }
        }
    }
    Ok(())
}

/// The value of a word known from its text alone (no variable, substitution or arithmetic).
fn plain_text(pieces: &[Piece]) -> Option<String> {
    let mut text = String::new();
    for piece in pieces {
        match piece {
            Piece::Text(part) | Piece::Glob(part) => text.push_str(part),
            Piece::Tilde => text.push('~'),
            Piece::Var { .. } | Piece::Special | Piece::Substitution(_) | Piece::Arithmetic => return None,
        }
    }
    Some(text)
}

/// Pushes each stage of one simple command (see [`invocations`]).
fn command_stages(words: &[RawWord], depth: usize, out: &mut Vec<Invocation>) -> Result<(), ShellError> {
    let mut rest = words;
    while let Some(((pieces, raw), args)) = rest.split_first() {
        let program = plain_text(pieces);
        let is_assignment = assigned_name(raw).is_some();
        let mut invocation = Invocation {
            words: rest.iter().map(|(pieces, raw)| plain_text(pieces).unwrap_or_else(|| raw.clone())).collect(),
            raw: rest.iter().map(|(_, raw)| raw.clone()).collect(),
            runs_unknown: program.is_none() && !is_assignment,
            writes: Vec::new(),
        };
        let Some(program) = program.filter(|_| !is_assignment) else {
            out.push(invocation);
            if !is_assignment {
                return Ok(());
            }
            rest = args;
            continue;
        };
        let kind = program_kind(&program);
        let texts: Vec<Option<String>> = args.iter().map(|(pieces, _)| plain_text(pieces)).collect();
        if KEYWORDS.contains(&kind) || kind == "time" && rest.len() > 1 {
            out.push(invocation);
            rest = args;
            continue;
        }
        if kind == "function" {
            // `function NAME { ...`: the body follows the name.
            out.push(invocation);
            rest = args.get(1..).unwrap_or_default();
            continue;
        }
        if WRAPPERS.contains(&kind) {
            if let Some(split) = env_split_string(kind, &texts) {
                out.push(invocation);
                return match split {
                    Some(script) => collect_invocations(&script, depth + 1, out),
                    None => {
                        out.push(unknown_run(args));
                        Ok(())
                    }
                };
            }
            let shape: Vec<WrapperArg<'_>> = args
                .iter()
                .zip(&texts)
                .map(|((_, raw), text)| WrapperArg {
                    text: text.as_deref(),
                    is_assignment: assigned_name(raw).is_some(),
                })
                .collect();
            out.push(invocation);
            rest = &args[wrapped_program(kind, &shape).min(args.len())..];
            continue;
        }
        if SHELLS.contains(&kind) {
            match shell_script(&texts) {
                ShellRuns::Script(script) => {
                    out.push(invocation);
                    return collect_invocations(&script, depth + 1, out);
                }
                ShellRuns::Unknown => invocation.runs_unknown = true,
                ShellRuns::File => {}
            }
        } else if kind == "eval" {
            match texts.iter().cloned().collect::<Option<Vec<String>>>() {
                Some(parts) => {
                    out.push(invocation);
                    return collect_invocations(&parts.join(" "), depth + 1, out);
                }
                None => invocation.runs_unknown = true,
            }
        } else if kind == "find" {
            find_exec(args, &texts, depth, out)?;
        }
        out.push(invocation);
        return Ok(());
    }
    Ok(())
}

/// An invocation standing for text run that is not known before it runs.
fn unknown_run(args: &[RawWord]) -> Invocation {
    let raw: Vec<String> = args.iter().map(|(_, raw)| raw.clone()).collect();
    Invocation { words: raw.clone(), raw, runs_unknown: true, writes: Vec::new() }
}

/// `env -S 'STRING'` / `env --split-string=STRING`: `Some(Some(script))` for the command line
/// it runs, `Some(None)` when it is not known; `None` when `kind` is no `env -S`.
fn env_split_string(kind: &str, texts: &[Option<String>]) -> Option<Option<String>> {
    if kind != "env" {
        return None;
    }
    for (i, text) in texts.iter().enumerate() {
        let Some(text) = text else { continue };
        let attached = if let Some(value) = text.strip_prefix("--split-string=") {
            Some(value.to_owned())
        } else if text == "-S" || text == "--split-string" {
            None
        } else if let Some(value) = text.strip_prefix("-S") {
            Some(value.to_owned())
        } else {
            continue;
        };
        let first = if attached.is_some() { i + 1 } else { i + 2 };
        let head = match attached {
            Some(value) => Some(value),
            None => texts.get(i + 1).cloned().flatten(),
        };
        let tail = texts.get(first..).unwrap_or_default().iter().cloned().collect::<Option<Vec<String>>>();
        return Some(head.zip(tail).map(|(head, tail)| [vec![head], tail].concat().join(" ")));
    }
    None
}

/// What a shell started with these arguments runs.
enum ShellRuns {
    /// `sh -c SCRIPT`.
    Script(String),
    /// A script file: like any program, what it holds is not the command's text.
    File,
    /// Text known only when it runs: `sh -c "$X"`, or `sh` / `sh -s` reading its input.
    Unknown,
}

/// Reads a shell's options: `-c` (alone or among others, `-lc`), `-s`, `-o NAME`, `--rcfile F`.
fn shell_script(texts: &[Option<String>]) -> ShellRuns {
    let (mut has_c, mut reads_input) = (false, false);
    let mut i = 0;
    while let Some(text) = texts.get(i) {
        let Some(text) = text else { return if has_c { ShellRuns::Unknown } else { ShellRuns::File } };
        if text == "--" || !text.starts_with(['-', '+']) || text.len() < 2 {
            let operand = if text == "--" { texts.get(i + 1) } else { Some(&texts[i]) };
            return match (has_c, operand) {
                (true, Some(Some(script))) => ShellRuns::Script(script.clone()),
                (true, _) => ShellRuns::Unknown,
                (false, Some(_)) if !reads_input => ShellRuns::File,
                (false, _) => ShellRuns::Unknown,
            };
        }
        if !text.starts_with("--") && text.starts_with('-') {
            has_c |= text.contains('c');
            reads_input |= text.contains('s');
        }
        i += 1 + usize::from(matches!(text.as_str(), "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"));
    }
    // No operand: the script comes from the input (`echo rm -rf x | sh`), or `-c` lacks it.
    ShellRuns::Unknown
}

/// The commands of `find ... -exec CMD ... ;` (and `-execdir`, `-ok`, `-okdir`, ending at `;`
/// or `+`).
fn find_exec(
    args: &[RawWord],
    texts: &[Option<String>],
    depth: usize,
    out: &mut Vec<Invocation>,
) -> Result<(), ShellError> {
    let mut i = 0;
    while i < texts.len() {
        if matches!(texts[i].as_deref(), Some("-exec" | "-execdir" | "-ok" | "-okdir")) {
            let start = i + 1;
            let end =
                (start..texts.len()).find(|&k| matches!(texts[k].as_deref(), Some(";" | "+"))).unwrap_or(texts.len());
            command_stages(&args[start..end], depth + 1, out)?;
            i = end;
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(analysis: &Analysis) -> Vec<String> {
        analysis
            .named
            .iter()
            .map(|named| match named {
                Named::Path { path, role } => {
                    format!("{}{}", path.display(), if *role == Role::Run { "!" } else { "" })
                }
                Named::Program { name, cwd } => format!("{name}@{}", cwd.display()),
                Named::Directory { path } => format!("{}?", path.display()),
            })
            .collect()
    }

    fn shell(command: &str) -> Analysis {
        let mut vars = Vars::default();
        vars.set("CLAUDE_PROJECT_DIR", "/p");
        analyze_shell(command, Path::new("/p"), &vars, Some(Path::new("/home/u")))
    }

    #[test]
    fn quotes_escapes_and_operators_split_words() {
        let analysis = shell(r#"'./a b.sh' --fix && "./c".sh; ./d\ e.sh | x || (y)"#);
        assert_eq!(paths(&analysis), ["/p/./a b.sh!", "/p/./c.sh!", "/p/./d e.sh!", "x@/p", "y@/p"]);
        assert!(analysis.undetermined.is_empty(), "{:?}", analysis.undetermined);
    }

    #[test]
    fn cd_moves_later_commands_and_a_subshell_returns() {
        let analysis = shell("cd tools && ./lint.sh; (cd /elsewhere; ./x.sh); ./y.sh");
        assert_eq!(paths(&analysis), ["/p/tools/./lint.sh!", "/elsewhere/./x.sh!", "/p/tools/./y.sh!"]);
    }

    #[test]
    fn project_variables_resolve_and_others_are_undetermined() {
        let analysis = shell(r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh ${CLAUDE_PROJECT_DIR}/x.py; $OTHER/y.sh"#);
        assert_eq!(paths(&analysis), ["/p/.claude/hooks/check.sh!", "/p/x.py"]);
        assert_eq!(
            analysis.undetermined,
            [
                "`$OTHER/y.sh`: the program is not known before the hook runs: `$OTHER` is not known before the hook runs"
            ]
        );
    }

    #[test]
    fn substitutions_eval_and_unknown_cd_are_undetermined() {
        let analysis = shell("sh $(git rev-parse --show-toplevel)/x.sh; eval \"$CMD\"; cd \"$D\" && ./z.sh");
        assert_eq!(analysis.undetermined.len(), 3, "{:?}", analysis.undetermined);
        assert!(analysis.undetermined[0].contains("output of a command"), "{:?}", analysis.undetermined);
        assert!(analysis.undetermined[1].starts_with("`eval"), "{:?}", analysis.undetermined);
        assert!(
            analysis.undetermined[2].starts_with("`./z.sh`: relative to a directory not known"),
            "{:?}",
            analysis.undetermined
        );
    }

    #[test]
    fn source_shells_interpreters_and_wrappers() {
        let analysis = shell(
            ". ./lib.sh; source env.sh; FOO=1 sh -c 'cd sub; ./in.sh' arg; env A=1 timeout 5 ./w.sh; python3 -X dev tools/t.py --config=conf/c.yaml; python3 -m pkg.tool; sh < run.sh 2>/dev/null",
        );
        assert_eq!(
            paths(&analysis),
            [
                "/p/./lib.sh!",
                "env.sh@/p",
                "/p/env.sh!",
                "sh@/p",
                "/p/sub/./in.sh!",
                "/p/arg",
                "env@/p",
                "timeout@/p",
                "/p/./w.sh!",
                "python3@/p",
                "/p/dev",
                "/p/tools/t.py!",
                "/p/conf/c.yaml",
                "python3@/p",
                "/p/pkg/tool.py?",
                "/p/pkg/tool/__main__.py?",
                "/p/pkg/tool/__init__.py?",
                "sh@/p",
                "/p/run.sh!",
            ]
        );
    }

    #[test]
    fn the_readme_guard_and_special_parameters_are_determined() {
        let analysis = shell(
            "if grep -q 'rm -rf'; then echo '{\"action\": \"skip\"}'; else echo '{}'; fi; echo $$ > /tmp/pid; exit $?",
        );
        assert!(analysis.undetermined.is_empty(), "{:?}", analysis.undetermined);
        let analysis = shell("for f in hooks/*.sh; do . \"$f\"; done");
        assert!(!analysis.undetermined.is_empty());
    }

    #[test]
    fn wrapper_options_with_values_are_not_the_program() {
        let analysis = shell("nice -n 5 ./n.sh; sudo -u root ./s.sh; timeout -s KILL 10 ./t.sh");
        assert_eq!(paths(&analysis), ["nice@/p", "/p/./n.sh!", "sudo@/p", "/p/./s.sh!", "timeout@/p", "/p/./t.sh!"]);
    }

    fn words(script: &str) -> Vec<String> {
        invocations(script)
            .unwrap_or_else(|e| panic!("{script:?}: {e}"))
            .iter()
            .map(|inv| format!("{}{}", if inv.runs_unknown { "?" } else { "" }, inv.words.join(" ")))
            .collect()
    }

    #[test]
    fn invocations_are_every_stage_of_every_command() {
        assert_eq!(
            words("A=1 sudo -u x 'r'm \"-rf\" a\\ b 2>&1 | tee log"),
            ["A=1 sudo -u x rm -rf a b", "sudo -u x rm -rf a b", "rm -rf a b", "tee log"]
        );
        assert_eq!(words("echo \"$(git log)\" `ls`"), ["git log", "ls", "echo \"$(git log)\" `ls`"]);
        assert_eq!(words("bash -c 'x; y'"), ["bash -c x; y", "x", "y"]);
        assert_eq!(words("$X a; sh; sh s.sh"), ["?$X a", "?sh", "sh s.sh"]);
        assert_eq!(invocations("echo 'x"), Err(ShellError::Unclosed));
        assert_eq!(invocations("echo $(x"), Err(ShellError::Unclosed));
        assert_eq!(invocations("sh -c '"), Err(ShellError::Unclosed));
        assert_eq!(invocations(&format!("{}x{}", "echo $(".repeat(20), ")".repeat(20))), Err(ShellError::TooDeep));
    }
}
