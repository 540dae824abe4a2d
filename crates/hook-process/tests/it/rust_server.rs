//! The server side, end to end: the `echo_hook` example (built with `hook_process::server`) as
//! a real child process.

use crate::common;

use std::{path::PathBuf, time::Duration};

use common::*;
use hook_core::{Context, Event};
use serde_json::json;

/// `target/<profile>/examples/echo_hook`, which `cargo test` builds with the tests.
pub(crate) fn echo_hook() -> String {
    let exe = std::env::current_exe().unwrap();
    let profile_dir: PathBuf = exe.parent().and_then(|deps| deps.parent()).unwrap().to_path_buf();
    let path = profile_dir.join("examples/echo_hook");
    if !path.exists() {
        // `cargo test --test rust_server` builds no examples: build it now.
        let mut build = std::process::Command::new(env!("CARGO"));
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        build.args(["build", "--example", "echo_hook", "--manifest-path", manifest]);
        if let Some(target_dir) = profile_dir.parent() {
            build.env("CARGO_TARGET_DIR", target_dir);
        }
        if profile_dir.file_name().is_some_and(|p| p == "release") {
            build.arg("--release");
        }
        let status = build.status().expect("cargo runs");
        assert!(status.success(), "building the echo_hook example failed");
    }
    path.display().to_string()
}

#[tokio::test]
async fn the_echo_example_answers_every_method() {
    let events = [Event::PreToolExecution, Event::ApproveTool, Event::PostLlmResponse, Event::Stop];
    let spec = spec("echo", vec![echo_hook()], &events);
    let hook = start(&spec).await;
    let context = tool_context("bash", json!({"command": "ls", "n": 1}));
    // The echo returns the same call: nothing changes.
    let output = call(&*hook, Event::PreToolExecution, &context, Duration::from_secs(5)).await.unwrap();
    assert!(output.is_no_change(), "{output:?}");
    // Defaults: approve, continue, `{}` for a j-cli event.
    let output = call(&*hook, Event::ApproveTool, &context, Duration::from_secs(5)).await.unwrap();
    assert_eq!(output.approved, Some(true));
    let reply = Context { assistant_output: Some("done".into()), ..Context::default() };
    assert!(call(&*hook, Event::PostLlmResponse, &reply, Duration::from_secs(5)).await.unwrap().is_no_change());
    assert!(call(&*hook, Event::Stop, &reply, Duration::from_secs(5)).await.unwrap().is_no_change());
    shutdown_and_check(&hook).await;
}
