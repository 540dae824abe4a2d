//! The `hookwire` command: check a hook configuration, fire one event through it, trust a
//! project's hooks, and read what ran.
//!
//! Results go to stdout; logs go to stderr (`RUST_LOG`, `-v`).

// This binary's job is to print results and errors.
#![allow(clippy::print_stdout, clippy::print_stderr)]

/// `println!` that ignores a closed stdout: `hookwire check | head -1` ends quietly instead of
/// panicking, and the rest of the command (taking hooks down) still runs.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod audit;
mod chat;
mod check;
mod completions;
mod contain;
mod daemon;
mod demo;
mod discover;
mod engine;
mod fire;
mod held_back;
mod hook;
mod install;
mod log;
mod plugin;
mod record;
mod replay;
mod rules_cmd;
mod serve;
mod session;
mod stats;
mod telemetry;
mod terminal;
mod test;
mod test_update;
mod transcript;
mod trust;
mod ui;

use std::{io::IsTerminal, path::PathBuf, process::ExitCode};

use clap::{Args, Parser, Subcommand, ValueEnum};

/// hookwire: a lifecycle hook engine for AI agents. It runs PicoClaw process hooks and j-cli
/// command hooks (bash and llm) unmodified.
#[derive(Debug, Parser)]
#[command(name = "hookwire", version, about, long_about = None)]
struct Cli {
    /// More logs on stderr (-v debug, -vv trace); `RUST_LOG` overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load every configuration and show, per event, the hooks that will run.
    Check {
        #[command(flatten)]
        config: ConfigArgs,
        /// Show exactly what `hookwire hook <AGENT>` runs here (claude, gemini or codex):
        /// without that agent's own settings files, from the project directory it names, and
        /// why anything is held back.
        #[arg(long, value_name = "AGENT")]
        agent: Option<hook_protocol::Agent>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Fire one event through the configured hooks and print the outcome.
    Fire(fire::FireArgs),
    /// Show a project's hooks with every command and file they run, and record (or list, or
    /// revoke) trust.
    Trust(trust::TrustArgs),
    /// Run the scripted demo session shipped in hookwire (no network, no API key) and print
    /// every event and hook decision.
    Demo(demo::DemoArgs),
    /// Chat with an agent that runs the configured hooks (OpenAI-compatible model).
    Chat(chat::ChatArgs),
    /// Answer as one hook of Claude Code, Gemini CLI or Codex: read its hook input on stdin, run
    /// every configured hook, print the combined answer.
    Hook(hook::HookArgs),
    /// A `hook` call whose synchronous part is done (not a command line).
    #[command(skip)]
    HookPending(Box<hook::Pending>),
    /// Run the project's daemon: hooks stay up between `hookwire hook` calls, and any program
    /// can fire events over its Unix socket (docs/daemon.md).
    Serve(serve::ServeArgs),
    /// Run the project's hook test files (`*.hooktest.yaml`): each case through the hooks, as the
    /// agent would get the answer. The project's hooks run without a trust check, as `cargo test`
    /// runs a project's code.
    Test(test::TestArgs),
    /// Replay recorded sessions (Claude Code transcripts, Codex rollouts, Gemini CLI chat logs)
    /// through the configured hooks without running any tool: what would they have denied, asked or rewritten?
    Replay(replay::ReplayArgs),
    /// Add (or remove) one `hookwire hook <agent>` entry per event to an agent's settings file.
    Install(install::InstallArgs),
    /// hookwire as an agent's plugin: `plugin build --agent claude|gemini|codex|copilot --out DIR`.
    Plugin(plugin::PluginArgs),
    /// Per hook id: runs, errors, denies and latency percentiles, from the decision store
    /// (docs/observability.md), or from an audit log when one is named.
    Stats {
        /// An audit log (`--audit FILE` of `fire`); without it, the decision store.
        file: Option<PathBuf>,
        /// Output format: a table, or one JSON object.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        store: log::StoreArgs,
    },
    /// The latest fires from the decision store, newest first (oldest first with --follow), with
    /// each hook's run (docs/observability.md).
    Log(log::LogArgs),
    /// A local web dashboard of the decision store, live (docs/observability.md).
    Ui(ui::UiArgs),
    /// Guard rules: list the packs compiled into hookwire, or explain what the rules decide
    /// about one tool call and why.
    Rules(rules_cmd::RulesArgs),
    /// Print a shell completion script: `hookwire completions bash > /etc/bash_completion.d/hookwire`.
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff): `hookwire man | man -l -`, or one subcommand's page.
    Man(completions::ManArgs),
}

/// Where configuration comes from.
#[derive(Debug, Clone, Args)]
pub(crate) struct ConfigArgs {
    /// Load this file or hook directory at user level (repeatable).
    #[arg(long = "config", value_name = "PATH")]
    pub(crate) configs: Vec<PathBuf>,
    /// Skip the user's and the project's configuration (hermetic runs).
    #[arg(long)]
    pub(crate) no_default_config: bool,
}

/// `text` for people, `json` for programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}

impl Format {
    /// `json` when stdout is not a terminal, else `text`.
    pub(crate) fn default_for_stdout() -> Format {
        if std::io::stdout().is_terminal() { Format::Text } else { Format::Json }
    }
}

/// Logs on stderr. `quiet`: only errors unless asked for more (`hookwire hook`, whose stderr
/// an agent logs, reports failed hooks itself).
fn init_logging(verbose: u8, quiet: bool) {
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 if quiet => "error",
        0 => "warn",
        1 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .init();
}

/// A signal that ends the command.
#[derive(Debug, Clone, Copy)]
enum Termination {
    Interrupt,
    Terminate,
    HangUp,
}

impl Termination {
    fn number(self) -> u8 {
        match self {
            Termination::Interrupt => 2,
            Termination::Terminate => 15,
            Termination::HangUp => 1,
        }
    }
}

impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Termination::Interrupt => "SIGINT",
            Termination::Terminate => "SIGTERM",
            Termination::HangUp => "SIGHUP",
        })
    }
}

/// Waits for SIGINT, SIGTERM or SIGHUP. Hooks run in process groups of their own, so none of
/// these reaches them: the command must take them down itself.
async fn termination() -> Termination {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut hup)) = (signal(SignalKind::terminate()), signal(SignalKind::hangup())) else {
        let _ = tokio::signal::ctrl_c().await;
        return Termination::Interrupt;
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => Termination::Interrupt,
        _ = term.recv() => Termination::Terminate,
        _ = hup.recv() => Termination::HangUp,
    }
}

/// The command line of `hookwire hook …` as an agent's settings hold it, read without clap: an
/// agent runs it on every event, and clap building every subcommand's definition costs a
/// noticeable part of that start. `None` for any other command line, and for anything unusual
/// (`--help`, an error), which clap then parses, prints and reports as it always has.
fn parse_hook_only() -> Option<Cli> {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let (first, words) = argv.split_first()?;
    if first != "hook" {
        return None;
    }
    let (verbose, args) = hook::HookArgs::from_plain_words(words)?;
    Some(Cli { verbose, command: Command::Hook(args) })
}

/// How many levels of hooks `hookwire hook` may run inside ([`hook_bash::HOOK_DEPTH_ENV`]): 2.
/// Depth 1 is legitimate (a hook runs another agent, or a script, that runs hookwire), and so
/// is one more level of that; a third is almost surely a hook that runs the bridge that runs
/// it, which without this bound recurses until the agent's deadline, a process per level.
const MAX_HOOK_DEPTH: u32 = 2;

/// The answer of `hookwire hook` called inside more than [`MAX_HOOK_DEPTH`] levels of hooks: a
/// refusal (blocking on an event that can block, a non-blocking error elsewhere); `None` when
/// the call is not that deep, or is not `hookwire hook <agent>`.
fn refuse_too_deep() -> Option<u8> {
    use std::io::{Read as _, Write as _};
    let depth = hook_bash::hook_depth();
    if depth <= MAX_HOOK_DEPTH {
        return None;
    }
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let agent: hook_protocol::Agent = argv.iter().skip_while(|w| *w != "hook").nth(1)?.parse().ok()?;
    let reason = format!(
        "`hookwire hook {agent}` runs inside {depth} levels of hooks ({}={depth}; at most {MAX_HOOK_DEPTH}): a hook \
         runs `hookwire hook` itself, directly or through a script or another agent, and would run itself \
         again without end, so this call is refused. Remove that call from the hook (or give it another \
         configuration with --no-default-config --config FILE that does not contain the hook)",
        hook_bash::HOOK_DEPTH_ENV
    );
    let mut text = String::new();
    let read = std::io::stdin().take(64 << 20).read_to_string(&mut text);
    let context = read.ok().and_then(|_| hook_protocol::serde_json::from_str(&text).ok());
    let answer = match context.map(|input| hook_agents::context_from_input(agent, input)) {
        Some(Ok((event, _))) => hook::refuse(agent, event, reason),
        _ => hook_agents::failure_answer_as(agent, &reason),
    };
    let _ = std::io::stdout().write_all(answer.stdout.as_bytes());
    let _ = std::io::stderr().write_all(answer.stderr.as_bytes());
    Some(u8::try_from(answer.exit_code).unwrap_or(1))
}

fn main() -> ExitCode {
    let cli = parse_hook_only().unwrap_or_else(Cli::parse);
    if matches!(cli.command, Command::Hook(_))
        && let Some(code) = refuse_too_deep()
    {
        return ExitCode::from(code);
    }
    if matches!(cli.command, Command::Chat(_)) {
        // The model may register hooks, which run with a scrubbed environment: keep hookwire's
        // own environment (API keys) out of their reach. First, while there is one thread.
        contain::hide_environment();
    }
    let is_bridge = matches!(cli.command, Command::Hook(_));
    if !is_bridge || cli.verbose > 0 || std::env::var_os("RUST_LOG").is_some() {
        // The bridge reports failed hooks itself and runs on every event of an agent: it builds
        // a log filter only when asked for logs.
        init_logging(cli.verbose, is_bridge);
    }
    contain::become_subreaper();
    let cli = match cli.command {
        // An agent runs `hookwire hook` on every event: answer what needs no hook before any
        // runtime exists, and run the rest on one thread.
        Command::Hook(args) => match hook::prepare(args) {
            hook::Prepared::Answered(code) => return ExitCode::from(code),
            hook::Prepared::Fire(pending) => Cli { command: Command::HookPending(pending), ..cli },
        },
        _ => cli,
    };
    // The bridge and the daemon run on this thread alone. The daemon waits on its hooks, not on
    // the CPU: on one thread a call's request, its hook's answer and its reply wake no other
    // thread (a multi-threaded scheduler wakes a second one to share every task, which costs a
    // bridge call through the daemon about 2% of its time on two cores); what blocks (a trust
    // check hashing a folder) runs on tokio's blocking pool.
    let runtime = if matches!(cli.command, Command::HookPending(_) | Command::Serve(_)) {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    if let Command::Serve(args) = cli.command {
        record::set_daemon();
        // The daemon handles SIGINT, SIGTERM and SIGHUP itself: it removes its socket, then
        // takes its hooks down.
        let code = run_serve(&runtime, args);
        drop(runtime);
        telemetry::shutdown();
        record::flush_at_exit();
        // The daemon's hooks are down; what escaped their process groups goes with them.
        contain::kill_adopted();
        return ExitCode::from(code);
    }
    if let Command::Chat(args) = cli.command {
        // chat handles SIGINT itself: Ctrl-C cancels the running turn (taking its hooks and
        // tools down) and returns to the prompt; a second one within 2 s quits.
        let code = run_chat(&runtime, args);
        // A tool's blocking file read can outlive a cancelled turn: the exit does not wait on
        // it for more than a moment (dropping the runtime would, for ever).
        runtime.shutdown_timeout(std::time::Duration::from_secs(1));
        record::flush_at_exit();
        return ExitCode::from(code);
    }
    let code = match cli.command {
        Command::HookPending(pending) => run_bridge(&runtime, pending),
        command => run_command(&runtime, command),
    };
    drop(runtime);
    // Spans of `fire` and `hook` leave before the process does (at most 1 s).
    telemetry::shutdown();
    // So do their decision-store rows (at most 200 ms), the bridge's answer being out already.
    record::flush_at_exit();
    if code > 128 {
        // Interrupted: what left the hooks' process groups goes too.
        contain::kill_adopted();
    }
    ExitCode::from(code)
}

/// Every command but the bridge, the daemon and `chat`, on `runtime`. Not inlined: its future
/// holds every subcommand's (the size of the largest), and in `main`'s frame the stack probe
/// would touch all of it, page by page, on every bridge call as well.
#[inline(never)]
fn run_command(runtime: &tokio::runtime::Runtime, command: Command) -> u8 {
    runtime.block_on(async move {
        let command = async move {
            match command {
                Command::Check { config, format, agent } => check::run(&config, format, agent),
                Command::Fire(args) => fire::run(args).await,
                Command::Hook(args) => hook::run(args).await,
                Command::HookPending(pending) => hook::finish(*pending).await,
                Command::Demo(args) => demo::run(args).await,
                Command::Chat(args) => chat::run(args).await,
                Command::Trust(args) => trust::run(args),
                Command::Stats { file: Some(file), format, .. } => stats::run(&file, format),
                Command::Stats { file: None, format, store } => log::stats(&store, format),
                Command::Log(args) => log::run(args).await,
                Command::Ui(args) => ui::run(args).await,
                Command::Completions(args) => completions::completions(&args),
                Command::Man(args) => completions::man(&args),
                Command::Install(args) => install::run(&args),
                Command::Plugin(args) => plugin::run(&args),
                Command::Rules(args) => rules_cmd::run(args),
                Command::Test(args) => test::run(args).await,
                Command::Replay(args) => replay::run(args).await,
                Command::Serve(args) => serve::run(args).await,
            }
        };
        // Hooks run in process groups of their own, so Ctrl-C does not reach them: on SIGINT,
        // SIGTERM or SIGHUP the command is dropped, which kills running bash hooks' groups, and
        // dropping the runtime below kills the process hooks' groups.
        // `biased`, the signals first: their handlers are installed by the first poll, which
        // must come before the command starts a hook (else a Ctrl-C right after the hook starts
        // meets the default handler and kills hookwire, leaving the hook behind).
        tokio::select! {
            biased;
            signal = termination() => {
                eprintln!("interrupted ({signal}): stopping the hooks");
                128 + signal.number()
            }
            code = command => code,
        }
    })
}

/// The daemon: its future stays out of `main`'s frame (see [`run_command`]).
#[inline(never)]
fn run_serve(runtime: &tokio::runtime::Runtime, args: serve::ServeArgs) -> u8 {
    runtime.block_on(Box::pin(serve::run(args)))
}

/// `hookwire chat`: its future stays out of `main`'s frame (see [`run_command`]).
#[inline(never)]
fn run_chat(runtime: &tokio::runtime::Runtime, args: chat::ChatArgs) -> u8 {
    runtime.block_on(Box::pin(chat::run(args)))
}

/// A bridge call that runs hooks: its future, built in this frame and then moved to the heap,
/// stays out of `main`'s.
#[inline(never)]
fn run_bridge(runtime: &tokio::runtime::Runtime, pending: Box<hook::Pending>) -> u8 {
    runtime.block_on(Box::pin(bridge(*pending)))
}

/// A bridge call that runs hooks, stopped by SIGINT, SIGTERM or SIGHUP like every command (see
/// [`run_command`]).
async fn bridge(pending: hook::Pending) -> u8 {
    tokio::select! {
        biased;
        signal = termination() => {
            eprintln!("interrupted ({signal}): stopping the hooks");
            128 + signal.number()
        }
        code = hook::finish(pending) => code,
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use clap::Parser;

    use super::{Cli, Command, hook::HookArgs};

    /// `hookwire hook WORDS…` as clap reads it, when it does.
    fn by_clap(words: &[&str]) -> Option<(u8, String)> {
        let argv = ["hookwire", "hook"].iter().chain(words);
        match Cli::try_parse_from(argv).ok()? {
            Cli { verbose, command: Command::Hook(args) } => Some((verbose, format!("{args:?}"))),
            _ => None,
        }
    }

    fn by_hand(words: &[&str]) -> Option<(u8, String)> {
        let words: Vec<OsString> = words.iter().map(OsString::from).collect();
        HookArgs::from_plain_words(&words).map(|(verbose, args)| (verbose, format!("{args:?}")))
    }

    #[test]
    fn plain_hook_words_read_as_clap_reads_them() {
        let plain: &[&[&str]] = &[
            &["claude"],
            &["gemini", "--no-daemon"],
            &["codex", "--no-default-config", "--config", "/tmp/a b.json", "--config", "rel/c.yaml"],
            &["claude", "--settings", "s.json", "-v", "--settings", "/t.json", "--no-daemon", "--no-default-config"],
            &["claude", "-vv", "--verbose", "--config", "x"],
        ];
        for words in plain {
            let hand = by_hand(words);
            assert!(hand.is_some(), "{words:?} is read without clap");
            assert_eq!(hand, by_clap(words), "{words:?}");
        }
    }

    #[test]
    fn anything_else_is_left_to_clap() {
        let unusual: &[&[&str]] = &[
            &[],
            &["--help"],
            &["claude", "--help"],
            &["-h"],
            &["--version"],
            &["-v", "claude"],
            &["claud"],
            &["claude", "gemini"],
            &["claude", "--config"],
            &["claude", "--config", ""],
            &["claude", "--config", "--no-daemon"],
            &["claude", "--config=x.json"],
            &["claude", "--no-daemon", "--no-daemon"],
            &["claude", "--no-default-config", "--no-default-config"],
            &["claude", "--bogus"],
            &["claude", "-x"],
            &["claude", "-"],
            &["claude", "--"],
        ];
        for words in unusual {
            assert_eq!(by_hand(words), None, "{words:?} goes to clap");
        }
        // Where clap reads them, it reads them with no help from the hand parser.
        assert!(by_clap(&["-v", "claude"]).is_some());
        assert!(by_clap(&["claude", "--config=x.json"]).is_some());
    }
}
