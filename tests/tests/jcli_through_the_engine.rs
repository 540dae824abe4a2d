//! j-cli hooks as a user has them: a `hooks.yaml` loaded by hook-core's config loader, built by
//! hook-bash's factory, run by the engine. The seed's examples 3 and 4 run as written.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use hook_config::{self as config, ConfigSource};
use hook_core::{Context, Deadlines, Decision, Engine, Event, Level};

/// A temporary folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("hookwire-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn seed_script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/hook-protocol/tests/fixtures/jcli")
        .join(name)
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

/// The directory of the real Python interpreter: the seed's scripts call `python3` by name, and
/// the `python3` on PATH may be a slow version-manager shim.
fn python_dir() -> String {
    let output =
        std::process::Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().unwrap();
    let python = PathBuf::from(String::from_utf8(output.stdout).unwrap().trim());
    python.parent().unwrap().display().to_string()
}

/// An engine running the hooks of `yaml` (a j-cli `hooks.yaml`), loaded as the user's.
async fn engine_for(dir: &TempDir, yaml: &str) -> Engine {
    let path = dir.0.join("hooks.yaml");
    std::fs::write(&path, yaml).unwrap();
    let loaded = config::load(&[ConfigSource::new(path, Level::User)], Deadlines::default(), None);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let engine = Engine::builder().factory(Arc::new(hook_bash::BashFactory::default())).build();
    engine.replace_level(Level::User, loaded.specs).await.unwrap();
    engine
}

fn context(dir: &TempDir) -> Context {
    Context { cwd: Some(dir.0.display().to_string()), ..Context::default() }
}

#[tokio::test]
async fn seed_example_3_prefixes_the_message_with_the_time() {
    let dir = TempDir::new("seed-3");
    let yaml = format!(
        "pre_send_message:\n  - command: \"PATH={}:$PATH bash {}\"\n    timeout: 10\n",
        python_dir(),
        seed_script("example3_timestamp.sh")
    );
    let engine = engine_for(&dir, &yaml).await;
    let mut context = Context { user_input: Some("hello".into()), ..context(&dir) };
    let outcome = engine.fire(Event::PreSendMessage, &mut context).await;
    assert_eq!(outcome.decision, Decision::Continue, "{outcome:?}");
    let text = context.user_input.unwrap();
    // `[HH:MM] hello`
    assert!(text.len() == "[00:00] hello".len() && text.starts_with('[') && text.ends_with("] hello"), "{text}");
    assert_eq!(outcome.trace[0].changed.iter().map(|f| f.as_str()).collect::<Vec<_>>(), ["user_input"]);
    engine.shutdown().await;
}

#[tokio::test]
async fn seed_example_4_skips_rm_rf_and_lets_the_rest_through() {
    let dir = TempDir::new("seed-4");
    let yaml = format!(
        "pre_tool_execution:\n  - command: \"PATH={}:$PATH bash {}\"\n",
        python_dir(),
        seed_script("example4_skip_rm.sh")
    );
    let engine = engine_for(&dir, &yaml).await;
    let mut dangerous = Context {
        tool_name: Some("Bash".into()),
        tool_arguments: Some(r#"{"command":"rm -rf /"}"#.into()),
        ..context(&dir)
    };
    assert_eq!(engine.fire(Event::PreToolExecution, &mut dangerous).await.decision, Decision::Skip);
    let mut harmless =
        Context { tool_name: Some("Bash".into()), tool_arguments: Some(r#"{"command":"ls"}"#.into()), ..context(&dir) };
    assert_eq!(engine.fire(Event::PreToolExecution, &mut harmless).await.decision, Decision::Continue);
    engine.shutdown().await;
}

#[tokio::test]
async fn a_later_bash_hook_sees_what_an_earlier_one_wrote() {
    let dir = TempDir::new("chain");
    let append = |tag: &str| {
        format!(
            "  - name: {tag}\n    command: \"python3 -c \\\"import sys,json; t=json.load(sys.stdin)['user_input']; print(json.dumps({{'user_input': t + '+{tag}'}}))\\\"\"\n"
        )
    };
    let yaml = format!("pre_send_message:\n{}{}", append("first"), append("second"));
    let engine = engine_for(&dir, &yaml).await;
    let mut context = Context { user_input: Some("orig".into()), ..context(&dir) };
    let outcome = engine.fire(Event::PreSendMessage, &mut context).await;
    assert_eq!(context.user_input.as_deref(), Some("orig+first+second"), "{outcome:?}");
    assert_eq!(outcome.trace.len(), 2);
    engine.shutdown().await;
}
