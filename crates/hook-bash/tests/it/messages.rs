//! The messages a user reads when a bash hook fails, one per failure, as snapshots.

use crate::common;

use std::time::Duration;

use common::*;

async fn failure(command: &str, options: BashOptions, context: &Context, timeout: Duration) -> String {
    let hook = BashHook::new(command, BashOptions { name: "guard".into(), ..options });
    match call(&hook, Event::PreToolExecution, context, timeout).await {
        Ok(output) => panic!("`{command}` succeeded: {output:?}"),
        Err(error) => format!("[{}] {error}", error.class()),
    }
}

#[tokio::test]
async fn failure_messages() {
    let none = Context::default();
    let ten = Duration::from_secs(10);
    let default = BashOptions::default;
    let mut lines = vec![
        failure("echo 'no ticket id' >&2; exit 2", default(), &none, ten).await,
        failure("echo 'checking...'; echo '{}'", default(), &none, ten).await,
        failure("echo '{}'; echo done", default(), &none, ten).await,
        failure("echo '{\"action\": \"explode\"}'", default(), &none, ten).await,
        failure("echo '{\"user_input\": 42}'", default(), &none, ten).await,
        failure("echo 'all good'", default(), &none, ten).await,
        failure("yes | head -c 5000000", default(), &none, ten).await,
        failure("yes | head -c 5000000 >&2", default(), &none, ten).await,
        failure(
            "echo '{\"user_input\": \"long enough\"}'",
            BashOptions { max_stdout_bytes: 10, ..default() },
            &none,
            ten,
        )
        .await,
        failure("sleep 5", default(), &none, Duration::from_millis(300)).await,
        failure("kill -KILL $$", default(), &none, ten).await,
    ];
    // The shell's own stderr wording differs between dash and bash: show the status only.
    match call(&sh_hook("nonexistent-cmd-xyz"), Event::PreToolExecution, &none, ten).await {
        Err(HookError::ProcessExited { status, .. }) => lines.push(format!("[crashed] status: {status}")),
        other => panic!("expected process_exited, got {other:?}"),
    }
    let missing_cwd = Context { cwd: Some("/nonexistent/session".into()), ..Context::default() };
    lines.push(failure("true", default(), &missing_cwd, ten).await);
    insta::assert_snapshot!(lines.join("\n\n"));
}
