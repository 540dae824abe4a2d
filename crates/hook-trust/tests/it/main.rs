//! Integration tests of `hook-trust`, all in one test binary (one link, one executable).

mod config_support;
mod trust;
