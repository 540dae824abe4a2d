//! Every dialect's file, found where its tool keeps it in a (trusted) project, fires through
//! the host's engine: j-cli YAML run by `sh`, a PicoClaw JSON config with a Python process
//! hook, Claude Code settings with a command hook.

use hook_core::{Decision, Event, HookInput, HookOutput, Level, Registration, hook_fn_sync};
use hook_host::TrustPolicy;

use crate::common::{Sandbox, bash_call, fixture, python, trust_project};

#[tokio::test]
async fn a_jcli_yaml_file_in_the_project_runs_its_bash_hook() {
    let sandbox = Sandbox::new("jcli");
    sandbox.write(
        "project/.jcli/hooks.yaml",
        "pre_tool_execution:\n  - name: no-rm-rf\n    command: \"grep -q 'rm -rf' && echo '{\\\"action\\\": \\\"skip\\\", \\\"reason\\\": \\\"sh: no rm -rf\\\"}' || echo '{}'\"\n",
    );
    trust_project(&sandbox);
    let host = sandbox.host().build();
    let report = host.reload().await;
    assert_eq!(report.problem(), None, "{:?}", report.errors());
    assert!(report.untrusted().is_empty(), "{:?}", report.untrusted());

    let mut harmless = bash_call("ls");
    let outcome = host.engine().fire(Event::PreToolExecution, &mut harmless).await;
    assert_eq!(outcome.decision, Decision::Continue, "{outcome:?}");
    assert_eq!(outcome.trace[0].id.as_str(), "project:no-rm-rf:pre_tool_execution");

    let mut dangerous = bash_call("rm -rf /");
    let outcome = host.engine().fire(Event::PreToolExecution, &mut dangerous).await;
    assert_eq!(outcome.decision, Decision::Skip, "{outcome:?}");
    assert_eq!(outcome.reason.as_deref(), Some("sh: no rm -rf"));
    host.shutdown().await;
}

#[tokio::test]
async fn a_picoclaw_json_config_runs_its_python_process_hook() {
    let sandbox = Sandbox::new("picoclaw");
    let config = hook_protocol::serde_json::json!({"hooks": {"enabled": true, "processes": {"guard": {
        "enabled": true,
        "transport": "stdio",
        "command": [python(), fixture("guard.py")],
        "intercept": ["before_tool"],
    }}}});
    sandbox.write("project/.hookwire/hooks.json", &config.to_string());
    trust_project(&sandbox);
    let host = sandbox.host().build();
    let report = host.reload().await;
    assert_eq!(report.problem(), None, "{:?}", report.errors());
    assert_eq!(report.mounted.as_ref().map(Vec::len), Some(1), "{report:?}");

    let mut dangerous = bash_call("rm -rf /tmp/x");
    let outcome = host.engine().fire(Event::PreToolExecution, &mut dangerous).await;
    assert_eq!(outcome.decision, Decision::DenyTool, "{outcome:?}");
    assert!(outcome.reason.as_deref().is_some_and(|r| r.starts_with("python: no rm -rf (pid ")), "{outcome:?}");
    // The same process answers the next call: a process hook lives on between events.
    let mut again = bash_call("rm -rf /tmp/y");
    let second = host.engine().fire(Event::PreToolExecution, &mut again).await;
    assert_eq!(second.reason, outcome.reason);

    let mut harmless = bash_call("ls");
    let outcome = host.engine().fire(Event::PreToolExecution, &mut harmless).await;
    assert_eq!(outcome.decision, Decision::Continue, "{outcome:?}");
    host.shutdown().await;
}

#[tokio::test]
async fn claude_settings_run_their_command_hook_with_the_claude_contract() {
    let sandbox = Sandbox::new("claude");
    // Exit code 2 blocks a PreToolUse call; stderr is the reason.
    let settings = hook_protocol::serde_json::json!({"hooks": {"PreToolUse": [{
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'claude: no rm -rf' >&2; exit 2; }; exit 0"}],
    }]}});
    sandbox.write("project/.claude/settings.json", &settings.to_string());
    trust_project(&sandbox);
    let host = sandbox.host().build();
    assert_eq!(host.project_root().as_deref(), Some(sandbox.project().as_path()));
    let report = host.reload().await;
    assert_eq!(report.problem(), None, "{:?}", report.errors());

    let mut dangerous = bash_call("rm -rf /");
    let outcome = host.engine().fire(Event::PreToolExecution, &mut dangerous).await;
    assert_eq!(outcome.decision, Decision::DenyTool, "{outcome:?}");
    assert!(outcome.reason.as_deref().is_some_and(|r| r.contains("claude: no rm -rf")), "{outcome:?}");

    let mut other_tool = bash_call("rm -rf /");
    other_tool.tool_name = Some("Read".into());
    let outcome = host.engine().fire(Event::PreToolExecution, &mut other_tool).await;
    assert_eq!(outcome.decision, Decision::Continue, "the matcher admits only Bash: {outcome:?}");
    host.shutdown().await;
}

#[tokio::test]
async fn user_level_files_and_named_files_run_without_trust_next_to_in_process_hooks() {
    let sandbox = Sandbox::new("user");
    sandbox.write(
        "config/hooks.yaml",
        "pre_send_message:\n  - name: tag\n    command: \"echo '{\\\"user_input\\\": \\\"[user] hi\\\"}'\"\n",
    );
    let named = sandbox.write("elsewhere/extra.yaml", "stop:\n  - name: named\n    command: \"echo '{\\\"action\\\": \\\"stop\\\", \\\"reason\\\": \\\"named file\\\"}'\"\n");
    // No trust store at all: user-level and named files do not need one.
    let host = sandbox.host().trust(TrustPolicy::Untrusted).extra_config(&named).build();
    let upper = hook_fn_sync("upper", |input: &HookInput<'_>| {
        let mut output = HookOutput::default();
        output.patch.user_input = input.context.user_input.as_deref().map(str::to_uppercase);
        output
    });
    host.engine().register(Registration::new("upper", Level::Builtin, [Event::PreSendMessage], upper));
    let report = host.reload().await;
    assert_eq!(report.problem(), None, "{:?}", report.errors());

    let mut context = hook_core::Context { user_input: Some("hello".into()), ..hook_core::Context::default() };
    host.engine().fire(Event::PreSendMessage, &mut context).await;
    // builtin runs before user: the user hook's answer stands.
    assert_eq!(context.user_input.as_deref(), Some("[user] hi"));
    let outcome = host.engine().fire(Event::Stop, &mut hook_core::Context::default()).await;
    assert_eq!(outcome.reason.as_deref(), Some("named file"), "{outcome:?}");

    // A reload keeps the in-process hook: configuration never replaces the builtin level.
    sandbox.write("config/hooks.yaml", "pre_send_message:\n  - name: tag\n    command: \"echo '{}'\"\n");
    let report = host.reload().await;
    assert!(report.changed && report.problem().is_none(), "{report:?}");
    let mut context = hook_core::Context { user_input: Some("hello".into()), ..hook_core::Context::default() };
    host.engine().fire(Event::PreSendMessage, &mut context).await;
    assert_eq!(context.user_input.as_deref(), Some("HELLO"));
    host.shutdown().await;
}

#[tokio::test]
async fn a_named_file_that_does_not_exist_is_an_error_not_an_empty_configuration() {
    let sandbox = Sandbox::new("missing");
    let host = sandbox.host().extra_config(sandbox.path("nope.yaml")).build();
    let report = host.reload().await;
    let problem = report.problem().unwrap_or_default();
    assert!(problem.contains("nope.yaml: no such file or directory"), "{problem}");
    assert_eq!(report.mounted, None);
}
