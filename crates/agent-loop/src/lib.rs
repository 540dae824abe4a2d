//! agent-loop: a reference agent that fires every hookwire event at its moment, with its data.
//!
//! ```
//! use std::sync::Arc;
//!
//! use agent_loop::{Agent, ScriptedModel, ScriptedTurn, SessionConfig};
//! use hook_core::{Engine, Event, HookOutput, Level, Registration, hook_fn};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // A guard on every tool call: nothing that mentions `rm -rf` runs.
//! let guard = hook_fn("no-rm-rf", |input| {
//!     let is_dangerous = input.context.tool_arguments.as_deref().is_some_and(|a| a.contains("rm -rf"));
//!     async move { Ok(if is_dangerous { HookOutput::skip("no rm -rf") } else { HookOutput::default() }) }
//! });
//! let engine = Engine::builder().build();
//! engine.register(Registration::new("no-rm-rf", Level::User, [Event::PreToolExecution], guard));
//!
//! // A scripted model that asks for `rm -rf /`, then answers.
//! let call = ScriptedTurn::call("call-1", "Bash", r#"{"command": "rm -rf /"}"#);
//! let model = ScriptedModel::new([call, ScriptedTurn::text("done")]);
//! let agent = Agent::builder().model(Arc::new(model)).engine(engine).build().unwrap();
//! let mut session = agent.session(SessionConfig::new("demo", std::env::temp_dir())).await;
//! let report = session.send("clean up").await.unwrap();
//! assert_eq!(report.tools[0].outcome, "skipped");
//! assert_eq!(report.reply, "done");
//! # }
//! ```
//!
//! - [`Agent`] (built with [`Agent::builder`]): a [`ChatModel`](hook_llm::ChatModel), a hook
//!   [`Engine`](hook_core::Engine), a [`ToolRegistry`] and settings.
//! - [`Session`] ([`Agent::session`] fires `session_start`, [`Session::close`] fires
//!   `session_end`): history, working directory, session hooks. [`Session::send`] runs one turn:
//!
//! ```text
//! pre_send_message → (message added) → post_send_message
//! per round: pre_micro_compact → micro → post_micro_compact
//!            [over the threshold] pre_auto_compact → summary → post_auto_compact
//!            pre_llm_request → model → post_llm_response
//!            per tool call: pre_tool_execution → approve_tool → execute
//!                           → post_tool_execution | post_tool_execution_failure
//!            no tool calls: stop (retry_feedback: another round, at most 3 per turn)
//! ```
//!
//! and returns a [`TurnReport`] (events with decisions, notices, tools, media, usage).
//! [`CancelHandle`] cancels (gracefully or hard) and steers a running turn; [`TurnEvent`]
//! listeners see the activity as it happens.
//! - Tools: [`Tool`], built-ins in Claude Code's vocabulary — `Bash`, `Read`, `Write`, `Edit`,
//!   `Glob`, `Grep`, `LS` (confined to the working directory; see [`tools`]) — and
//!   `register_hook` (session hooks, approved like any tool call, and built by the engine's
//!   factory of their kind: a host that offers it registers `hook_bash::BashFactory` and
//!   `hook_llm::LlmFactory`; see [`tools::RegisterHookTool`]). Post-tool hooks find the
//!   structured response Claude Code reports (`{stdout, stderr, ...}`, `{type, filePath, ...}`)
//!   in the context's `extra["tool_response"]`; `tool_result.for_llm` is what the model sees.
//! - Approval: a tool with side effects runs only when approved — by an `approve_tool` hook's
//!   explicit approval, a `pre_tool_execution` hook's `permission: allow`, or else the
//!   [`ApprovalPolicy`] ([`AgentBuilder::approval`]; default: ask, and deny when no one can
//!   answer). Read-only tools need none; a hook's `ask` forces the question.
//! - Transcript: with [`SessionConfig::transcript`], every message is appended as one JSON line
//!   in Claude Code's shape ([`transcript`]) before the next event fires. Every hook context
//!   carries `extra["transcript_path"]` and `extra["permission_mode"]`; `stop` carries
//!   `stop_hook_active`, `session_start` `source` (`startup` / `resume`).
//! - [`MediaStore`]: `media://<id>` references for files and bytes.
//! - [`ScriptedModel`]: replays a script of assistant turns in process, for tests and demos.
//!
//! # Decisions
//!
//! Where PicoClaw and j-cli leave the behaviour open (or their code is a bug), this loop does:
//!
//! - `stop` on `pre_tool_execution` ends the turn ([`TurnError::Stopped`]), like `stop` on
//!   `pre_llm_request` (j-cli ignores it and runs the tool). Calls left unanswered when a turn
//!   ends with an error get the tool message [`NOT_EXECUTED`], so the next request stays valid.
//! - `skip` gives the tool message [`SKIPPED_BY_HOOK`] (`: <reason>` appended when given) and
//!   fires `post_tool_execution_failure`, whose `tool_error` may rewrite it. `deny_tool` and an
//!   approval denial do not fire it (PicoClaw).
//! - A tool result with `is_error` fires `post_tool_execution_failure` (with `tool_error` =
//!   `for_llm`) instead of `post_tool_execution`.
//! - `additional_context` (from any event of the turn but `pre_auto_compact`, whose context is
//!   for the summary) is appended to the system prompt for the rest of the turn, each distinct
//!   text once.
//! - `messages` replaced by `pre_llm_request` / `post_*_compact` become the session's history;
//!   `inject_messages` are appended to it.
//! - `retry_feedback` on `stop` (with or without `action: stop`) and `stop` + `retry_feedback`
//!   on `post_llm_response` (the rejected answer is dropped) share one cap per turn
//!   ([`DEFAULT_RETRY_FEEDBACK_CAP`]). Past the cap, feedback on `stop` is ignored with a notice;
//!   `stop` on `post_llm_response` ends the turn with [`TurnError::Stopped`].
//! - `stop` on `pre_send_message` drops the message: [`TurnStatus::Dropped`] carries the reason
//!   and the hook's `retry_feedback` for the user; nothing is added and the model is not asked.
//! - The `stop` event's `user_input` is the final reply, as j-cli passes it (hooks written for
//!   j-cli read the reply there); `assistant_output` carries it too. `stop` is not fired when a batch of
//!   `response_handled` results ended the turn.

mod agent;
pub mod approval;
mod compaction;
mod error;
mod media;
mod report;
mod scripted_model;
mod session;
pub mod tools;
pub mod transcript;
mod turn;

/// Every event this agent fires; the others of [`hook_core::Event::ALL`] come only from other
/// agents, through `hookwire hook`.
pub const FIRED_EVENTS: [hook_core::Event; 15] = [
    hook_core::Event::SessionStart,
    hook_core::Event::SessionEnd,
    hook_core::Event::PreSendMessage,
    hook_core::Event::PostSendMessage,
    hook_core::Event::PreLlmRequest,
    hook_core::Event::PostLlmResponse,
    hook_core::Event::PreToolExecution,
    hook_core::Event::ApproveTool,
    hook_core::Event::PostToolExecution,
    hook_core::Event::PostToolExecutionFailure,
    hook_core::Event::Stop,
    hook_core::Event::PreMicroCompact,
    hook_core::Event::PostMicroCompact,
    hook_core::Event::PreAutoCompact,
    hook_core::Event::PostAutoCompact,
];

pub use agent::{Agent, AgentBuilder, DEFAULT_MAX_ROUNDS, DEFAULT_RETRY_FEEDBACK_CAP};
pub use approval::{
    ApprovalAnswer, ApprovalPolicy, ApprovalRequest, Asker, DEFERRED_BY_HOOK, DENIED_BY_USER, DENIED_NOT_APPROVED,
    NoOneToAsk,
};
pub use compaction::{
    CompactionConfig, MICRO_MAX_CHARS, PROTECTED_HEADER, SUMMARY_PROMPT, compacted_tool_text, estimate_tokens,
    micro_compact, summary_prompt,
};
pub use error::{AgentBuildError, TurnError};
pub use media::{MEDIA_SCHEME, MediaError, MediaItem, MediaStore, guess_mime};
pub use report::{FiredEvent, ToolOutcome, ToolRecord, TurnEvent, TurnReport, TurnStatus};
pub use scripted_model::{ScriptedModel, ScriptedTurn};
pub use session::{CancelHandle, EventListener, RestoreReport, Session, SessionConfig, SessionState};
pub use tools::{Tool, ToolContext, ToolOutput, ToolRegistry};
pub use turn::{
    DENIED_BY_APPROVAL, DENIED_BY_HOOK, NOT_EXECUTED, RESPONSE_DELIVERED, RESPONSE_HANDLED_NOTE, SKIPPED_BY_HOOK,
    SKIPPED_GRACEFUL, SKIPPED_STEERING,
};
