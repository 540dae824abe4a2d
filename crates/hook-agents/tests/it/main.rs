//! Integration tests of `hook-agents`, all in one test binary (one link, one executable).

/// The engine's test helpers, shared with hook-core's tests (one file, not a copy).
#[path = "../../../hook-core/tests/it/common/mod.rs"]
mod common;
mod tool_view;
