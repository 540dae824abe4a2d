//! j-cli bash hooks: one `sh -c "<command>"` per event, in its own process group, with bounded
//! output and a deadline that covers everything.
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
//! and the hook's own `env` map. The working directory is the session's (`cwd` of the context),
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

mod env;
mod factory;
mod hook;
mod limits;
mod output;
mod process_group;

pub use env::SCRUBBED_ENV_KEEP;
pub use factory::BashFactory;
pub use hook::{BashHook, BashOptions};
pub use limits::{DEFAULT_MAX_STDERR_BYTES, DEFAULT_MAX_STDOUT_BYTES};
