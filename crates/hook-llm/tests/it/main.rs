//! Integration tests of `hook-llm`, all in one test binary (one link, one executable).

mod agent_handlers;
mod approval;
mod authorization;
mod chat_client;
mod common;
mod deadline;
mod error_status;
mod fenced_json;
mod invalid_output;
mod jcli_examples;
mod model_override;
mod non_ascii;
mod one_pass_render;
mod prose_braces;
mod redirects;
mod request_body;
mod retries;
mod scripted_server;
mod streaming;
mod tls;
