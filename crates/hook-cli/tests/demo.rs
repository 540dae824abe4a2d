//! `hookwire demo`, the README's first command: runs with no network and no key, exits 0, and
//! shows every event and every hook decision of its session.

use std::process::Command;

#[test]
fn demo_transcript_shows_every_event_and_decision() {
    let home = std::env::temp_dir().join(format!("hookwire-demo-test-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_hookwire"))
        .arg("demo")
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&home);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "demo failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    for expected in [
        "[session_start]",
        "[pre_llm_request] continue changed=tools",
        "[pre_tool_execution(get_weather)] respond",
        "tool get_weather result: Beijing weather: Sunny, temperature 15°C, humidity 45%",
        "[pre_tool_execution(bash)] skip",
        "[approve_tool(write_file)] denied (writing files needs a person at the keyboard)",
        "hook user:keep-facts:pre_auto_compact → ok",
        "notice: reviewer: no secrets in the reply",
        "[session_end]",
    ] {
        assert!(stdout.contains(expected), "the transcript lacks `{expected}`:\n{stdout}");
    }
    let demo_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo").canonicalize().unwrap();
    let redacted: String = stdout
        .replace(&demo_dir.display().to_string(), "[DEMO]")
        .lines()
        .map(|line| match line.strip_prefix("── session demo-session in ") {
            Some(_) => "── session demo-session in [WORKDIR]".to_owned(),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!(redacted);
}
