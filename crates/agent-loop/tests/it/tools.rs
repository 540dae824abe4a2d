//! The built-in tools: bash's timeout kills the whole process group and its output is capped;
//! file tools stay inside the working directory; bad calls are error results, not crashes.

use crate::common;

use std::time::{Duration, Instant};

use agent_loop::{
    ToolContext,
    tools::{BashTool, ListDirTool, ReadFileTool, Tool, WriteFileTool},
};
use common::{Harness, call, calls, temp_dir, text};
use nix::{sys::signal::kill, unistd::Pid};
use serde_json::json;

#[tokio::test]
async fn a_bash_timeout_kills_the_whole_process_group() {
    let dir = temp_dir("bash");
    let ctx = ToolContext::new(&dir, "t");
    let started = Instant::now();
    let result = BashTool::default()
        .execute(json!({"command": "sleep 30 & echo $! > bg.pid; sleep 30", "timeout": 500}), &ctx)
        .await;
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert!(result.is_error());
    assert!(result.for_llm.contains("did not finish within"), "{}", result.for_llm);
    let pid: i32 = std::fs::read_to_string(dir.join("bg.pid")).unwrap().trim().parse().unwrap();
    // The background child was in the group: it is gone (or a zombie about to be reaped by init).
    let until = Instant::now() + Duration::from_secs(2);
    while kill(Pid::from_raw(pid), None).is_ok() && Instant::now() < until {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat.split_whitespace().nth(2) == Some("Z") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    assert!(stat.is_empty() || stat.split_whitespace().nth(2) == Some("Z"), "background sleep survived: {stat}");
}

#[tokio::test]
async fn bash_output_is_capped_and_failures_carry_the_status() {
    let dir = temp_dir("bash-cap");
    let ctx = ToolContext::new(&dir, "t");
    let tool = BashTool { output_cap: 100, ..BashTool::default() };
    let result = tool.execute(json!({"command": "head -c 100000 /dev/zero | tr '\\0' a"}), &ctx).await;
    assert!(!result.is_error());
    assert!(result.for_llm.starts_with(&"a".repeat(100)));
    assert!(result.for_llm.contains("[stdout cut at 100 bytes]"));
    let failed = tool.execute(json!({"command": "echo oops >&2; exit 7"}), &ctx).await;
    assert!(failed.is_error());
    assert!(failed.for_llm.starts_with("exit status 7"), "{}", failed.for_llm);
    assert!(failed.for_llm.contains("oops"));
    let missing = tool.execute(json!({}), &ctx).await;
    assert!(missing.is_error() && missing.for_llm.contains("`command`"));
}

#[tokio::test]
async fn file_tools_stay_inside_the_working_directory() {
    let root = temp_dir("fs");
    let dir = root.join("work");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(root.join("secret.txt"), "secret").unwrap();
    let ctx = ToolContext::new(&dir, "t");
    let written = WriteFileTool.execute(json!({"path": "sub/a.txt", "content": "hi"}), &ctx).await;
    assert!(!written.is_error(), "{}", written.for_llm);
    assert_eq!(ReadFileTool.execute(json!({"path": "sub/a.txt"}), &ctx).await.for_llm, "hi");
    assert_eq!(ListDirTool.execute(json!({"path": "."}), &ctx).await.for_llm, "sub/");
    for path in ["../secret.txt", "sub/../../secret.txt", root.join("secret.txt").to_str().unwrap()] {
        let result = ReadFileTool.execute(json!({"path": path}), &ctx).await;
        assert!(result.is_error(), "{path} was read: {}", result.for_llm);
        assert!(result.for_llm.contains("outside the working directory"), "{}", result.for_llm);
    }
    let escaped = WriteFileTool.execute(json!({"path": "../evil.txt", "content": "x"}), &ctx).await;
    assert!(escaped.is_error());
    assert!(!root.join("evil.txt").exists());
}

#[tokio::test]
async fn unknown_tools_and_invalid_arguments_are_error_results_for_the_model() {
    let harness =
        Harness::new([calls(vec![call("c1", "no_such_tool", "{}"), call("c2", "read_file", "{not json")]), text("ok")]);
    let mut session = harness.session().await;
    let report = session.send("go").await.unwrap();
    assert!(harness.tool_message(1, "c1").starts_with("unknown tool `no_such_tool`"));
    assert!(harness.tool_message(1, "c2").contains("not valid JSON"));
    assert!(report.tools.iter().all(|t| t.is_error));
    assert_eq!(report.reply, "ok");
}

#[tokio::test]
async fn the_legacy_and_the_claude_file_tools_share_their_file_operations_but_keep_their_texts() {
    use agent_loop::tools::{LsTool, ReadTool, WriteTool};

    let dir = temp_dir("legacy");
    let root = dir.canonicalize().unwrap();
    let ctx = ToolContext::new(&dir, "t");
    // Same writes, each tool's own answer.
    let wrote = WriteFileTool.execute(json!({"path": "a/one.txt", "content": "héllo"}), &ctx).await;
    assert_eq!(wrote.for_llm, format!("wrote 6 bytes to {}", root.join("a/one.txt").display()));
    let wrote = WriteTool.execute(json!({"file_path": "a/two.txt", "content": "x\ny"}), &ctx).await;
    assert_eq!(wrote.for_llm, format!("File created successfully at: {}", root.join("a/two.txt").display()));
    // Same reads and listings.
    assert_eq!(ReadFileTool.execute(json!({"path": "a/one.txt"}), &ctx).await.for_llm, "héllo");
    assert_eq!(
        ReadTool::default().execute(json!({"file_path": "a/two.txt"}), &ctx).await.for_llm,
        "     1\tx\n     2\ty\n"
    );
    assert_eq!(ListDirTool.execute(json!({"path": "a"}), &ctx).await.for_llm, "one.txt\ntwo.txt");
    assert_eq!(LsTool.execute(json!({"path": "."}), &ctx).await.for_llm, "a/");
    // Writing over a directory: write_file's own message.
    let failed = WriteFileTool.execute(json!({"path": "a", "content": ""}), &ctx).await;
    assert!(failed.is_error());
    let text = &failed.for_llm;
    assert!(text.starts_with(&format!("write_file: cannot write {}: ", root.join("a").display())), "{text}");
    let parent = root.join("a/one.txt");
    // Listing a file fails with each tool's prefix.
    let failed = ListDirTool.execute(json!({"path": "a/one.txt"}), &ctx).await;
    assert!(failed.for_llm.starts_with(&format!("list_dir: cannot list {}: ", parent.display())), "{}", failed.for_llm);
    let failed = LsTool.execute(json!({"path": "a/one.txt"}), &ctx).await;
    assert!(failed.for_llm.starts_with(&format!("LS: cannot list {}: ", parent.display())), "{}", failed.for_llm);
    // Confinement errors name the tool.
    let outside = ReadFileTool.execute(json!({"path": "../x"}), &ctx).await;
    assert!(outside.for_llm.starts_with("read_file: `../x` is outside the working directory"), "{}", outside.for_llm);
    std::fs::remove_dir_all(&dir).ok();
}
