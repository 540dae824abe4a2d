//! Integration tests of `hook-config`, all in one test binary (one link, one executable).

mod agent_settings;
mod all_errors;
mod config_load;
mod config_parse;
mod config_support;
mod rules_files;
