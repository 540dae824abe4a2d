//! Integration tests of `agent-loop`, all in one test binary (one link, one executable).

mod abort;
mod approval;
mod approval_policy;
mod cancel;
mod claude_tools;
mod common;
mod compaction;
mod deny_tool;
mod event_order;
mod hook_timeout;
mod llm_request;
mod observer_payloads;
mod plugin_process;
mod register_hook;
mod respond;
mod retry_feedback;
mod scripted_model;
mod skip;
mod system_message;
mod tools;
mod transcript;
