//! Integration tests of `hook-core`, all in one test binary (one link, one executable).

mod agent_settings;
mod all_errors;
mod alloc;
mod chain;
mod common;
mod config_load;
mod config_parse;
mod config_support;
mod deadlines;
mod failures;
mod filters;
mod merge_laws;
mod observers;
mod read_only;
mod registry;
mod respond;
mod session_spec;
mod sync_hooks;
mod tool_view;
mod trust;
