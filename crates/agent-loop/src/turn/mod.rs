//! One turn: the user's message, rounds of compaction → model call → tool calls, until the model
//! answers; every hookwire event fired at its place with its fields (the event table of
//! docs/design.md and j-cli's lifecycle), and every observer notification sent.
//!
//! This module holds the turn loop and what every stage shares (firing an event, notices, the
//! system prompt); each stage has its own module:
//!
//! - `model`: `pre_llm_request` → model → `post_llm_response`, and `stop` when the model is done;
//! - `tools`: a batch of tool calls, each through `pre_tool_execution`, approval, the tool and
//!   `post_tool_execution` / `post_tool_execution_failure`;
//! - `approve`: whether a call may run (hooks' permissions, the approval policy, a person);
//! - `compact`: micro and auto compaction between their hooks;
//! - `observe`: the observer notifications, built from `hook_protocol::observe`'s typed payloads.

mod approve;
mod compact;
mod model;
mod observe;
mod tools;

use std::time::Instant;

use hook_core::{Decision, Field, FireOutcome};
use hook_llm::Usage;
use hook_protocol::{
    ChatMessage, Context, Event, Role,
    observe::{ErrorPayload, ErrorStage, InterruptKind, ObserverPayload, SteeringInjected, TurnEnd, TurnEndStatus},
};

use crate::{
    FiredEvent, Session, TurnError, TurnEvent, TurnReport, TurnStatus,
    session::{Interrupt, hard_requested},
};

/// The assistant message saved when every tool call of a batch delivered its response (PicoClaw).
pub const RESPONSE_DELIVERED: &str = "Requested output delivered via tool attachment.";

/// Appended to a tool result whose response was delivered to the user (PicoClaw's note).
pub const RESPONSE_HANDLED_NOTE: &str = "\nThe requested output has already been delivered to the user in the current chat. \
Do not call send_file or any other delivery tool again. If you reply, provide only a brief confirmation.";

/// Tool message of a call a `pre_tool_execution` hook skipped.
pub const SKIPPED_BY_HOOK: &str = "Tool call skipped by hook";
/// Tool message of a call a `pre_tool_execution` hook denied.
pub const DENIED_BY_HOOK: &str = "Tool execution denied by hook";
/// Tool message of a call an `approve_tool` hook denied.
pub const DENIED_BY_APPROVAL: &str = "Tool execution denied by approval hook";
/// Tool message of calls skipped after a graceful cancel.
pub const SKIPPED_GRACEFUL: &str = "Skipped due to graceful interrupt.";
/// Tool message of calls skipped because the user steered.
pub const SKIPPED_STEERING: &str = "Skipped due to queued user message.";
/// Tool message added for calls left unanswered when a turn ended with an error.
pub const NOT_EXECUTED: &str = "Tool call not executed: the turn ended before it ran.";

/// `<prefix>: <reason>`, or the prefix alone when there is no reason.
pub(crate) fn with_reason(prefix: &str, reason: Option<&str>) -> String {
    match reason.map(str::trim).filter(|r| !r.is_empty()) {
        Some(reason) => format!("{prefix}: {reason}"),
        None => prefix.to_owned(),
    }
}

/// The state of the running turn.
pub(crate) struct TurnState {
    report: TurnReport,
    turn_id: String,
    round: u32,
    user_input: String,
    /// `additional_context` collected this turn; appended to the system prompt.
    extra_context: Vec<String>,
    n_retries: u32,
    /// A `stop` hook blocked (asked for another round) in this turn: `stop_hook_active`.
    is_stop_blocked: bool,
    is_graceful_noticed: bool,
    started: Instant,
}

impl TurnState {
    /// Adds `additional_context` for the rest of the turn; a text already added is not repeated
    /// (a hook that adds its rule on every round keeps one copy). Whether it was new.
    fn add_context(&mut self, text: &str) -> bool {
        let is_new = !self.extra_context.iter().any(|t| t == text);
        if is_new {
            self.extra_context.push(text.to_owned());
        }
        is_new
    }
}

/// A fire's outcome and, when hooks ran, the context they left.
struct Fired {
    out: FireOutcome,
    ctx: Option<Context>,
}

impl Fired {
    /// The context's value of `field` when a hook changed it.
    fn changed<T>(&self, field: Field, get: impl FnOnce(&Context) -> Option<T>) -> Option<T> {
        if self.out.changed.contains(&field) { self.ctx.as_ref().and_then(get) } else { None }
    }
}

/// How a batch of tool calls ended.
enum BatchEnd {
    /// Ask the model again.
    Continue,
    /// Every call's response was delivered: the turn is over.
    Handled,
    /// A graceful cancel: the turn is over.
    Interrupted,
}

fn add_usage(total: &mut Usage, usage: Option<Usage>) {
    if let Some(usage) = usage {
        total.prompt_tokens += usage.prompt_tokens;
        total.completion_tokens += usage.completion_tokens;
        total.total_tokens += usage.total_tokens;
    }
}

fn tool_message(call_id: &str, content: impl Into<String>) -> ChatMessage {
    let mut message = ChatMessage::text(Role::Tool, content);
    message.tool_call_id = Some(call_id.to_owned());
    message
}

/// The tool calls of the last assistant message that have no tool message yet.
fn unanswered_calls(history: &[ChatMessage]) -> Vec<String> {
    let Some(idx) = history.iter().rposition(|m| m.role == Role::Assistant) else { return Vec::new() };
    let Some(calls) = &history[idx].tool_calls else { return Vec::new() };
    calls
        .iter()
        .filter(|call| !history[idx + 1..].iter().any(|m| m.tool_call_id.as_deref() == Some(call.id.as_str())))
        .map(|call| call.id.clone())
        .collect()
}

fn nanos(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

impl Session {
    /// Runs one turn to completion: the user's message, then rounds of model calls and tool
    /// calls until the model answers without tool calls.
    ///
    /// `stop` on `pre_tool_execution` ends the turn ([`TurnError::Stopped`]), like `stop` on
    /// `pre_llm_request`; the calls left unanswered get a tool message saying they did not run.
    pub async fn send(&mut self, message: impl Into<String>) -> Result<TurnReport, TurnError> {
        if self.is_closed {
            return Err(TurnError::Closed);
        }
        self.n_turns += 1;
        let turn_id = format!("{}-turn-{}", self.agent.inner.id, self.n_turns);
        let user_input = message.into();
        let snapshot = self.history.clone();
        let mut interrupts = self.control.begin_turn();
        let mut st = TurnState {
            report: TurnReport::new(turn_id.clone()),
            turn_id: turn_id.clone(),
            round: 0,
            user_input: user_input.clone(),
            extra_context: Vec::new(),
            n_retries: 0,
            is_stop_blocked: false,
            is_graceful_noticed: false,
            started: Instant::now(),
        };
        self.emit(&TurnEvent::TurnStarted { turn_id });
        if let Some(text) = self.pending_notice.take() {
            self.notice(&mut st, text);
        }
        self.notify_turn_start(&st, user_input);
        let result = {
            let run = self.run_turn(&mut st);
            tokio::select! {
                result = run => result,
                () = hard_requested(&mut interrupts) => Err(TurnError::Cancelled),
            }
        };
        if matches!(result, Err(TurnError::Cancelled)) {
            self.notify_interrupt(&st, InterruptKind::HardAbort, 0, 0);
        }
        let status = match &result {
            Ok(()) => TurnEndStatus::Completed,
            Err(TurnError::Cancelled | TurnError::HardAborted { .. }) => TurnEndStatus::Aborted,
            Err(_) => TurnEndStatus::Error,
        };
        match &result {
            Err(TurnError::Cancelled | TurnError::HardAborted { .. }) => self.history = snapshot,
            // Answer the calls left open, so the conversation stays valid for the next request.
            Err(_) => {
                for id in unanswered_calls(&self.history) {
                    self.record_with(tool_message(&id, NOT_EXECUTED), true, None);
                }
            }
            Ok(()) => {}
        }
        // A model failure was already reported with stage `llm`.
        if let Err(err) = &result
            && !matches!(err, TurnError::Model { .. })
        {
            self.notify(
                &st,
                ObserverPayload::Error(ErrorPayload { stage: ErrorStage::Turn, message: err.to_string() }),
            );
        }
        st.report.duration = st.started.elapsed();
        self.notify(
            &st,
            ObserverPayload::TurnEnd(TurnEnd {
                status,
                iterations: st.report.rounds,
                duration: nanos(st.report.duration),
                workspace: self.cwd.to_string_lossy().into_owned(),
                final_content_len: st.report.reply.chars().count(),
                user_message: st.user_input.clone(),
                final_content: st.report.reply.clone(),
            }),
        );
        self.last_report = Some(st.report.clone());
        result.map(|()| st.report)
    }

    /// Fires `event` when a hook is registered on it (building the context only then), records
    /// it in the report and passes notices on.
    async fn fire(
        &self,
        st: &mut TurnState,
        event: Event,
        trace_path: &str,
        tool: Option<&str>,
        fill: impl FnOnce(&mut Context),
    ) -> Fired {
        let engine = self.engine();
        let (out, ctx) = if engine.has_hooks_for(event) {
            let mut ctx = self.base_context(Some((&st.turn_id, st.round)), trace_path);
            fill(&mut ctx);
            self.emit(&TurnEvent::Firing { event, tool_name: tool.map(str::to_owned) });
            let out = engine.fire(event, &mut ctx).await;
            (out, Some(ctx))
        } else {
            (FireOutcome::empty(event), None)
        };
        let fired = FiredEvent {
            event,
            round: st.round,
            tool_name: tool.map(str::to_owned),
            decision: out.decision,
            reason: out.reason.clone(),
            changed: out.changed.clone(),
            effects: out.effects.clone(),
            hooks: out.trace.clone(),
        };
        self.emit(&TurnEvent::Fired(fired.clone()));
        st.report.events.push(fired);
        for notice in &out.effects.system_messages {
            self.notice(st, notice.clone());
        }
        // Context from any event joins the system prompt for the rest of the turn; a
        // `pre_llm_request` hook's goes into the request being built, a compaction hook's into
        // the summary only.
        if !matches!(event, Event::PreLlmRequest | Event::PreAutoCompact) {
            for text in &out.effects.additional_context {
                st.add_context(text);
            }
        }
        Fired { out, ctx }
    }

    fn notice(&self, st: &mut TurnState, text: String) {
        self.emit(&TurnEvent::Notice(text.clone()));
        st.report.notices.push(text);
    }

    /// The system prompt with the turn's `additional_context` appended.
    fn system_prompt(&self, st: &TurnState) -> String {
        let mut prompt = self.agent.inner.system_prompt.clone();
        for text in &st.extra_context {
            prompt.push_str("\n\n");
            prompt.push_str(text);
        }
        prompt
    }

    /// `abort_turn` and `hard_abort` end the turn with their reason.
    fn check_abort(event: Event, out: &FireOutcome) -> Result<(), TurnError> {
        let reason = || out.reason.clone().unwrap_or_else(|| "hook requested turn abort".to_owned());
        match out.decision {
            Decision::AbortTurn => Err(TurnError::Aborted { event, reason: reason() }),
            Decision::HardAbort => Err(TurnError::HardAborted { event, reason: reason() }),
            _ => Ok(()),
        }
    }

    async fn run_turn(&mut self, st: &mut TurnState) -> Result<(), TurnError> {
        let original = st.user_input.clone();
        let fired = self
            .fire(st, Event::PreSendMessage, "turn.message.before", None, |ctx| {
                ctx.user_input = Some(original.clone());
                ctx.messages = Some(self.history.clone());
            })
            .await;
        if fired.out.decision == Decision::Stop {
            st.report.status = TurnStatus::Dropped {
                reason: fired.out.reason.clone(),
                feedback: fired.out.effects.retry_feedback.clone(),
            };
            return Ok(());
        }
        if let Some(text) = fired.changed(Field::UserInput, |c| c.user_input.clone()) {
            st.user_input = text;
        }
        self.record(ChatMessage::text(Role::User, st.user_input.clone()));
        let user_input = st.user_input.clone();
        self.fire(st, Event::PostSendMessage, "turn.message.after", None, |ctx| {
            ctx.user_input = Some(user_input);
            ctx.messages = Some(self.history.clone());
        })
        .await;

        loop {
            if st.round >= self.agent.inner.max_rounds {
                return Err(TurnError::MaxRounds { max_rounds: self.agent.inner.max_rounds });
            }
            if self.notice_graceful(st) {
                st.report.status = TurnStatus::Interrupted;
                return Ok(());
            }
            self.inject_steering(st);
            self.compact(st).await;
            let (content, calls) = match self.model_round(st).await? {
                Some(answer) => answer,
                // post_llm_response asked for another round with feedback.
                None => {
                    st.round += 1;
                    continue;
                }
            };
            st.report.reply = content.clone();
            if calls.is_empty() {
                if self.control.has_steering() {
                    st.round += 1;
                    continue;
                }
                if self.fire_stop(st, &content).await? {
                    st.round += 1;
                    continue;
                }
                return Ok(());
            }
            match self.run_tools(st, &calls).await? {
                BatchEnd::Continue => st.round += 1,
                BatchEnd::Handled => {
                    self.record(ChatMessage::text(Role::Assistant, RESPONSE_DELIVERED));
                    st.report.reply.clear();
                    st.report.status = TurnStatus::ResponseHandled;
                    return Ok(());
                }
                BatchEnd::Interrupted => {
                    st.report.status = TurnStatus::Interrupted;
                    return Ok(());
                }
            }
        }
    }

    /// Whether a graceful cancel was requested; notifies `interrupt_received` the first time.
    fn notice_graceful(&self, st: &mut TurnState) -> bool {
        if self.control.current() != Interrupt::Graceful {
            return false;
        }
        if !st.is_graceful_noticed {
            st.is_graceful_noticed = true;
            self.notify_interrupt(st, InterruptKind::Graceful, 0, 0);
            self.notice(st, "the turn was cancelled; remaining tool calls are skipped".to_owned());
        }
        true
    }

    /// Steering messages go in as user messages before the model call.
    fn inject_steering(&mut self, st: &mut TurnState) {
        let messages = self.control.drain_steering();
        if messages.is_empty() {
            return;
        }
        let total: usize = messages.iter().map(|m| m.chars().count()).sum();
        self.notify_interrupt(st, InterruptKind::Steering, total, messages.len());
        let count = messages.len();
        for message in messages {
            self.record(ChatMessage::text(Role::User, message));
        }
        self.notify(st, ObserverPayload::SteeringInjected(SteeringInjected { count, total_content_len: total }));
        self.emit(&TurnEvent::SteeringInjected { count });
    }
}
