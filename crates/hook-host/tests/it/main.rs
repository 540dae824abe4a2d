//! Integration tests of `hook-host`, all in one test binary: real configuration files in
//! temporary projects, real `sh`, real Python process hooks.

mod common;
mod decisions;
mod dialects;
mod old_paths;
mod reload;
mod trust;
