//! Integration tests of `hook-core`, all in one test binary (one link, one executable).

mod alloc;
mod chain;
mod common;
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
