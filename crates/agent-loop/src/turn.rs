//! One turn: the user's message, rounds of compaction → model call → tool calls, until the model
//! answers; every hookwire event fired at its place with its fields (the event table of
//! docs/design.md and j-cli's lifecycle), and every observer notification sent.

use std::time::Instant;

use hook_core::{Decision, Field, FireOutcome, ObserverEvent, Permission};
use hook_llm::{ChatRequest, StreamDelta, Usage};
use hook_protocol::{ChatMessage, ContentPart, Context, Event, MessageContent, Role, ToolCall, ToolResult};
use serde_json::{Value, json};

use crate::{
    ApprovalAnswer, ApprovalPolicy, ApprovalRequest, DEFERRED_BY_HOOK, DENIED_BY_USER, DENIED_NOT_APPROVED, FiredEvent,
    Session, ToolOutput, ToolRecord, TurnError, TurnEvent, TurnReport, TurnStatus,
    approval::Verdict,
    compaction::{MICRO_MAX_CHARS, estimate_tokens, micro_compact, split_point, summary_request, with_summary},
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
        self.notify(&st, "turn_start", json!({"UserMessage": user_input, "MediaCount": 0}));
        let result = {
            let run = self.run_turn(&mut st);
            tokio::select! {
                result = run => result,
                () = hard_requested(&mut interrupts) => Err(TurnError::Cancelled),
            }
        };
        if matches!(result, Err(TurnError::Cancelled)) {
            self.notify(
                &st,
                "interrupt_received",
                json!({"Kind": "hard_abort", "Role": "", "ContentLen": 0, "QueueDepth": 0, "HintLen": 0}),
            );
        }
        let status = match &result {
            Ok(()) => "completed",
            Err(TurnError::Cancelled | TurnError::HardAborted { .. }) => "aborted",
            Err(_) => "error",
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
            self.notify(&st, "error", json!({"Stage": "turn", "Message": err.to_string()}));
        }
        st.report.duration = st.started.elapsed();
        self.notify(
            &st,
            "turn_end",
            json!({
                "Status": status,
                "Iterations": st.report.rounds,
                "Duration": nanos(st.report.duration),
                "Workspace": self.cwd.to_string_lossy(),
                "FinalContentLen": st.report.reply.chars().count(),
                "UserMessage": st.user_input,
                "FinalContent": st.report.reply,
            }),
        );
        self.last_report = Some(st.report.clone());
        result.map(|()| st.report)
    }

    /// Queues an observer notification with the turn's metadata.
    fn notify(&self, st: &TurnState, kind: &str, payload: Value) {
        let meta = self.meta(Some((&st.turn_id, st.round)), &format!("turn.{kind}"));
        self.engine().notify(ObserverEvent { kind: kind.to_owned(), meta, payload });
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
            self.notify(
                st,
                "interrupt_received",
                json!({"Kind": "graceful", "Role": "", "ContentLen": 0, "QueueDepth": 0, "HintLen": 0}),
            );
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
        self.notify(
            st,
            "interrupt_received",
            json!({"Kind": "steering", "Role": "user", "ContentLen": total, "QueueDepth": messages.len(), "HintLen": 0}),
        );
        let count = messages.len();
        for message in messages {
            self.record(ChatMessage::text(Role::User, message));
        }
        self.notify(st, "steering_injected", json!({"Count": count, "TotalContentLen": total}));
        self.emit(&TurnEvent::SteeringInjected { count });
    }

    /// Micro compaction every round, auto compaction over the threshold; each between its hooks.
    async fn compact(&mut self, st: &mut TurnState) {
        let config = self.agent.inner.compaction.clone();
        let model_name = self.agent.inner.model.model_name().to_owned();
        if config.micro {
            let fired = self
                .fire(st, Event::PreMicroCompact, "turn.compact.micro.before", None, |ctx| {
                    ctx.messages = Some(self.history.clone());
                    ctx.model = Some(model_name.clone());
                })
                .await;
            // j-cli: stop on pre_micro_compact skips this round's whole compaction.
            if fired.out.decision == Decision::Stop {
                return;
            }
            self.history = micro_compact(&self.history, config.keep_last, MICRO_MAX_CHARS);
            self.after_compaction(st, Event::PostMicroCompact, "turn.compact.micro.after").await;
        }
        let Some(threshold) = config.auto_threshold_tokens else { return };
        let system_prompt = self.system_prompt(st);
        let split = split_point(&self.history, config.keep_last);
        // Nothing before the kept tail: a summary could not make the conversation smaller.
        if split == 0 || estimate_tokens(&system_prompt, &self.history) <= threshold {
            return;
        }
        let fired = self
            .fire(st, Event::PreAutoCompact, "turn.compact.auto.before", None, |ctx| {
                ctx.extra.insert("trigger".into(), json!("auto"));
                ctx.extra.insert("custom_instructions".into(), json!(""));
                ctx.messages = Some(self.history.clone());
                ctx.system_prompt = Some(system_prompt.clone());
                ctx.model = Some(model_name.clone());
            })
            .await;
        if fired.out.decision == Decision::Stop {
            return;
        }
        let split = split_point(&self.history, config.keep_last);
        if split == 0 {
            return;
        }
        let mut request = summary_request(&self.history[..split], &fired.out.effects.additional_context);
        request.timeout = self.agent.inner.model_timeout;
        self.emit(&TurnEvent::ModelRequested { round: st.round, purpose: "summary" });
        let response = match self.agent.inner.model.complete(request).await {
            Ok(response) => response,
            Err(err) => {
                self.notify(st, "error", json!({"Stage": "compact", "Message": err.to_string()}));
                self.notice(st, format!("auto compaction skipped: the summary request failed: {err}"));
                return;
            }
        };
        add_usage(&mut st.report.usage, response.usage);
        self.history = with_summary(&response.message.text_content(), &self.history[split..]);
        self.after_compaction(st, Event::PostAutoCompact, "turn.compact.auto.after").await;
    }

    /// Fires `post_micro_compact` / `post_auto_compact` with the compacted history; `messages`
    /// a hook returns become the history.
    async fn after_compaction(&mut self, st: &mut TurnState, event: Event, trace_path: &str) {
        let fired = self
            .fire(st, event, trace_path, None, |ctx| {
                ctx.messages = Some(self.history.clone());
            })
            .await;
        if let Some(messages) = fired.changed(Field::Messages, |c| c.messages.clone()) {
            self.history = messages;
        }
    }

    /// `pre_llm_request` → model → `post_llm_response`. The assistant's text and tool calls, or
    /// `None` when `post_llm_response` stopped with feedback (already added as a user message).
    async fn model_round(&mut self, st: &mut TurnState) -> Result<Option<(String, Vec<ToolCall>)>, TurnError> {
        let inner = self.agent.inner.clone();
        let mut system_prompt = self.system_prompt(st);
        let mut model = inner.model.model_name().to_owned();
        let mut tools = inner.tools.definitions();
        let mut options = inner.options.clone();
        let fired = self
            .fire(st, Event::PreLlmRequest, "turn.llm.request", None, |ctx| {
                ctx.messages = Some(self.history.clone());
                ctx.system_prompt = Some(system_prompt.clone());
                ctx.model = Some(model.clone());
                ctx.tools = Some(tools.clone());
                ctx.options = Some(options.clone());
            })
            .await;
        Self::check_abort(Event::PreLlmRequest, &fired.out)?;
        if fired.out.decision == Decision::Stop {
            return Err(TurnError::Stopped { event: Event::PreLlmRequest, reason: fired.out.reason.clone() });
        }
        if let Some(messages) = fired.changed(Field::Messages, |c| c.messages.clone()) {
            self.history = messages;
        }
        if let Some(text) = fired.changed(Field::SystemPrompt, |c| c.system_prompt.clone()) {
            system_prompt = text;
        }
        if let Some(name) = fired.changed(Field::Model, |c| c.model.clone()) {
            model = name;
        }
        if let Some(list) = fired.changed(Field::Tools, |c| c.tools.clone()) {
            tools = list;
        }
        if let Some(map) = fired.changed(Field::Options, |c| c.options.clone()) {
            options = map;
        }
        let Fired { out, .. } = fired;
        for message in out.effects.inject_messages {
            self.record(message);
        }
        for text in out.effects.additional_context {
            if st.add_context(&text) {
                system_prompt.push_str("\n\n");
                system_prompt.push_str(&text);
            }
        }

        let mut messages = Vec::with_capacity(self.history.len() + 1);
        messages.push(ChatMessage::text(Role::System, system_prompt));
        messages.extend(self.history.iter().cloned());
        self.notify(
            st,
            "llm_request",
            json!({
                "Model": model,
                "MessagesCount": messages.len(),
                "ToolsCount": tools.len(),
                "MaxTokens": options.get("max_tokens").cloned().unwrap_or(json!(0)),
                "Temperature": options.get("temperature").cloned().unwrap_or(json!(0)),
            }),
        );
        let is_default_model = model == inner.model.model_name();
        let request = ChatRequest {
            model: (!is_default_model).then(|| model.clone()),
            messages,
            tools,
            options,
            timeout: inner.model_timeout,
        };
        st.report.rounds += 1;
        self.emit(&TurnEvent::ModelRequested { round: st.round, purpose: "reply" });
        let answer = if inner.is_streaming {
            let this = &*self;
            let mut on_delta = |delta: StreamDelta| {
                if let StreamDelta::Text(text) = delta {
                    this.emit(&TurnEvent::AssistantDelta(text));
                }
            };
            inner.model.complete_streaming(request, &mut on_delta).await
        } else {
            inner.model.complete(request).await
        };
        let response = match answer {
            Ok(response) => response,
            Err(source) => {
                self.notify(st, "error", json!({"Stage": "llm", "Message": source.to_string()}));
                return Err(TurnError::Model { round: st.round, source });
            }
        };
        add_usage(&mut st.report.usage, response.usage);
        let mut content = response.message.text_content();
        let mut calls = response.message.tool_calls.clone().unwrap_or_default();
        self.notify(
            st,
            "llm_response",
            json!({"ContentLen": content.chars().count(), "ToolCalls": calls.len(), "HasReasoning": false}),
        );

        let answered_model = if response.model.is_empty() { model } else { response.model.clone() };
        let fired = self
            .fire(st, Event::PostLlmResponse, "turn.llm.response", None, |ctx| {
                ctx.assistant_output = Some(content.clone());
                ctx.tool_calls = Some(calls.clone());
                ctx.messages = Some(self.history.clone());
                ctx.model = Some(answered_model);
            })
            .await;
        Self::check_abort(Event::PostLlmResponse, &fired.out)?;
        if fired.out.decision == Decision::Stop {
            if let Some(feedback) = fired.out.effects.retry_feedback.clone()
                && st.n_retries < inner.retry_feedback_cap
            {
                st.n_retries += 1;
                self.record(ChatMessage::text(Role::User, feedback));
                return Ok(None);
            }
            return Err(TurnError::Stopped { event: Event::PostLlmResponse, reason: fired.out.reason.clone() });
        }
        if let Some(text) = fired.changed(Field::AssistantOutput, |c| c.assistant_output.clone()) {
            content = text;
        }
        if let Some(list) = fired.changed(Field::ToolCalls, |c| c.tool_calls.clone()) {
            calls = list;
        }
        let mut assistant = ChatMessage::text(Role::Assistant, content.clone());
        if !calls.is_empty() {
            if content.is_empty() {
                assistant.content = None;
            }
            assistant.tool_calls = Some(calls.clone());
        }
        self.record(assistant);
        if !content.is_empty() {
            self.emit(&TurnEvent::AssistantText(content.clone()));
        }
        Ok(Some((content, calls)))
    }

    /// Fires `stop`; whether its `retry_feedback` asks for another round (feedback already added).
    async fn fire_stop(&mut self, st: &mut TurnState, content: &str) -> Result<bool, TurnError> {
        let system_prompt = self.system_prompt(st);
        let model = self.agent.inner.model.model_name().to_owned();
        let is_stop_blocked = st.is_stop_blocked;
        let fired = self
            .fire(st, Event::Stop, "turn.stop", None, |ctx| {
                ctx.extra.insert("stop_hook_active".into(), json!(is_stop_blocked));
                // j-cli puts the final reply in `user_input` on `stop`, and hooks written for it
                // read it there; `assistant_output` carries it too.
                ctx.user_input = Some(content.to_owned());
                ctx.assistant_output = Some(content.to_owned());
                ctx.messages = Some(self.history.clone());
                ctx.system_prompt = Some(system_prompt);
                ctx.model = Some(model);
            })
            .await;
        Self::check_abort(Event::Stop, &fired.out)?;
        if let Some(feedback) = fired.out.effects.retry_feedback.clone() {
            let cap = self.agent.inner.retry_feedback_cap;
            if st.n_retries < cap {
                st.n_retries += 1;
                st.is_stop_blocked = true;
                self.record(ChatMessage::text(Role::User, feedback));
                return Ok(true);
            }
            self.notice(st, format!("retry_feedback ignored: this turn already had {cap} feedback rounds (the cap)"));
            return Ok(false);
        }
        if fired.out.decision == Decision::Stop {
            return Err(TurnError::Stopped { event: Event::Stop, reason: fired.out.reason.clone() });
        }
        Ok(false)
    }

    /// Runs the calls of one assistant message in order.
    async fn run_tools(&mut self, st: &mut TurnState, calls: &[ToolCall]) -> Result<BatchEnd, TurnError> {
        let mut is_all_handled = true;
        let mut attachments: Vec<ContentPart> = Vec::new();
        for (idx, call) in calls.iter().enumerate() {
            // Checkpoint before each call: a cancel or a steering message that arrived since
            // the model answered (or during the previous call) skips the calls not yet started.
            let skip_reason = if self.notice_graceful(st) {
                Some(SKIPPED_GRACEFUL)
            } else if self.control.has_steering() {
                Some(SKIPPED_STEERING)
            } else {
                None
            };
            if let Some(reason) = skip_reason {
                for rest in &calls[idx..] {
                    self.skip_call(st, rest, &rest.function.name, &rest.function.arguments, reason, "interrupted");
                }
                self.attach_media(attachments);
                return Ok(if reason == SKIPPED_GRACEFUL { BatchEnd::Interrupted } else { BatchEnd::Continue });
            }
            is_all_handled &= self.run_call(st, call, &mut attachments).await?;
        }
        self.attach_media(attachments);
        Ok(if is_all_handled { BatchEnd::Handled } else { BatchEnd::Continue })
    }

    /// Media the model should see go in as one user message after the batch's tool messages.
    fn attach_media(&mut self, attachments: Vec<ContentPart>) {
        if attachments.is_empty() {
            return;
        }
        let mut parts = vec![ContentPart::text("Media returned by the tool calls above:")];
        parts.extend(attachments);
        let mut message = ChatMessage::text(Role::User, String::new());
        message.content = Some(MessageContent::Parts(parts));
        self.record(message);
    }

    /// A call that does not run: tool message, `tool_exec_skipped`, record.
    fn skip_call(
        &mut self,
        st: &mut TurnState,
        call: &ToolCall,
        name: &str,
        args: &str,
        text: &str,
        outcome: &'static str,
    ) {
        self.notify(st, "tool_exec_skipped", json!({"Tool": name, "Reason": text}));
        self.emit(&TurnEvent::ToolSkipped { name: name.to_owned(), reason: text.to_owned() });
        self.record_with(tool_message(&call.id, text), true, None);
        st.report.tools.push(ToolRecord {
            name: name.to_owned(),
            arguments: args.to_owned(),
            call_id: call.id.clone(),
            content: text.to_owned(),
            outcome,
            is_error: true,
        });
    }

    /// One call: `pre_tool_execution` → `approve_tool` → execute → `post_tool_execution` /
    /// `post_tool_execution_failure`. Whether its response was delivered (`response_handled`).
    async fn run_call(
        &mut self,
        st: &mut TurnState,
        call: &ToolCall,
        attachments: &mut Vec<ContentPart>,
    ) -> Result<bool, TurnError> {
        let mut name = call.function.name.clone();
        let mut args = call.function.arguments.clone();
        let fired = self
            .fire(st, Event::PreToolExecution, "turn.tool.before", Some(&name), |ctx| {
                ctx.tool_name = Some(name.clone());
                ctx.tool_arguments = Some(args.clone());
                ctx.tool_call_id = Some(call.id.clone());
            })
            .await;
        if let Some(text) = fired.changed(Field::ToolName, |c| c.tool_name.clone()) {
            name = text;
        }
        if let Some(text) = fired.changed(Field::ToolArguments, |c| c.tool_arguments.clone()) {
            args = text;
        }
        Self::check_abort(Event::PreToolExecution, &fired.out)?;
        let pre_permission = fired.out.permission;
        let pre_reason = fired.out.reason.clone();
        match fired.out.decision {
            Decision::Stop => {
                return Err(TurnError::Stopped { event: Event::PreToolExecution, reason: fired.out.reason.clone() });
            }
            Decision::DenyTool => {
                let text = with_reason(DENIED_BY_HOOK, fired.out.reason.as_deref());
                self.skip_call(st, call, &name, &args, &text, "denied");
                return Ok(false);
            }
            Decision::Skip => {
                let text = with_reason(SKIPPED_BY_HOOK, fired.out.reason.as_deref());
                self.notify(st, "tool_exec_skipped", json!({"Tool": name, "Reason": text}));
                self.emit(&TurnEvent::ToolSkipped { name: name.clone(), reason: text.clone() });
                let failed = self
                    .fire(st, Event::PostToolExecutionFailure, "turn.tool.after", Some(&name), |ctx| {
                        ctx.tool_name = Some(name.clone());
                        ctx.tool_arguments = Some(args.clone());
                        ctx.tool_call_id = Some(call.id.clone());
                        ctx.tool_error = Some(text.clone());
                    })
                    .await;
                Self::check_abort(Event::PostToolExecutionFailure, &failed.out)?;
                let content = failed.changed(Field::ToolError, |c| c.tool_error.clone()).unwrap_or(text);
                self.record_with(tool_message(&call.id, content.clone()), true, None);
                st.report.tools.push(ToolRecord {
                    name,
                    arguments: args,
                    call_id: call.id.clone(),
                    content,
                    outcome: "skipped",
                    is_error: true,
                });
                return Ok(false);
            }
            Decision::Respond => {
                if let Some(result) = fired.out.respond.clone() {
                    // Approval and post_tool_execution are skipped: the hook is the tool.
                    self.notify(st, "tool_exec_start", json!({"Tool": name, "Arguments": arguments_value(&args)}));
                    self.emit(&TurnEvent::ToolStarted { name: name.clone(), arguments: args.clone() });
                    self.notify_exec_end(st, &name, std::time::Duration::ZERO, &result);
                    let output = ToolOutput { result, response: None };
                    return Ok(self.finish_call(st, call, (name, args), output, "responded", attachments));
                }
                self.notice(st, format!("a hook answered `respond` for `{name}` without a result; the tool runs"));
            }
            _ => {}
        }

        let approval = self
            .fire(st, Event::ApproveTool, "turn.tool.approve", Some(&name), |ctx| {
                ctx.tool_name = Some(name.clone());
                ctx.tool_arguments = Some(args.clone());
                ctx.tool_call_id = Some(call.id.clone());
            })
            .await;
        // Fail closed: a denial refuses; then an explicit approval, a hook's permission, a
        // read-only tool, or the approval policy (see `crate::approval`).
        let verdict = self.decide(&name, &args, pre_permission, pre_reason.as_deref(), &approval.out).await;
        if let Verdict::Refuse(text, outcome) = verdict {
            self.skip_call(st, call, &name, &args, &text, outcome);
            return Ok(false);
        }

        self.notify(st, "tool_exec_start", json!({"Tool": name, "Arguments": arguments_value(&args)}));
        self.emit(&TurnEvent::ToolStarted { name: name.clone(), arguments: args.clone() });
        let started = Instant::now();
        let ToolOutput { mut result, response } = self.execute_tool(&name, &args).await;
        let duration = started.elapsed();

        if result.is_error() {
            let failed = self
                .fire(st, Event::PostToolExecutionFailure, "turn.tool.after", Some(&name), |ctx| {
                    ctx.tool_name = Some(name.clone());
                    ctx.tool_arguments = Some(args.clone());
                    ctx.tool_call_id = Some(call.id.clone());
                    ctx.tool_error = Some(result.for_llm.clone());
                    ctx.tool_result = Some(result.clone());
                    ctx.duration_ns = Some(nanos(duration));
                })
                .await;
            Self::check_abort(Event::PostToolExecutionFailure, &failed.out)?;
            if let Some(text) = failed.changed(Field::ToolError, |c| c.tool_error.clone()) {
                result.for_llm = text;
            }
        } else {
            let done = self
                .fire(st, Event::PostToolExecution, "turn.tool.after", Some(&name), |ctx| {
                    ctx.tool_name = Some(name.clone());
                    ctx.tool_arguments = Some(args.clone());
                    ctx.tool_call_id = Some(call.id.clone());
                    ctx.tool_result = Some(result.clone());
                    ctx.duration_ns = Some(nanos(duration));
                    // Where Claude Code's hooks read the structured response.
                    if let Some(response) = &response {
                        ctx.extra.insert("tool_response".into(), response.clone());
                    }
                })
                .await;
            Self::check_abort(Event::PostToolExecution, &done.out)?;
            if let Some(replaced) = done.changed(Field::ToolResult, |c| c.tool_result.clone()) {
                result = replaced;
            }
        }
        self.notify_exec_end(st, &name, duration, &result);
        let output = ToolOutput { result, response };
        Ok(self.finish_call(st, call, (name, args), output, "executed", attachments))
    }

    /// Whether an approved (or unobjected) call may run: see [`crate::approval`]. `approval` is
    /// the outcome of `approve_tool`; `pre_permission` and `pre_reason` come from
    /// `pre_tool_execution`.
    pub(crate) async fn decide(
        &mut self,
        name: &str,
        args: &str,
        pre_permission: Option<Permission>,
        pre_reason: Option<&str>,
        approval: &FireOutcome,
    ) -> Verdict {
        if approval.decision != Decision::Approved {
            return Verdict::Refuse(with_reason(DENIED_BY_APPROVAL, approval.reason.as_deref()), "approval_denied");
        }
        if approval.permission == Some(Permission::Allow) {
            return Verdict::Run("hook");
        }
        match pre_permission {
            Some(Permission::Allow) => return Verdict::Run("hook"),
            Some(Permission::Defer) => return Verdict::Refuse(with_reason(DEFERRED_BY_HOOK, pre_reason), "deferred"),
            Some(Permission::Ask) => return self.ask_person(name, args, true, pre_reason).await,
            // A permission this loop does not know yet decides nothing.
            _ => {}
        }
        let is_read_only = self.agent.inner.tools.get(name).is_none_or(|tool| tool.is_read_only());
        if is_read_only {
            return Verdict::Run("read-only");
        }
        if self.always_allowed.contains(name) {
            return Verdict::Run("user");
        }
        match &self.agent.inner.approval {
            ApprovalPolicy::AllowAll => Verdict::Run("policy"),
            ApprovalPolicy::Allow(tools) if tools.contains(name) => Verdict::Run("policy"),
            ApprovalPolicy::Allow(_) | ApprovalPolicy::DenyUnlessHookApproves => {
                Verdict::Refuse(DENIED_NOT_APPROVED.to_owned(), "not_approved")
            }
            ApprovalPolicy::Ask(_) => self.ask_person(name, args, false, None).await,
        }
    }

    /// Asks the policy's asker about a call; no asker (or no answer) refuses.
    async fn ask_person(&mut self, name: &str, args: &str, is_forced: bool, reason: Option<&str>) -> Verdict {
        let not_approved = || {
            let text = match reason {
                Some(reason) if is_forced => format!("{DENIED_NOT_APPROVED} (a hook asked for confirmation: {reason})"),
                _ if is_forced => format!("{DENIED_NOT_APPROVED} (a hook asked for confirmation)"),
                _ => DENIED_NOT_APPROVED.to_owned(),
            };
            Verdict::Refuse(text, "not_approved")
        };
        let Some(asker) = self.agent.inner.approval.asker().cloned() else { return not_approved() };
        let request = ApprovalRequest {
            session_id: self.id.clone(),
            tool_name: name.to_owned(),
            arguments: args.to_owned(),
            is_forced,
            reason: reason.map(str::to_owned),
        };
        match asker.ask(&request).await {
            ApprovalAnswer::Yes => Verdict::Run("user"),
            ApprovalAnswer::Always => {
                self.always_allowed.insert(name.to_owned());
                Verdict::Run("user")
            }
            ApprovalAnswer::No => Verdict::Refuse(DENIED_BY_USER.to_owned(), "user_denied"),
            ApprovalAnswer::Unanswered => not_approved(),
        }
    }

    fn notify_exec_end(&self, st: &TurnState, name: &str, duration: std::time::Duration, result: &ToolResult) {
        self.notify(
            st,
            "tool_exec_end",
            json!({
                "Tool": name,
                "Duration": nanos(duration),
                "ForLLMLen": result.for_llm.chars().count(),
                "ForUserLen": result.for_user.as_deref().map_or(0, |t| t.chars().count()),
                "IsError": result.is_error(),
                "Async": result.is_async.unwrap_or(false),
            }),
        );
    }

    /// Runs the registered tool `name`; unknown tools and invalid arguments are error results.
    async fn execute_tool(&self, name: &str, args: &str) -> ToolOutput {
        let Some(tool) = self.agent.inner.tools.get(name) else {
            let known: Vec<&str> = self.agent.inner.tools.names().collect();
            return ToolOutput::from(ToolResult::error(format!(
                "unknown tool `{name}`; the tools are: {}. (A tool a hook added in pre_llm_request must be answered by that hook with `respond`.)",
                known.join(", ")
            )));
        };
        let text = if args.trim().is_empty() { "{}" } else { args };
        match serde_json::from_str::<Value>(text) {
            Ok(value) => tool.execute_structured(value, &self.tool_context()).await,
            Err(err) => {
                ToolResult::error(format!("{name}: the arguments are not valid JSON ({err}); they were: {args}")).into()
            }
        }
    }

    /// Delivers or attaches the result's media, adds the tool message and the record. Whether
    /// the call's response was delivered to the user.
    fn finish_call(
        &mut self,
        st: &mut TurnState,
        call: &ToolCall,
        (name, args): (String, String),
        output: ToolOutput,
        outcome: &'static str,
        attachments: &mut Vec<ContentPart>,
    ) -> bool {
        let ToolOutput { mut result, response } = output;
        self.emit(&TurnEvent::ToolFinished { name: name.clone(), result: result.clone() });
        let mut content = result.for_llm.clone();
        let mut items = Vec::new();
        let mut errors = Vec::new();
        for reference in result.media() {
            match self.media.resolve(reference) {
                Ok(item) => items.push(item),
                Err(err) => errors.push(err.to_string()),
            }
        }
        let mut is_handled = false;
        if result.is_response_handled() {
            if errors.is_empty() {
                for item in items {
                    self.emit(&TurnEvent::MediaDelivered(item.clone()));
                    st.report.media.push(item);
                }
                is_handled = true;
                content.push_str(RESPONSE_HANDLED_NOTE);
            } else {
                content = format!("failed to deliver attachment: {}", errors.join("; "));
                result.is_error = Some(true);
            }
        } else {
            if !errors.is_empty() {
                content.push_str(&format!("\n[media error: {}]", errors.join("; ")));
                result.is_error = Some(true);
            }
            for item in items {
                if item.is_image() {
                    attachments.push(ContentPart::text(format!("{} ({}) from `{name}`:", item.name, item.reference)));
                    attachments.push(ContentPart::image(item.data_url()));
                } else {
                    attachments.push(ContentPart::text(format!(
                        "[{} {} ({}, {} bytes) from `{name}`; not shown]",
                        item.reference,
                        item.name,
                        item.mime,
                        item.bytes.len()
                    )));
                }
            }
        }
        if result.silent != Some(true)
            && let Some(text) = result.for_user.as_deref().filter(|t| !t.is_empty())
        {
            st.report.for_user.push(text.to_owned());
        }
        self.record_with(tool_message(&call.id, content.clone()), result.is_error(), response.as_ref());
        st.report.tools.push(ToolRecord {
            name,
            arguments: args,
            call_id: call.id.clone(),
            content,
            outcome,
            is_error: result.is_error(),
        });
        is_handled
    }
}

/// Tool arguments as a JSON value for observer payloads (the text itself when it is not JSON).
fn arguments_value(args: &str) -> Value {
    serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.to_owned()))
}
