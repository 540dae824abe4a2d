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

    /// Like [`complete`](Self::complete), but asks for a streamed answer and calls `on_delta`
    /// with each piece as it arrives (text to print, tool-call pieces), in order; returns the
    /// same complete [`ChatResponse`] as `complete` would.
    ///
    /// The default calls `complete` and then reports the whole answer at once: its text as one
    /// [`StreamDelta::Text`] (when not empty), then each tool call as one
    /// [`StreamDelta::ToolCall`]. [`OpenAiClient`](crate::OpenAiClient) streams for real
    /// (`"stream": true`, server-sent events), and still works with a server that answers with
    /// a plain completion instead.
    ///
    /// ```
    /// # use hook_llm::{ChatModel, ChatRequest, StreamDelta};
    /// # async fn print_as_it_arrives(model: &dyn ChatModel) -> Result<(), hook_llm::ModelError> {
    /// let mut printed = String::new();
    /// let response = model
    ///     .complete_streaming(ChatRequest::default(), &mut |delta| {
    ///         if let StreamDelta::Text(text) = delta {
    ///             printed.push_str(&text); // a terminal would print and flush here
    ///         }
    ///     })
    ///     .await?;
    /// assert_eq!(printed, response.message.text_content());
    /// # Ok(()) }
    /// ```
    async fn complete_streaming(
        &self,
        request: ChatRequest,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<ChatResponse, ModelError> {
        let response = self.complete(request).await?;
        report_whole(&response, on_delta);
        Ok(response)
    }

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

/// One piece of a streamed answer, passed to the `on_delta` callback of
/// [`ChatModel::complete_streaming`] as it arrives.
///
/// Appending every `Text` in order gives the message's text; the `ToolCall` pieces of one
/// `index`, appended in order, give that call's arguments. The final [`ChatResponse`] holds the
/// assembled result (with ids given to calls that came without one), so only a caller that
/// shows progress needs to look at deltas.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamDelta {
    /// Text to append to the assistant message.
    Text(String),
    /// A piece of tool call number `index` (0-based, in the order the model makes them).
    ToolCall {
        /// Which call this piece belongs to.
        index: usize,
        /// The call's id, when this piece carries it (usually only the first one does).
        id: Option<String>,
        /// The function's name, when this piece carries it (usually only the first one does).
        name: Option<String>,
        /// Text to append to the call's JSON arguments (possibly empty).
        arguments: String,
    },
}

/// Reports a complete answer through `on_delta`: the text as one delta, then each tool call as one.
pub(crate) fn report_whole(response: &ChatResponse, on_delta: &mut (dyn FnMut(StreamDelta) + Send)) {
    let text = response.message.text_content();
    if !text.is_empty() {
        on_delta(StreamDelta::Text(text));
    }
    for (index, call) in response.message.tool_calls.iter().flatten().enumerate() {
        on_delta(StreamDelta::ToolCall {
            index,
            id: Some(call.id.clone()),
            name: Some(call.function.name.clone()),
            arguments: call.function.arguments.clone(),
        });
    }
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
///
/// When [`OpenAiClient`](crate::OpenAiClient) made more than one attempt, the error of the last
/// one says how many: `Status`'s `body_head` and the `message` of the other variants end with
/// `(gave up after N attempts)` (retries used up, or no time left for the next) or
/// `(on attempt N)` (a failure that is not retried came after retried ones).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The server answered with a non-2xx status.
    #[error("the model server answered HTTP {status}: {body_head}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The beginning of the response body, cut on a character boundary; after retries,
        /// followed by how many attempts were made.
        body_head: String,
    },
    /// The call did not finish within its timeout: the request's
    /// [`timeout`](ChatRequest::timeout), or the client's own timeout for one attempt (for a
    /// streamed answer: for the answer to begin, and for each chunk after the previous one).
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
    /// The client cannot make calls: the HTTP client could not be created, or no server is
    /// configured (no `OPENAI_BASE_URL`). Nothing was sent.
    #[error("{message}")]
    Client {
        /// Why, as a sentence (e.g. `could not create the HTTP client: ...`).
        message: String,
    },
}
