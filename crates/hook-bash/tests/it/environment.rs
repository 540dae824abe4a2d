//! What a bash hook sees around it: the hook variables, PATH, its working directory, its own
//! `env`, and the scrubbed environment for model-registered hooks.

use crate::common;

use std::{collections::BTreeMap, time::Duration};

use common::*;

const DEADLINE: Duration = Duration::from_secs(10);

/// The values of `names` as a hook sees them (written to a file by the hook, `<unset>` if unset).
async fn env_seen(options: BashOptions, context: &Context, names: &[&str]) -> BTreeMap<String, String> {
    let dir = temp_dir(&format!("env-{}", names.join("-").to_lowercase()));
    let out = dir.join("env.txt");
    let mut script = String::new();
    for name in names {
        script.push_str(&format!("printf '%s=%s\\n' {name} \"${{{name}-<unset>}}\" >> '{}'; ", out.display()));
    }
    let hook = BashHook::new(script, options);
    call(&hook, Event::PreToolExecution, context, DEADLINE).await.expect("the hook succeeds");
    let text = std::fs::read_to_string(&out).expect("the hook wrote its environment");
    let _ = std::fs::remove_dir_all(&dir);
    text.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
}

#[tokio::test]
async fn sets_the_hook_variables_under_both_prefixes() {
    let cwd = temp_dir("cwd-vars");
    let context = Context { cwd: Some(cwd.display().to_string()), ..Context::default() };
    let seen = env_seen(
        BashOptions::default(),
        &context,
        &["JCLI_HOOK_EVENT", "JCLI_CWD", "JCLI_HOOK_DIR", "HOOKWIRE_HOOK_EVENT", "HOOKWIRE_CWD", "HOOKWIRE_HOOK_DIR"],
    )
    .await;
    let cwd = cwd.display().to_string();
    for prefix in ["JCLI", "HOOKWIRE"] {
        assert_eq!(seen[&format!("{prefix}_HOOK_EVENT")], "pre_tool_execution");
        assert_eq!(seen[&format!("{prefix}_CWD")], cwd);
        assert_eq!(seen[&format!("{prefix}_HOOK_DIR")], "", "not a directory hook");
    }
}

#[tokio::test]
async fn a_directory_hook_sees_its_dir_first_on_path() {
    let hook_dir = temp_dir("dir-hook");
    let options = BashOptions { dir: Some(hook_dir.clone()), ..BashOptions::default() };
    let seen = env_seen(options, &Context::default(), &["JCLI_HOOK_DIR", "HOOKWIRE_HOOK_DIR", "PATH"]).await;
    let hook_dir = hook_dir.display().to_string();
    assert_eq!(seen["JCLI_HOOK_DIR"], hook_dir);
    assert_eq!(seen["HOOKWIRE_HOOK_DIR"], hook_dir);
    assert_eq!(seen["PATH"].split(':').next(), Some(hook_dir.as_str()));
    let host_path = std::env::var("PATH").unwrap_or_default();
    assert!(seen["PATH"].ends_with(&host_path), "the host PATH follows: {}", seen["PATH"]);
}

#[tokio::test]
async fn a_directory_hook_runs_scripts_from_its_dir_by_name() {
    let hook_dir = temp_dir("dir-script");
    let script = hook_dir.join("my-guard-script");
    std::fs::write(&script, "#!/bin/sh\ncat >/dev/null\necho '{\"user_input\": \"from the dir\"}'\n").expect("write");
    std::process::Command::new("chmod").arg("+x").arg(&script).status().expect("chmod");
    let hook = BashHook::new("my-guard-script", BashOptions { dir: Some(hook_dir), ..BashOptions::default() });
    let output = call(&hook, Event::PreSendMessage, &context_with_input("x"), DEADLINE).await.expect("runs");
    assert_eq!(output.patch.user_input.as_deref(), Some("from the dir"));
}

/// The physical working directory a hook runs in.
async fn pwd_seen(context: &Context, name: &str) -> std::path::PathBuf {
    let dir = temp_dir(name);
    let out = dir.join("pwd.txt");
    let hook = sh_hook(&format!("pwd -P > '{}'", out.display()));
    call(&hook, Event::SessionStart, context, DEADLINE).await.expect("the hook succeeds");
    std::path::PathBuf::from(std::fs::read_to_string(&out).expect("the hook wrote its cwd").trim())
}

#[tokio::test]
async fn runs_in_the_sessions_working_directory() {
    let cwd = temp_dir("cwd-session");
    let context = Context { cwd: Some(cwd.display().to_string()), ..Context::default() };
    assert_eq!(pwd_seen(&context, "pwd-session").await, std::fs::canonicalize(&cwd).expect("cwd exists"));
}

#[tokio::test]
async fn without_a_session_cwd_runs_in_the_hosts() {
    let host = std::env::current_dir().expect("cwd");
    assert_eq!(pwd_seen(&Context::default(), "pwd-host").await, std::fs::canonicalize(&host).expect("host"));
    let seen = env_seen(BashOptions::default(), &Context::default(), &["JCLI_CWD"]).await;
    assert_eq!(seen["JCLI_CWD"], host.display().to_string());
}

#[tokio::test]
async fn adds_the_hooks_own_env() {
    let env = BTreeMap::from([("GUARD_MODE".to_owned(), "strict mode".to_owned())]);
    let seen = env_seen(BashOptions { env, ..BashOptions::default() }, &Context::default(), &["GUARD_MODE"]).await;
    assert_eq!(seen["GUARD_MODE"], "strict mode");
}

/// A variable of the test process that a scrubbed environment must drop (cargo sets several).
fn host_only_variable() -> String {
    std::env::vars()
        .map(|(k, _)| k)
        .find(|k| k.starts_with("CARGO") && !hook_bash::SCRUBBED_ENV_KEEP.contains(&k.as_str()))
        .expect("cargo sets CARGO_* variables for tests")
}

#[tokio::test]
async fn inherits_the_host_environment_by_default() {
    let name = host_only_variable();
    let seen = env_seen(BashOptions::default(), &Context::default(), &[&name]).await;
    assert_eq!(seen[&name], std::env::var(&name).expect("set"));
}

#[tokio::test]
async fn a_scrubbed_environment_keeps_only_the_allow_list_and_hook_variables() {
    let name = host_only_variable();
    let env = BTreeMap::from([("GUARD_MODE".to_owned(), "on".to_owned())]);
    let options = BashOptions { scrub_env: true, env, ..BashOptions::default() };
    let seen = env_seen(options, &Context::default(), &[&name, "PATH", "HOME", "JCLI_HOOK_EVENT", "GUARD_MODE"]).await;
    assert_eq!(seen[&name], "<unset>", "{name} leaked into a scrubbed environment");
    assert_eq!(seen["PATH"], std::env::var("PATH").expect("PATH"));
    if let Ok(home) = std::env::var("HOME") {
        assert_eq!(seen["HOME"], home);
    }
    assert_eq!(seen["JCLI_HOOK_EVENT"], "pre_tool_execution");
    assert_eq!(seen["GUARD_MODE"], "on");
}

#[tokio::test]
async fn the_hook_depth_marker_survives_scrubbing_and_the_hooks_own_env() {
    // The test process runs inside no hook (cargo does not set the marker): its hooks are at 1.
    assert!(std::env::var_os(hook_bash::HOOK_DEPTH_ENV).is_none());
    let env = BTreeMap::from([(hook_bash::HOOK_DEPTH_ENV.to_owned(), "0".to_owned())]);
    for scrub_env in [false, true] {
        let options = BashOptions { scrub_env, env: env.clone(), ..BashOptions::default() };
        let seen = env_seen(options, &Context::default(), &["HOOKWIRE_HOOK_DEPTH"]).await;
        assert_eq!(seen["HOOKWIRE_HOOK_DEPTH"], "1", "scrub_env {scrub_env}: a hook's `env` cannot reset the count");
    }
}
