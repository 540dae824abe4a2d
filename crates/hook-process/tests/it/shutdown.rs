//! Shutdown leaves no process behind: not a hook that ignores SIGTERM and stdin EOF, not a
//! grandchild holding stdout open; dropping the hook does the same.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use hook_core::{Event, Hook};

#[tokio::test]
async fn a_hook_that_ignores_sigterm_is_killed() {
    let spec = python_spec("stubborn", "fault_hook.py", &["ignore_term"], &[Event::PreToolExecution]);
    // 200 ms after closing stdin, 200 ms after SIGTERM.
    let hook = start_with(&spec, options().grace(Duration::from_millis(200), Duration::from_millis(200))).await;
    let pid = hook.pid().unwrap();
    let started = Instant::now();
    hook.shutdown().await;
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_group_gone(pid).await;
}

#[tokio::test]
async fn a_grandchild_holding_stdout_does_not_block_shutdown() {
    let dir = temp_dir("grandchild");
    let grandchild_file = dir.join("grandchild");
    let spec = with_env(
        python_spec("forker", "fault_hook.py", &["grandchild"], &[Event::PreToolExecution]),
        &[("HOOK_GRANDCHILD_FILE", grandchild_file.display().to_string())],
    );
    let hook = start(&spec).await;
    let pid = hook.pid().unwrap();
    let grandchild = read_pid(&grandchild_file).await;
    assert!(pid_alive(grandchild));
    let started = Instant::now();
    hook.shutdown().await;
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_group_gone(pid).await;
    assert!(!pid_alive(grandchild), "grandchild {grandchild} survived");
}

#[tokio::test]
async fn dropping_the_hook_shuts_it_down() {
    let dir = temp_dir("dropped");
    let grandchild_file = dir.join("grandchild");
    let spec = with_env(
        python_spec("dropped", "fault_hook.py", &["grandchild"], &[Event::PreToolExecution]),
        &[("HOOK_GRANDCHILD_FILE", grandchild_file.display().to_string())],
    );
    let built = build(&spec, options()).await.unwrap();
    let grandchild = read_pid(&grandchild_file).await;
    drop(built);
    let until = Instant::now() + Duration::from_secs(5);
    while pid_alive(grandchild) {
        assert!(Instant::now() < until, "grandchild {grandchild} survived the drop");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
