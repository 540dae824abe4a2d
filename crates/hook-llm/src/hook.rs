//! The `llm` hook kind: render the prompt, ask the chat model, read its `HookResult`.

use std::{
    fmt,
    sync::Arc,
    time::{Duration, Instant},
};

use async_trait::async_trait;
use hook_core::{
    BuildError, BuiltHook, Deadlines, Event, Hook, HookDefinition, HookError, HookFactory, HookInput, HookOutput,
    HookSpec,
};
use hook_protocol::{
    ChatMessage, Role,
    config::HookKind,
    serde_json::{Map, Value},
};

use crate::{ChatModel, ChatRequest, ModelError, extract::extract_hook_result, template::render};

/// The system message of every llm hook request (j-cli's wording).
pub const SYSTEM_MESSAGE: &str = "You are a hook function. Respond ONLY with the JSON object as instructed.";

/// Appended to the rendered prompt: the answer's format.
pub const FORMAT_INSTRUCTION: &str = r#"

---
You are a hook function. You MUST respond with ONLY a valid JSON object with these optional fields (no markdown, no explanation outside the JSON):
{
  "user_input": string (replaces the user's message),
  "assistant_output": string (replaces the assistant's reply),
  "messages": array of {"role", "content"} (replaces the conversation),
  "system_prompt": string (replaces the system prompt),
  "tool_arguments": string of JSON (replaces the tool call's arguments),
  "tool_result": string (replaces the tool's result),
  "tool_error": string (replaces the tool's error),
  "inject_messages": array of {"role", "content"} (appended to the conversation),
  "additional_context": string (appended to the system prompt),
  "system_message": string (a notice shown to the user),
  "retry_feedback": string (feedback for another round),
  "action": "stop" or "skip" (stop = halt this step, skip = skip this step),
  "approved": boolean (approve_tool only: false denies the tool call),
  "reason": string (approve_tool only: why it was denied)
}
Include only the fields you change. Return {} if no change is needed."#;

/// j-cli sends this; it bounds a runaway answer.
const MAX_TOKENS: u64 = 2048;

/// A j-cli `llm` hook: its prompt, rendered for the event, is sent to a chat model whose
/// answer is the hook's `HookResult`.
///
/// Stateless between calls: a retry is a fresh request. The call's timeout is the time left
/// until `input.deadline`.
pub struct LlmHook {
    name: String,
    prompt: String,
    model_override: Option<String>,
    chat_model: Arc<dyn ChatModel>,
}

impl LlmHook {
    /// Hook `name` asking `chat_model` with `prompt`, using the chat model's own model name.
    pub fn new(name: impl Into<String>, prompt: impl Into<String>, chat_model: Arc<dyn ChatModel>) -> Self {
        LlmHook { name: name.into(), prompt: prompt.into(), model_override: None, chat_model }
    }

    /// Asks `model` instead of the chat model's default; base URL and key stay the same.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model_override = Some(model.into());
        self
    }

    /// The hook's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The request sent for one run; `timeout` is left to the caller.
    pub fn request(&self, input: &HookInput<'_>) -> ChatRequest {
        let mut user_text = render(&self.prompt, input.event, input.context);
        user_text.push_str(FORMAT_INSTRUCTION);
        let mut options = Map::new();
        options.insert("temperature".into(), Value::from(0.0));
        options.insert("max_tokens".into(), Value::from(MAX_TOKENS));
        ChatRequest {
            model: self.model_override.clone(),
            messages: vec![ChatMessage::text(Role::System, SYSTEM_MESSAGE), ChatMessage::text(Role::User, user_text)],
            tools: Vec::new(),
            options,
            timeout: None,
        }
    }

    fn model_label(&self) -> &str {
        self.model_override.as_deref().unwrap_or_else(|| self.chat_model.model_name())
    }
}

impl fmt::Debug for LlmHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmHook")
            .field("name", &self.name)
            .field("model", &self.model_label())
            .field("prompt_chars", &self.prompt.chars().count())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Hook for LlmHook {
    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        let timeout = input.deadline.saturating_duration_since(Instant::now());
        if timeout.is_zero() {
            return Err(HookError::Timeout { after: timeout });
        }
        let mut request = self.request(input);
        request.timeout = Some(timeout);
        let response = self.chat_model.complete(request).await.map_err(|error| self.model_error(error))?;
        let reply = response.message.text_content();
        let result = extract_hook_result(&reply).map_err(|error| {
            HookError::invalid_output(
                format!(
                    "llm hook `{}` on {}: {error}; the model ({}) must answer with one HookResult JSON object, \
                     e.g. {{}} for no change or {{\"action\":\"stop\"}}",
                    self.name,
                    input.event,
                    self.model_label()
                ),
                &reply,
            )
        })?;
        Ok(HookOutput::from_hook_result(result, input.event, input.context))
    }
}

impl LlmHook {
    fn model_error(&self, error: ModelError) -> HookError {
        let message = format!("llm hook `{}` (model {}): {error}", self.name, self.model_label());
        match error {
            ModelError::Timeout { after } => HookError::Timeout { after },
            ModelError::Status { status, .. } => HookError::ErrorResponse { code: Some(i64::from(status)), message },
            ModelError::Connect { .. } | ModelError::Transport { .. } | ModelError::Client { .. } => {
                HookError::Unavailable { message }
            }
            ModelError::InvalidResponse { body_head, .. } => {
                HookError::InvalidOutput { message, raw_head: hook_core::head_chars(&body_head, 200) }
            }
        }
    }
}

/// Builds `llm` hooks; each asks the host's chat model unless its definition names a `model:`.
#[derive(Debug, Clone)]
pub struct LlmFactory {
    chat_model: Arc<dyn ChatModel>,
}

impl LlmFactory {
    /// A factory whose hooks ask `chat_model` (the host's active model).
    pub fn new(chat_model: Arc<dyn ChatModel>) -> Self {
        LlmFactory { chat_model }
    }
}

#[async_trait]
impl HookFactory for LlmFactory {
    fn kind(&self) -> &str {
        "llm"
    }

    async fn build(&self, spec: &HookSpec) -> Result<BuiltHook, BuildError> {
        let HookDefinition::Command(def) = &spec.definition else {
            return Err(BuildError::Invalid {
                message: format!("hook `{}` is not a j-cli command hook; the llm kind needs `type: llm`", spec.name),
            });
        };
        if def.kind != HookKind::Llm {
            return Err(BuildError::Invalid {
                message: format!(
                    "hook `{}` has `type: {}`; the llm kind needs `type: llm`",
                    spec.name,
                    def.kind.as_str()
                ),
            });
        }
        let prompt =
            def.prompt.as_deref().filter(|prompt| !prompt.trim().is_empty()).ok_or_else(|| BuildError::Invalid {
                message: format!(
                    "llm hook `{}` has no `prompt`; add `prompt: \"...\"` with the question to ask",
                    spec.name
                ),
            })?;
        let mut hook = LlmHook::new(spec.name.clone(), prompt, self.chat_model.clone());
        if let Some(model) = def.model.as_deref().filter(|model| !model.trim().is_empty()) {
            hook = hook.with_model(model);
        }
        Ok(BuiltHook::new(Arc::new(hook)))
    }

    /// llm hooks get 30 s (a model answers slowly).
    fn default_timeout(&self, _event: Event, _deadlines: &Deadlines) -> Duration {
        Duration::from_secs(30)
    }

    /// llm hooks retry once: a model may answer badly once.
    fn default_retry(&self) -> u32 {
        1
    }
}
