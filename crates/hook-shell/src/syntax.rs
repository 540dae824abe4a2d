//! The bash grammar, read by `brush-parser`, and its syntax tree flattened into what the walks of
//! this crate follow: the simple commands a script runs, in order, with `(` / `)` marking
//! subshells, and each word split into pieces (text, globs, expansions) with quotes and escapes
//! resolved.
//!
//! The parser is a PEG parser: it recurses once per level of nesting, so the text is bounded
//! before it is parsed ([`check_bounds`]) and parsed on a thread whose stack fits the bound
//! ([`with_stack`]). The commands inside `$(...)`, backquotes, parameter defaults and
//! arithmetic are parsed here too, one level deeper each, up to [`MAX_NESTING`].

use std::io::Cursor;

use brush_parser::{
    ParseError, Parser, ParserOptions, TokenizerError,
    ast::{self, SourceLocation as _},
    word::{self, Parameter, ParameterExpr, TildeExpr, WordPiece},
};

use crate::ShellError;

/// How deep `$(...)`, `sh -c '...'`, `eval` and here-documents fed to a shell are followed.
pub(crate) const MAX_NESTING: usize = 16;

/// The most characters and reserved words that can open a level of nesting one text may hold:
/// the parser's stack grows with nesting, and the count bounds the nesting from above.
pub(crate) const MAX_OPENERS: usize = 4096;

/// Texts with at most this many openers are parsed on the caller's stack (any thread's stack
/// holds this much nesting); longer ones on a thread of their own.
const INLINE_OPENERS: usize = 24;

/// The stack a parse may take per level of nesting, with room to spare (an unoptimized build
/// takes about 20 KB).
const STACK_PER_LEVEL: usize = 48 << 10;

/// A piece of a word before expansion.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    /// Text, quoted or not.
    Text(String),
    /// An unquoted glob character (`*`, `?`, a `[...]` class).
    Glob(String),
    /// `$NAME` / `${NAME}`; `modified`: `${NAME:-x}` and the like.
    Var { name: String, modified: bool },
    /// `$?`, `$$`, `$#`, `$0`, `${1:-x}`: values that never name a project file.
    Special,
    /// `$1`, `${2}`: an argument of the script or function; inside a function called with
    /// arguments it is replaced by the call's (see [`Reader::called`]).
    Positional(u32),
    /// `$@` / `$*`: all the arguments, replaced likewise.
    AllArgs,
    /// `$(...)`, `` `...` `` or `<(...)`: a value that is the output of a command.
    Substitution,
    /// `$((...))`.
    Arithmetic,
    /// An unquoted `~` at the start of a word.
    Tilde,
    /// A value known only when the command runs, and why (`~user`, `${!name}`).
    Unknown(String),
}

/// A word before expansion.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawWord {
    /// Its pieces.
    pub(crate) pieces: Vec<Piece>,
    /// As written.
    pub(crate) raw: String,
    /// The commands its expansion runs (`$(...)`, backquotes, `<(...)`, in defaults and
    /// arithmetic too), each parsed or why not.
    pub(crate) nested: Vec<Nested>,
}

/// The commands of a nested script, or why it cannot be read.
pub(crate) type Nested = Result<Vec<Item>, ShellError>;

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Redirect {
    /// `<`, `<>`: the file is read.
    Input,
    /// `>`, `>>`, `>|`, `&>`: the file is written.
    Output,
    /// `<&`, `>&`: a file descriptor.
    Duplicate,
    /// `<<`, `<<-`: the word is the document.
    HereDoc,
    /// `<<<`.
    HereString,
}

/// A simple command: its words and redirections, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Command {
    /// Assignments, the program and its arguments.
    pub(crate) words: Vec<RawWord>,
    /// The redirections and their targets.
    pub(crate) redirects: Vec<(Redirect, RawWord)>,
    /// What the previous stage of its pipeline writes to its input, when the script tells.
    pub(crate) piped: Option<Piped>,
}

/// What a stage of a pipeline writes to the next one's input, known from the script.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piped {
    /// Text: `echo WORDS`, `printf 'TEXT'` without a format, `cat` of a here-document, `ls -d
    /// PATH...`.
    Text(String),
    /// The contents of files: `cat FILE...` (so `cat setup.sh | bash` runs a file, as `bash
    /// setup.sh` does).
    Files,
}

impl Command {
    /// The text the command reads on its input when the script holds it: a here-document (as
    /// written), a here-string whose value is known, or the text the previous stage of its
    /// pipeline writes ([`Piped::Text`]).
    pub(crate) fn stdin_text(&self) -> Option<String> {
        self.redirects
            .iter()
            .rev()
            .find_map(|(redirect, word)| match redirect {
                Redirect::HereDoc => Some(word.raw.clone()),
                Redirect::HereString => plain_text(&word.pieces),
                _ => None,
            })
            .or_else(|| match &self.piped {
                Some(Piped::Text(text)) if !self.redirects.iter().any(|(r, _)| *r == Redirect::Input) => {
                    Some(text.clone())
                }
                _ => None,
            })
    }

    /// Whether it reads the contents of files on its input (`cat FILE | …`), and nothing
    /// else: no redirection of its own replaces them.
    pub(crate) fn reads_piped_files(&self) -> bool {
        self.piped == Some(Piped::Files)
            && !self
                .redirects
                .iter()
                .any(|(r, _)| matches!(r, Redirect::Input | Redirect::HereDoc | Redirect::HereString))
    }

    /// What it writes on its output for the next stage of a pipeline, when the script tells:
    /// see [`Piped`]. Its output redirected elsewhere, or anything else, is `None`.
    fn output(&self) -> Option<Piped> {
        // Most programs are none of these: told from the first word, with nothing allocated.
        let program = match self.words.first().map(|w| w.pieces.as_slice()) {
            Some([Piece::Text(program)]) => program.rsplit('/').next().unwrap_or(program),
            _ => return None,
        };
        if !matches!(program, "cat" | "ls" | "echo" | "printf")
            || self.redirects.iter().any(|(r, _)| *r == Redirect::Output)
        {
            return None;
        }
        let words: Vec<String> = self.words.iter().map(|w| plain_text(&w.pieces)).collect::<Option<_>>()?;
        let args = &words[1..];
        match program {
            "cat" if args.is_empty() => self.stdin_text().map(Piped::Text),
            "cat" => args
                .iter()
                .all(|a| !a.starts_with('-') && !a.starts_with("/dev/") && !a.starts_with("/proc/"))
                .then_some(Piped::Files),
            // `ls -d PATH...` lists the paths themselves.
            "ls" if args.iter().any(|a| a.starts_with('-') && a.contains('d')) => {
                let (flags, paths): (Vec<&String>, Vec<&String>) = args.iter().partition(|a| a.starts_with('-'));
                let only_listing = flags.iter().all(|f| f.len() > 1 && f[1..].chars().all(|c| matches!(c, 'd' | '1')));
                (only_listing && !paths.is_empty())
                    .then(|| Piped::Text(paths.iter().map(|p| format!("{p}\n")).collect()))
            }
            "echo" => {
                let flags = args
                    .iter()
                    .take_while(|a| {
                        a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
                    })
                    .count();
                // `-e` reads escapes, which this does not.
                if args[..flags].iter().any(|a| a.contains('e')) {
                    return None;
                }
                Some(Piped::Text(args[flags..].join(" ") + "\n"))
            }
            "printf" => match args {
                [text] if !text.contains('%') => {
                    Some(Piped::Text(text.replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")))
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// One step of a script, in the order it runs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    /// A simple command.
    Command(Command),
    /// Words expanded outside a simple command (`for x in WORDS`, `case WORD`, `[[ ... ]]`).
    Expand(Vec<RawWord>),
    /// `for NAME ...`: NAME takes values not followed.
    Unset(String),
    /// A subshell starts: the directory is restored at its end.
    Open,
    /// The subshell ends.
    Close,
    /// A function defined to run itself at least twice, once at least in a pipeline or in the
    /// background — a fork bomb (`:(){ :|:& };:`) — as written.
    ForkBomb(String),
}

/// The value of a word known from its text alone (no variable, substitution or arithmetic).
pub(crate) fn plain_text(pieces: &[Piece]) -> Option<String> {
    let mut text = String::new();
    for piece in pieces {
        match piece {
            Piece::Text(part) | Piece::Glob(part) => text.push_str(part),
            Piece::Tilde => text.push('~'),
            Piece::Var { .. }
            | Piece::Special
            | Piece::Positional(_)
            | Piece::AllArgs
            | Piece::Substitution
            | Piece::Arithmetic
            | Piece::Unknown(_) => {
                return None;
            }
        }
    }
    Some(text)
}

fn options() -> ParserOptions {
    ParserOptions { enable_extended_globbing: true, tilde_expansion_at_word_start: true, ..ParserOptions::default() }
}

/// An upper bound of the nesting depth of `text`: every character that can open a level
/// (`(`, `{`, `[`, a backquote, a quote, `!`) and every reserved word that can, whether or not
/// it closes.
fn openers(text: &str) -> usize {
    // One pass: this runs on every text parsed (each `$(...)` again), before the parse.
    let opens_level = |word: &str| {
        matches!(word, "if" | "then" | "elif" | "else" | "while" | "until" | "for" | "do" | "case" | "select")
            || matches!(word, "function" | "coproc")
    };
    let (mut count, mut word_start) = (0, 0);
    for (i, c) in text.char_indices() {
        if matches!(c, '(' | '{' | '[' | '`' | '"' | '\'' | '!') {
            count += 1;
        }
        if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')') {
            count += usize::from(opens_level(&text[word_start..i]));
            word_start = i + c.len_utf8();
        }
    }
    count + usize::from(opens_level(&text[word_start..]))
}

/// Refuses a text nested deeper than the stack it is parsed on can hold.
fn check_bounds(text: &str, levels: usize) -> Result<(), ShellError> {
    if openers(text) > levels { Err(ShellError::TooDeep) } else { Ok(()) }
}

/// Runs `work` with a stack that holds the parse of `text` (and of the texts nested in it,
/// which are refused when they need more): on the caller's stack for a short text, else on a
/// thread of its own. `work` gets the number of nesting levels its stack holds.
pub(crate) fn with_stack<T: Send>(text: &str, work: impl FnOnce(usize) -> T + Send) -> Result<T, ShellError> {
    let needed = openers(text);
    if needed <= INLINE_OPENERS {
        return Ok(work(INLINE_OPENERS));
    }
    if needed > MAX_OPENERS {
        return Err(ShellError::TooDeep);
    }
    // The stack fits this text's bound (a nested script, `sh -c`, `eval`, may take as much
    // again while the outer walk is under way); a nested text needing more is refused.
    let size = (1 << 20) + 2 * needed * STACK_PER_LEVEL;
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("hook-shell parse".to_owned())
            .stack_size(size)
            .spawn_scoped(scope, || work(needed))
            .map_err(|_| ShellError::TooDeep)?
            .join()
            .map_err(|_| ShellError::Syntax)
    })
}

/// Parses `text` into the steps it runs; `depth` counts the scripts it is nested in, `levels`
/// is the nesting the stack holds.
pub(crate) fn parse(text: &str, depth: usize, levels: usize) -> Nested {
    if depth > MAX_NESTING {
        return Err(ShellError::TooDeep);
    }
    if let Some(items) = plain_command(text) {
        return Ok(items);
    }
    check_bounds(text, levels)?;
    let program = Parser::new(Cursor::new(text.as_bytes()), &options()).parse_program().map_err(parse_error)?;
    let mut reader = Reader::new(text, depth, levels);
    for command in &program.complete_commands {
        reader.list(command);
    }
    Ok(reader.items)
}

fn parse_error(error: ParseError) -> ShellError {
    match error {
        ParseError::Tokenizing {
            inner:
                TokenizerError::UnterminatedSingleQuote(_)
                | TokenizerError::UnterminatedDoubleQuote(_)
                | TokenizerError::UnterminatedAnsiCQuote(_)
                | TokenizerError::UnterminatedBackquote(_)
                | TokenizerError::UnterminatedCommandSubstitution
                | TokenizerError::UnterminatedExpansion
                | TokenizerError::UnterminatedVariable
                | TokenizerError::UnterminatedEscapeSequence
                | TokenizerError::UnterminatedHereDocuments(..),
            ..
        } => ShellError::Unclosed,
        _ => ShellError::Syntax,
    }
}

/// The most steps of function bodies one script's calls copy (see [`Reader::called`]).
pub(crate) const MAX_COPIED_STEPS: usize = 2048;

/// The walk over one parsed script.
struct Reader<'t> {
    text: &'t str,
    depth: usize,
    levels: usize,
    items: Vec<Item>,
    /// The functions defined so far, each with the steps of its body that read its arguments
    /// (`$1`, `"$@"`), as read where it is defined.
    functions: Vec<(String, Vec<Item>)>,
    /// The steps copied so far for calls with arguments.
    copies: usize,
    /// Inside a function's body, as defined: its calls are followed where it is called.
    defining: bool,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, depth: usize, levels: usize) -> Reader<'t> {
        Reader { text, depth, levels, items: Vec::new(), functions: Vec::new(), copies: 0, defining: false }
    }

    /// A walk of a part of the same script, which knows its functions.
    fn inner(&self) -> Reader<'t> {
        Reader {
            functions: self.functions.clone(),
            copies: self.copies,
            defining: self.defining,
            ..Reader::new(self.text, self.depth, self.levels)
        }
    }

    fn list(&mut self, list: &ast::CompoundList) {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            self.pipeline(&and_or.first);
            for next in &and_or.additional {
                match next {
                    ast::AndOr::And(pipeline) | ast::AndOr::Or(pipeline) => self.pipeline(pipeline),
                }
            }
        }
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline) {
        let mut input = None;
        for (n, command) in pipeline.seq.iter().enumerate() {
            let start = self.items.len();
            self.command(command);
            // A simple command's own step comes first (what a call of a function runs, after).
            let step = match (command, self.items.get_mut(start)) {
                (ast::Command::Simple(_), Some(Item::Command(step))) => Some(step),
                _ => None,
            };
            let has_next = n + 1 < pipeline.seq.len();
            input = step.and_then(|step| {
                step.piped = input.take();
                if has_next { step.output() } else { None }
            });
        }
    }

    fn command(&mut self, command: &ast::Command) {
        match command {
            ast::Command::Simple(simple) => self.simple(simple),
            ast::Command::Compound(compound, redirects) => self.compound(compound, redirects.as_ref()),
            // A function's body runs when it is called: its commands are the script's.
            ast::Command::Function(function) => {
                if is_fork_bomb(&function.fname.value, &function.body.0) {
                    let written = function.location().map(|span| self.source(&span)).unwrap_or_default();
                    let text =
                        if written.is_empty() { format!("{}() {{ … }}", function.fname.value) } else { written };
                    self.items.push(Item::ForkBomb(text));
                }
                let (start, defining) = (self.items.len(), std::mem::replace(&mut self.defining, true));
                self.compound(&function.body.0, function.body.1.as_ref());
                self.defining = defining;
                let reading: Vec<Item> =
                    self.items[start..].iter().filter(|item| reads_arguments(item)).cloned().collect();
                let name = function.fname.value.clone();
                self.functions.retain(|(defined, _)| *defined != name);
                self.functions.push((name, reading));
            }
            ast::Command::ExtendedTest(test, redirects) => {
                let mut words = Vec::new();
                self.test_words(&test.expr, &mut words);
                self.items.push(Item::Expand(words));
                self.redirect_only(redirects.as_ref());
            }
        }
    }

    fn test_words(&mut self, expr: &ast::ExtendedTestExpr, out: &mut Vec<RawWord>) {
        match expr {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.test_words(a, out);
                self.test_words(b, out);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => self.test_words(a, out),
            ast::ExtendedTestExpr::UnaryTest(_, word) => out.push(self.word(&word.value)),
            ast::ExtendedTestExpr::BinaryTest(_, a, b) => {
                out.push(self.word(&a.value));
                out.push(self.word(&b.value));
            }
        }
    }

    /// The redirections of a compound command, as a command without words.
    fn redirect_only(&mut self, redirects: Option<&ast::RedirectList>) {
        let Some(redirects) = redirects else { return };
        let mut command = Command::default();
        for redirect in &redirects.0 {
            self.redirect(redirect, &mut command);
        }
        if !command.redirects.is_empty() {
            self.items.push(Item::Command(command));
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand, redirects: Option<&ast::RedirectList>) {
        self.redirect_only(redirects);
        match compound {
            ast::CompoundCommand::Arithmetic(arithmetic) => {
                let written = self.source(&arithmetic.loc);
                if written.starts_with("((") {
                    let word = self.arithmetic(&arithmetic.expr.value);
                    self.items.push(Item::Expand(vec![word]));
                } else {
                    // `( (cmd) )` is two subshells in bash; the parser reads it as `((`.
                    let inner = written.strip_prefix('(').and_then(|w| w.strip_suffix(')')).unwrap_or_default();
                    match parse(inner, self.depth + 1, self.levels) {
                        Ok(items) => {
                            self.items.push(Item::Open);
                            self.items.extend(items);
                            self.items.push(Item::Close);
                        }
                        Err(error) => self.items.push(Item::Expand(vec![RawWord {
                            pieces: vec![Piece::Unknown("a subshell that cannot be read".to_owned())],
                            raw: written,
                            nested: vec![Err(error)],
                        }])),
                    }
                }
            }
            ast::CompoundCommand::ArithmeticForClause(clause) => {
                let words = [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                    .map(|expr| self.arithmetic(&expr.value))
                    .collect();
                self.items.push(Item::Expand(words));
                self.list(&clause.body.list);
            }
            ast::CompoundCommand::BraceGroup(group) => self.list(&group.list),
            ast::CompoundCommand::Subshell(subshell) => {
                self.items.push(Item::Open);
                self.list(&subshell.list);
                self.items.push(Item::Close);
            }
            ast::CompoundCommand::ForClause(clause) => {
                let words = clause.values.iter().flatten().map(|w| self.word(&w.value)).collect();
                self.items.push(Item::Expand(words));
                self.items.push(Item::Unset(clause.variable_name.clone()));
                self.list(&clause.body.list);
            }
            ast::CompoundCommand::CaseClause(clause) => {
                let mut words = vec![self.word(&clause.value.value)];
                for case in &clause.cases {
                    words.extend(case.patterns.iter().map(|p| self.word(&p.value)));
                }
                self.items.push(Item::Expand(words));
                for case in &clause.cases {
                    if let Some(list) = &case.cmd {
                        self.list(list);
                    }
                }
            }
            ast::CompoundCommand::IfClause(clause) => {
                self.list(&clause.condition);
                self.list(&clause.then);
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        self.list(condition);
                    }
                    self.list(&branch.body);
                }
            }
            ast::CompoundCommand::WhileClause(clause) | ast::CompoundCommand::UntilClause(clause) => {
                self.list(&clause.0);
                self.list(&clause.1.list);
            }
            ast::CompoundCommand::Coprocess(coprocess) => self.command(&coprocess.body),
        }
    }

    fn simple(&mut self, simple: &ast::SimpleCommand) {
        let mut command = Command::default();
        for item in simple.prefix.iter().flat_map(|p| p.0.iter()) {
            self.command_item(item, &mut command);
        }
        if let Some(program) = &simple.word_or_name {
            let word = self.word(&program.value);
            command.words.push(word);
        }
        for item in simple.suffix.iter().flat_map(|s| s.0.iter()) {
            self.command_item(item, &mut command);
        }
        self.push_command(command, 0);
    }

    /// Adds a simple command, and what it runs when it calls a function with arguments.
    fn push_command(&mut self, command: Command, calls: usize) {
        let body = self.called(&command, calls);
        self.items.push(Item::Command(command));
        if let Some(body) = body {
            // Run as in a subshell: a `cd` in the copy does not move the rest of the script.
            self.items.push(Item::Open);
            self.items.extend(body);
            self.items.push(Item::Close);
        }
    }

    /// The steps `command` runs when it calls a function defined earlier with arguments
    /// (`f(){ rm -rf "$1"; }; f ~`): the steps of its body that read them, with `$1`, `$@`,
    /// ... replaced by the call's words (a function called from such a step, a few levels
    /// deep, too). A function's body is also read where it is defined, as it stands. Past
    /// [`MAX_COPIED_STEPS`] steps copied in one script, a call runs what cannot be told.
    fn called(&mut self, command: &Command, calls: usize) -> Option<Vec<Item>> {
        // Most scripts define no function: nothing of the command is read then.
        if self.defining || self.functions.is_empty() {
            return None;
        }
        let at = command.words.iter().position(|word| crate::assigned_name(&word.raw).is_none())?;
        let name = plain_text(&command.words[at].pieces)?;
        let args = &command.words[at + 1..];
        let (_, reading) = self.functions.iter().find(|(defined, _)| *defined == name)?;
        if args.is_empty() || reading.is_empty() {
            return None;
        }
        if self.copies + reading.len() > MAX_COPIED_STEPS || calls >= 4 {
            let unknown = RawWord {
                pieces: vec![Piece::Unknown(format!("what `{name}` runs with its arguments is not followed this far"))],
                raw: name,
                nested: Vec::new(),
            };
            return Some(vec![Item::Command(Command { words: vec![unknown], ..Command::default() })]);
        }
        self.copies += reading.len();
        let copied: Vec<Item> = reading.iter().map(|item| with_arguments(item, args)).collect();
        // A call in the copy (`g(){ f "$1"; }`) is followed in turn.
        let mut inner = self.inner();
        for item in copied {
            match item {
                Item::Command(command) => inner.push_command(command, calls + 1),
                other => inner.items.push(other),
            }
        }
        self.copies = inner.copies;
        Some(inner.items)
    }

    fn command_item(&mut self, item: &ast::CommandPrefixOrSuffixItem, command: &mut Command) {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(redirect) => self.redirect(redirect, command),
            ast::CommandPrefixOrSuffixItem::Word(word) => {
                let word = self.word(&word.value);
                command.words.push(word);
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, word) => {
                let mut raw = self.word(&word.value);
                // `A=(x $(y))`: the commands of an array's elements run too.
                if let ast::AssignmentValue::Array(elements) = &assignment.value {
                    for (key, value) in elements {
                        for part in key.iter().chain([value]) {
                            let nested = self.word(&part.value).nested;
                            raw.nested.extend(nested);
                        }
                    }
                }
                command.words.push(raw);
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, subshell) => {
                let word = self.process_substitution(kind, subshell);
                command.words.push(word);
            }
        }
    }

    fn process_substitution(
        &mut self,
        kind: &ast::ProcessSubstitutionKind,
        subshell: &ast::SubshellCommand,
    ) -> RawWord {
        let mut inner = self.inner();
        inner.list(&subshell.list);
        let body = self.source(&subshell.loc);
        let sign = match kind {
            ast::ProcessSubstitutionKind::Read => '<',
            ast::ProcessSubstitutionKind::Write => '>',
        };
        let raw = if body.starts_with('(') { format!("{sign}{body}") } else { format!("{sign}({body})") };
        RawWord { pieces: vec![Piece::Substitution], raw, nested: vec![Ok(inner.items)] }
    }

    fn redirect(&mut self, redirect: &ast::IoRedirect, command: &mut Command) {
        match redirect {
            ast::IoRedirect::File(_, kind, target) => {
                let redirect = match kind {
                    ast::IoFileRedirectKind::Read | ast::IoFileRedirectKind::ReadAndWrite => Redirect::Input,
                    ast::IoFileRedirectKind::Write
                    | ast::IoFileRedirectKind::Append
                    | ast::IoFileRedirectKind::Clobber => Redirect::Output,
                    ast::IoFileRedirectKind::DuplicateInput | ast::IoFileRedirectKind::DuplicateOutput => {
                        Redirect::Duplicate
                    }
                };
                let word = match target {
                    ast::IoFileRedirectTarget::Filename(word) => self.word(&word.value),
                    ast::IoFileRedirectTarget::Duplicate(word) => {
                        let word = self.word(&word.value);
                        // `>& FILE` (not a descriptor number, nor `-`) sends both outputs to FILE.
                        let to_file = redirect == Redirect::Duplicate
                            && matches!(kind, ast::IoFileRedirectKind::DuplicateOutput)
                            && plain_text(&word.pieces)
                                .is_none_or(|t| !t.is_empty() && t != "-" && !t.bytes().all(|b| b.is_ascii_digit()));
                        command.redirects.push((if to_file { Redirect::Output } else { Redirect::Duplicate }, word));
                        return;
                    }
                    ast::IoFileRedirectTarget::Fd(_) => return,
                    ast::IoFileRedirectTarget::ProcessSubstitution(kind, subshell) => {
                        let word = self.process_substitution(kind, subshell);
                        // `> >(cmd)` writes to a command, not a file.
                        command.words.push(word);
                        return;
                    }
                };
                command.redirects.push((redirect, word));
            }
            ast::IoRedirect::HereDocument(_, doc) => {
                let mut word = if doc.requires_expansion {
                    self.pieces_of(&doc.doc.value, word::parse_heredoc(&doc.doc.value, &options()))
                } else {
                    RawWord { pieces: vec![Piece::Text(doc.doc.value.clone())], raw: String::new(), nested: Vec::new() }
                };
                word.raw.clone_from(&doc.doc.value);
                command.redirects.push((Redirect::HereDoc, word));
            }
            ast::IoRedirect::HereString(_, word) => {
                let word = self.word(&word.value);
                command.redirects.push((Redirect::HereString, word));
            }
            ast::IoRedirect::OutputAndError(word, _) => {
                let word = self.word(&word.value);
                command.redirects.push((Redirect::Output, word));
            }
        }
    }

    /// The text of the script at `span`.
    fn source(&self, span: &brush_parser::SourceSpan) -> String {
        // The parser counts characters.
        let (start, end) = (span.start.index, span.end.index.max(span.start.index));
        if self.text.is_ascii() {
            return self.text.get(start..end).unwrap_or_default().to_owned();
        }
        self.text.chars().skip(start).take(end - start).collect()
    }

    /// A word of the script, read into its pieces.
    fn word(&mut self, raw: &str) -> RawWord {
        if is_plain(raw) {
            // Most words of a command line (`git`, `--hard`, `src/main.rs`) hold nothing the
            // word grammar reads: they are their own text, without a second parse.
            return RawWord { pieces: vec![Piece::Text(raw.to_owned())], raw: raw.to_owned(), nested: Vec::new() };
        }
        if let Some(text) = quoted_plain(raw) {
            // Quoted strings without expansions (`'rm -rf ~'`, `"a b"`) are as plain: most of
            // the rest of a script's words, and the word grammar is a good part of a parse.
            return RawWord { pieces: vec![Piece::Text(text)], raw: raw.to_owned(), nested: Vec::new() };
        }
        self.pieces_of(raw, word::parse(raw, &options()))
    }

    /// `$((...))` / `((...))`: its value is not followed, the commands in it are.
    fn arithmetic(&mut self, expr: &str) -> RawWord {
        let mut word = self.word(expr);
        word.pieces = vec![Piece::Arithmetic];
        word
    }

    fn pieces_of(
        &mut self,
        raw: &str,
        parsed: Result<Vec<word::WordPieceWithSource>, brush_parser::WordParseError>,
    ) -> RawWord {
        let mut word = RawWord { pieces: Vec::new(), raw: raw.to_owned(), nested: Vec::new() };
        match parsed {
            Ok(pieces) => {
                for piece in &pieces {
                    self.piece(&piece.piece, false, true, &mut word);
                }
            }
            // The word parser refuses what the tokenizer took as a word: nothing of it is known.
            Err(_) => {
                word.pieces = vec![Piece::Unknown("the word cannot be read".to_owned())];
                word.nested.push(Err(ShellError::Syntax));
            }
        }
        word
    }

    /// Adds `piece` to `word`; `quoted`: inside double quotes; `first`: at the word's start.
    fn piece(&mut self, piece: &WordPiece, quoted: bool, first: bool, word: &mut RawWord) {
        let at_start = first && word.pieces.is_empty();
        match piece {
            WordPiece::Text(text) if quoted => push_text(&mut word.pieces, text),
            WordPiece::Text(text) => unquoted_text(&mut word.pieces, text),
            WordPiece::SingleQuotedText(text) => push_text(&mut word.pieces, text),
            WordPiece::AnsiCQuotedText(text) => push_text(&mut word.pieces, &ansi_c(text)),
            WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                // An empty "" still makes a (possibly empty) word.
                push_text(&mut word.pieces, "");
                for piece in inner {
                    self.piece(&piece.piece, true, false, word);
                }
            }
            WordPiece::TildeExpansion(TildeExpr::Home) if at_start => word.pieces.push(Piece::Tilde),
            WordPiece::TildeExpansion(TildeExpr::UserHome(user)) => {
                word.pieces.push(Piece::Unknown(format!("`~{user}` is another user's home")));
            }
            WordPiece::TildeExpansion(_) => {
                word.pieces.push(Piece::Unknown("a directory known only when the command runs".to_owned()));
            }
            WordPiece::ParameterExpansion(expr) => {
                for text in parameter_words(expr) {
                    let nested = self.word(text).nested;
                    word.nested.extend(nested);
                }
                word.pieces.push(parameter_piece(expr));
            }
            WordPiece::CommandSubstitution(text) => {
                word.nested.push(parse(text, self.depth + 1, self.levels));
                word.pieces.push(Piece::Substitution);
            }
            WordPiece::BackquotedCommandSubstitution(text) => {
                // Inside backquotes `\` escapes `$`, `` ` `` and `\`.
                let text = text.replace("\\$", "$").replace("\\\\", "\\");
                word.nested.push(parse(&text, self.depth + 1, self.levels));
                word.pieces.push(Piece::Substitution);
            }
            WordPiece::EscapeSequence(text) => {
                let escaped = text.strip_prefix('\\').unwrap_or(text);
                // Inside double quotes `\` escapes only `$`, `` ` ``, `"`, `\` and a newline.
                if quoted && !matches!(escaped, "$" | "`" | "\"" | "\\" | "\n") {
                    push_text(&mut word.pieces, text);
                } else if escaped != "\n" {
                    push_text(&mut word.pieces, escaped);
                }
            }
            WordPiece::ArithmeticExpression(expr) => {
                let nested = self.word(&expr.value).nested;
                word.nested.extend(nested);
                word.pieces.push(Piece::Arithmetic);
            }
        }
    }
}

/// Whether a step reads the arguments of the script or function it is in (`$1`, `"$@"`), in
/// its words or in the commands nested in them.
fn reads_arguments(item: &Item) -> bool {
    let word_reads = |word: &RawWord| {
        word.pieces.iter().any(|piece| matches!(piece, Piece::Positional(_) | Piece::AllArgs))
            || word.nested.iter().flatten().flatten().any(reads_arguments)
    };
    match item {
        Item::Command(command) => {
            command.words.iter().any(word_reads) || command.redirects.iter().any(|(_, word)| word_reads(word))
        }
        Item::Expand(words) => words.iter().any(word_reads),
        Item::Unset(_) | Item::Open | Item::Close | Item::ForkBomb(_) => false,
    }
}

/// `item` with the arguments `$1`, `$2`, ..., `$@` and `$*` replaced by `args`, the words of
/// a call: `"$@"` alone is one word per argument, `$N` past the last is empty. The commands
/// nested in its words that do not read the arguments are left out (they were listed where
/// the function is defined).
fn with_arguments(item: &Item, args: &[RawWord]) -> Item {
    let words =
        |words: &[RawWord]| -> Vec<RawWord> { words.iter().flat_map(|word| word_with_arguments(word, args)).collect() };
    match item {
        Item::Command(command) => Item::Command(Command {
            words: words(&command.words),
            redirects: command
                .redirects
                .iter()
                .map(|(redirect, word)| {
                    let mut replaced = word_with_arguments(word, args);
                    let word = if replaced.len() == 1 { replaced.remove(0) } else { opaque(word) };
                    (*redirect, word)
                })
                .collect(),
            piped: command.piped.clone(),
        }),
        Item::Expand(list) => Item::Expand(words(list)),
        other => other.clone(),
    }
}

/// `word` as it stands, its value unknown (an argument list where one word is expected).
fn opaque(word: &RawWord) -> RawWord {
    RawWord { pieces: vec![Piece::Special], raw: word.raw.clone(), nested: Vec::new() }
}

fn word_with_arguments(word: &RawWord, args: &[RawWord]) -> Vec<RawWord> {
    let nested: Vec<Nested> = word
        .nested
        .iter()
        .filter_map(|nested| match nested {
            Ok(items) if items.iter().any(reads_arguments) => {
                Some(Ok(items.iter().map(|item| with_arguments(item, args)).collect()))
            }
            _ => None,
        })
        .collect();
    let meaningful: Vec<&Piece> = word.pieces.iter().filter(|piece| **piece != Piece::Text(String::new())).collect();
    if let [Piece::AllArgs] = meaningful.as_slice() {
        // `"$@"`: the arguments, one word each.
        let mut out: Vec<RawWord> = args
            .iter()
            .map(|arg| RawWord { pieces: arg.pieces.clone(), raw: arg.raw.clone(), nested: Vec::new() })
            .collect();
        if let Some(first) = out.first_mut() {
            first.nested = nested;
        }
        return out;
    }
    if let [Piece::Positional(n)] = meaningful.as_slice() {
        let arg = args.get(*n as usize - 1);
        let (pieces, raw) = arg.map_or_else(
            || (vec![Piece::Text(String::new())], String::new()),
            |arg| (arg.pieces.clone(), arg.raw.clone()),
        );
        return vec![RawWord { pieces, raw, nested }];
    }
    let mut pieces = Vec::new();
    for piece in &word.pieces {
        match piece {
            Piece::Positional(n) => {
                if let Some(arg) = args.get(*n as usize - 1) {
                    pieces.extend(arg.pieces.iter().cloned());
                }
            }
            Piece::AllArgs => match args.iter().map(|arg| plain_text(&arg.pieces)).collect::<Option<Vec<_>>>() {
                Some(texts) => pieces.push(Piece::Text(texts.join(" "))),
                None => pieces.push(Piece::Special),
            },
            other => pieces.push(other.clone()),
        }
    }
    vec![RawWord { pieces, raw: word.raw.clone(), nested }]
}

/// Words that mean something to the grammar at the start of a command (or after one).
const RESERVED: &[&str] = &[
    "!", "{", "}", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if",
    "in", "select", "then", "time", "until", "while",
];

/// The one simple command of a text made of plain words (`git reset --hard`, `ls -la src`),
/// read without the parser: what it would give, at a fraction of the cost. Rules' command
/// patterns and many agents' commands are such texts. `None` for anything else: a quote,
/// escape, expansion, glob, operator, comment, newline or reserved word goes to the parser.
fn plain_command(text: &str) -> Option<Vec<Item>> {
    let words = plain_words(text)?
        .into_iter()
        .map(|word| RawWord { pieces: vec![Piece::Text(word.to_owned())], raw: word.to_owned(), nested: Vec::new() })
        .collect();
    Some(vec![Item::Command(Command { words, ..Command::default() })])
}

/// The words of a text [`plain_command`] reads, as written.
pub(crate) fn plain_words(text: &str) -> Option<Vec<&str>> {
    let mut words = Vec::new();
    for word in text.split([' ', '\t']).filter(|w| !w.is_empty()) {
        if !is_plain(word) || RESERVED.contains(&word) {
            return None;
        }
        words.push(word);
    }
    (!words.is_empty()).then_some(words)
}

/// Whether the body of the function `name` runs the function at least twice, once at least in
/// a process of its own (a stage of a pipeline of several, a background job, a subshell): each
/// call then starts two more, without end. Plain recursion (`f(){ f; }`) stays in one process.
fn is_fork_bomb(name: &str, body: &ast::CompoundCommand) -> bool {
    let (mut calls, mut forked) = (0, 0);
    self_calls_in_compound(name, body, false, &mut calls, &mut forked);
    calls >= 2 && forked >= 1
}

fn self_calls_in_list(name: &str, list: &ast::CompoundList, forked: bool, calls: &mut usize, forks: &mut usize) {
    for ast::CompoundListItem(and_or, separator) in &list.0 {
        let background = forked || matches!(separator, ast::SeparatorOperator::Async);
        let pipelines = std::iter::once(&and_or.first).chain(and_or.additional.iter().map(|next| match next {
            ast::AndOr::And(pipeline) | ast::AndOr::Or(pipeline) => pipeline,
        }));
        for pipeline in pipelines {
            let stage_forked = background || pipeline.seq.len() > 1;
            for command in &pipeline.seq {
                match command {
                    ast::Command::Simple(simple) => {
                        if simple.word_or_name.as_ref().is_some_and(|word| word.value == name) {
                            *calls += 1;
                            *forks += usize::from(stage_forked);
                        }
                    }
                    ast::Command::Compound(compound, _) => {
                        self_calls_in_compound(name, compound, stage_forked, calls, forks);
                    }
                    ast::Command::Function(_) | ast::Command::ExtendedTest(..) => {}
                }
            }
        }
    }
}

fn self_calls_in_compound(
    name: &str,
    compound: &ast::CompoundCommand,
    forked: bool,
    calls: &mut usize,
    forks: &mut usize,
) {
    match compound {
        ast::CompoundCommand::BraceGroup(group) => self_calls_in_list(name, &group.list, forked, calls, forks),
        ast::CompoundCommand::Subshell(subshell) => self_calls_in_list(name, &subshell.list, true, calls, forks),
        ast::CompoundCommand::IfClause(clause) => {
            self_calls_in_list(name, &clause.condition, forked, calls, forks);
            self_calls_in_list(name, &clause.then, forked, calls, forks);
            for branch in clause.elses.iter().flatten() {
                if let Some(condition) = &branch.condition {
                    self_calls_in_list(name, condition, forked, calls, forks);
                }
                self_calls_in_list(name, &branch.body, forked, calls, forks);
            }
        }
        ast::CompoundCommand::WhileClause(clause) | ast::CompoundCommand::UntilClause(clause) => {
            self_calls_in_list(name, &clause.0, forked, calls, forks);
            self_calls_in_list(name, &clause.1.list, forked, calls, forks);
        }
        ast::CompoundCommand::ForClause(clause) => self_calls_in_list(name, &clause.body.list, forked, calls, forks),
        ast::CompoundCommand::ArithmeticForClause(clause) => {
            self_calls_in_list(name, &clause.body.list, forked, calls, forks);
        }
        ast::CompoundCommand::CaseClause(clause) => {
            for list in clause.cases.iter().filter_map(|case| case.cmd.as_ref()) {
                self_calls_in_list(name, list, forked, calls, forks);
            }
        }
        ast::CompoundCommand::Arithmetic(_) | ast::CompoundCommand::Coprocess(_) => {}
    }
}

/// Pushes `text` onto the text piece at the end of `pieces`.
/// Whether `raw` is a word whose every character stands for itself: no quote, escape,
/// expansion, glob, brace or tilde.
fn is_plain(raw: &str) -> bool {
    !raw.is_empty() && raw.bytes().all(is_plain_byte)
}

fn is_plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_./=:,+%@^".contains(&b)
}

/// The text of a word made of plain characters (see [`is_plain`]), single-quoted strings and
/// double-quoted strings without `$`, backquotes or backslashes (`'x y'`, `--m="a b"`), quotes
/// removed; `None` for any other word, which the word grammar reads.
fn quoted_plain(raw: &str) -> Option<String> {
    let mut text = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(&first) = rest.as_bytes().first() {
        match first {
            b'\'' => {
                let end = rest[1..].find('\'')?;
                text.push_str(&rest[1..=end]);
                rest = &rest[end + 2..];
            }
            b'"' => {
                let inner = &rest[1..];
                let end = inner.find(['"', '$', '`', '\\'])?;
                if inner.as_bytes()[end] != b'"' {
                    return None;
                }
                text.push_str(&inner[..end]);
                rest = &inner[end + 1..];
            }
            _ => {
                let end = rest.bytes().position(|b| !is_plain_byte(b)).unwrap_or(rest.len());
                if end == 0 {
                    return None;
                }
                text.push_str(&rest[..end]);
                rest = &rest[end..];
            }
        }
    }
    (!raw.is_empty()).then_some(text)
}

fn push_text(pieces: &mut Vec<Piece>, text: &str) {
    match pieces.last_mut() {
        Some(Piece::Text(last)) => last.push_str(text),
        _ => pieces.push(Piece::Text(text.to_owned())),
    }
}

/// Unquoted text: its `*`, `?` and `[...]` are patterns.
fn unquoted_text(pieces: &mut Vec<Piece>, text: &str) {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            c @ ('*' | '?') => {
                pieces.push(Piece::Glob(c.to_string()));
                i += 1;
            }
            // A class is `[` ... `]` with something between; a lone `[` is the test command.
            '[' if chars[i + 1..].iter().position(|c| *c == ']').is_some_and(|offset| offset > 0) => {
                let offset = chars[i + 1..].iter().position(|c| *c == ']').unwrap_or_default();
                pieces.push(Piece::Glob(chars[i..i + offset + 2].iter().collect()));
                i += offset + 2;
            }
            c => {
                push_text(pieces, &c.to_string());
                i += 1;
            }
        }
    }
    if text.is_empty() {
        push_text(pieces, "");
    }
}

/// The text of a `$'...'` string, its escapes decoded.
fn ansi_c(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(next) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match next {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(next),
            _ => None,
        };
        if let Some(simple) = simple {
            out.push(simple);
            continue;
        }
        let (radix, max, mut value) = match next {
            'x' => (16, 2, 0),
            'u' => (16, 4, 0),
            'U' => (16, 8, 0),
            '0'..='7' => (8, 2, next.to_digit(8).unwrap_or_default()),
            _ => {
                out.push('\\');
                out.push(next);
                continue;
            }
        };
        let mut digits = 0;
        while digits < max
            && let Some(digit) = chars.peek().and_then(|c| c.to_digit(radix))
        {
            value = value.saturating_mul(radix).saturating_add(digit);
            chars.next();
            digits += 1;
        }
        out.push(char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER));
    }
    out
}

/// The piece a parameter expansion is.
fn parameter_piece(expr: &ParameterExpr) -> Piece {
    let (parameter, indirect, modified) = match expr {
        ParameterExpr::Parameter { parameter, indirect } => (parameter, *indirect, false),
        ParameterExpr::UseDefaultValues { parameter, indirect, .. }
        | ParameterExpr::AssignDefaultValues { parameter, indirect, .. }
        | ParameterExpr::IndicateErrorIfNullOrUnset { parameter, indirect, .. }
        | ParameterExpr::UseAlternativeValue { parameter, indirect, .. }
        | ParameterExpr::RemoveSmallestSuffixPattern { parameter, indirect, .. }
        | ParameterExpr::RemoveLargestSuffixPattern { parameter, indirect, .. }
        | ParameterExpr::RemoveSmallestPrefixPattern { parameter, indirect, .. }
        | ParameterExpr::RemoveLargestPrefixPattern { parameter, indirect, .. }
        | ParameterExpr::Substring { parameter, indirect, .. }
        | ParameterExpr::Transform { parameter, indirect, .. }
        | ParameterExpr::UppercaseFirstChar { parameter, indirect, .. }
        | ParameterExpr::UppercasePattern { parameter, indirect, .. }
        | ParameterExpr::LowercaseFirstChar { parameter, indirect, .. }
        | ParameterExpr::LowercasePattern { parameter, indirect, .. }
        | ParameterExpr::ReplaceSubstring { parameter, indirect, .. } => (parameter, *indirect, true),
        ParameterExpr::ParameterLength { .. } => return Piece::Special,
        ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => {
            return Piece::Unknown("a list of names known only when the command runs".to_owned());
        }
    };
    if indirect {
        return Piece::Unknown("`${!...}` names its variable indirectly".to_owned());
    }
    match parameter {
        Parameter::Named(name) => Piece::Var { name: name.clone(), modified },
        Parameter::NamedWithIndex { name, .. } | Parameter::NamedWithAllIndices { name, .. } => {
            Piece::Var { name: name.clone(), modified: true }
        }
        Parameter::Positional(n) if *n > 0 && !modified => Piece::Positional(*n),
        Parameter::Special(word::SpecialParameter::AllPositionalParameters { .. }) if !modified => Piece::AllArgs,
        Parameter::Positional(_) | Parameter::Special(_) => Piece::Special,
    }
}

/// The words inside a parameter expansion (`${X:-$(cmd)}`): their commands run too.
fn parameter_words(expr: &ParameterExpr) -> Vec<&str> {
    let mut words: Vec<&str> = match expr {
        ParameterExpr::UseDefaultValues { default_value: text, .. }
        | ParameterExpr::AssignDefaultValues { default_value: text, .. }
        | ParameterExpr::IndicateErrorIfNullOrUnset { error_message: text, .. }
        | ParameterExpr::UseAlternativeValue { alternative_value: text, .. }
        | ParameterExpr::RemoveSmallestSuffixPattern { pattern: text, .. }
        | ParameterExpr::RemoveLargestSuffixPattern { pattern: text, .. }
        | ParameterExpr::RemoveSmallestPrefixPattern { pattern: text, .. }
        | ParameterExpr::RemoveLargestPrefixPattern { pattern: text, .. }
        | ParameterExpr::UppercaseFirstChar { pattern: text, .. }
        | ParameterExpr::UppercasePattern { pattern: text, .. }
        | ParameterExpr::LowercaseFirstChar { pattern: text, .. }
        | ParameterExpr::LowercasePattern { pattern: text, .. } => text.iter().map(String::as_str).collect(),
        ParameterExpr::ReplaceSubstring { pattern, replacement, .. } => {
            std::iter::once(pattern.as_str()).chain(replacement.as_deref()).collect()
        }
        ParameterExpr::Substring { offset, length, .. } => {
            std::iter::once(offset.value.as_str()).chain(length.as_ref().map(|l| l.value.as_str())).collect()
        }
        _ => Vec::new(),
    };
    // `${a[$(cmd)]}`: an index is expanded too.
    if let Some(Parameter::NamedWithIndex { index, .. }) = expr_parameter(expr) {
        words.push(index);
    }
    words
}

/// The parameter an expansion reads, if it reads one.
fn expr_parameter(expr: &ParameterExpr) -> Option<&Parameter> {
    match expr {
        ParameterExpr::Parameter { parameter, .. }
        | ParameterExpr::UseDefaultValues { parameter, .. }
        | ParameterExpr::AssignDefaultValues { parameter, .. }
        | ParameterExpr::IndicateErrorIfNullOrUnset { parameter, .. }
        | ParameterExpr::UseAlternativeValue { parameter, .. }
        | ParameterExpr::ParameterLength { parameter, .. }
        | ParameterExpr::RemoveSmallestSuffixPattern { parameter, .. }
        | ParameterExpr::RemoveLargestSuffixPattern { parameter, .. }
        | ParameterExpr::RemoveSmallestPrefixPattern { parameter, .. }
        | ParameterExpr::RemoveLargestPrefixPattern { parameter, .. }
        | ParameterExpr::Substring { parameter, .. }
        | ParameterExpr::Transform { parameter, .. }
        | ParameterExpr::UppercaseFirstChar { parameter, .. }
        | ParameterExpr::UppercasePattern { parameter, .. }
        | ParameterExpr::LowercaseFirstChar { parameter, .. }
        | ParameterExpr::LowercasePattern { parameter, .. }
        | ParameterExpr::ReplaceSubstring { parameter, .. } => Some(parameter),
        ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the parser itself gives for `text`.
    fn parsed(text: &str) -> Nested {
        let program = Parser::new(Cursor::new(text.as_bytes()), &options()).parse_program().map_err(parse_error)?;
        let mut reader = Reader::new(text, 0, INLINE_OPENERS);
        for command in &program.complete_commands {
            reader.list(command);
        }
        Ok(reader.items)
    }

    #[test]
    fn plain_words_read_as_the_parser_reads_them() {
        for text in [
            "git reset --hard",
            "rm -rf /",
            "  ls\t-la   src/main.rs ",
            "A=b git push --force origin +main",
            "git -C ../repo push origin:main",
            "terraform apply -destroy -auto-approve",
            "docker compose down -v",
            "curl https://example.com/install.sh",
            "chmod -R 777 /",
            "kubectl delete ns prod --all",
            "psql -c DROP",
            "cp a.txt b@host:/tmp/%x",
            "x",
        ] {
            assert_eq!(plain_command(text).map(Ok), Some(parsed(text)), "{text:?}");
        }
    }

    #[test]
    fn anything_but_plain_words_goes_to_the_parser() {
        for text in [
            "",
            "   ",
            "echo 'rm -rf ~'",
            "rm -rf ~",
            "rm -rf $HOME",
            "rm -rf *",
            "a && b",
            "a; b",
            "a | b",
            "a > f",
            "a # comment",
            "a\nb",
            "time rm -rf /",
            "if true",
            "! rm -rf /",
            "{ rm -rf /; }",
            "for x in a",
            "rm -rf {a,b}",
            "sudo rm\\ -rf /",
        ] {
            assert!(plain_command(text).is_none(), "{text:?}");
        }
    }

    /// A word read without the word grammar reads as the grammar reads it.
    #[test]
    fn quoted_plain_words_read_as_the_grammar_reads_them() {
        let mut reader = Reader::new("", 0, 24);
        for raw in [
            "'rm -rf ~'",
            "\"a b\"",
            "--m=\"x y\"",
            "'a'\"b\"c",
            "''",
            "\"\"",
            "\"'\"",
            "'\"'",
            "\"a*b?[c]\"",
            "'$HOME \\ `x`'",
            "\"it's ~ {a,b} ! # ;\"",
            "x'y'z",
            "'é ü'",
        ] {
            let text = quoted_plain(raw).unwrap_or_else(|| panic!("{raw} is quoted plain text"));
            let read = reader.pieces_of(raw, word::parse(raw, &options()));
            assert_eq!(read.pieces, [super::Piece::Text(text)], "{raw}");
            assert!(read.nested.is_empty());
        }
        for raw in ["", "\"$x\"", "\"a\\\"b\"", "'open", "\"open", "a*", "~/x", "$'x'", "\"`x`\"", "a#b", "{a,b}"] {
            assert_eq!(quoted_plain(raw), None, "{raw}");
        }
    }

    /// The one-pass count is the count of the characters and the reserved words between
    /// separators, as the text splits.
    #[test]
    fn openers_count_characters_and_reserved_words() {
        let split_count = |text: &str| {
            let chars = text.bytes().filter(|b| matches!(b, b'(' | b'{' | b'[' | b'`' | b'"' | b'\'' | b'!')).count();
            let words = text
                .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
                .filter(|word| {
                    matches!(*word, "if" | "then" | "elif" | "else" | "while" | "until" | "for" | "do" | "case")
                        || matches!(*word, "select" | "function" | "coproc")
                })
                .count();
            chars + words
        };
        for text in [
            "",
            "if",
            "if true; then echo $(x); fi",
            "for i in a b; do (echo \"$i\"); done",
            "if\u{a0}true;then\u{2003}x;fi",
            "ifx; doy; { [ ! -e f ] }; `a`; 'q'",
            "case x in a) ;; esac|while:do",
        ] {
            assert_eq!(openers(text), split_count(text), "{text:?}");
        }
        let long = "if a; then b \"$(c d)\" 'e' | f & fi\nfor x in y; do { z; }; done\n".repeat(200);
        assert_eq!(openers(&long), split_count(&long));
    }
}
