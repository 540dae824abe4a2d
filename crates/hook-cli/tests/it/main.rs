//! Integration tests of `hook-cli`, all in one test binary (one link, one executable).

mod bridge;
mod chat;
mod check;
mod cli;
mod common;
mod copilot;
mod daemon;
mod dashboard;
mod demo;
mod first_run;
mod hardening;
mod hooktest;
mod install;
mod plugins;
mod published;
mod real_agents;
mod real_copilot;
mod recursion;
mod replay;
mod rules_cli;
mod rules_e2e;
mod rules_when;
mod sandbox_store;
mod store;
mod telemetry;
mod trust;
