//! PicoClaw process hooks: a long-lived child speaking JSON-RPC 2.0, one JSON object per line,
//! over its stdin and stdout — the host side ([`ProcessFactory`], [`ProcessHook`]) and a server
//! side for writing such hooks in Rust ([`server`]).
//!
//! ```
//! use hook_core::{Context, Decision, Engine, Event, HookDefinition, HookSpec, Level};
//! use hook_protocol::serde_json::{from_value, json};
//!
//! // A PicoClaw approver in Python: accepts the handshake, then refuses every `Bash` call.
//! const APPROVER: &str = r#"
//! import json, sys
//! for msg in map(json.loads, sys.stdin):
//!     if "id" in msg:  # a request; notifications get no answer
//!         ok = msg["method"] == "hook.hello" or msg["params"]["tool"] != "Bash"
//!         result = {"ok": True, "approved": ok, "reason": "no shell"}
//!         print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
//! "#;
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let def = from_value(json!({"command": ["python3", "-c", APPROVER], "intercept": ["approve_tool"]})).unwrap();
//! let spec = HookSpec::new("approver", Level::User, "process", [Event::ApproveTool], HookDefinition::Process(def));
//! let engine = Engine::builder().factory(std::sync::Arc::new(hook_process::ProcessFactory::new())).build();
//! engine.replace_level(Level::User, vec![spec]).await.unwrap(); // spawns it and shakes hands
//!
//! let mut context = Context { tool_name: Some("Bash".into()), ..Context::default() };
//! let outcome = engine.fire(Event::ApproveTool, &mut context).await;
//! assert_eq!(outcome.decision, Decision::Denied);
//! assert_eq!(outcome.reason.as_deref(), Some("no shell"));
//! engine.shutdown().await;
//! # }
//! ```
//!
//! # Lifecycle
//!
//! - **Spawn**: `command` is run as argv (no shell) in `dir`, with `env` added to the inherited
//!   environment, in its own process group, with its pipes enlarged to 1 MiB (`F_SETPIPE_SZ`)
//!   where the kernel allows.
//! - **Handshake**: the first message is `hook.hello` with `name`, `version: 1`, `modes`
//!   (`observe` if `observe` is non-empty; `llm` for `pre_llm_request`/`post_llm_response`; `tool`
//!   for the tool events; `approve` for `approve_tool`; in that order) and the offer of
//!   hookwire's extensions (`hookwire`, see [Extensions](#extensions)). The reply must arrive within
//!   the handshake deadline (default 5 s) and be a JSON object (`null` is accepted, as PicoClaw
//!   does). `ok: false` refuses the mount with the reply's `reason` (or `message`); an error
//!   response or a non-object reply refuses it too; a missing `ok` is accepted. The reply may
//!   narrow its `modes` to a subset of those offered: events of a dropped mode are not sent and
//!   count as no change; modes it was not offered are ignored (with a warning).
//! - **Calls**: ids count from 1 per process; many requests may be in flight and replies may come
//!   in any order. A reply's id may be an integer or a string holding the integer (`"7"` for 7).
//!   Each call has the deadline the engine gives it. When the deadline passes, or the engine drops
//!   the call, the request is forgotten (a late reply is dropped) and the host sends
//!   `{"jsonrpc":"2.0","method":"hook.cancel","params":{"id":N,"reason":"..."}}`; a hook may stop
//!   working on request `N` (it need not answer the notification).
//! - **Faults**: a process that exits fails its in-flight calls at once with
//!   [`HookError::ProcessExited`](hook_core::HookError::ProcessExited) (status and stderr tail),
//!   and is restarted (handshake included) after 100 ms, 200 ms, 400 ms, ...; after 5 restarts
//!   within a minute it is marked failed and every call fails at once. A stdout line that is not
//!   JSON is logged (warn) and skipped. A line over the limit (16 MiB by default,
//!   [`ProcessOptions::max_line_bytes`]) fails the in-flight calls with an error naming the limit
//!   and restarts the process. stderr lines are logged at warn with the hook's name (at most 20
//!   lines per 10 s, then a "N lines suppressed" note) and the last lines kept for error messages.
//! - **Shutdown** ([`Hook::shutdown`](hook_core::Hook::shutdown), or dropping the hook and its
//!   observer): stdin is closed; after 2 s the group gets SIGTERM, after 1 s more SIGKILL; the
//!   group is always SIGKILLed at the end so children holding the pipes open die too.
//!
//! # Mapping
//!
//! | event | method | params | result |
//! |---|---|---|---|
//! | `pre_llm_request` | `hook.before_llm` | `meta`, `model`, `messages`, `tools`, `options`, `channel`, `chat_id` | `{action, reason?, request?: {model?, messages?, tools?, options?}}` |
//! | `post_llm_response` | `hook.after_llm` | `meta`, `model`, `response: {role, content, tool_calls?}`, `channel`, `chat_id` | `{action, reason?, response?}`; `response` is the envelope `{model?, response: {...}}` or the bare response |
//! | `pre_tool_execution` | `hook.before_tool` | `meta`, `tool`, `arguments` (JSON value), `channel`, `chat_id` | `{action, reason?, call?: {tool?, arguments?}, result?}`; `result` (a ToolResult) is required with `respond` |
//! | `post_tool_execution` | `hook.after_tool` | `meta`, `tool`, `arguments`, `result` (ToolResult with `silent`, `is_error`, `async` present), `duration` (ns), `channel`, `chat_id` | `{action, reason?, result?}`; `result` is the envelope `{tool?, result: {...}}` or the bare ToolResult |
//! | `post_tool_execution_failure` | `hook.after_tool` | as above, `result.for_llm` = the tool error, `is_error: true` | as above; a changed `for_llm` replaces `tool_error` |
//! | `approve_tool` | `hook.approve_tool` | `meta`, `tool`, `arguments`, `channel`, `chat_id` | `{approved: bool, reason?}`; `{}` (no `approved`) denies |
//! | observer kinds | `hook.event` (notification) | `{Kind, Meta, Payload}` | none |
//! | `session_start`, `session_end`, `pre_send_message`, `post_send_message`, `stop`, `pre_micro_compact`, `post_micro_compact`, `pre_auto_compact`, `post_auto_compact` (when listed in `intercept`) | `hook.<event>`, e.g. `hook.pre_send_message` | j-cli `HookContext` | j-cli `HookResult` |
//!
//! `meta` carries all seven PascalCase keys when the context has meta. Returned objects are
//! merged member by member: a `call` without `tool` keeps the tool, a `request` without `model`
//! keeps the model, a result member left out keeps its value. Actions: `continue` and `modify`
//! apply the returned changes; `respond`, `deny_tool`, `abort_turn`, `hard_abort` map to
//! [`hook_core::Action`]; an unknown action (or `respond` outside `hook.before_tool`, or
//! `respond` without `result`) is an invalid-output error naming the hook. A JSON-RPC error
//! response is [`HookError::ErrorResponse`](hook_core::HookError::ErrorResponse). Observe kinds:
//! `*`, `all` or `""` observe everything; `agent.tool.exec_end` is read as `tool_exec_end`.
//!
//! Params are serialized once per event ([`hook_core::HookInput::serialized`]) and shared by
//! every process hook of that event: each request line is written as its own head, the shared
//! params and its closing brace, in one vectored write, without copying the params into it. A
//! `before_tool` answer whose `call.arguments` are byte for byte the arguments sent (an
//! unchanged echo) is read without parsing them.
//!
//! # Extensions
//!
//! `hook.hello` also offers hookwire's extensions under the member `hookwire`: a hook may name,
//! per method, the params members it reads (the others are not sent), and may take
//! `before_llm`'s history as a delta against the version it last acknowledged, with a full
//! resend whenever the two sides disagree (a wrong or missing `ack`, the error code -32090 for
//! an unknown base, a restart), and may promise to change nothing on some methods
//! (`read_only`): such hooks next to each other in a chain run at once
//! ([`hook_core::Hook::changes_nothing`]). A hook that does not opt in receives PicoClaw's params
//! byte for byte, in turn. The wire format is in `docs/process-extensions.md`; [`server`]
//! negotiates all three for a Rust handler ([`server::Handler::reads`]).

mod conn;
mod extensions;
mod line;
mod mapping;
mod outbox;
mod process_hook;
pub mod server;

use std::time::Duration;

pub use process_hook::{ProcessFactory, ProcessHook, ProcessObserver};

/// Limits and grace periods of process hooks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProcessOptions {
    /// The longest stdout line accepted from a hook (default 16 MiB).
    pub max_line_bytes: usize,
    /// How long a process may take to exit after its stdin is closed (default 2 s).
    pub close_grace: Duration,
    /// How long after SIGTERM before SIGKILL (default 1 s).
    pub term_grace: Duration,
    /// The first restart delay; it doubles with each restart in the last minute (default 100 ms).
    pub restart_backoff: Duration,
    /// Restarts allowed within a minute before the hook is marked failed (default 5).
    pub max_restarts_per_minute: usize,
    /// stderr lines logged per window (default 20).
    pub stderr_lines_per_window: u32,
    /// The stderr rate-limit window (default 10 s).
    pub stderr_window: Duration,
    /// Requested pipe size (default 1 MiB; 0 keeps the kernel's default).
    pub pipe_size: usize,
}

impl Default for ProcessOptions {
    fn default() -> Self {
        ProcessOptions {
            max_line_bytes: 16 * 1024 * 1024,
            close_grace: Duration::from_secs(2),
            term_grace: Duration::from_secs(1),
            restart_backoff: Duration::from_millis(100),
            max_restarts_per_minute: 5,
            stderr_lines_per_window: 20,
            stderr_window: Duration::from_secs(10),
            pipe_size: 1024 * 1024,
        }
    }
}

impl ProcessOptions {
    /// Sets [`ProcessOptions::max_line_bytes`].
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes;
        self
    }

    /// Sets the shutdown grace periods (after closing stdin, after SIGTERM).
    pub fn grace(mut self, close: Duration, term: Duration) -> Self {
        self.close_grace = close;
        self.term_grace = term;
        self
    }

    /// Sets the first restart delay and the restarts allowed per minute.
    pub fn restarts(mut self, backoff: Duration, per_minute: usize) -> Self {
        self.restart_backoff = backoff;
        self.max_restarts_per_minute = per_minute;
        self
    }
}
