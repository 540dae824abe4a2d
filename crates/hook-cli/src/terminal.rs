//! What `hookwire chat` does on a terminal: colours (never when `NO_COLOR` is set, or on a
//! pipe), a spinner on stderr while the model or a slow hook is working, the approval question,
//! lines typed by the person, and Ctrl-C.
//!
//! No dependency: the spinner is `\r` and an erase-line escape, the question is a line read
//! from stdin.

use std::{
    collections::BTreeSet,
    io::{BufRead as _, IsTerminal as _, Write as _},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use agent_loop::{ApprovalAnswer, ApprovalRequest, Asker};
use hook_core::head_chars;
use serde_json::Value;
use tokio::sync::mpsc;

/// Whether colours may be written to a stream that is (or is not) a terminal: `NO_COLOR` (any
/// non-empty value) turns them off.
/// `text` with every control character but newline and tab escaped (`\u{1b}` for ESC): text
/// that hooks, models and servers produce must not move the cursor, clear the screen or set the
/// clipboard (OSC 52) of the terminal it is shown on.
pub(crate) fn safe(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

pub(crate) fn colours_allowed(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// ANSI styles, or nothing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paint {
    pub(crate) is_on: bool,
}

impl Paint {
    fn wrap(self, code: &str, text: &str) -> String {
        if self.is_on { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    pub(crate) fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    pub(crate) fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    pub(crate) fn red(self, text: &str) -> String {
        self.wrap("31", text)
    }

    pub(crate) fn yellow(self, text: &str) -> String {
        self.wrap("33", text)
    }

    pub(crate) fn cyan(self, text: &str) -> String {
        self.wrap("36", text)
    }

    /// One line of the live transcript, coloured by what it reports.
    pub(crate) fn transcript_line(self, line: &str) -> String {
        let line = &*safe(line);
        if !self.is_on {
            return line.to_owned();
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("tool ") && (trimmed.contains(" not run: ") || trimmed.contains(" failed: ")) {
            self.red(line)
        } else if trimmed.starts_with("tool ") {
            self.cyan(line)
        } else if trimmed.starts_with("notice: ") {
            self.yellow(line)
        } else if trimmed.starts_with("model: ") {
            line.to_owned()
        } else {
            self.dim(line)
        }
    }
}

#[derive(Debug, Default)]
struct SpinnerState {
    label: Option<String>,
    since: Option<Instant>,
    is_drawn: bool,
    frame: usize,
}

/// Output shared by the listener, the spinner and the approval question, so their writes never
/// interleave mid-line.
#[derive(Debug, Clone)]
pub(crate) struct Ui {
    state: Arc<Mutex<SpinnerState>>,
    /// Whether the spinner draws at all (stderr is a terminal).
    has_spinner: bool,
    /// Colours on stdout.
    pub(crate) out: Paint,
    /// Colours on stderr.
    pub(crate) err: Paint,
}

/// How long a step runs before the spinner shows (a fast hook never flickers one).
const SPINNER_DELAY: Duration = Duration::from_millis(250);
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

impl Ui {
    /// A UI for the current stdout and stderr.
    pub(crate) fn new() -> Ui {
        let err_tty = std::io::stderr().is_terminal();
        Ui {
            state: Arc::default(),
            has_spinner: err_tty,
            out: Paint { is_on: colours_allowed(std::io::stdout().is_terminal()) },
            err: Paint { is_on: colours_allowed(err_tty) },
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SpinnerState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn erase(state: &mut SpinnerState) {
        if state.is_drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            state.is_drawn = false;
        }
    }

    /// Shows the spinner with `label` (after a short delay), or hides it (`None`).
    pub(crate) fn working(&self, label: Option<String>) {
        let mut state = self.lock();
        if label.is_none() {
            Self::erase(&mut state);
        }
        if state.label != label {
            state.since = label.as_ref().map(|_| Instant::now());
            state.label = label;
        }
    }

    /// Runs `write` with the spinner erased, so its output starts on a clean line.
    pub(crate) fn print(&self, write: impl FnOnce()) {
        let mut state = self.lock();
        Self::erase(&mut state);
        write();
    }

    /// Draws the spinner every 100 ms while a step is running; ends with the runtime.
    pub(crate) fn start_spinner(&self) {
        if !self.has_spinner {
            return;
        }
        let ui = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(100));
            loop {
                tick.tick().await;
                let mut state = ui.lock();
                let (Some(label), Some(since)) = (state.label.clone(), state.since) else { continue };
                let elapsed = since.elapsed();
                if elapsed < SPINNER_DELAY {
                    continue;
                }
                state.frame = (state.frame + 1) % FRAMES.len();
                let line = format!("{} {label} ({:.1}s)", FRAMES[state.frame], elapsed.as_secs_f64());
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[2K{}", ui.err.dim(&line));
                let _ = err.flush();
                state.is_drawn = true;
            }
        });
    }
}

/// Lines typed on stdin, read on a thread of their own (a read blocked on the terminal must
/// not hold the runtime when the command ends). Shared by the prompt and the approval question.
#[derive(Debug, Clone)]
pub(crate) struct Input {
    lines: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<String>>>,
}

impl Input {
    /// Starts reading stdin.
    pub(crate) fn stdin() -> Input {
        let (tx, rx) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            for line in stdin.lock().lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Input { lines: Arc::new(tokio::sync::Mutex::new(rx)) }
    }

    /// The next line, or `None` at the end of the input.
    pub(crate) async fn next_line(&self) -> Option<String> {
        self.lines.lock().await.recv().await
    }
}

/// Asks on the terminal: shows the tool and its arguments, reads `y`, `n` or `a`.
///
/// `--yes` and `--allow TOOL` answer for the person, except when a hook asked for the question.
#[derive(Debug)]
pub(crate) struct TerminalAsker {
    pub(crate) input: Input,
    pub(crate) ui: Ui,
    pub(crate) is_yes: bool,
    pub(crate) allowed: BTreeSet<String>,
}

/// The arguments of a call as a person reads them: Bash's command, a file tool's path and
/// text, else the JSON.
pub(crate) fn describe_call(tool: &str, arguments: &str) -> String {
    let value: Value = serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()));
    let field = |name: &str| value.get(name).and_then(Value::as_str).map(str::to_owned);
    let mut lines = Vec::new();
    match tool {
        "Bash" | "bash" => {
            if let Some(command) = field("command") {
                lines.push(format!("$ {command}"));
            }
            if let Some(description) = field("description") {
                lines.push(format!("({description})"));
            }
        }
        "Write" | "Edit" | "write_file" => {
            if let Some(path) = field("file_path").or_else(|| field("path")) {
                lines.push(format!("file: {path}"));
            }
            for key in ["content", "old_string", "new_string"] {
                if let Some(text) = field(key) {
                    lines.push(format!("{key}: {}", head_chars(&text, 400).replace('\n', "\n    ")));
                }
            }
        }
        _ => {}
    }
    if lines.is_empty() {
        lines.push(head_chars(&serde_json::to_string_pretty(&value).unwrap_or_default(), 1200));
    }
    lines.join("\n")
}

#[hook_core::async_trait]
impl Asker for TerminalAsker {
    async fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        if !request.is_forced && (self.is_yes || self.allowed.contains(&request.tool_name)) {
            return ApprovalAnswer::Yes;
        }
        let paint = self.ui.err;
        let why = match (&request.reason, request.is_forced) {
            (Some(reason), true) => format!("\n{}", paint.yellow(&format!("a hook asks you to confirm: {reason}"))),
            (None, true) => format!("\n{}", paint.yellow("a hook asks you to confirm this call")),
            _ => String::new(),
        };
        let details = describe_call(&request.tool_name, &request.arguments)
            .lines()
            .map(|line| format!("  {line}"))
            .collect::<Vec<_>>()
            .join("\n");
        let question = format!(
            "{} wants to run:\n{details}{why}\nAllow? [y]es, [n]o, [a]lways for {} in this session: ",
            paint.bold(&request.tool_name),
            request.tool_name
        );
        self.ui.working(None);
        self.ui.print(|| {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{question}");
            let _ = err.flush();
        });
        loop {
            let Some(line) = self.input.next_line().await else { return ApprovalAnswer::Unanswered };
            match line.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => return ApprovalAnswer::Yes,
                "a" | "always" => return ApprovalAnswer::Always,
                "n" | "no" => return ApprovalAnswer::No,
                _ => self.ui.print(|| {
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "answer y, n or a: ");
                    let _ = err.flush();
                }),
            }
        }
    }
}

/// What ended a wait: a line, the end of the input, or a signal.
#[derive(Debug)]
pub(crate) enum Interrupt {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM or SIGHUP: quit now, with this exit code.
    Quit(u8),
}

/// Forwards SIGINT, SIGTERM and SIGHUP to a channel (installed once; the default action, which
/// would end the process, is replaced).
pub(crate) fn signals() -> mpsc::UnboundedReceiver<Interrupt> {
    use tokio::signal::unix::{SignalKind, signal};
    let (tx, rx) = mpsc::unbounded_channel();
    for (kind, message) in [
        (SignalKind::interrupt(), None),
        (SignalKind::terminate(), Some(128 + 15)),
        (SignalKind::hangup(), Some(128 + 1)),
    ] {
        let Ok(mut stream) = signal(kind) else { continue };
        let tx = tx.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() {
                let event = match message {
                    None => Interrupt::Interrupt,
                    Some(code) => Interrupt::Quit(code),
                };
                if tx.send(event).is_err() {
                    break;
                }
            }
        });
    }
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_described_for_people() {
        assert_eq!(describe_call("Bash", r#"{"command":"touch x","description":"make x"}"#), "$ touch x\n(make x)");
        assert_eq!(
            describe_call("Write", r#"{"file_path":"a.txt","content":"1\n2"}"#),
            "file: a.txt\ncontent: 1\n    2"
        );
        assert_eq!(describe_call("Other", r#"{"k":1}"#), "{\n  \"k\": 1\n}");
    }

    #[test]
    fn paint_is_plain_when_off() {
        let paint = Paint { is_on: false };
        assert_eq!(paint.red("x"), "x");
        assert_eq!(Paint { is_on: true }.red("x"), "\x1b[31mx\x1b[0m");
        assert_eq!(safe("ok\x1b]52;c;cHduZWQ=\x07 \x1b[2J\n\tend"), "ok\\u{1b}]52;c;cHduZWQ=\\u{7} \\u{1b}[2J\n\tend");
        assert!(matches!(safe("plain text"), std::borrow::Cow::Borrowed(_)));
    }
}
