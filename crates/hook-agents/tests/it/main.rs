//! Integration tests of `hook-agents`, all in one test binary (one link, one executable).

mod common;
mod tool_view;
