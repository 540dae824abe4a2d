//! Simple commands as rules see them: every command hook-shell's [`hook_shell::invocations`]
//! finds in a script (wrappers unwrapped, `sh -c` and `$(…)` entered), with the program reduced
//! to its basename and flags normalized, plus the commands inside interpreter one-liners
//! (`python -c "os.system('…')"`).

use std::{
    collections::HashMap,
    path::{Component, Path, PathBuf},
    sync::OnceLock,
};

use regex::Regex;

/// One simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Its words, quotes and escapes removed (the program first, as written).
    pub words: Vec<String>,
    /// The program's basename (`/usr/bin/git` → `git`, `\rm` → `rm`).
    pub program: String,
    /// Its flags, normalized for its program (`-rf` → `r`, `f`; `--hard` → `--hard`).
    pub flags: Vec<String>,
    /// Its operands (what is neither a flag nor a flag's value), in order.
    pub operands: Vec<String>,
    /// What it runs cannot be known before it runs (`$X -rf /`, `sh` reading its input).
    pub runs_unknown: bool,
    /// Files its output is redirected to.
    pub writes: Vec<String>,
    /// Files its input is redirected from (`< f`): read like operands.
    pub reads: Vec<String>,
    /// The directories the script changed to before it, in order (each `cd DIR`'s operand, `~`
    /// for a bare `cd`): its relative paths are relative to where they lead. Empty when the
    /// script did not `cd`, or changed to a directory known only when it runs.
    pub cds: Vec<String>,
    /// The text it reads on its input when the script holds it (a here-document or a
    /// here-string): `args_regex` sees it after the words.
    pub stdin: Option<String>,
    /// The operands it writes, as written or joined to a destination directory: the
    /// destination of `cp` / `mv` / `install` / `ln` (and, since the destination may be a
    /// directory, the destination joined with each source's name), every directory of
    /// `install -d`, every file of `tee` and `sed -i`, the `of=` of `dd`. The sources of a copy
    /// are only read.
    pub written: Vec<String>,
}

/// Programs whose single-dash options are whole words (`find -delete`, `terraform -destroy`).
const SINGLE_DASH_LONG: [&str; 7] = ["find", "terraform", "tofu", "terragrunt", "java", "dd", "openssl"];

/// Interpreters whose `-c` / `-e` code is searched for the shell commands it runs.
const INTERPRETERS: [&str; 8] = ["python", "python2", "python3", "node", "perl", "ruby", "php", "deno"];

/// Options that take the next word as their value, per program (so the value is no operand:
/// `git -C dir reset` has the operand `reset`).
fn value_options(program: &str) -> &'static [&'static str] {
    match program {
        "git" => &["C", "c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"],
        // What `openssl` writes (`-out`, `-keyout`) is no file it reads; `-in FILE` stays an
        // operand, read.
        "openssl" => {
            &["-out", "-keyout", "-passin", "-passout", "-pass", "-config", "-subj", "-days", "-newkey", "-name"]
        }
        "kubectl" => &["n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "l", "--selector"],
        "docker" | "podman" => &["H", "--host", "--context", "--config", "p", "--project-name", "--file"],
        "docker-compose" | "podman-compose" => COMPOSE_VALUE_OPTIONS,
        "aws" => &["--profile", "--region", "--endpoint-url", "--output"],
        "gcloud" => &["--project", "--account", "--configuration"],
        "az" => &["--subscription", "g", "--resource-group", "n", "--name"],
        "psql" | "mysql" => &["h", "--host", "U", "--username", "p", "--port", "d", "--dbname", "u", "--user"],
        "redis-cli" => &["h", "p", "a", "n", "u"],
        "mysqladmin" | "mariadb-admin" => &["h", "--host", "u", "--user", "P", "--port", "S", "--socket"],
        // The pattern of `-e`, the file of patterns of `-f`: no file searched.
        "grep" | "egrep" | "fgrep" => GREP_VALUE_OPTIONS,
        "rg" => RG_VALUE_OPTIONS,
        "ag" | "ack" => {
            &["G", "--file-search-regex", "A", "B", "C", "m", "--ignore", "--ignore-dir", "--depth", "--type"]
        }
        // The key of `-i` is used, not read out (`ssh -i key.pem host`).
        "ssh" => {
            &["i", "o", "p", "F", "l", "J", "c", "E", "L", "R", "D", "b", "S", "W", "w", "m", "O", "Q", "e", "B", "I"]
        }
        "scp" | "sftp" => &["i", "o", "P", "F", "l", "J", "c", "S"],
        "chmod" | "chown" | "chgrp" => &["--reference"],
        "shred" => &["n", "--iterations", "s", "--size", "--random-source"],
        _ => &[],
    }
}

/// `grep`'s options with a value (the pattern of `-e`, the file of patterns of `-f`, …).
#[rustfmt::skip]
const GREP_VALUE_OPTIONS: &[&str] = &[
    "e", "--regexp", "f", "--file", "m", "--max-count", "A", "B", "C", "--after-context", "--before-context",
    "--context", "--include", "--exclude", "--exclude-dir", "--label", "d", "D", "--binary-files",
];

/// ripgrep's options with a value.
#[rustfmt::skip]
const RG_VALUE_OPTIONS: &[&str] = &[
    "e", "--regexp", "f", "--file", "g", "--glob", "--iglob", "t", "--type", "T", "--type-not", "--type-add", "m",
    "--max-count", "A", "B", "C", "--after-context", "--before-context", "--context", "j", "--threads", "M",
    "--max-columns", "--max-depth", "r", "--replace", "E", "--encoding", "--sort", "--sortr",
];

/// The canonical spelling of a flag of `program`: long names mapped to their short letter,
/// letters that mean the same mapped to one.
fn canonical(program: &str, flag: &str) -> String {
    let mapped = match (program, flag) {
        ("rm" | "cp" | "rmdir", "--recursive" | "R") => "r",
        ("rm" | "cp" | "mv" | "ln", "--force") => "f",
        ("rm", "--dir") => "d",
        ("chmod" | "chown" | "chgrp", "--recursive") => "R",
        ("git", "--force") => "f",
        ("git", "--delete") => "d",
        ("git", "--all") => "a",
        ("kubectl" | "docker" | "podman" | "docker-compose" | "podman-compose", "--all") => "a",
        ("kubectl", "--all-namespaces") => "A",
        ("docker" | "podman" | "docker-compose" | "podman-compose", "--volumes") => "v",
        ("docker" | "podman", "--force") => "f",
        ("shred", "--remove") => "u",
        _ => flag,
    };
    mapped.to_owned()
}

/// The basename of a program word: `/usr/bin/git` → `git`, `\rm` → `rm`.
pub(crate) fn basename(word: &str) -> String {
    let word = word.trim_start_matches('\\');
    // A byte search: `rsplit` sets up a general searcher, ten times the cost on a short word.
    let start = word.bytes().rposition(|b| b == b'/').map_or(0, |slash| slash + 1);
    word[start..].to_owned()
}

/// The options of `docker compose` that take a value (`-f prod.yml`): after `compose`, `-f` is
/// no longer `docker`'s own.
const COMPOSE_VALUE_OPTIONS: &[&str] =
    &["f", "--file", "p", "--project-name", "--env-file", "--profile", "--project-directory", "--ansi"];

/// Splits `program`'s arguments into normalized flags and operands.
pub(crate) fn flags_and_operands(program: &str, args: &[String]) -> (Vec<String>, Vec<String>) {
    let (mut flags, mut operands) = (Vec::new(), Vec::new());
    let mut takes_value = value_options(program);
    let single_dash_long = SINGLE_DASH_LONG.contains(&program);
    let mut i = 0;
    let mut options_over = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if matches!(program, "docker" | "podman") && operands.len() == 1 && operands[0] == "compose" {
            takes_value = COMPOSE_VALUE_OPTIONS;
        }
        if options_over || arg.len() < 2 || !arg.starts_with('-') {
            operands.push(arg.clone());
            continue;
        }
        if arg == "--" {
            options_over = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, has_value) = match long.split_once('=') {
                Some((name, _)) => (format!("--{name}"), true),
                None => (arg.clone(), false),
            };
            if !has_value && takes_value.contains(&name.as_str()) {
                i += 1;
            }
            // `kubectl … --dry-run=none` (or `=false`) runs for real: no dry run.
            if name == "--dry-run" && matches!(long.split_once('=').map(|(_, v)| v), Some("none" | "false")) {
                continue;
            }
            flags.push(canonical(program, &name));
            continue;
        }
        if single_dash_long {
            let name = arg.split('=').next().unwrap_or(arg);
            if name == arg && takes_value.contains(&name) {
                i += 1;
            }
            flags.push(name.to_owned());
            continue;
        }
        let letters: Vec<char> = arg[1..].chars().collect();
        for (k, letter) in letters.iter().enumerate() {
            let letter = letter.to_string();
            if takes_value.contains(&letter.as_str()) {
                // `-C dir`, or `-Cdir` with the value attached.
                if k + 1 == letters.len() {
                    i += 1;
                }
                flags.push(canonical(program, &letter));
                break;
            }
            if !letter.chars().all(|c| c.is_ascii_alphanumeric()) {
                break;
            }
            flags.push(canonical(program, &letter));
        }
    }
    (flags, operands)
}

/// A pattern's flags, normalized for its program as a command's are.
pub(crate) fn pattern_flags(program: &str, words: &[String]) -> Vec<String> {
    flags_and_operands(program, words).0
}

/// The simple commands of `script`, or why it cannot be read.
pub fn simple_commands(script: &str) -> Result<Vec<SimpleCommand>, hook_shell::ShellError> {
    let mut out = Vec::new();
    collect(script, 0, &mut out)?;
    Ok(out)
}

fn collect(script: &str, depth: usize, out: &mut Vec<SimpleCommand>) -> Result<(), hook_shell::ShellError> {
    let runs = hook_shell::runs(script)?;
    for bomb in runs.fork_bombs {
        out.push(SimpleCommand {
            words: vec![FORK_BOMB.to_owned(), bomb],
            program: FORK_BOMB.to_owned(),
            flags: Vec::new(),
            operands: Vec::new(),
            runs_unknown: false,
            writes: Vec::new(),
            reads: Vec::new(),
            cds: Vec::new(),
            stdin: None,
            written: Vec::new(),
        });
    }
    let (mut cds, mut cds_known) = (Vec::<String>::new(), true);
    let mut vars: HashMap<String, String> = HashMap::new();
    // Git aliases the script defines (`git config alias.x 'reset --hard'`), by name.
    let mut git_aliases: Vec<(String, String)> = Vec::new();
    for mut invocation in runs.invocations {
        if !vars.is_empty() {
            substitute_vars(&mut invocation, &vars);
        }
        record_assignments(&invocation.words, &mut vars);
        let Some(first) = invocation.words.first() else { continue };
        // `$(echo rm) -rf ~` runs `rm`: a program word that only echoes a literal is that literal
        // (`$(echo $X)` is no literal program).
        if let Some(literal) = echoed_literal(first).filter(|literal| !literal.contains('$')) {
            invocation.words[0] = literal;
            invocation.runs_unknown = false;
        }
        // So is an operand (`rm -rf $(echo ~)`).
        for word in invocation.words.iter_mut().skip(1) {
            if let Some(literal) = echoed_literal(word) {
                *word = literal;
            }
        }
        let program = basename(&invocation.words[0]);
        // `/bin/r? -rf ~`: a program named by a glob is known only when the shell expands it. An
        // assignment (`total=$(du dist/*.tar.gz)`) or a substitution is no glob: what it runs is
        // read from it.
        if !matches!(program.as_str(), "[" | "[[")
            && program.contains(['*', '?', '['])
            && !invocation.words[0].contains(['$', '`', '='])
        {
            invocation.runs_unknown = true;
        }
        // `eval "$(ssh-agent -s)"`: what it runs is what a command prints, and that command
        // is checked itself (a download evaluated is remote-code's `into`).
        if program == "eval"
            && invocation.words.len() > 1
            && invocation.words[1..].iter().all(|w| evaluates_a_tools_output(w))
        {
            invocation.runs_unknown = false;
        }
        if program == "git" {
            expand_git_alias(&mut invocation, &mut git_aliases);
        }
        let args = &invocation.words[1..];
        let (flags, operands) = flags_and_operands(&program, args);
        let written = written_operands(&program, args, &flags, &operands);
        if program == "dd" {
            // `dd if=.env` reads `.env` (what it writes, `of=`, is in `written`).
            invocation.reads.extend(operands.iter().filter_map(|o| o.strip_prefix("if=")).map(str::to_owned));
        }
        let command = SimpleCommand {
            words: invocation.words.clone(),
            program,
            flags,
            operands,
            runs_unknown: invocation.runs_unknown,
            writes: invocation.writes,
            reads: invocation.reads,
            cds: if cds_known { cds.clone() } else { Vec::new() },
            stdin: invocation.stdin,
            written,
        };
        // `cd DIR && rm -rf project`: later commands run in DIR. A directory known only when
        // it runs (`cd "$X"`, `cd -`) leaves the rest relative to the call's directory.
        if matches!(command.program.as_str(), "cd" | "pushd") && cds_known {
            match command.operands.first().map(String::as_str) {
                None => cds.push("~".to_owned()),
                Some(dir) if dir != "-" && !dir.contains(['$', '`']) && !dir.starts_with('+') => {
                    cds.push(dir.to_owned())
                }
                Some(_) => cds_known = false,
            }
        }
        if depth < 2
            && (INTERPRETERS.contains(&command.program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.'))
                || AWKS.contains(&command.program.as_str()))
        {
            // The code of `-c`/`-e`, and a here-document the interpreter reads as its program
            // (`python3 <<'EOF'`, `node - <<EOF`).
            let reads_program = command.operands.is_empty() || command.operands.iter().all(|o| o == "-");
            let stdin = command.stdin.as_deref().filter(|_| reads_program);
            for code in one_liner_code(args).chain(stdin).chain(awk_program(&command)) {
                for inner in embedded_commands(code).into_iter().chain(deletions(code)) {
                    // Text that does not parse as a shell script runs nothing we can see.
                    let _ = collect(&inner, depth + 1, out);
                }
            }
        }
        out.push(command);
    }
    Ok(())
}

/// awk and its kin: their program (the first operand) runs commands through `system(…)`.
const AWKS: [&str; 4] = ["awk", "gawk", "mawk", "nawk"];

/// The program text of an awk command (`awk 'BEGIN{system("…")}'`), none for another.
fn awk_program(command: &SimpleCommand) -> Option<&str> {
    AWKS.contains(&command.program.as_str()).then(|| command.operands.first().map(String::as_str)).flatten()
}

/// Programs whose output is data handed to them or fetched: `eval` of it runs text the script
/// does not show (`eval "$(echo cm0g… | base64 -d)"`, `eval "$(curl …)"`).
const PAYLOAD_SOURCES: [&str; 19] = [
    "echo", "printf", "cat", "base64", "base32", "xxd", "rev", "tr", "openssl", "gzip", "gunzip", "zcat", "curl",
    "wget", "python", "python3", "perl", "ruby", "node",
];

/// Whether `word` is one command substitution running a single command that prints code
/// of its own (`"$(ssh-agent -s)"`, `$(pyenv init -)`): no pipeline, list or redirection,
/// and no program that only passes data through.
fn evaluates_a_tools_output(word: &str) -> bool {
    let word = word.trim_matches('"');
    let inner = if let Some(inner) = word.strip_prefix("$(").and_then(|w| w.strip_suffix(')')) {
        inner
    } else if let Some(inner) = word.strip_prefix('`').and_then(|w| w.strip_suffix('`')) {
        inner
    } else {
        return false;
    };
    if inner.contains(['|', ';', '&', '<', '>', '`', '$', '(', '\n']) {
        return false;
    }
    let program = inner.split_whitespace().next().map(basename).unwrap_or_default();
    !program.is_empty() && !PAYLOAD_SOURCES.contains(&program.as_str())
}

/// Commands that set the variables their `NAME=value` operands name.
const DECLARERS: [&str; 5] = ["export", "declare", "local", "readonly", "typeset"];

/// Records the variables `words` set to a value known from the text (`X=~`, `export D=/tmp/x`,
/// `T=$HOME/x`), and forgets those it sets to anything else. A command's own prefix
/// (`A=b git push`) sets nothing for the commands after it.
fn record_assignments(words: &[String], vars: &mut HashMap<String, String>) {
    let is_assignment = |word: &String| word.split_once('=').is_some_and(|(name, _)| is_name(name));
    let assignments = if words.iter().all(is_assignment) {
        words
    } else if words.first().is_some_and(|w| DECLARERS.contains(&w.as_str())) {
        &words[1..]
    } else {
        return;
    };
    for word in assignments {
        let Some((name, value)) = word.split_once('=').filter(|(name, _)| is_name(name)) else { continue };
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        let rest = value.strip_prefix("${HOME}").or_else(|| value.strip_prefix("$HOME")).unwrap_or(value);
        if rest.contains(['$', '`']) {
            vars.remove(name);
        } else {
            vars.insert(name.to_owned(), value.to_owned());
        }
    }
}

fn is_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `X=~; rm -rf $X`: each `$NAME` / `${NAME}` of a variable the script set to a known value is
/// that value (a word that is only `$NAME`, unquoted, splits on blanks as the shell splits it).
fn substitute_vars(invocation: &mut hook_shell::Invocation, vars: &HashMap<String, String>) {
    let mut words = Vec::with_capacity(invocation.words.len());
    let mut changed = false;
    for (index, word) in invocation.words.iter().enumerate() {
        if !word.contains('$') {
            words.push(word.clone());
            continue;
        }
        let bare = word.strip_prefix("${").and_then(|w| w.strip_suffix('}')).or_else(|| word.strip_prefix('$'));
        if let Some(value) = bare.and_then(|name| vars.get(name)) {
            changed = true;
            words.extend(value.split_whitespace().map(str::to_owned));
            if index == 0 && value.split_whitespace().next().is_none() {
                words.push(String::new());
            }
            continue;
        }
        // One pass: each `$NAME` / `${NAME}` looked up (`$XY` is `XY`, not `X`; `${X:-y}` is no
        // plain name and stays).
        let mut text = String::with_capacity(word.len());
        let mut rest = word.as_str();
        while let Some(at) = rest.find('$') {
            text.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let (name, len) = match after.strip_prefix('{') {
                Some(braced) => braced.find('}').map_or(("", 0), |end| (&braced[..end], end + 2)),
                None => {
                    let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
                    (&after[..end], end)
                }
            };
            match vars.get(name).filter(|_| len > 0) {
                Some(value) => {
                    text.push_str(value);
                    changed = true;
                    rest = &after[len..];
                }
                None => {
                    text.push('$');
                    rest = after;
                }
            }
        }
        text.push_str(rest);
        words.push(text);
    }
    if changed {
        if invocation.runs_unknown && words.first().is_some_and(|w| !w.is_empty() && !w.contains(['$', '`'])) {
            invocation.runs_unknown = false;
        }
        invocation.words = words;
    }
}

/// Replaces a git alias by what it stands for: one given on the command line (`git -c
/// alias.x='reset --hard' x`) or defined earlier in the script (`git config alias.x 'reset
/// --hard' && git x`), which it records in `aliases`. An alias running a shell command (`!…`)
/// makes what the command runs unknown.
fn expand_git_alias(invocation: &mut hook_shell::Invocation, aliases: &mut Vec<(String, String)>) {
    let words = &invocation.words;
    let mut given = Vec::new();
    let mut i = 1;
    // The options before the subcommand (`-C DIR`, `-c NAME=VALUE`, `--git-dir X`, `-p`), those
    // with a value as `flags_and_operands` reads them.
    let takes_value = |option: &str| {
        let name = if option.starts_with("--") { option } else { option.trim_start_matches('-') };
        !option.contains('=') && value_options("git").contains(&name)
    };
    while let Some(word) = words.get(i).filter(|w| w.starts_with('-')) {
        if word == "-c"
            && let Some((name, value)) = words.get(i + 1).and_then(|w| w.strip_prefix("alias.")?.split_once('='))
        {
            given.push((name.to_owned(), value.to_owned()));
        }
        i += 1 + usize::from(takes_value(word));
    }
    let Some(subcommand) = words.get(i).cloned() else { return };
    if subcommand == "config" {
        // `git config [--global|--local|--system|--file F] alias.NAME VALUE`.
        let rest: Vec<&String> = words[i + 1..].iter().filter(|w| !w.starts_with('-')).collect();
        if let [key, value, ..] = rest.as_slice()
            && let Some(name) = key.strip_prefix("alias.")
        {
            aliases.push((name.to_owned(), (*value).clone()));
        }
        return;
    }
    // `-c` overrides what the configuration says; a later definition an earlier one.
    let Some((_, value)) = aliases.iter().chain(given.iter()).rev().find(|(name, _)| *name == subcommand) else {
        return;
    };
    if value.trim_start().starts_with('!') {
        invocation.runs_unknown = true;
        return;
    }
    let expansion: Vec<String> = value.split_whitespace().map(str::to_owned).collect();
    invocation.words.splice(i..=i, expansion);
}

/// The operands `program` writes (see [`SimpleCommand::written`]).
fn written_operands(program: &str, args: &[String], flags: &[String], operands: &[String]) -> Vec<String> {
    match program {
        "tee" => return operands.to_vec(),
        "sed" if flags.iter().any(|f| f == "i" || f == "--in-place") => return operands.to_vec(),
        "install" if flags.iter().any(|f| f == "d" || f == "--directory") => return operands.to_vec(),
        "dd" => return operands.iter().filter_map(|o| o.strip_prefix("of=")).map(str::to_owned).collect(),
        "cp" | "mv" | "install" | "ln" => {}
        _ => return Vec::new(),
    }
    let into = |dir: &str, sources: &mut dyn Iterator<Item = &String>| -> Vec<String> {
        let dir = dir.trim_end_matches('/');
        let mut out = vec![if dir.is_empty() { "/".to_owned() } else { dir.to_owned() }];
        for source in sources {
            let name = source.trim_end_matches('/').rsplit('/').next().unwrap_or_default();
            if !name.is_empty() && name != "." && name != ".." {
                out.push(format!("{dir}/{name}"));
            }
        }
        out
    };
    // `-t DIR`, `-tDIR`, `--target-directory=DIR`, `--target-directory DIR`: every operand is
    // a source (the flag reader took `DIR` for one).
    let mut target = None;
    let mut options_over = false;
    for (i, arg) in args.iter().enumerate() {
        if options_over || !arg.starts_with('-') || arg.len() < 2 {
            continue;
        }
        if arg == "--" {
            options_over = true;
        } else if let Some(dir) = arg.strip_prefix("--target-directory=") {
            target = Some(dir.to_owned());
        } else if arg == "--target-directory" {
            target = args.get(i + 1).cloned();
        } else if !arg.starts_with("--")
            && let Some(at) = arg.find('t')
        {
            target = if at + 1 == arg.len() { args.get(i + 1).cloned() } else { Some(arg[at + 1..].to_owned()) };
        }
    }
    if let Some(dir) = target {
        let mut skipped = false;
        let mut sources = operands.iter().filter(|o| {
            let is_dir = !skipped && **o == dir;
            skipped |= is_dir;
            !is_dir
        });
        return into(&dir, &mut sources);
    }
    match operands {
        // `ln -s TARGET` makes the link in the working directory.
        [only] if program == "ln" => into(".", &mut std::iter::once(only)).split_off(1),
        [sources @ .., destination] if !sources.is_empty() => into(destination, &mut sources.iter()),
        _ => Vec::new(),
    }
}

/// The program name a fork bomb hook-shell finds in the syntax tree ([`hook_shell::Runs`]) is
/// reported as (no real program has it): packs match it.
pub(crate) const FORK_BOMB: &str = "fork-bomb";

/// `$(echo WORD)`, `` `echo WORD` `` or `$(printf WORD)` with a plain literal: `WORD`.
fn echoed_literal(word: &str) -> Option<String> {
    // Every command's program word comes here: most are plain names, and building the regex
    // (Unicode classes) costs a fresh process more than the rest of the call.
    let unquoted = word.strip_prefix('"').unwrap_or(word);
    if !unquoted.starts_with("$(") && !unquoted.starts_with('`') {
        return None;
    }
    static ECHOED: OnceLock<Regex> = OnceLock::new();
    let echoed = ECHOED.get_or_init(|| {
        Regex::new(r#"^"?(?:\$\(|`)\s*(?:echo|printf)\s+['"]?([\w./+~${}-]+)['"]?\s*(?:\)|`)"?$"#)
            .expect("the echoed-literal pattern is valid")
    });
    echoed.captures(word).map(|c| c[1].to_owned())
}

/// The deletes an interpreter's code makes through its own library, as the `rm` command lines
/// that do the same (`shutil.rmtree('/x')` → `rm -rf /x`, `os.remove(p)` → `rm -f p`,
/// `fs.rmSync(os.homedir(), …)` → `rm -rf ~`), so that the same path rules judge them.
fn deletions(code: &str) -> Vec<String> {
    static CALL: OnceLock<Regex> = OnceLock::new();
    let call = CALL.get_or_init(|| {
        Regex::new(
            r#"\b(rmtree|rm_rf|rm_r|remove_tree|remove_dir|remove_entry(?:_secure)?|rimraf(?:\.sync|Sync)?|rmSync|rmdirSync|rm|rmdir|removedirs|remove|unlink|unlinkSync|delete)\s*\(\s*(?:'([^']*)'|"([^"]*)"|os\.path\.expanduser\(\s*['"]([^'"]*)['"]\s*\)|((?:pathlib\.)?Path\.home\(\)|(?:require\(\s*['"]os['"]\s*\)|os)\.homedir\(\)|process\.env\.HOME|os\.environ\[\s*['"]HOME['"]\s*\]|os\.getenv\(\s*['"]HOME['"]\s*\)|ENV\[\s*['"]HOME['"]\s*\]|\$ENV\{\s*['"]?HOME['"]?\s*\}|Dir\.home)|(os\.getcwd\(\)|process\.cwd\(\)|Dir\.pwd|(?:pathlib\.)?Path\.cwd\(\)))"#,
        )
        .expect("the deletion pattern is valid")
    });
    call.captures_iter(code)
        .filter_map(|c| {
            let recursive = matches!(
                &c[1],
                "rmtree" | "rm_rf" | "rm_r" | "remove_tree" | "remove_dir" | "remove_entry" | "remove_entry_secure"
            ) || c[1].starts_with("rimraf")
                || (matches!(&c[1], "rmSync" | "rmdirSync" | "rm") && code.contains("recursive"));
            let path = if let Some(literal) = c.get(2).or_else(|| c.get(3)).or_else(|| c.get(4)) {
                literal.as_str().to_owned()
            } else if c.get(5).is_some() {
                "~".to_owned()
            } else if c.get(6).is_some() {
                ".".to_owned()
            } else {
                return None;
            };
            if path.is_empty() {
                return None;
            }
            let flags = if recursive { "-rf" } else { "-f" };
            Some(format!("rm {flags} -- {}", shell_quote(&path)))
        })
        .collect()
}

/// The code of `-c CODE` / `-e CODE` (`-ec`, `--eval`).
fn one_liner_code(args: &[String]) -> impl Iterator<Item = &str> {
    args.windows(2).filter_map(|pair| {
        let flag = pair[0].as_str();
        let is_code_flag = matches!(flag, "-c" | "-e" | "-E" | "--eval" | "-r" | "-p")
            || flag.starts_with('-') && !flag.starts_with("--") && (flag.ends_with('c') || flag.ends_with('e'));
        is_code_flag.then_some(pair[1].as_str())
    })
}

/// The shell command lines an interpreter's code hands to a shell or runs as a process:
/// string arguments of `system(…)`, `popen(…)`, `subprocess.run(…)`, `execSync(…)`, … (a list
/// of strings is joined with spaces) and backquoted strings.
fn embedded_commands(code: &str) -> Vec<String> {
    static CALL: OnceLock<Regex> = OnceLock::new();
    static STRING: OnceLock<Regex> = OnceLock::new();
    let call = CALL.get_or_init(|| {
        Regex::new(
            r#"(?:system|popen|run|call|check_output|check_call|Popen|getoutput|getstatusoutput|execSync|exec|spawnSync|spawn|execFileSync|execFile|shell_exec|passthru)\s*\(\s*(\[[^\]]*\]|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|`([^`]*)`"#,
        )
        .expect("the embedded-command pattern is valid")
    });
    let string = STRING
        .get_or_init(|| Regex::new(r#""((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'"#).expect("the string pattern is valid"));
    let mut out = Vec::new();
    for captures in call.captures_iter(code) {
        if let Some(backquoted) = captures.get(2) {
            out.push(backquoted.as_str().to_owned());
            continue;
        }
        let Some(argument) = captures.get(1) else { continue };
        let parts: Vec<String> = string
            .captures_iter(argument.as_str())
            .filter_map(|s| s.get(1).or_else(|| s.get(2)).map(|m| m.as_str().to_owned()))
            .collect();
        if argument.as_str().starts_with('[') {
            out.push(parts.iter().map(|p| shell_quote(p)).collect::<Vec<_>>().join(" "));
        } else {
            out.extend(parts);
        }
    }
    out
}

/// `word` quoted for a shell when it needs it.
fn shell_quote(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./~=+:@,".contains(c)) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// What follows `~` in `text` when it names the home directory or a path under it (`~`,
/// `~/x`; not `~user`).
pub(crate) fn after_home(text: &str) -> Option<&str> {
    text.strip_prefix('~').filter(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// `word` as a normalized absolute path: `~`, `$HOME` and `${HOME}` are `home`, a relative
/// path is `cwd`'s, `.` and `..` are resolved, and a trailing `/*`, `/.` or `/` names the
/// directory itself (deleting everything in it is deleting it).
pub fn normalize_path(word: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    let mut text = word.trim_matches(|c| c == '"' || c == '\'').to_owned();
    // `${HOME:?}`, `${HOME%/}`, `${HOME:-/x}` are the home directory when it is set; `$PWD`,
    // `$(pwd)` and the repository's top level (the project) are the working directory.
    // Every operand of every command is normalized: the regex is built and run only for a text
    // one of its forms can start (a plain `$HOME` / `${HOME}` is the loop below).
    let may_expand = (text.starts_with("${HOME") && !text.starts_with("${HOME}"))
        || text.starts_with("$PWD")
        || text.starts_with("${PWD")
        || text.starts_with("$(")
        || text.starts_with('`');
    static EXPANSION: OnceLock<Regex> = OnceLock::new();
    if may_expand
        && let Some(found) = EXPANSION
            .get_or_init(|| {
                Regex::new(r"^(?:\$\{HOME(?::?[-?=+][^}]*|%%?/?)\}|\$\{?PWD\}?|\$\(\s*pwd\s*\)|`\s*pwd\s*`|\$\(\s*git rev-parse --show-toplevel\s*\))")
                    .expect("the expansion pattern is valid")
            })
            .find(&text)
    {
        let replaced = if found.as_str().contains("HOME") {
            home.map(|h| h.display().to_string())
        } else {
            Some(cwd.display().to_string())
        };
        if let Some(replaced) = replaced {
            text = format!("{replaced}{}", &text[found.end()..]);
        }
    }
    for var in ["${HOME}", "$HOME", "\"$HOME\"", "\"${HOME}\""] {
        if let Some(rest) = text.strip_prefix(var)
            && let Some(home) = home
        {
            text = format!("{}{rest}", home.display());
        }
    }
    text = text.replace('"', "");
    if let (Some(rest), Some(home)) = (after_home(&text), home) {
        text = format!("{}{rest}", home.display());
    }
    while let Some(stripped) = text.strip_suffix("/*").or_else(|| text.strip_suffix("/.")) {
        text = if stripped.is_empty() { "/".to_owned() } else { stripped.to_owned() };
    }
    if text == "*" || text == ".*" {
        text = ".".to_owned();
    }
    let joined = if text.starts_with('/') { PathBuf::from(&text) } else { cwd.join(&text) };
    let mut normal = PathBuf::from("/");
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::Normal(part) => normal.push(part),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    normal
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(line: &str) -> Vec<String> {
        let words: Vec<String> = line.split(' ').map(str::to_owned).collect();
        let mut flags = flags_and_operands(&words[0], &words[1..]).0;
        flags.sort();
        flags
    }

    #[test]
    fn flags_normalize() {
        assert_eq!(flags("rm -rf x"), ["f", "r"]);
        assert_eq!(flags("rm -fR x"), ["f", "r"]);
        assert_eq!(flags("rm --recursive --force x"), ["f", "r"]);
        assert_eq!(flags("find . -delete"), ["-delete"]);
        let (flags, operands) = flags_and_operands("git", &["-C".into(), "d".into(), "reset".into(), "--hard".into()]);
        assert_eq!((flags, operands), (vec!["C".to_owned(), "--hard".to_owned()], vec!["reset".to_owned()]));
    }

    #[test]
    fn paths_normalize() {
        let home = Path::new("/home/u");
        let cwd = Path::new("/p/src");
        assert_eq!(normalize_path("~", cwd, Some(home)), Path::new("/home/u"));
        assert_eq!(normalize_path("$HOME/", cwd, Some(home)), Path::new("/home/u"));
        assert_eq!(normalize_path("${HOME}/*", cwd, Some(home)), Path::new("/home/u"));
        assert_eq!(normalize_path("../..", cwd, Some(home)), Path::new("/"));
        assert_eq!(normalize_path("build", cwd, Some(home)), Path::new("/p/src/build"));
        assert_eq!(normalize_path("/*", cwd, Some(home)), Path::new("/"));
    }

    #[test]
    fn one_liners_yield_their_commands() {
        let commands = simple_commands(r#"python3 -c "import os; os.system('rm -rf ~')""#).unwrap();
        assert!(commands.iter().any(|c| c.program == "rm"), "{commands:?}");
        let commands =
            simple_commands(r#"python -c "import subprocess; subprocess.run(['git','reset','--hard'])""#).unwrap();
        assert!(commands.iter().any(|c| c.program == "git" && c.flags == ["--hard"]), "{commands:?}");
    }

    #[test]
    fn library_deletes_read_as_rm() {
        assert_eq!(deletions("import shutil; shutil.rmtree('/home/u')"), ["rm -rf -- /home/u"]);
        assert_eq!(deletions("import os; os.remove('/etc/passwd')"), ["rm -f -- /etc/passwd"]);
        assert_eq!(deletions("shutil.rmtree(pathlib.Path.home())"), ["rm -rf -- ~"]);
        assert_eq!(deletions("fs.rmSync(require('os').homedir(), {recursive: true})"), ["rm -rf -- ~"]);
        assert_eq!(deletions("FileUtils.rm_rf(Dir.home)"), ["rm -rf -- ~"]);
        assert_eq!(deletions("print('rm -rf /')"), Vec::<String>::new());
    }

    #[test]
    fn fork_bombs_and_echoed_programs() {
        let bombs = |script| simple_commands(script).unwrap().into_iter().filter(|c| c.program == FORK_BOMB).count();
        assert_eq!(bombs(":(){ :|:& };:"), 1);
        assert_eq!(bombs("bomb() { bomb | bomb & }; bomb"), 1);
        assert_eq!(bombs("f() { g | h & }; f"), 0);
        assert_eq!(bombs("echo ':(){ :|:& };:'"), 0);
        assert_eq!(echoed_literal("$(echo rm)").as_deref(), Some("rm"));
        assert_eq!(echoed_literal("`echo pwd`").as_deref(), Some("pwd"));
        assert_eq!(echoed_literal("$(cat x)"), None);
    }

    #[test]
    fn only_destinations_are_written() {
        let written = |line: &str| simple_commands(line).unwrap().remove(0).written;
        assert_eq!(written("cp ~/.bashrc backup"), ["backup", "backup/.bashrc"]);
        assert_eq!(written("cp a b ~/"), ["~", "~/a", "~/b"]);
        assert_eq!(written("cp -t ~/.ssh k.pub"), ["~/.ssh", "~/.ssh/k.pub"]);
        assert_eq!(written("mv --target-directory=/d x"), ["/d", "/d/x"]);
        assert_eq!(written("ln -s ~/.bashrc"), ["./.bashrc"]);
        assert_eq!(written("tee -a f g"), ["f", "g"]);
        assert_eq!(written("sed -i s/a/b/ f"), ["s/a/b/", "f"]);
        assert_eq!(written("install -d /x /y"), ["/x", "/y"]);
        assert_eq!(written("dd if=.env of=~/.bashrc bs=1k"), ["~/.bashrc"]);
        assert!(written("cat ~/.bashrc").is_empty());
    }
}
