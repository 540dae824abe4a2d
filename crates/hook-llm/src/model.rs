//! The `ChatModel` trait: messages in, one assistant message out. llm hooks and the agent loop use it.

use std::{fmt, time::Duration};

use async_trait::async_trait;
use hook_core::fmt_duration;
use hook_protocol::{
    ChatMessage, ToolDefinition,
    serde_json::{Map, Value},
};

/// A chat model: given a conversation, returns the assistant's next message.
///
/// Object-safe, so hosts hold an `Arc<dyn ChatModel>` and share it between the agent loop and
/// every llm hook. [`OpenAiClient`](crate::OpenAiClient) implements it over HTTP.
#[async_trait]
pub trait ChatModel: Send + Sync + fmt::Debug {
    /// Sends one request and waits for the complete answer (no streaming).
    async fn complete(&self, request: ChatRequest) -> Result<ChatResponse, ModelError>;

    /// The model used when a request names none.
    fn model_name(&self) -> &str;
}

/// One chat completion request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatRequest {
    /// Overrides the client's model for this call only.
    pub model: Option<String>,
    /// The conversation, system message first.
    pub messages: Vec<ChatMessage>,
    /// Tools offered to the model; none when empty.
    pub tools: Vec<ToolDefinition>,
    /// Other request members (`temperature`, `max_tokens`, ...), sent as written.
    pub options: Map<String, Value>,
    /// How long this call may take, connecting and reading the answer included; `None`: no limit.
    pub timeout: Option<Duration>,
}

impl ChatRequest {
    /// A request for `messages` with no tools, options, override or timeout.
    pub fn new(messages: Vec<ChatMessage>) -> Self {
        ChatRequest { messages, ..ChatRequest::default() }
    }
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The assistant message: content (possibly none) and tool calls.
    pub message: ChatMessage,
    /// The model that answered, as the server reported it.
    pub model: String,
    /// Token counts, when the server reported them.
    pub usage: Option<Usage>,
    /// `stop`, `tool_calls`, `length`, ... as the server wrote it.
    pub finish_reason: Option<String>,
}

/// Token counts of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tokens in the request.
    pub prompt_tokens: u64,
    /// Tokens in the answer.
    pub completion_tokens: u64,
    /// Both.
    pub total_tokens: u64,
}

/// Why a chat model call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The server answered with a non-2xx status.
    #[error("the model server answered HTTP {status}: {body_head}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The beginning of the response body, cut on a character boundary.
        body_head: String,
    },
    /// The call did not finish within its timeout.
    #[error("the model server did not answer within {}", fmt_duration(*after))]
    Timeout {
        /// The timeout that passed.
        after: Duration,
    },
    /// The server could not be reached.
    #[error("could not connect to the model server at {url}: {message}; check the base URL (OPENAI_BASE_URL)")]
    Connect {
        /// The URL that was called.
        url: String,
        /// Why the connection failed.
        message: String,
    },
    /// The connection broke while sending the request or reading the answer.
    #[error("the request to the model server at {url} failed: {message}")]
    Transport {
        /// The URL that was called.
        url: String,
        /// What happened.
        message: String,
    },
    /// The server answered 2xx with something that is not a chat completion.
    #[error("the model server's answer is not an OpenAI chat completion ({message}); body began: {body_head:?}")]
    InvalidResponse {
        /// What is wrong with it.
        message: String,
        /// The beginning of the body, cut on a character boundary.
        body_head: String,
    },
    /// The HTTP client could not be created.
    #[error("could not create the HTTP client: {message}")]
    Client {
        /// Why.
        message: String,
    },
}
