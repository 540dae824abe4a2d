//! j-cli bash hooks: one `sh -c "<command>"` per event, in its own process group, with bounded
//! output and a deadline that covers everything.
//!
//! ```
//! use std::sync::Arc;
//!
//! use hook_bash::BashFactory;
//! use hook_core::{Context, Decision, Engine, Event, HookDefinition, HookSpec, Level};
//! use hook_protocol::config::HookDef;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // j-cli's guard: the event's HookContext JSON on stdin, a HookResult on stdout.
//! let command = r#"if grep -q 'rm -rf'; then echo '{"action": "skip"}'; else echo '{}'; fi"#;
//! let def = HookDef { command: Some(command.into()), ..HookDef::default() };
//! let spec = HookSpec::new("no-rm-rf", Level::User, "bash", [Event::PreToolExecution], HookDefinition::Command(def));
//! let engine = Engine::builder().factory(Arc::new(BashFactory::default())).build();
//! engine.replace_level(Level::User, vec![spec]).await.unwrap();
//!
//! for (command, decision) in [("rm -rf /", Decision::Skip), ("ls", Decision::Continue)] {
//!     let arguments = format!(r#"{{"command": "{command}"}}"#);
//!     let mut context = Context { tool_arguments: Some(arguments), ..Context::default() };
//!     assert_eq!(engine.fire(Event::PreToolExecution, &mut context).await.decision, decision);
//! }
//! # }
//! ```
//!
//! # The contract (j-cli's, kept as is)
//!
//! - The command runs as `/bin/sh -c "<command>"` (`sh` from PATH where there is no `/bin/sh`).
//! - The event's HookContext JSON is written to the hook's **stdin** (then stdin is closed).
//! - The hook prints **one HookResult JSON object** on **stdout**, or nothing: surrounding
//!   whitespace is ignored, and nothing or `{}` means "no change". Anything else on stdout, such
//!   as a debug line before the JSON, is an `invalid_output` failure: print debug output to stderr.
//! - Exit code 0 means the stdout is the answer; any other exit code is a failure carrying the
//!   code and the tail of stderr. No exit code has a special meaning (2 is the same as 1), except
//!   in messages: 127 says the command was not found, 126 that it could not be executed. A hook
//!   killed by a signal fails with the signal's name (`signal 9 (SIGKILL)`).
//!
//! # Environment
//!
//! The hook inherits the host's environment, plus:
//!
//! | variable | value |
//! |---|---|
//! | `JCLI_HOOK_EVENT`, `HOOKWIRE_HOOK_EVENT` | the event's canonical name, e.g. `pre_tool_execution` |
//! | `JCLI_CWD`, `HOOKWIRE_CWD` | the working directory the hook runs in |
//! | `JCLI_HOOK_DIR`, `HOOKWIRE_HOOK_DIR` | the hook's directory (directory hooks), else empty |
//! | `PATH` | for directory hooks, the hook's directory comes first |
//!
//! and the hook's own `env` map, and [`HOOK_DEPTH_ENV`] (below). The working directory is the session's (`cwd` of the context),
//! else the host's. With [`BashOptions::scrub_env`] (used for hooks the model registered, and by
//! [`BashFactory`] for every session-level hook) the environment starts empty and keeps only
//! [`SCRUBBED_ENV_KEEP`] from the host, plus the variables above and the hook's `env`.
//!
//! # Limits
//!
//! - **Deadline**: `HookInput::deadline` covers writing stdin, running and reading the output. A
//!   hook that never reads a large stdin still times out on time. When the deadline passes, or
//!   the future returned by `Hook::call` is dropped (the engine cancelling), the hook's whole
//!   process group is killed with SIGKILL, background children included.
//! - **Output caps**: stdout is capped at [`DEFAULT_MAX_STDOUT_BYTES`] (1 MiB) and stderr at
//!   [`DEFAULT_MAX_STDERR_BYTES`] (64 KiB), both configurable in [`BashOptions`]. Going over
//!   either cap kills the hook at once and fails the run as `invalid_output`; nothing past the cap
//!   is ever buffered. Logs carry only the first 200 characters of each.
//! - A run is finished when `sh` has exited **and** its stdout and stderr are closed: a background
//!   process that keeps them open holds the run until it exits or the deadline passes. Background
//!   processes that closed or redirected them are left running.
//!
//! Retries and the failure policy (`retry`, `on_error`) are applied by the engine (`hook-core`).
//!
//! Bash hooks spawn a shell per event (about 3 ms); a hook that must answer often is better
//! written as a process hook.
//!
//! # Claude Code, Gemini CLI and Codex `command` hooks
//!
//! [`AgentCommandFactory`] (kind `command`) runs the `command` handlers of those agents' settings
//! files unmodified, with each agent's contract instead of j-cli's:
//!
//! - **stdin**: the agent's hook input as compact JSON (non-ASCII unescaped) and one newline,
//!   written while stdout and stderr are read; a hook that never reads it is fine.
//! - **Process**: `/bin/sh -c <command>` verbatim (Gemini CLI's `$GEMINI_PROJECT_DIR`,
//!   `${GEMINI_PROJECT_DIR}`, `$GEMINI_CWD`, `$GEMINI_SESSION_ID` and `$CLAUDE_PROJECT_DIR` are
//!   substituted into the string first, shell-quoted, as Gemini CLI does). With `args` (exec form)
//!   the program runs directly, looked up on PATH, no shell; `${CLAUDE_PROJECT_DIR}`,
//!   `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` are substituted into it and each argument.
//!   The working directory is the project directory ([`AgentCommandOptions::project_dir`], else
//!   the session's `cwd`). Own process group, killed whole on the deadline or on cancellation.
//! - **Environment**: inherited minus `OTEL_*`, plus `CLAUDE_PROJECT_DIR` (every agent);
//!   Claude Code: `CLAUDECODE=1`, `CLAUDE_CODE_SESSION_ID`; Gemini CLI: `GEMINI_PROJECT_DIR`,
//!   `GEMINI_CWD` (the input's `cwd`), `GEMINI_SESSION_ID`; plugin hooks: `CLAUDE_PLUGIN_ROOT`,
//!   `CLAUDE_PLUGIN_DATA` (a per-plugin directory in the state directory), Codex also
//!   `PLUGIN_ROOT` / `PLUGIN_DATA`; then the spec's and the handler's `env`. On `SessionStart`,
//!   `Setup`, `CwdChanged` and `FileChanged`, `CLAUDE_ENV_FILE` names an existing file: the
//!   agent's own when hookwire runs under one that set it, else `<state dir>/env/<session>.sh`.
//! - **Answer**: exit code, stdout and stderr are read with the agent's rules
//!   ([`hook_agents::read_command`]); texts over 10,000 characters are saved in the state
//!   directory and replaced by a preview ([`hook_agents::spill::spill_long_texts`]).
//! - **Caps**: stdout 4 MiB, stderr 1 MiB by default; more stops the hook (`invalid_output`).
//!
//! # Nesting
//!
//! Every hook child, of both kinds, gets [`HOOK_DEPTH_ENV`] (`HOOKWIRE_HOOK_DEPTH`): one more
//! than this process's own value (absent: 0). It is set after the hook's `env` and survives a
//! scrubbed environment, so a hook that runs `hookwire hook` again, however indirectly (through
//! a script, or another agent), hands that call its depth: `hookwire hook` refuses past a small
//! depth instead of recursing without end.

mod agent;
mod env;
mod factory;
mod hook;
mod limits;
mod output;
mod process_group;
mod run;
mod sandbox;

pub use agent::{
    AgentCommandFactory, AgentCommandHook, AgentCommandOptions, DEFAULT_AGENT_MAX_STDERR_BYTES,
    DEFAULT_AGENT_MAX_STDOUT_BYTES,
};
pub use env::{HOOK_DEPTH_ENV, SCRUBBED_ENV_KEEP, child_hook_depth, hook_depth};
pub use factory::BashFactory;
pub use hook::{BashHook, BashOptions};
pub use limits::{DEFAULT_MAX_STDERR_BYTES, DEFAULT_MAX_STDOUT_BYTES};
