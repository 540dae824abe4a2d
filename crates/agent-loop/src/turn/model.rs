//! The model's part of a round: `pre_llm_request` → model → `post_llm_response`, and `stop`
//! when the model answers without tool calls.

use hook_core::{Decision, Field};
use hook_llm::{ChatRequest, StreamDelta};
use hook_protocol::{
    ChatMessage, Event, Role, ToolCall,
    observe::{ErrorPayload, ErrorStage, LlmRequest, LlmResponse, ObserverPayload},
};
use serde_json::json;

use super::{Fired, TurnState, add_usage};
use crate::{Session, TurnError, TurnEvent};

impl Session {
    /// `pre_llm_request` → model → `post_llm_response`. The assistant's text and tool calls, or
    /// `None` when `post_llm_response` stopped with feedback (already added as a user message).
    pub(super) async fn model_round(
        &mut self,
        st: &mut TurnState,
    ) -> Result<Option<(String, Vec<ToolCall>)>, TurnError> {
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
            ObserverPayload::LlmRequest(LlmRequest {
                model: model.clone(),
                messages_count: messages.len(),
                tools_count: tools.len(),
                max_tokens: options.get("max_tokens").cloned().unwrap_or(json!(0)),
                temperature: options.get("temperature").cloned().unwrap_or(json!(0)),
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
                let error = ErrorPayload { stage: ErrorStage::Llm, message: source.to_string() };
                self.notify(st, ObserverPayload::Error(error));
                return Err(TurnError::Model { round: st.round, source });
            }
        };
        add_usage(&mut st.report.usage, response.usage);
        let mut content = response.message.text_content();
        let mut calls = response.message.tool_calls.clone().unwrap_or_default();
        self.notify(
            st,
            ObserverPayload::LlmResponse(LlmResponse {
                content_len: content.chars().count(),
                tool_calls: calls.len(),
                has_reasoning: false,
            }),
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
    pub(super) async fn fire_stop(&mut self, st: &mut TurnState, content: &str) -> Result<bool, TurnError> {
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
}
