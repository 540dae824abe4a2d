//! Integration tests of `hook-host`, all in one test binary: real configuration files in
//! temporary projects, real `sh`, real Python process hooks.

mod common;
#[cfg(feature = "decision-store")]
mod decisions;
mod dialects;
mod old_paths;
mod reload;
mod trust;
