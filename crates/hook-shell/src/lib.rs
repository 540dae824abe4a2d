//! What a shell command line runs, read with a maintained bash parser (`brush-parser`, see
//! the `syntax` module) and normalized on its syntax tree: a walk over the simple commands that
//! follows `cd DIR`, `;` / `&&` / `||` / `|`, `( ... )`, compound commands, functions,
//! `.` / `source`, `sh -c`, here-documents fed to a shell, wrappers (`env`, `exec`,
//! `timeout`, ...) and interpreter arguments.
//!
//! What the walk cannot know before the hook runs — a command substitution, a variable other
//! than the project-directory ones, `eval`, a glob, a relative path after `cd $X` — is reported
//! as *undetermined*, never guessed.
//!
//! It is hookwire's one shell parser: Claude Code `if` rules (`Bash(rm *)`) read a tool call's
//! command through [`invocations`], every command it runs with quotes and escapes removed, so the
//! two never disagree about what a command line runs. Nothing here does I/O. A text the parser
//! rejects, or one nested deeper than its bounds, is an error ([`ShellError`]) for
//! [`invocations`] and *undetermined* for [`analyze_shell`]: never "runs nothing".
//!
//! ```
//! // Every command a line runs, wrappers and quotes stripped: what an `if` rule compares.
//! let runs = hook_shell::invocations("sudo FOO=1 'r'm -rf build && echo done").expect("it parses");
//! assert!(runs.iter().any(|run| run.words == ["rm", "-rf", "build"]));
//! assert!(runs.iter().any(|run| run.words == ["echo", "done"]));
//! ```

mod syntax;

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
};

use syntax::{Command, Item, Nested, Piece, RawWord, Redirect, plain_text};

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

fn expand(word: &RawWord, vars: &Vars, home: Option<&Path>) -> Word {
    let mut out = Word { text: String::new(), raw: word.raw.clone(), unknown: None, is_opaque: false };
    let unknown = |word: &mut Word, why: String| {
        if word.unknown.is_none() {
            word.unknown = Some(why);
        }
    };
    for piece in &word.pieces {
        match piece {
            Piece::Text(text) => out.text.push_str(text),
            Piece::Glob(glob) => {
                out.text.push_str(glob);
                unknown(&mut out, "a pattern: the files it matches can change".to_owned());
            }
            Piece::Var { name, modified } => match vars.get(name) {
                Some(value) if !modified => out.text.push_str(value),
                Some(_) => unknown(&mut out, format!("`${{{name}...}}` changes the value of a variable")),
                None => unknown(&mut out, format!("`${name}` is not known before the hook runs")),
            },
            Piece::Special | Piece::Positional(_) | Piece::AllArgs => out.is_opaque = true,
            Piece::Substitution => unknown(&mut out, "its value is the output of a command".to_owned()),
            Piece::Arithmetic => unknown(&mut out, "an arithmetic expansion".to_owned()),
            Piece::Unknown(why) => unknown(&mut out, why.clone()),
            Piece::Tilde => match home {
                Some(home) => out.text.push_str(&home.display().to_string()),
                None => unknown(&mut out, "`~` without a HOME".to_owned()),
            },
        }
    }
    out
}

/// Programs that run the program named by their first operand.
const WRAPPERS: [&str; 19] = [
    "exec", "command", "builtin", "nohup", "time", "nice", "env", "sudo", "doas", "xargs", "stdbuf", "timeout",
    "setsid", "ionice", "npx", "pnpx", "bunx", "pkexec", "busybox",
];

/// Shells: `-c STRING` is a command, else the first operand is a script.
const SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"];

/// Interpreters whose first operand is the script they run.
const INTERPRETERS: [&str; 12] =
    ["python", "python3", "python2", "node", "deno", "bun", "ruby", "perl", "php", "lua", "Rscript", "tclsh"];

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
        "npx" | "pnpx" | "bunx" => &["-p", "--package", "--node-options"],
        "pkexec" => &["--user"],
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
            // `command -v NAME` / `-V` only says what NAME is (like `which`): it runs nothing.
            Some(option) if kind == "command" && option.starts_with('-') && option.contains(['v', 'V']) => {
                return args.len();
            }
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

/// Whether wrapper `kind` given `args` and no command runs a shell of its own (`sudo -s`,
/// `sudo -i`, `doas -s`), which reads its commands on its input.
fn runs_a_shell(kind: &str, args: &[Option<String>]) -> bool {
    matches!(kind, "sudo" | "doas")
        && args.iter().flatten().any(|arg| {
            arg == "--shell"
                || arg == "--login"
                || (arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(['s', 'i']))
        })
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
    let walked = syntax::with_stack(command, |levels| {
        let mut analysis = Analysis::default();
        let mut walk =
            Walk { vars: vars.clone(), home, cwd: Cwd::Known(cwd.to_owned()), stack: Vec::new(), stdin: None };
        walk.script(command, &mut analysis, 0, levels);
        analysis
    });
    walked.unwrap_or_else(|error| {
        let mut analysis = Analysis::default();
        analysis.undetermined(format!("`{}`: {error}, so hookwire cannot tell what it runs", command.trim()));
        analysis
    })
}

/// What a command given as an argument vector runs (no shell), starting in `cwd`.
pub fn analyze_argv(argv: &[String], cwd: &Path, vars: &Vars, home: Option<&Path>) -> Analysis {
    // A script given as an argument (`sh -c TEXT`) is parsed on a stack that holds it.
    let joined = argv.join(" ");
    let walked = syntax::with_stack(&joined, |levels| {
        let mut analysis = Analysis::default();
        let mut walk =
            Walk { vars: vars.clone(), home, cwd: Cwd::Known(cwd.to_owned()), stack: Vec::new(), stdin: None };
        let words: Vec<Word> = argv
            .iter()
            .map(|arg| Word { text: arg.clone(), raw: arg.clone(), unknown: None, is_opaque: false })
            .collect();
        walk.simple(&words, &mut analysis, 0, levels);
        analysis
    });
    walked.unwrap_or_else(|error| {
        let mut analysis = Analysis::default();
        analysis.undetermined(format!("`{joined}`: {error}, so hookwire cannot tell what it runs"));
        analysis
    })
}

/// Notes a word whose nested commands cannot be read.
fn unreadable(word: &RawWord, analysis: &mut Analysis) {
    if let Some(Err(error)) = word.nested.iter().find(|nested| nested.is_err()) {
        analysis.undetermined(format!("`{}`: {error}, so hookwire cannot tell what it runs", word.raw));
    }
}

/// The state of the walk over a command.
struct Walk<'h> {
    vars: Vars,
    home: Option<&'h Path>,
    cwd: Cwd,
    /// Directories to return to at each `)`.
    stack: Vec<Cwd>,
    /// What the command being followed reads on its input, when the script holds it.
    stdin: Option<String>,
}

/// How deep `sh -c 'sh -c ...'` is followed.
const MAX_DEPTH: usize = 8;

impl Walk<'_> {
    fn script(&mut self, command: &str, analysis: &mut Analysis, depth: usize, levels: usize) {
        match syntax::parse(command, depth, levels) {
            Ok(items) => self.items(&items, analysis, depth, levels),
            Err(error) => {
                analysis.undetermined(format!("`{}`: {error}, so hookwire cannot tell what it runs", command.trim()))
            }
        }
    }

    fn items(&mut self, items: &[Item], analysis: &mut Analysis, depth: usize, levels: usize) {
        for item in items {
            match item {
                Item::Command(command) => self.finish(command, analysis, depth, levels),
                Item::Expand(words) => words.iter().for_each(|word| unreadable(word, analysis)),
                Item::Unset(name) => self.vars.unset(name),
                // Its commands are listed as the body's; what the definition is adds nothing
                // to what the commands touch.
                Item::ForkBomb(_) => {}
                Item::Open => self.stack.push(self.cwd.clone()),
                Item::Close => {
                    if let Some(cwd) = self.stack.pop() {
                        self.cwd = cwd;
                    }
                }
            }
        }
    }

    /// Follows one simple command.
    fn finish(&mut self, command: &Command, analysis: &mut Analysis, depth: usize, levels: usize) {
        command.words.iter().for_each(|word| unreadable(word, analysis));
        let words: Vec<Word> = command.words.iter().map(|w| expand(w, &self.vars, self.home)).collect();
        self.stdin = command.stdin_text();
        let program = self.simple(&words, analysis, depth, levels);
        self.stdin = None;
        let reads_scripts = program.as_deref().is_some_and(|p| {
            let kind = program_kind(p);
            SHELLS.contains(&kind) || INTERPRETERS.contains(&kind)
        });
        for (redirect, word) in &command.redirects {
            // `sh < script.sh` runs what it reads.
            if *redirect == Redirect::Input {
                let word = expand(word, &self.vars, self.home);
                self.name(&word, if reads_scripts { Role::Run } else { Role::Argument }, analysis);
            }
        }
    }

    /// One simple command; returns its program (after assignments, keywords and wrappers).
    fn simple(&mut self, words: &[Word], analysis: &mut Analysis, depth: usize, levels: usize) -> Option<String> {
        let mut rest = words;
        // `NAME=value` assignments.
        loop {
            match rest.first() {
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
        self.command(first, args, analysis, depth, levels)
    }

    fn command(
        &mut self,
        program: &Word,
        args: &[Word],
        analysis: &mut Analysis,
        depth: usize,
        levels: usize,
    ) -> Option<String> {
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
                Some((wrapped, tail)) => self.command(wrapped, tail, analysis, depth, levels),
                None => Some(program.text.clone()),
            };
        }
        if SHELLS.contains(&kind.as_str()) {
            self.shell_args(args, analysis, depth, levels);
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
    fn shell_args(&mut self, args: &[Word], analysis: &mut Analysis, depth: usize, levels: usize) {
        let mut reads_input = false;
        let mut has_c = false;
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            let is_option = arg.unknown.is_none() && arg.text.starts_with(['-', '+']) && arg.text.len() > 1;
            if is_option && arg.text != "--" {
                let short = arg.text.starts_with('-') && !arg.text.starts_with("--");
                has_c |= short && arg.text.contains('c');
                reads_input |= short && arg.text.contains('s');
                if arg.text == "-o" || arg.text == "+o" {
                    iter.next();
                }
                continue;
            }
            let operand = if arg.text == "--" && arg.unknown.is_none() { iter.next() } else { Some(arg) };
            let Some(operand) = operand.filter(|_| has_c || !reads_input) else { break };
            if has_c {
                match &operand.unknown {
                    None if depth < MAX_DEPTH => self.inner_script(&operand.text, analysis, depth, levels),
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
        // No script operand: the shell runs what it reads, here a here-document it is fed.
        if let Some(text) = self.stdin.take() {
            if depth < MAX_DEPTH {
                self.inner_script(&text, analysis, depth, levels);
            } else {
                analysis.undetermined(format!("`{}`: shells nested too deep", text.trim()));
            }
        }
    }

    /// Follows the script a shell started here runs (`sh -c TEXT`, `sh <<EOF`): it starts in
    /// this directory with these variables, and changes neither.
    fn inner_script(&mut self, text: &str, analysis: &mut Analysis, depth: usize, levels: usize) {
        let mut inner =
            Walk { vars: self.vars.clone(), home: self.home, cwd: self.cwd.clone(), stack: Vec::new(), stdin: None };
        inner.script(text, analysis, depth + 1, levels);
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
    /// The files its input is redirected from (`< f`), quotes removed.
    pub reads: Vec<String>,
    /// The text it reads on its input when the script holds it: a here-document (as written)
    /// or a here-string whose value is known.
    pub stdin: Option<String>,
}

/// Why a script cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ShellError {
    /// A quote, `$(`, `${`, backquote or here-document does not close.
    #[error("a quote, `$(`, backquote or here-document does not close")]
    Unclosed,
    /// Substitutions and nested shells go deeper than 16 levels, or the text holds more than
    /// 4096 characters and reserved words that open a level of nesting.
    #[error(
        "commands are nested more than {} deep, or more than {} brackets, quotes and reserved words open nesting",
        syntax::MAX_NESTING,
        syntax::MAX_OPENERS
    )]
    TooDeep,
    /// The bash grammar does not accept it.
    #[error("it is not valid shell syntax")]
    Syntax,
}

/// Every command `script` runs, each at every stage of stripping what runs it: leading
/// `NAME=value` assignments and wrappers (`sudo -u root`, `env -i`, `nice -n 5`, `timeout 10`,
/// `xargs -n1`, `command`, `exec`, ...), so `sudo FOO=1 rm -rf x` gives `sudo FOO=1 rm -rf x`,
/// `FOO=1 rm -rf x` and `rm -rf x`. The commands of every list, pipeline, subshell, `{ ...; }`,
/// `if` / `while` / `until` / `for` / `case` body and function body are listed, and those
/// inside `$(...)`, backquotes, `<(...)`, arithmetic, parameter defaults (`${X:-$(...)}`),
/// `sh -c '...'` (any shell), a here-document or here-string fed to a shell (`bash <<EOF`),
/// `eval ...`, `env -S '...'` and `find ... -exec ... ;` too.
///
/// A text the bash grammar rejects is an error, never an empty list: callers treat it as a
/// command they cannot check.
pub fn invocations(script: &str) -> Result<Vec<Invocation>, ShellError> {
    runs(script).map(|runs| runs.invocations)
}

/// The words of a text made only of plain words (`git reset --hard`, `A=b git push -f`), as
/// the first of its [`invocations`] (the command as written) holds them, read without the
/// parser: rules read their command patterns with it. `None` for any other text (a quote,
/// escape, expansion, glob, brace, tilde, operator, comment, newline or reserved word, or no
/// word at all), which [`invocations`] reads.
pub fn plain_words(text: &str) -> Option<Vec<String>> {
    syntax::plain_words(text).map(|words| words.into_iter().map(str::to_owned).collect())
}

/// What a script runs, read from its syntax tree: every command (as [`invocations`] lists
/// them) and the fork bombs it defines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Runs {
    /// Every command it runs (see [`invocations`]).
    pub invocations: Vec<Invocation>,
    /// The fork bombs it defines, as written: functions that run themselves at least twice,
    /// once at least in a pipeline or in the background (`:(){ :|:& };:`), in the script or in
    /// what it runs (`sh -c '…'`, `eval '…'`, `$(…)`). A quoted string that only looks like
    /// one (`echo ':(){ :|:& };:'`) is data, not a definition.
    pub fork_bombs: Vec<String>,
}

/// [`invocations`] and the fork bombs `script` defines, from one parse.
pub fn runs(script: &str) -> Result<Runs, ShellError> {
    syntax::with_stack(script, |levels| {
        let mut out = Runs::default();
        collect_invocations(script, 0, levels, &mut out)?;
        Ok(out)
    })?
}

fn collect_invocations(script: &str, depth: usize, levels: usize, out: &mut Runs) -> Result<(), ShellError> {
    let items = syntax::parse(script, depth, levels)?;
    items_invocations(&items, depth, levels, out)
}

fn items_invocations(items: &[Item], depth: usize, levels: usize, out: &mut Runs) -> Result<(), ShellError> {
    for item in items {
        match item {
            Item::Command(command) => {
                for word in command.words.iter().chain(command.redirects.iter().map(|(_, word)| word)) {
                    nested_invocations(&word.nested, depth, levels, out)?;
                }
                let files = |kind: Redirect| -> Vec<String> {
                    command
                        .redirects
                        .iter()
                        .filter(|(redirect, _)| *redirect == kind)
                        .map(|(_, word)| plain_text(&word.pieces).unwrap_or_else(|| word.raw.clone()))
                        .collect()
                };
                let (writes, reads) = (files(Redirect::Output), files(Redirect::Input));
                let first = out.invocations.len();
                if command.words.is_empty() && (!writes.is_empty() || !reads.is_empty()) {
                    // A redirection alone (`> ~/.bashrc`) truncates its file, as `:` would.
                    out.invocations.push(Invocation {
                        words: vec![":".to_owned()],
                        raw: vec![String::new()],
                        runs_unknown: false,
                        writes: Vec::new(),
                        reads: Vec::new(),
                        stdin: None,
                    });
                }
                let stdin = command.stdin_text();
                let input = Input { text: stdin.as_deref(), files: command.reads_piped_files() };
                command_stages(&command.words, input, depth, levels, out)?;
                // The command's stages and what it runs (`sh -c '… > f'`) write and read its
                // redirections; a nested command keeps its own as well.
                for invocation in &mut out.invocations[first..] {
                    invocation.writes.extend(writes.iter().cloned());
                    invocation.reads.extend(reads.iter().cloned());
                }
            }
            Item::Expand(words) => {
                for word in words {
                    nested_invocations(&word.nested, depth, levels, out)?;
                }
            }
            Item::ForkBomb(text) => out.fork_bombs.push(text.clone()),
            Item::Unset(_) | Item::Open | Item::Close => {}
        }
    }
    Ok(())
}

/// The commands run while a word is expanded (`$(...)`, backquotes, `<(...)`).
fn nested_invocations(nested: &[Nested], depth: usize, levels: usize, out: &mut Runs) -> Result<(), ShellError> {
    for script in nested {
        items_invocations(script.as_ref().map_err(|e| *e)?, depth + 1, levels, out)?;
    }
    Ok(())
}

/// What a command reads on its input, as far as the script tells.
#[derive(Debug, Clone, Copy, Default)]
struct Input<'a> {
    /// The text: a here-document, a here-string, what `echo` writes into the pipe.
    text: Option<&'a str>,
    /// The contents of files (`cat FILE | …`).
    files: bool,
}

/// Pushes each stage of one simple command (see [`invocations`]); `input` is what it reads on
/// its input (a here-document a shell runs as its script, ...).
fn command_stages(
    words: &[RawWord],
    input: Input<'_>,
    depth: usize,
    levels: usize,
    out: &mut Runs,
) -> Result<(), ShellError> {
    let stdin = input.text;
    let mut rest = words;
    while let Some((word, args)) = rest.split_first() {
        let program = plain_text(&word.pieces);
        let is_assignment = assigned_name(&word.raw).is_some();
        let mut invocation = Invocation {
            words: rest.iter().map(|w| plain_text(&w.pieces).unwrap_or_else(|| w.raw.clone())).collect(),
            raw: rest.iter().map(|w| w.raw.clone()).collect(),
            runs_unknown: program.is_none() && !is_assignment,
            writes: Vec::new(),
            reads: Vec::new(),
            stdin: stdin.map(str::to_owned),
        };
        let Some(program) = program.filter(|_| !is_assignment) else {
            out.invocations.push(invocation);
            if !is_assignment {
                return Ok(());
            }
            rest = args;
            continue;
        };
        let kind = program_kind(&program);
        let texts: Vec<Option<String>> = args.iter().map(|w| plain_text(&w.pieces)).collect();
        if WRAPPERS.contains(&kind) {
            if let Some(split) = env_split_string(kind, &texts) {
                return run_string(invocation, split, args, depth, levels, out);
            }
            let shape: Vec<WrapperArg<'_>> = args
                .iter()
                .zip(&texts)
                .map(|(w, text)| WrapperArg { text: text.as_deref(), is_assignment: assigned_name(&w.raw).is_some() })
                .collect();
            out.invocations.push(invocation);
            rest = &args[wrapped_program(kind, &shape).min(args.len())..];
            if rest.is_empty()
                && let Some(input) = stdin
                && runs_a_shell(kind, &texts)
            {
                // `sudo -s <<< 'rm -rf /'`, `sudo -i <<EOF`: a root shell reads the script on
                // its input.
                return collect_invocations(input, depth + 1, levels, out);
            }
            if kind == "xargs"
                && let Some(input) = stdin
                && !rest.is_empty()
            {
                // `xargs rm -rf <<< ~/x`: the words it reads are its command's last operands.
                let words: Vec<RawWord> =
                    rest.iter().cloned().chain(input.split_whitespace().map(literal_word)).collect();
                return command_stages(&words, Input::default(), depth, levels, out);
            }
            continue;
        }
        if kind == "su"
            && let Some(input) = stdin
            && dash_c_script(kind, &texts).is_none()
        {
            // `su <<< 'CMD'`, `su - root <<EOF`: the user's shell reads the script on its input.
            out.invocations.push(invocation);
            return collect_invocations(input, depth + 1, levels, out);
        }
        if SHELLS.contains(&kind) {
            // With `-c` the script is its operand (unknown here), never what it reads on its input.
            let dash_c = texts.iter().any(|t| t.as_deref() == Some("-c"));
            match shell_script(&texts) {
                ShellRuns::Script(script) => {
                    out.invocations.push(invocation);
                    return collect_invocations(&script, depth + 1, levels, out);
                }
                // `bash <<EOF ... EOF`: the here-document is the script.
                ShellRuns::Unknown if stdin.is_some() && !dash_c => {
                    out.invocations.push(invocation);
                    return collect_invocations(stdin.unwrap_or_default(), depth + 1, levels, out);
                }
                // `cat setup.sh | bash`: it runs a file, as `bash setup.sh` does.
                ShellRuns::Unknown if input.files && !dash_c => {}
                ShellRuns::Unknown => invocation.runs_unknown = true,
                ShellRuns::File => {}
            }
        } else if let Some(script) = dash_c_script(kind, &texts) {
            // `su -c 'CMD' root`, `script -qc 'CMD' /dev/null`, `flock LOCK -c 'CMD'`: a shell
            // runs CMD.
            return run_string(invocation, script, args, depth, levels, out);
        } else if kind == "flock" {
            // `flock [options] LOCK CMD...`: CMD runs.
            let start = texts
                .iter()
                .position(|t| t.as_deref().is_none_or(|t| !t.starts_with('-')))
                .map_or(texts.len(), |i| i + 1);
            if start < args.len() {
                out.invocations.push(invocation);
                return command_stages(&args[start..], input, depth, levels, out);
            }
        } else if kind == "watch" {
            // `watch [options] COMMAND...` joins its arguments and runs them with `sh -c`.
            let start = watch_command(&texts);
            match texts[start.min(texts.len())..].iter().cloned().collect::<Option<Vec<String>>>() {
                Some(parts) if !parts.is_empty() => {
                    out.invocations.push(invocation);
                    return collect_invocations(&parts.join(" "), depth + 1, levels, out);
                }
                Some(_) => {}
                None => invocation.runs_unknown = true,
            }
        } else if kind == "eval" {
            match texts.iter().cloned().collect::<Option<Vec<String>>>() {
                Some(parts) => {
                    out.invocations.push(invocation);
                    return collect_invocations(&parts.join(" "), depth + 1, levels, out);
                }
                None => invocation.runs_unknown = true,
            }
        } else if kind == "find" {
            find_exec(args, &texts, depth, levels, out)?;
        } else if kind == "trap" {
            // `trap 'CMD' EXIT`: CMD runs later, when the signal comes.
            if let Some(Some(script)) = texts.iter().find(|t| t.as_deref().is_none_or(|t| !t.starts_with('-'))) {
                out.invocations.push(invocation);
                return collect_invocations(script, depth + 1, levels, out);
            }
        } else if matches!(kind, "source" | ".")
            && let Some(input) = stdin
            && texts.first().is_some_and(|t| matches!(t.as_deref(), Some("/dev/stdin" | "-")))
        {
            // `source /dev/stdin <<< 'CMD'`: the text read is the script.
            out.invocations.push(invocation);
            return collect_invocations(input, depth + 1, levels, out);
        }
        out.invocations.push(invocation);
        return Ok(());
    }
    Ok(())
}

/// The command string of `su`, `script` or `flock` given with `-c` (or `--command`, or `-qc`
/// bundled): `Some(Some(text))`, `Some(None)` when it is not known; `None` without one.
fn dash_c_script(kind: &str, texts: &[Option<String>]) -> Option<Option<String>> {
    if !matches!(kind, "su" | "script" | "flock" | "runuser") {
        return None;
    }
    for (i, text) in texts.iter().enumerate() {
        let Some(text) = text else { continue };
        if let Some(value) = text.strip_prefix("--command=") {
            return Some(Some(value.to_owned()));
        }
        let bundled_c = text.starts_with('-') && !text.starts_with("--") && text.ends_with('c');
        if text == "--command" || bundled_c {
            return Some(texts.get(i + 1).cloned().flatten());
        }
    }
    None
}

/// Where the command of `watch` starts among its arguments: past its options and their values
/// (`-n 1`, `--interval=1`, `-d`).
fn watch_command(texts: &[Option<String>]) -> usize {
    let mut i = 0;
    while let Some(Some(text)) = texts.get(i) {
        match text.as_str() {
            "--" => return i + 1,
            "-n" | "--interval" | "-q" | "--equexit" => i += 2,
            option if option.starts_with('-') && option.len() > 1 => i += 1,
            _ => return i,
        }
    }
    i
}

/// Pushes `invocation`, then what the command string it runs holds (`env -S`, `su -c`), or an
/// unknown run when that string is known only when it runs.
fn run_string(
    invocation: Invocation,
    script: Option<String>,
    args: &[RawWord],
    depth: usize,
    levels: usize,
    out: &mut Runs,
) -> Result<(), ShellError> {
    out.invocations.push(invocation);
    match script {
        Some(script) => collect_invocations(&script, depth + 1, levels, out),
        None => {
            out.invocations.push(unknown_run(args));
            Ok(())
        }
    }
}

/// An invocation standing for text run that is not known before it runs.
fn unknown_run(args: &[RawWord]) -> Invocation {
    let raw: Vec<String> = args.iter().map(|w| w.raw.clone()).collect();
    Invocation { words: raw.clone(), raw, runs_unknown: true, writes: Vec::new(), reads: Vec::new(), stdin: None }
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
    levels: usize,
    out: &mut Runs,
) -> Result<(), ShellError> {
    let found = found_by_find(args, texts);
    let mut i = 0;
    while i < texts.len() {
        if matches!(texts[i].as_deref(), Some("-exec" | "-execdir" | "-ok" | "-okdir")) {
            let start = i + 1;
            let end =
                (start..texts.len()).find(|&k| matches!(texts[k].as_deref(), Some(";" | "+"))).unwrap_or(texts.len());
            let stage: Vec<RawWord> = args[start..end]
                .iter()
                .zip(&texts[start..end])
                .map(|(w, t)| if t.as_deref() == Some("{}") { found.clone() } else { w.clone() })
                .collect();
            command_stages(&stage, Input::default(), depth + 1, levels, out)?;
            i = end;
        }
        i += 1;
    }
    Ok(())
}

/// A word that is `text` as written, no expansion in it.
fn literal_word(text: &str) -> RawWord {
    RawWord { pieces: vec![Piece::Text(text.to_owned())], raw: text.to_owned(), nested: Vec::new() }
}

/// What `{}` stands for in `find ROOT … -name NAME -exec CMD {} ;`: a file `NAME` under the
/// first root (`./.env` for `find . -name .env`; `-iname` lowercased), or any file of the root
/// (`ROOT/*`) without a name or when the expression negates or alternates (`!`, `-not`, `-o`),
/// so that `-exec cat {}` is judged as the `cat` of what it prints.
fn found_by_find(args: &[RawWord], texts: &[Option<String>]) -> RawWord {
    let root = match args.first() {
        Some(first) if !first.raw.starts_with('-') && first.raw != "(" && first.raw != "!" => first.clone(),
        _ => literal_word("."),
    };
    let either = texts.iter().any(|t| matches!(t.as_deref(), Some("!" | "-not" | "-o" | "-or")));
    let name = texts
        .iter()
        .position(|t| matches!(t.as_deref(), Some("-name" | "-iname")))
        .filter(|_| !either)
        .and_then(|k| Some((texts[k].as_deref() == Some("-iname"), args.get(k + 1)?)))
        .filter(|(_, w)| w.nested.is_empty());
    let mut pieces = root.pieces;
    pieces.push(Piece::Text("/".to_owned()));
    let raw = match name {
        Some((fold, name)) => {
            pieces.extend(name.pieces.iter().map(|piece| match piece {
                Piece::Text(text) if fold => Piece::Text(text.to_lowercase()),
                other => other.clone(),
            }));
            format!("{}/{}", root.raw, name.raw)
        }
        None => {
            pieces.push(Piece::Glob("*".to_owned()));
            format!("{}/*", root.raw)
        }
    };
    RawWord { pieces, raw, nested: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain text's words are what the first of its invocations holds; anything else is left
    /// to the parser.
    #[test]
    fn plain_words_are_the_first_invocations_words() {
        for text in [
            "git reset --hard",
            "  rm\t-rf   / ",
            "sudo rm -rf",
            "A=b git push --force origin +main",
            "env -i sh",
            "xargs rm",
            "terraform apply -destroy",
            ":",
            "chmod -R 777 /",
        ] {
            let first = invocations(text).expect("parses").into_iter().next().expect("one command");
            assert_eq!(plain_words(text), Some(first.words), "{text:?}");
        }
        for text in ["", " ", "rm -rf ~", "echo 'x'", "a && b", "rm *", "if true", "a > f", "a\nb", "$X -rf"] {
            assert_eq!(plain_words(text), None, "{text:?}");
        }
    }

    /// `watch` runs its arguments with `sh -c`; input redirections and here-strings are kept.
    #[test]
    fn watch_runs_its_arguments_and_redirections_are_kept() {
        let words = |text: &str| -> Vec<Vec<String>> {
            invocations(text).expect("parses").into_iter().map(|i| i.words).collect()
        };
        for text in ["watch -n 1 rm -rf ~", "watch -d --interval 2 'rm -rf ~'", "watch -- rm -rf ~"] {
            assert!(words(text).contains(&vec!["rm".to_owned(), "-rf".to_owned(), "~".to_owned()]), "{text:?}");
        }
        assert!(invocations("watch \"$CMD\"").expect("parses").iter().any(|i| i.runs_unknown));
        let cat = &invocations("cat < .env > out.txt").expect("parses")[0];
        assert_eq!((cat.reads.clone(), cat.writes.clone()), (vec![".env".to_owned()], vec!["out.txt".to_owned()]));
        let psql = &invocations("psql app <<< 'DROP TABLE t;'").expect("parses")[0];
        assert_eq!(psql.stdin.as_deref(), Some("DROP TABLE t;"));
        let nested = invocations("sudo psql app <<EOF\nDROP TABLE t;\nEOF\n").expect("parses");
        assert!(nested.iter().all(|i| i.stdin.as_deref() == Some("DROP TABLE t;\n")), "{nested:?}");
    }

    /// `su -c`, `script -c`, `flock`, `pkexec`, `busybox`, `trap`, `source /dev/stdin` and
    /// `xargs` fed a known text run the command they are given.
    #[test]
    fn command_strings_and_fed_words_are_run() {
        let runs_rm_rf = |text: &str, target: &str| {
            invocations(text).expect("parses").iter().any(|i| {
                i.words.first().map(String::as_str) == Some("rm") && i.words.last().map(String::as_str) == Some(target)
            })
        };
        for text in [
            "su -c 'rm -rf /' root",
            "su root -c 'rm -rf /'",
            "script -qc 'rm -rf /' /dev/null",
            "flock /tmp/l rm -rf /",
            "flock -c 'rm -rf /' /tmp/l",
            "pkexec rm -rf /",
            "busybox rm -rf /",
            "trap 'rm -rf /' EXIT",
            "source /dev/stdin <<< 'rm -rf /'",
            "xargs rm -rf <<< /",
        ] {
            assert!(runs_rm_rf(text, "/"), "{text:?}: {:?}", invocations(text));
        }
        assert!(!invocations("su - root").expect("parses").iter().any(|i| i.runs_unknown));
    }

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

    #[test]
    fn compound_commands_functions_and_expansions_are_entered() {
        assert_eq!(words("case $x in a) rm -rf a;; *) ls;; esac"), ["rm -rf a", "ls"]);
        assert_eq!(
            words("f() { rm -rf ~; }; while true; do x; done; until y; do z; done"),
            ["rm -rf ~", "true", "x", "y", "z"]
        );
        assert_eq!(words("for f in $(ls); do rm \"$f\"; done"), ["ls", "rm \"$f\""]);
        assert_eq!(words("echo $(( $(id -u) + 1 ))"), ["id -u", "echo $(( $(id -u) + 1 ))"]);
        assert_eq!(words("echo ${X:-$(rm -rf ~)}"), ["rm -rf ~", "echo ${X:-$(rm -rf ~)}"]);
        assert_eq!(words("[[ -n $(whoami) ]] && diff <(ls a) >(wc)"), ["whoami", "ls a", "wc", "diff <(ls a) >(wc)"]);
        assert_eq!(words("$'\\x72m' -rf x"), ["rm -rf x"]);
        // `( (` opens two subshells (bash), `((` an arithmetic command.
        assert_eq!(words("( ( rm -rf x ) ); ((rm - 1))"), ["rm -rf x"]);
        assert_eq!(paths(&shell("( (cd sub; ./a.sh) ); ./b.sh")), ["/p/sub/./a.sh!", "/p/./b.sh!"]);
    }

    #[test]
    fn a_function_called_with_arguments_runs_its_body_with_them() {
        let cases: &[(&str, &[&str])] = &[
            // The body as defined (its arguments unknown), then as each call runs it.
            ("f(){ rm -rf \"$1\"; }; f ~", &["rm -rf \"$1\"", "f ~", "rm -rf ~"]),
            (
                "del() { echo bye; rm -rf \"$@\"; }\ndel ~/a /b; del",
                &["echo bye", "rm -rf \"$@\"", "del ~/a /b", "rm -rf ~/a /b", "del"],
            ),
            // As defined, what `sudo` runs is unknown; as called, it is known.
            ("function w { sudo $* ; }; w rm -rf /", &["sudo $*", "?$*", "w rm -rf /", "sudo rm -rf /", "rm -rf /"]),
            // `$2` past the last argument is empty; `${1:-x}` is not followed.
            ("g(){ rm -r $1$2 ${1:-x}; }; g /etc", &["rm -r $1$2 ${1:-x}", "g /etc", "rm -r /etc ${1:-x}"]),
            // From a function another function calls, and in `$(...)`.
            ("a(){ rm -rf \"$1\"; }; b(){ a \"$1\"; }; b ~", &["rm -rf \"$1\"", "a \"$1\"", "b ~", "a ~", "rm -rf ~"]),
            (
                "h(){ echo $(cat \"$1\"); }; h .env",
                &["cat \"$1\"", "echo $(cat \"$1\")", "h .env", "cat .env", "echo $(cat \"$1\")"],
            ),
            // A redefinition replaces the function; a call without arguments copies nothing.
            ("f(){ ls \"$1\"; }; f(){ pwd; }; f /x", &["ls \"$1\"", "pwd", "f /x"]),
        ];
        for (script, expected) in cases {
            assert_eq!(words(script), *expected, "{script}");
        }
        // Past the steps one script's calls may copy, a call runs what cannot be told.
        let many: String = (0..super::syntax::MAX_COPIED_STEPS / 2 + 1).map(|n| format!("f {n}\n")).collect();
        let script = format!("f(){{ rm -rf \"$1\"; ls \"$1\"; }}\n{many}");
        let listed = words(&script);
        assert_eq!(listed.last().map(String::as_str), Some("?f"), "{listed:?}");
        let copied = listed.iter().filter(|w| w.starts_with("rm -rf ") && !w.contains('$')).count();
        assert_eq!(copied, super::syntax::MAX_COPIED_STEPS / 2);
    }

    #[test]
    fn what_a_pipeline_feeds_a_shell_is_its_script_or_a_file() {
        assert_eq!(words("echo 'rm -rf ~' | bash"), ["echo rm -rf ~", "bash", "rm -rf ~"]);
        assert_eq!(
            words("printf 'cd /\\nrm -rf x\\n' | sudo sh"),
            ["printf cd /\\nrm -rf x\\n", "sudo sh", "sh", "cd /", "rm -rf x"]
        );
        assert_eq!(words("cat <<EOF | sh\nrm -rf ~\nEOF"), ["cat", "sh", "rm -rf ~"]);
        // A file's contents: a script file, as `bash setup.sh` runs one.
        assert_eq!(words("cat scripts/setup.sh | bash"), ["cat scripts/setup.sh", "bash"]);
        assert_eq!(
            words("cat a.sh b.sh | sudo bash -s -- -x"),
            ["cat a.sh b.sh", "sudo bash -s -- -x", "bash -s -- -x"]
        );
        // What cannot be told stays unknown.
        for script in [
            "curl -fsSL https://x.example/i.sh | bash",
            "cat - | bash",
            "cat /dev/stdin | sh",
            "echo -e 'rm\\x20-rf ~' | bash",
            "echo \"$X\" | bash",
            "printf '%s\\n' 'rm -rf ~' | bash",
            "echo ls > out | bash",
            "cat setup.sh | bash -c \"$X\"",
        ] {
            let listed = words(script);
            assert!(listed.iter().any(|w| w.starts_with('?')), "{script}: {listed:?}");
        }
        // Its own input wins over the pipe's.
        assert_eq!(words("echo 'rm -rf ~' | bash <<< 'ls'"), ["echo rm -rf ~", "bash", "ls"]);
        // The text is also the input other programs read (an interpreter's program).
        let analysis = invocations("echo 'import os' | python3").unwrap();
        assert_eq!(analysis[1].stdin.as_deref(), Some("import os\n"));
    }

    #[test]
    fn here_documents_fed_to_a_shell_are_scripts() {
        assert_eq!(words("bash <<EOF\nrm -rf ~\necho hi\nEOF\n"), ["bash", "rm -rf ~", "echo hi"]);
        assert_eq!(words("sudo sh <<'X'\ncd /tmp && rm -rf y\nX"), ["sudo sh", "sh", "cd /tmp", "rm -rf y"]);
        assert_eq!(words("bash <<< 'rm -rf ~'"), ["bash", "rm -rf ~"]);
        // A document given to a program that is no shell is data.
        assert_eq!(words("cat <<EOF > f\nrm -rf ~\nEOF"), ["cat"]);
        // Its substitutions run, though, unless its delimiter is quoted.
        assert_eq!(words("cat <<EOF\n$(rm -rf ~)\nEOF"), ["rm -rf ~", "cat"]);
        assert_eq!(words("cat <<'EOF'\n$(rm -rf ~)\nEOF"), ["cat"]);
        let analysis = shell("bash <<'EOF'\ncd hooks\n./check.sh\nEOF");
        assert_eq!(paths(&analysis), ["bash@/p", "/p/hooks/./check.sh!"]);
    }

    #[test]
    fn what_the_grammar_rejects_is_an_error_and_undetermined() {
        assert_eq!(invocations("rm -rf ~ )"), Err(ShellError::Syntax));
        assert_eq!(invocations("if true; then rm -rf ~"), Err(ShellError::Syntax));
        assert_eq!(invocations("cat <<EOF\nno end"), Err(ShellError::Unclosed));
        let analysis = shell("./a.sh; fi");
        assert_eq!(analysis.undetermined.len(), 1, "{:?}", analysis.undetermined);
        assert!(analysis.undetermined[0].contains("not valid shell syntax"), "{:?}", analysis.undetermined);
    }

    #[test]
    fn fork_bombs_are_function_definitions_not_quoted_text() {
        let bombs = |script: &str| runs(script).expect("it parses").fork_bombs;
        assert_eq!(bombs(":(){ :|:& };:"), [":(){ :|:& }"]);
        assert_eq!(bombs("bomb() { bomb | bomb & }; bomb").len(), 1);
        assert_eq!(bombs("f() { f | f; }; f").len(), 1);
        assert_eq!(bombs("function b { b & b; }; b").len(), 1);
        assert_eq!(bombs("sh -c ':(){ :|:& };:'").len(), 1);
        assert_eq!(bombs("x=$(g(){ g|g& }; g)").len(), 1);
        // Data, other functions and plain recursion are no bombs.
        assert!(bombs("echo ':(){ :|:& };:'").is_empty());
        assert!(bombs("grep 'bomb(){ bomb|bomb& }' notes.txt").is_empty());
        assert!(bombs("f() { g | h & }; f").is_empty());
        assert!(bombs("f() { f; }; f").is_empty());
        assert!(bombs("f() { f & }; f").is_empty());
    }
}
