//! hook-llm: j-cli's `llm` hook kind, the [`ChatModel`] trait and an OpenAI-compatible client.
//!
//! ```
//! use std::sync::Arc;
//!
//! use hook_core::{Context, Decision, Engine, Event, HookDefinition, HookSpec, Level};
//! use hook_llm::{LlmFactory, OpenAiClient, OpenAiConfig, Reply, ScriptedServer};
//! use hook_protocol::config::{HookDef, HookKind};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // A local OpenAI-compatible server standing in for the model; its verdict is wrapped in prose.
//! let server = ScriptedServer::start([Reply::Content(r#"Unsafe: {"action": "skip"}"#.into())]).unwrap();
//! let config = OpenAiConfig { base_url: server.base_url(), api_key: None, model: "reviewer".into() };
//! let factory = LlmFactory::new(Arc::new(OpenAiClient::new(config).unwrap()));
//! let prompt = "Is this command safe? {{tool_arguments}}";
//! let def = HookDef { kind: HookKind::Llm, prompt: Some(prompt.into()), ..HookDef::default() };
//! let spec = HookSpec::new("reviewer", Level::User, "llm", [Event::PreToolExecution], HookDefinition::Command(def));
//! let engine = Engine::builder().factory(Arc::new(factory)).build();
//! engine.replace_level(Level::User, vec![spec]).await.unwrap();
//!
//! let mut context = Context { tool_arguments: Some(r#"{"command": "rm -rf /"}"#.into()), ..Context::default() };
//! assert_eq!(engine.fire(Event::PreToolExecution, &mut context).await.decision, Decision::Skip);
//! let asked = server.requests()[0]["messages"][1]["content"].to_string();
//! assert!(asked.contains("Is this command safe?") && asked.contains("rm -rf /"));
//! # }
//! ```
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

/// Makes ring rustls's crypto provider for this process, once; a provider already installed
/// (by this function or by the embedding program) stays. hookwire's HTTP clients use rustls
/// without a built-in provider, so this must run before any `reqwest` client is built:
/// [`OpenAiClient::new`] and the `http` handlers call it; a program that builds its own client
/// for [`OpenAiClient::with_http_client`] calls it first.
pub fn install_tls_provider() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Losing a race with another installer leaves that one's provider: fine.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}
