//! Integration tests of `hook-bash`, all in one test binary (one link, one executable).

mod agent_command;
mod common;
mod environment;
mod exit_status;
mod factory;
mod jcli_examples;
mod messages;
mod non_utf8;
mod output_caps;
mod sandbox;
mod state_dir;
mod stdout_json;
mod timeouts;
