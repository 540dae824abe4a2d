//! Integration tests of `hook-trust`, all in one test binary (one link, one executable).

/// The loader's test helpers, shared with hook-config's tests (one file, not a copy).
#[path = "../../../hook-config/tests/it/config_support/mod.rs"]
mod config_support;
mod trust;
