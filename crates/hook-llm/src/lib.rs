//! hook-llm: j-cli's `llm` hook kind, the [`ChatModel`] trait and an OpenAI-compatible client.
//!
//! - [`ChatModel`]: messages in, one assistant message out; the agent loop reuses it.
//! - [`OpenAiClient`]: a [`ChatModel`] over `POST {base_url}/chat/completions`, configured by
//!   [`OpenAiConfig`] (or [`OpenAiConfig::from_env`]: `OPENAI_BASE_URL`, `OPENAI_API_KEY`,
//!   `HOOKWIRE_MODEL`). One keep-alive connection pool per client; clones share it.
//! - [`LlmHook`] and [`LlmFactory`] (kind `llm`): render the hook's prompt for the event in one
//!   pass ([`render`]), ask the model, and read the `HookResult` out of its reply
//!   ([`extract_hook_result`]), however it is wrapped in prose or code fences.
//! - [`AgentHttpFactory`] (kind `http`) and [`AgentPromptFactory`] (kind `prompt`): the
//!   `http` and `prompt` handlers of Claude Code, Gemini CLI and Codex settings files, run as
//!   those agents run them. An http hook POSTs the hook input to its `url` (only URLs the
//!   file's `allowedHttpHookUrls` allows; header `$VAR`s only from allowed variables; no
//!   redirects) and reads the answer like a command's stdout; a prompt hook asks the chat
//!   model its `prompt` with the input in place of `$ARGUMENTS` and applies the
//!   `{"ok", "reason"}` verdict. Failures are non-blocking errors: the chain goes on.
//! - [`ScriptedServer`]: a test and demo utility, an OpenAI-compatible server on 127.0.0.1
//!   answering from a script.

mod agent;
mod extract;
mod hook;
mod model;
mod openai;
mod retry;
mod scripted_server;
mod stream;
mod template;

pub use agent::{AgentHttpFactory, AgentPromptFactory, MAX_HTTP_BODY_BYTES, PROMPT_SYSTEM_MESSAGE, render_prompt};
pub use extract::{ExtractError, extract_hook_result};
pub use hook::{FORMAT_INSTRUCTION, LlmFactory, LlmHook, SYSTEM_MESSAGE};
pub use model::{ChatModel, ChatRequest, ChatResponse, ModelError, StreamDelta, Usage};
pub use openai::{DEFAULT_BASE_URL, DEFAULT_MODEL, DEFAULT_TIMEOUT, OpenAiClient, OpenAiConfig};
pub use retry::RetryPolicy;
pub use scripted_server::{RecordedRequest, Reply, ScriptedServer, StreamChunk};
pub use template::{PLACEHOLDERS, render};
