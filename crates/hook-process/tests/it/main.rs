//! Integration tests of `hook-process`, all in one test binary (one link, one executable).

mod approval;
mod common;
mod concurrency;
mod crash_restart;
mod extensions;
mod flow;
mod garbage_lines;
mod handshake;
mod invalid_output;
mod long_line;
mod notifications;
mod read_only;
mod rust_server;
mod sandbox;
mod shutdown;
mod stderr_log;
mod weather_plugin;
