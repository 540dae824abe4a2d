//! The session transcript (Claude Code's JSONL shape) and what hooks of the Claude Code family
//! read besides the context: `transcript_path`, `permission_mode`, `stop_hook_active`,
//! `tool_response`, `source`.

use crate::common;

use std::sync::{Arc, Mutex};

use agent_loop::{Session, SessionConfig, SessionState};
use common::{Harness, call, calls, recorder, text};
use hook_core::{HookInput, HookOutput, hook_fn};
use hook_llm::Reply;
use hook_protocol::Event;
use serde_json::{Value, json};

fn lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

#[tokio::test]
async fn every_message_is_a_line_in_claude_codes_shape() {
    let harness = Harness::new([
        Reply::ToolCalls(vec![call("c1", "Bash", r#"{"command":"echo hi"}"#)], Some("Let me look.".into())),
        text("done"),
    ]);
    let path = harness.dir.join("state/transcript.jsonl");
    let mut session = harness.agent().session(SessionConfig::new("s1", &harness.dir).transcript(&path)).await;
    assert_eq!(session.transcript_path(), Some(path.as_path()));
    session.send("go").await.unwrap();
    let lines = lines(&path);
    assert_eq!(lines.len(), 4, "{lines:#?}");
    for (idx, line) in lines.iter().enumerate() {
        assert_eq!(line["sessionId"], "s1");
        assert_eq!(line["uuid"].as_str().unwrap().len(), 36);
        let timestamp = line["timestamp"].as_str().unwrap();
        assert!(timestamp.len() == 24 && timestamp.ends_with('Z') && timestamp.as_bytes()[10] == b'T', "{timestamp}");
        let parent = if idx == 0 { Value::Null } else { lines[idx - 1]["uuid"].clone() };
        assert_eq!(line["parentUuid"], parent);
    }
    assert_eq!(lines[0]["type"], "user");
    assert_eq!(lines[0]["message"], json!({"role": "user", "content": [{"type": "text", "text": "go"}]}));
    assert_eq!(lines[1]["type"], "assistant");
    assert_eq!(
        lines[1]["message"],
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "echo hi"}}
        ]})
    );
    assert_eq!(lines[2]["type"], "user");
    assert_eq!(
        lines[2]["message"]["content"],
        json!([{"type": "tool_result", "tool_use_id": "c1", "content": "hi\n", "is_error": false}])
    );
    assert_eq!(
        lines[2]["toolUseResult"],
        json!({"stdout": "hi\n", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false})
    );
    assert_eq!(lines[3]["message"], json!({"role": "assistant", "content": [{"type": "text", "text": "done"}]}));
}

#[tokio::test]
async fn a_stop_hook_reads_the_last_reply_from_the_transcript_and_blocks_once() {
    let harness = Harness::new([text("a reply without the word"), text("MARKER: now it is there")]);
    let path = harness.dir.join("transcript.jsonl");
    let seen: Arc<Mutex<Vec<(String, Value, Value)>>> = Arc::default();
    let sink = seen.clone();
    harness.hook(
        "stop-check",
        [Event::Stop],
        hook_fn("stop-check", move |input: &HookInput<'_>| {
            let extra = &input.context.extra;
            let path = extra["transcript_path"].as_str().unwrap().to_owned();
            let last = lines(std::path::Path::new(&path)).pop().unwrap();
            let text = last["message"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
            sink.lock().unwrap().push((
                text.clone(),
                extra["stop_hook_active"].clone(),
                extra["permission_mode"].clone(),
            ));
            let output = if text.contains("MARKER") {
                HookOutput::default()
            } else {
                HookOutput { retry_feedback: Some("say MARKER".into()), ..HookOutput::default() }
            };
            async move { Ok(output) }
        }),
    );
    let mut session = harness.agent().session(SessionConfig::new("s1", &harness.dir).transcript(&path)).await;
    let report = session.send("go").await.unwrap();
    assert_eq!(report.reply, "MARKER: now it is there");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            ("a reply without the word".to_owned(), json!(false), json!("default")),
            ("MARKER: now it is there".to_owned(), json!(true), json!("default")),
        ]
    );
    let second = &harness.messages(1);
    assert_eq!(second.last().unwrap()["content"], "say MARKER", "the model got the hook's reason");
    let kinds: Vec<String> = lines(&path).iter().map(|l| l["type"].as_str().unwrap().to_owned()).collect();
    assert_eq!(kinds, ["user", "assistant", "user", "assistant"]);
}

#[tokio::test]
async fn post_tool_hooks_get_the_structured_response_beside_the_models_text() {
    let harness = Harness::new([
        calls(vec![
            call("c1", "Write", r#"{"file_path":"a.txt","content":"one\n"}"#),
            call("c2", "Edit", r#"{"file_path":"a.txt","old_string":"one","new_string":"two"}"#),
            call("c3", "Bash", r#"{"command":"cat a.txt; echo err >&2"}"#),
        ]),
        text("ok"),
    ]);
    let (hook, seen) = recorder();
    harness.hook("recorder", [Event::PostToolExecution, Event::PreToolExecution], hook);
    let mut session = harness.session().await;
    session.send("go").await.unwrap();
    let root = harness.dir.canonicalize().unwrap();
    let file = root.join("a.txt").display().to_string();
    let after = seen.contexts(Event::PostToolExecution);
    assert_eq!(after.len(), 3);
    assert_eq!(after[0].tool_result.as_ref().unwrap().for_llm, format!("File created successfully at: {file}"));
    assert_eq!(
        after[0].extra["tool_response"],
        json!({"type": "create", "filePath": file, "content": "one\n", "structuredPatch": [], "originalFile": null})
    );
    let edit = &after[1].extra["tool_response"];
    assert_eq!(
        (&edit["filePath"], &edit["oldString"], &edit["newString"], &edit["replaceAll"], &edit["originalFile"]),
        (&json!(file), &json!("one"), &json!("two"), &json!(false), &json!("one\n"))
    );
    assert_eq!(after[2].tool_result.as_ref().unwrap().for_llm, "two\n[stderr]\nerr\n");
    assert_eq!(after[2].extra["tool_response"]["stdout"], "two\n");
    assert_eq!(after[2].extra["tool_response"]["stderr"], "err\n");
    for context in seen.contexts(Event::PreToolExecution) {
        assert_eq!(context.extra["permission_mode"], "default");
        assert!(context.extra.get("transcript_path").is_none(), "no transcript was asked for");
    }
}

#[tokio::test]
async fn a_restored_session_appends_to_its_transcript_and_starts_as_a_resume() {
    let harness = Harness::new([text("first"), text("second")]);
    let path = harness.dir.join("transcript.jsonl");
    let (hook, seen) = recorder();
    harness.hook("recorder", [Event::SessionStart], hook);
    let mut session = harness.agent().session(SessionConfig::new("s1", &harness.dir).transcript(&path)).await;
    session.send("one").await.unwrap();
    let state: SessionState = session.state();
    session.close().await;
    let (mut session, _) = Session::restore_with(&harness.agent(), state, Some(path.clone())).await;
    session.send("two").await.unwrap();
    let lines = lines(&path);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[2]["parentUuid"], lines[1]["uuid"], "the chain goes on across the resume");
    let sources: Vec<Value> = seen.contexts(Event::SessionStart).iter().map(|c| c.extra["source"].clone()).collect();
    assert_eq!(sources, [json!("startup"), json!("resume")]);
    assert_eq!(seen.contexts(Event::SessionStart)[1].extra["transcript_path"], json!(path.display().to_string()));
}

/// The transcript holds the whole conversation: another user of the machine reads none of it.
/// The directories made for it are `0700` and the file `0600` (even under a permissive umask).
#[tokio::test]
async fn the_transcript_and_its_directories_are_private() {
    use std::os::unix::fs::PermissionsExt as _;

    let harness = Harness::new([text("done")]);
    let path = harness.dir.join("state/sessions/s1/transcript.jsonl");
    let mut session = harness.agent().session(SessionConfig::new("s1", &harness.dir).transcript(&path)).await;
    session.send("go").await.unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600, "the transcript file");
    for dir in ["state", "state/sessions", "state/sessions/s1"] {
        assert_eq!(mode(&harness.dir.join(dir)), 0o700, "{dir}");
    }
}
