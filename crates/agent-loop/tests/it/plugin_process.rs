//! The seed's Python weather plugin, a real PicoClaw process hook, through the engine: the tool
//! it injects in before_llm reaches the model and its `respond` answers the call.

use crate::common;

use std::{path::PathBuf, process::Command, sync::Arc};

use common::{Harness, call, calls, recorder, text};
use hook_core::{Engine, HookDefinition, HookSpec, Level};
use hook_process::ProcessFactory;
use hook_protocol::{Event, config::ProcessDef};

/// The real interpreter (`python3` on PATH may be a slow version-manager shim).
fn python() -> String {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 must be installed to run this test");
    String::from_utf8(out.stdout).expect("utf-8 path").trim().to_owned()
}

fn weather_spec() -> HookSpec {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../hook-process/tests/fixtures/weather_plugin.py");
    let events = vec![Event::PreLlmRequest, Event::PreToolExecution];
    let def = ProcessDef {
        enabled: None,
        priority: None,
        transport: Some("stdio".into()),
        command: vec![python(), "-u".into(), script.display().to_string()],
        dir: None,
        env: None,
        observe: None,
        intercept: Some(events.clone()),
        respond_tools: None,
        timeout_ms: None,
        on_error: None,
        sandbox: None,
    };
    HookSpec::new("weather-plugin", Level::Project, "process", events, HookDefinition::Process(def))
}

#[tokio::test]
async fn the_python_weather_plugin_answers_its_injected_tool() {
    let mut harness =
        Harness::new([calls(vec![call("c1", "get_weather", r#"{"city":"Beijing"}"#)]), text("Sunny in Beijing.")]);
    harness.engine = Engine::builder().factory(Arc::new(ProcessFactory::new())).build();
    harness.engine.replace_level(Level::Project, vec![weather_spec()]).await.expect("the plugin starts");
    let (hook, seen) = recorder();
    harness.hook("watch", [Event::ApproveTool], hook);
    let mut session = harness.session().await;
    let report = session.send("What's the weather in Beijing today?").await.unwrap();

    let tools = harness.tool_names(0);
    assert!(tools.contains(&"get_weather".to_owned()), "{tools:?}");
    assert_eq!(harness.tool_message(1, "c1"), "Beijing weather: Sunny, temperature 15°C, humidity 45%");
    assert!(seen.events().is_empty(), "respond skips approval");
    assert_eq!(report.tools[0].outcome, "responded");
    assert_eq!(report.reply, "Sunny in Beijing.");
    harness.engine.shutdown().await;
}
