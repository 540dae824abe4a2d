//! The built-in tools in Claude Code's vocabulary: what they do, their structured responses, and
//! an attacker's attempts to leave the working directory (`..`, absolute paths, a symbolic link
//! to /etc, a dangling link, a link swapped in for a file).

use crate::common;

use agent_loop::{
    ToolContext, ToolRegistry,
    tools::{EditTool, GlobTool, GrepTool, LsTool, ReadTool, Tool, WriteTool},
};
use common::temp_dir;
use serde_json::{Value, json};

/// A project directory with a file, a subdirectory, and a secret beside (outside) it.
fn project() -> (std::path::PathBuf, std::path::PathBuf, ToolContext) {
    let root = temp_dir("claude-tools");
    let dir = root.join("project");
    std::fs::create_dir_all(dir.join("src/deep")).unwrap();
    std::fs::write(dir.join("README.md"), "# title\nhello world\n").unwrap();
    std::fs::write(dir.join("src/main.rs"), "fn main() {\n    println!(\"hello\");\n}\n").unwrap();
    std::fs::write(dir.join("src/deep/lib.rs"), "pub fn hello() {}\n").unwrap();
    std::fs::write(root.join("secret.txt"), "the secret\n").unwrap();
    let ctx = ToolContext::new(&dir, "t");
    (root, dir, ctx)
}

async fn run(tool: &dyn Tool, args: Value, ctx: &ToolContext) -> (bool, String, Option<Value>) {
    let output = tool.execute_structured(args, ctx).await;
    (output.result.is_error(), output.result.for_llm, output.response)
}

#[test]
fn the_builtins_are_offered_by_claude_codes_names_and_the_old_ones_still_answer() {
    let tools = ToolRegistry::with_builtins();
    assert_eq!(
        tools.names().collect::<Vec<_>>(),
        ["Bash", "Edit", "Glob", "Grep", "LS", "Read", "Write", "register_hook"]
    );
    for legacy in ["bash", "read_file", "write_file", "list_dir"] {
        assert!(tools.get(legacy).is_some(), "{legacy} is no longer accepted");
    }
    let read_only: Vec<&str> = tools.names().filter(|n| tools.get(n).unwrap().is_read_only()).collect();
    assert_eq!(read_only, ["Glob", "Grep", "LS", "Read"]);
    assert!(!tools.get("bash").unwrap().is_read_only() && !tools.get("write_file").unwrap().is_read_only());
}

#[tokio::test]
async fn read_numbers_lines_and_pages_with_offset_and_limit() {
    let (_root, dir, ctx) = project();
    let (is_error, text, response) = run(&ReadTool::default(), json!({"file_path": "README.md"}), &ctx).await;
    assert!(!is_error);
    assert_eq!(text, "     1\t# title\n     2\thello world\n");
    let response = response.unwrap();
    assert_eq!(response["type"], "text");
    assert_eq!(response["file"]["filePath"], dir.canonicalize().unwrap().join("README.md").display().to_string());
    assert_eq!(response["file"]["totalLines"], 2);
    let (_, text, _) =
        run(&ReadTool::default(), json!({"file_path": "src/main.rs", "offset": 2, "limit": 1}), &ctx).await;
    assert_eq!(text, "     2\t    println!(\"hello\");\n[lines 2-2 of 3; read on with offset 3]");
    let absolute = dir.join("README.md").display().to_string();
    let (is_error, _, _) = run(&ReadTool::default(), json!({"file_path": absolute}), &ctx).await;
    assert!(!is_error, "an absolute path inside the project is fine");
}

#[tokio::test]
async fn write_and_edit_report_as_claude_code_does() {
    let (_root, dir, ctx) = project();
    let file = dir.canonicalize().unwrap().join("notes/a.txt").display().to_string();
    let (is_error, text, response) =
        run(&WriteTool, json!({"file_path": "notes/a.txt", "content": "one two one\n"}), &ctx).await;
    assert!(!is_error, "{text}");
    assert_eq!(text, format!("File created successfully at: {file}"));
    assert_eq!(response.unwrap()["type"], "create");
    let (_, _, response) = run(&WriteTool, json!({"file_path": "notes/a.txt", "content": "one two one\n"}), &ctx).await;
    assert_eq!(response.unwrap()["type"], "update");

    let edit = |args: Value| run(&EditTool, args, &ctx);
    let (is_error, text, _) = edit(json!({"file_path": "notes/a.txt", "old_string": "one", "new_string": "1"})).await;
    assert!(is_error && text.contains("occurs 2 times"), "{text}");
    let (is_error, text, _) = edit(json!({"file_path": "notes/a.txt", "old_string": "zzz", "new_string": "1"})).await;
    assert!(is_error && text.contains("not found"), "{text}");
    let (is_error, _, response) =
        edit(json!({"file_path": "notes/a.txt", "old_string": "one", "new_string": "1", "replace_all": true})).await;
    assert!(!is_error);
    assert_eq!(std::fs::read_to_string(dir.join("notes/a.txt")).unwrap(), "1 two 1\n");
    let response = response.unwrap();
    assert_eq!(response["replaceAll"], true);
    assert_eq!(response["originalFile"], "one two one\n");
    assert_eq!(response["filePath"], file);
    let (is_error, _, _) = edit(json!({"file_path": "new.txt", "old_string": "", "new_string": "fresh"})).await;
    assert!(!is_error);
    assert_eq!(std::fs::read_to_string(dir.join("new.txt")).unwrap(), "fresh");
}

#[tokio::test]
async fn glob_grep_and_ls_search_inside_the_project() {
    let (_root, dir, ctx) = project();
    let root = dir.canonicalize().unwrap();
    let (_, text, response) = run(&GlobTool::default(), json!({"pattern": "**/*.rs"}), &ctx).await;
    let mut found: Vec<&str> = text.lines().collect();
    found.sort();
    let expected = [root.join("src/deep/lib.rs"), root.join("src/main.rs")];
    assert_eq!(found, expected.iter().map(|p| p.to_str().unwrap()).collect::<Vec<_>>());
    assert_eq!(response.unwrap()["numFiles"], 2);
    let (_, text, _) = run(&GlobTool::default(), json!({"pattern": "*.rs", "path": "src"}), &ctx).await;
    assert_eq!(text, root.join("src/main.rs").display().to_string());

    let (_, text, response) = run(&GrepTool::default(), json!({"pattern": "hello", "glob": "*.rs"}), &ctx).await;
    assert!(text.starts_with("Found 2 files"), "{text}");
    assert_eq!(response.unwrap()["mode"], "files_with_matches");
    let (_, text, _) = run(
        &GrepTool::default(),
        json!({"pattern": "HELLO", "-i": true, "output_mode": "content", "path": "README.md"}),
        &ctx,
    )
    .await;
    assert_eq!(text, format!("{}:2:hello world", root.join("README.md").display()));
    let (is_error, text, _) = run(&GrepTool::default(), json!({"pattern": "(unclosed"}), &ctx).await;
    assert!(is_error && text.contains("not a valid regular expression"), "{text}");

    let (_, text, _) = run(&LsTool, json!({}), &ctx).await;
    assert_eq!(text, "README.md\nsrc/");
}

#[tokio::test]
async fn an_attacker_cannot_leave_the_working_directory() {
    let (root, dir, ctx) = project();
    std::os::unix::fs::symlink("/etc", dir.join("etc")).unwrap();
    std::os::unix::fs::symlink(root.join("secret.txt"), dir.join("innocent.txt")).unwrap();
    std::os::unix::fs::symlink(root.join("planted.txt"), dir.join("dangling.txt")).unwrap();
    let secret = root.join("secret.txt").display().to_string();
    let outside_paths = [
        "../secret.txt",
        "src/../../secret.txt",
        "./src/deep/../../../secret.txt",
        secret.as_str(),
        "/etc/passwd",
        "etc/passwd",
        "etc",
        "innocent.txt",
    ];
    for path in outside_paths {
        let (is_error, text, _) = run(&ReadTool::default(), json!({"file_path": path}), &ctx).await;
        assert!(is_error, "Read {path} escaped: {text}");
        assert!(!text.contains("the secret") && !text.contains("root:"), "{text}");
        let (is_error, text, _) = run(&WriteTool, json!({"file_path": path, "content": "pwned"}), &ctx).await;
        assert!(is_error, "Write {path} escaped: {text}");
        let (is_error, text, _) =
            run(&EditTool, json!({"file_path": path, "old_string": "the secret", "new_string": "pwned"}), &ctx).await;
        assert!(is_error, "Edit {path} escaped: {text}");
    }
    // A dangling link to a file outside must not be written through.
    let (is_error, text, _) = run(&WriteTool, json!({"file_path": "dangling.txt", "content": "pwned"}), &ctx).await;
    assert!(is_error, "{text}");
    assert!(!root.join("planted.txt").exists());
    let (is_error, _, _) =
        run(&EditTool, json!({"file_path": "dangling.txt", "old_string": "", "new_string": "pwned"}), &ctx).await;
    assert!(is_error);
    assert!(!root.join("planted.txt").exists());
    assert_eq!(std::fs::read_to_string(root.join("secret.txt")).unwrap(), "the secret\n");
    for dir_arg in ["..", "etc", "/etc", secret.as_str()] {
        for tool in [&GlobTool::default() as &dyn Tool, &GrepTool::default(), &LsTool] {
            let (is_error, text, _) = run(tool, json!({"pattern": ".", "path": dir_arg}), &ctx).await;
            assert!(is_error, "{} with path {dir_arg} escaped: {text}", tool.name());
        }
    }
    // Walks do not follow links out of the project.
    let (_, text, _) = run(&GrepTool::default(), json!({"pattern": "secret|root"}), &ctx).await;
    assert_eq!(text, "No files found");
    let (_, text, _) = run(&GlobTool::default(), json!({"pattern": "**/*"}), &ctx).await;
    assert!(!text.contains("passwd") && !text.contains("innocent"), "{text}");
}

/// A FIFO in the project: reading it would wait for a writer forever, writing it for a reader.
/// Every file tool refuses it at once, saying what it is; `Grep` passes it by.
#[tokio::test]
async fn a_fifo_is_refused_by_every_file_tool_without_waiting() {
    use agent_loop::tools::{ReadFileTool, WriteFileTool};

    let (root, dir, ctx) = project();
    nix::unistd::mkfifo(&dir.join("pipe"), nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let read = ReadTool::default();
    let calls: [(&dyn Tool, Value); 5] = [
        (&read, json!({"file_path": "pipe"})),
        (&ReadFileTool, json!({"path": "pipe"})),
        (&EditTool, json!({"file_path": "pipe", "old_string": "a", "new_string": "b"})),
        (&WriteTool, json!({"file_path": "pipe", "content": "x"})),
        (&WriteFileTool, json!({"path": "pipe", "content": "x"})),
    ];
    for (tool, args) in calls {
        let name = tool.name().to_owned();
        let output = tokio::time::timeout(std::time::Duration::from_secs(10), tool.execute(args, &ctx))
            .await
            .unwrap_or_else(|_| panic!("{name} waited on the FIFO"));
        assert!(output.is_error(), "{name}: {}", output.for_llm);
        assert!(output.for_llm.contains("named pipe (FIFO), not a regular file"), "{name}: {}", output.for_llm);
    }
    let grep_tool = GrepTool::default();
    let grep = grep_tool.execute(json!({"pattern": "hello", "output_mode": "count"}), &ctx);
    let grep = tokio::time::timeout(std::time::Duration::from_secs(10), grep).await.expect("Grep waited on the FIFO");
    assert!(grep.for_llm.contains("README.md:1"), "{}", grep.for_llm);
    std::fs::remove_dir_all(&root).ok();
}
