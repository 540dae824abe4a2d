//! One view of a tool call for every hook: the tool input as an object, the tool's class, the
//! shell command and the paths the call touches, derived from each agent's own input shape.
//!
//! The tables below are data: which tools each agent (and hookwire's own agents) has, and what
//! kind of work each does. `hookwire check` uses the same tables to spot matchers that name a
//! tool in the wrong case.

use std::path::{Component, Path, PathBuf};

use crate::{
    Context, ToolClass, ToolView,
    serde_json::{Map, Value},
};

use ToolClass::{Edit, Fetch, List, Other, Read, Search, Shell, Write};

/// The tools of one agent, by the name its hooks see, with their class.
#[derive(Debug, Clone, Copy)]
pub struct AgentTools {
    /// The agent (`Claude Code`, `Gemini CLI`, `Codex`, `hookwire`).
    pub agent: &'static str,
    /// Tool name and class.
    pub tools: &'static [(&'static str, ToolClass)],
}

/// Claude Code's built-in tools.
const CLAUDE: &[(&str, ToolClass)] = &[
    ("Bash", Shell),
    ("BashOutput", Other),
    ("KillShell", Other),
    ("Read", Read),
    ("Write", Write),
    ("Edit", Edit),
    ("MultiEdit", Edit),
    ("NotebookEdit", Edit),
    ("NotebookRead", Read),
    ("Glob", Search),
    ("Grep", Search),
    ("LS", List),
    ("WebFetch", Fetch),
    ("WebSearch", Fetch),
    ("Task", Other),
    ("Agent", Other),
    ("TaskOutput", Other),
    ("TaskStop", Other),
    ("TodoWrite", Other),
    ("ExitPlanMode", Other),
    ("SlashCommand", Other),
    ("Skill", Other),
];

/// Gemini CLI's built-in tools.
const GEMINI: &[(&str, ToolClass)] = &[
    ("run_shell_command", Shell),
    ("read_file", Read),
    ("read_many_files", Read),
    ("write_file", Write),
    ("replace", Edit),
    ("glob", Search),
    ("search_file_content", Search),
    ("list_directory", List),
    ("web_fetch", Fetch),
    ("google_web_search", Fetch),
    ("save_memory", Other),
    ("write_todos", Other),
];

/// Codex's tools.
const CODEX: &[(&str, ToolClass)] = &[
    ("shell", Shell),
    ("local_shell", Shell),
    ("exec_command", Shell),
    ("container.exec", Shell),
    ("write_stdin", Other),
    ("apply_patch", Edit),
    ("view_image", Read),
    ("web_search", Fetch),
    ("update_plan", Other),
    ("spawn_agent", Other),
];

/// GitHub Copilot CLI's tools, as its 1.0.102 offers them (its shell tool is `bash`, with
/// `{"command", "description"}`; the file tools take an absolute `path`; with GPT-like models
/// `create` / `edit` give way to `apply_patch` and `grep` is called `rg`).
const COPILOT: &[(&str, ToolClass)] = &[
    ("bash", Shell),
    ("read_bash", Other),
    ("stop_bash", Other),
    ("list_bash", Other),
    ("view", Read),
    ("create", Write),
    ("edit", Edit),
    ("apply_patch", Edit),
    ("grep", Search),
    ("rg", Search),
    ("glob", Search),
    ("fetch_copilot_cli_documentation", Other),
    ("skill", Other),
    ("sql", Other),
    ("session_store_sql", Other),
    ("task", Other),
    ("read_agent", Other),
    ("list_agents", Other),
    ("write_agent", Other),
];

/// The tools of hookwire's own agent loop, PicoClaw and j-cli.
const HOOKWIRE: &[(&str, ToolClass)] = &[
    ("exec", Shell),
    ("read_file", Read),
    ("write_file", Write),
    ("edit_file", Edit),
    ("append_file", Write),
    ("list_dir", List),
    ("web_fetch", Fetch),
    ("web_search", Fetch),
];

/// Every agent's tools, the Claude Code family first.
pub const AGENT_TOOLS: &[AgentTools] = &[
    AgentTools { agent: "Claude Code", tools: CLAUDE },
    AgentTools { agent: "Gemini CLI", tools: GEMINI },
    AgentTools { agent: "Codex", tools: CODEX },
    AgentTools { agent: "Copilot CLI", tools: COPILOT },
    AgentTools { agent: "hookwire", tools: HOOKWIRE },
];

/// The members of a tool input that name a file or directory, in the order they are read.
const PATH_KEYS: [&str; 5] = ["file_path", "notebook_path", "absolute_path", "path", "dir_path"];

/// The class of the tool named `tool_name` in any agent's table ([`ToolClass::Other`] if unknown).
pub fn tool_class(tool_name: &str) -> ToolClass {
    AGENT_TOOLS
        .iter()
        .flat_map(|agent| agent.tools)
        .find(|(name, _)| *name == tool_name)
        .map_or(Other, |(_, class)| *class)
}

/// Every known tool name, each once.
pub fn known_tool_names() -> impl Iterator<Item = &'static str> {
    AGENT_TOOLS
        .iter()
        .flat_map(|agent| agent.tools.iter().map(|(name, _)| *name))
        .enumerate()
        .filter(|(i, name)| {
            !AGENT_TOOLS.iter().flat_map(|agent| agent.tools.iter().map(|(n, _)| *n)).take(*i).any(|n| n == *name)
        })
        .map(|(_, name)| name)
}

/// The view of the call in `context`; `None` when it names no tool.
pub fn tool_view(context: &Context) -> Option<ToolView> {
    let tool = context.tool_name.as_deref()?;
    let class = tool_class(tool);
    // Parsed once and moved: a 1 MiB argument is not copied again.
    let (input, raw) = match context.tool_arguments_value() {
        Some(Value::Object(input)) => (input, None),
        Some(Value::String(text)) => (Map::new(), Some(text)),
        _ => (Map::new(), None),
    };
    let cwd = context.cwd.as_deref();
    let mut paths = Vec::new();
    let mut command = None;
    if tool == "apply_patch" {
        // Codex sends the patch as `{"command": "*** Begin Patch ..."}` (or `input`/`patch`),
        // or, for its freeform tool, as the raw text.
        let text = raw
            .as_deref()
            .or_else(|| ["command", "input", "patch"].iter().find_map(|key| input.get(*key).and_then(Value::as_str)));
        for path in text.into_iter().flat_map(patch_paths) {
            push_path(&mut paths, path, cwd);
        }
    } else if class == Shell {
        command = shell_command(&input);
    } else if class != Fetch {
        for key in PATH_KEYS {
            if let Some(path) = input.get(key).and_then(Value::as_str) {
                push_path(&mut paths, path, cwd);
            }
        }
        // Gemini CLI's `read_many_files` lists its files (or globs) in `paths`.
        for path in input.get("paths").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            push_path(&mut paths, path, cwd);
        }
    }
    Some(ToolView { input, class, command, paths })
}

/// Sets [`Context::tool`] from the call the context names (clears it when it names none).
pub fn refresh_tool_view(context: &mut Context) {
    context.tool = tool_view(context);
}

/// The command of a shell tool: `command` as a string or as a list of words joined with spaces
/// (Codex `shell`), or `cmd` (Codex `exec_command`).
fn shell_command(input: &Map<String, Value>) -> Option<String> {
    match input.get("command").or_else(|| input.get("cmd"))? {
        Value::String(command) => Some(command.clone()),
        Value::Array(words) => {
            // An argv runs without a shell: each word is one argument, so each is quoted for the
            // shell reader (`["bash", "-lc", "rm -rf ~"]` is `bash -lc 'rm -rf ~'`, not a `bash
            // -lc rm` followed by two more words).
            let words: Vec<String> = words.iter().filter_map(Value::as_str).map(shell_quoted).collect();
            Some(words.join(" "))
        }
        _ => None,
    }
}

/// `word` as one shell word: as it is when no character in it means anything to a shell, else
/// in single quotes.
fn shell_quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The paths a Codex patch names: `*** Add File: p`, `*** Update File: p`, `*** Delete File: p`
/// and `*** Move to: p`.
fn patch_paths(patch: &str) -> impl Iterator<Item = &str> {
    const HEADERS: [&str; 4] = ["*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "];
    patch.lines().filter_map(|line| {
        let line = line.trim_end_matches('\r');
        HEADERS.iter().find_map(|header| line.strip_prefix(header)).map(str::trim).filter(|path| !path.is_empty())
    })
}

/// Appends `path` made absolute against `cwd` (when it is relative and `cwd` is known), unless
/// it is already listed.
fn push_path(paths: &mut Vec<String>, path: &str, cwd: Option<&str>) {
    if path.is_empty() {
        return;
    }
    let path = absolute(path, cwd);
    if !paths.contains(&path) {
        paths.push(path);
    }
}

/// `path` joined to `cwd` when relative, with `.` and `..` resolved lexically (symlinks are not
/// followed: the file may not exist yet). `~` paths are kept as they are.
fn absolute(path: &str, cwd: Option<&str>) -> String {
    let joined = match cwd {
        Some(cwd) if !path.starts_with('/') && !path.starts_with('~') => Path::new(cwd).join(path),
        _ => PathBuf::from(path),
    };
    if !joined.is_absolute() {
        return path.to_owned();
    }
    let mut clean = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    clean.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serde_json::json;

    fn view(tool: &str, arguments: Value) -> ToolView {
        let text = match arguments {
            Value::String(text) => text,
            other => other.to_string(),
        };
        let context = Context {
            tool_name: Some(tool.into()),
            tool_arguments: Some(text),
            cwd: Some("/project".into()),
            ..Context::default()
        };
        tool_view(&context).expect("a tool is named")
    }

    #[test]
    fn claude_code_inputs() {
        let bash = view("Bash", json!({"command": "rm -rf build", "description": "clean"}));
        assert_eq!((bash.class, bash.command.as_deref()), (Shell, Some("rm -rf build")));
        assert!(bash.paths.is_empty());
        assert_eq!(bash.input["description"], "clean");
        let cases = [
            ("Read", json!({"file_path": "/project/src/a.rs", "offset": 3}), Read, "/project/src/a.rs"),
            ("Write", json!({"file_path": "/project/b.txt", "content": "x"}), Write, "/project/b.txt"),
            ("Edit", json!({"file_path": "/p/c.rs", "old_string": "a", "new_string": "b"}), Edit, "/p/c.rs"),
            ("MultiEdit", json!({"file_path": "/p/d.rs", "edits": []}), Edit, "/p/d.rs"),
            ("NotebookEdit", json!({"notebook_path": "/p/n.ipynb", "new_source": ""}), Edit, "/p/n.ipynb"),
            ("Glob", json!({"pattern": "**/*.rs", "path": "/p/src"}), Search, "/p/src"),
            ("Grep", json!({"pattern": "TODO", "path": "src"}), Search, "/project/src"),
            ("LS", json!({"path": "/p"}), List, "/p"),
        ];
        for (tool, input, class, path) in cases {
            let v = view(tool, input);
            assert_eq!((v.class, v.paths.as_slice(), v.command.as_deref()), (class, &[path.to_owned()][..], None));
        }
        let fetch = view("WebFetch", json!({"url": "https://x.io", "prompt": "sum", "path": "/not/a/file"}));
        assert_eq!((fetch.class, fetch.paths.len()), (Fetch, 0));
    }

    #[test]
    fn gemini_cli_inputs() {
        let shell = view("run_shell_command", json!({"command": "ls -la", "description": "list", "dir_path": "x"}));
        assert_eq!((shell.class, shell.command.as_deref()), (Shell, Some("ls -la")));
        let cases = [
            ("read_file", json!({"absolute_path": "/p/a.txt"}), Read, vec!["/p/a.txt"]),
            ("read_file", json!({"file_path": "a.txt"}), Read, vec!["/project/a.txt"]),
            ("write_file", json!({"file_path": "/p/b.txt", "content": "x"}), Write, vec!["/p/b.txt"]),
            ("replace", json!({"file_path": "/p/c", "old_string": "a", "new_string": "b"}), Edit, vec!["/p/c"]),
            ("list_directory", json!({"dir_path": "sub"}), List, vec!["/project/sub"]),
            ("glob", json!({"pattern": "*.md", "dir_path": "/p/docs"}), Search, vec!["/p/docs"]),
            ("search_file_content", json!({"pattern": "x", "path": "./lib"}), Search, vec!["/project/lib"]),
            ("read_many_files", json!({"paths": ["a.md", "/p/b.md"]}), Read, vec!["/project/a.md", "/p/b.md"]),
            ("google_web_search", json!({"query": "rust"}), Fetch, vec![]),
            ("save_memory", json!({"fact": "x"}), Other, vec![]),
        ];
        for (tool, input, class, paths) in cases {
            let v = view(tool, input);
            assert_eq!((v.class, v.paths.iter().map(String::as_str).collect::<Vec<_>>()), (class, paths), "{tool}");
        }
    }

    #[test]
    fn codex_inputs_and_a_patch_of_three_files() {
        let shell = view("shell", json!({"command": ["bash", "-lc", "git status"], "workdir": "/p"}));
        assert_eq!((shell.class, shell.command.as_deref()), (Shell, Some("bash -lc 'git status'")));
        // Each argv word stays one word, whatever it holds.
        let words = view("shell", json!({"command": ["bash", "-lc", "rm -rf ~", "it's", "", "a~b"]}));
        assert_eq!(words.command.as_deref(), Some(r#"bash -lc 'rm -rf ~' 'it'\''s' '' 'a~b'"#));
        let exec = view("exec_command", json!({"cmd": "cargo test", "workdir": "/p"}));
        assert_eq!((exec.class, exec.command.as_deref()), (Shell, Some("cargo test")));
        let patch = "*** Begin Patch\n*** Add File: docs/new.md\n+hello\n*** Update File: src/lib.rs\n\
                     *** Move to: src/core.rs\n@@\n-a\n+b\n*** Delete File: /abs/old.txt\n*** End Patch\n";
        let expected = ["/project/docs/new.md", "/project/src/lib.rs", "/project/src/core.rs", "/abs/old.txt"];
        let v = view("apply_patch", json!({ "command": patch }));
        assert_eq!((v.class, v.command.as_deref()), (Edit, None));
        assert_eq!(v.paths, expected);
        // The freeform tool's raw patch text, with CRLF line ends.
        let v = view("apply_patch", Value::String(patch.replace('\n', "\r\n")));
        assert_eq!(v.paths, expected);
        assert!(v.input.is_empty());
    }

    #[test]
    fn copilot_cli_inputs() {
        let bash = view("bash", json!({"command": "touch pwned", "description": "make a file"}));
        assert_eq!((bash.class, bash.command.as_deref()), (Shell, Some("touch pwned")));
        let cases = [
            ("view", json!({"path": "src/a.rs"}), Read, "/project/src/a.rs"),
            ("create", json!({"path": "/p/b.txt", "file_text": "x"}), Write, "/p/b.txt"),
            ("edit", json!({"path": "c.rs", "old_str": "a", "new_str": "b"}), Edit, "/project/c.rs"),
        ];
        for (tool, input, class, path) in cases {
            let v = view(tool, input);
            assert_eq!((v.class, v.paths.as_slice()), (class, &[path.to_owned()][..]), "{tool}");
        }
        assert_eq!(tool_class("Bash"), tool_class("bash"), "one class for Claude Code's and Copilot's shell");
    }

    #[test]
    fn relative_paths_resolve_against_cwd_lexically() {
        assert_eq!(absolute("a/./b/../c.txt", Some("/w/p")), "/w/p/a/c.txt");
        assert_eq!(absolute("../etc/passwd", Some("/w/p")), "/w/etc/passwd");
        assert_eq!(absolute("/x/y", Some("/w")), "/x/y");
        assert_eq!(absolute("rel", None), "rel");
        assert_eq!(absolute("~/x", Some("/w")), "~/x");
    }

    #[test]
    fn unknown_tools_and_no_tool() {
        let v = view("mcp__db__query", json!({"sql": "select 1", "path": "q.sql"}));
        assert_eq!((v.class, v.paths.as_slice()), (Other, &["/project/q.sql".to_owned()][..]));
        let v = view("Bash", Value::String("not json".into()));
        assert_eq!((v.class, v.command, v.input.len()), (Shell, None, 0));
        assert_eq!(tool_view(&Context::default()), None);
    }

    #[test]
    fn known_names_are_listed_once() {
        let names: Vec<&str> = known_tool_names().collect();
        assert!(names.contains(&"Bash") && names.contains(&"run_shell_command") && names.contains(&"apply_patch"));
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
    }
}
