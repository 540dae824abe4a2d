//! `ScriptedModel`: a [`ChatModel`] that replays a script of assistant turns in process, for
//! tests and demos. It is not a model: it answers in order whatever it is asked.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
};

use async_trait::async_trait;
use hook_llm::{ChatModel, ChatRequest, ChatResponse, ModelError, Usage};
use hook_protocol::{ChatMessage, MessageContent, Role, ToolCall};

/// One scripted assistant turn.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptedTurn {
    /// A text reply (`finish_reason: stop`).
    Text(String),
    /// Tool calls, with optional text (`finish_reason: tool_calls`).
    ToolCalls(Vec<ToolCall>, Option<String>),
    /// A failure, as a server error with this text.
    Error(String),
}

impl ScriptedTurn {
    /// A text reply.
    pub fn text(text: impl Into<String>) -> Self {
        ScriptedTurn::Text(text.into())
    }

    /// One tool call with JSON-text arguments.
    pub fn call(id: &str, name: &str, arguments: &str) -> Self {
        ScriptedTurn::ToolCalls(vec![ToolCall::new(id, name, arguments)], None)
    }
}

#[derive(Debug, Default)]
struct State {
    script: VecDeque<ScriptedTurn>,
    requests: Vec<ChatRequest>,
}

/// Replays [`ScriptedTurn`]s in order and records every request (scripted, not a model).
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    name: String,
    state: Arc<Mutex<State>>,
}

impl ScriptedModel {
    /// Answers with `script`, one turn per request; calls past its end fail.
    pub fn new(script: impl IntoIterator<Item = ScriptedTurn>) -> Self {
        ScriptedModel {
            name: "scripted-model".to_owned(),
            state: Arc::new(Mutex::new(State { script: script.into_iter().collect(), requests: Vec::new() })),
        }
    }

    /// The same script reported under `name`.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends turns to the script.
    pub fn push(&self, turns: impl IntoIterator<Item = ScriptedTurn>) {
        self.lock().script.extend(turns);
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.lock().requests.clone()
    }

    /// Turns not yet replayed.
    pub fn remaining(&self) -> usize {
        self.lock().script.len()
    }
}

#[async_trait]
impl ChatModel for ScriptedModel {
    async fn complete(&self, request: ChatRequest) -> Result<ChatResponse, ModelError> {
        let model = request.model.clone().unwrap_or_else(|| self.name.clone());
        let turn = {
            let mut state = self.lock();
            state.requests.push(request);
            state.script.pop_front()
        };
        let (message, finish_reason) = match turn {
            None => {
                return Err(ModelError::InvalidResponse {
                    message: "ScriptedModel: the script is used up; add more turns".into(),
                    body_head: String::new(),
                });
            }
            Some(ScriptedTurn::Error(text)) => return Err(ModelError::Status { status: 500, body_head: text }),
            Some(ScriptedTurn::Text(text)) => (ChatMessage::text(Role::Assistant, text), "stop"),
            Some(ScriptedTurn::ToolCalls(calls, text)) => {
                let mut message = ChatMessage::text(Role::Assistant, String::new());
                message.content = text.map(MessageContent::Text);
                message.tool_calls = Some(calls);
                (message, "tool_calls")
            }
        };
        Ok(ChatResponse { message, model, usage: Some(Usage::default()), finish_reason: Some(finish_reason.into()) })
    }

    fn model_name(&self) -> &str {
        &self.name
    }
}
