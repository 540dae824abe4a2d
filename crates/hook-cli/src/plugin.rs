//! `hookwire plugin build --agent claude|gemini|codex|copilot --out DIR`: hookwire packaged as
//! the agent's plugin (a Claude Code marketplace, a Gemini CLI extension, a Codex marketplace, a
//! Copilot CLI marketplace), so that the agent's own plugin commands install the bridge entries
//! `hookwire install` would write into a settings file.
//!
//! Every file comes from here: the entries from `install`'s event lists and entry writer, the
//! launcher from `plugin_launcher.sh`. The plugins kept in the repository (`plugins/<agent>/`)
//! are this command's output, and a test holds them to it byte for byte.
//!
//! The entries run a POSIX sh launcher shipped in the plugin (`bin/hookwire-hook AGENT`) and not
//! `hookwire` directly: a plugin installed without hookwire on PATH would otherwise fail on
//! every event with "command not found", which the agents treat as a hook error (Copilot even
//! denies every tool call with no reason). The launcher says instead what is missing and how to
//! install it or disable the plugin.

use std::{
    fs, io,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
};

use clap::{Args, Subcommand, ValueEnum};
use hook_protocol::Agent;

use crate::install::{self, Json};

/// The plugin's name, in every manifest and in the install commands (`hookwire@hookwire`).
const NAME: &str = "hookwire";

/// What the manifests say the plugin is.
const DESCRIPTION: &str = "Runs every hook hookwire is configured with (guards, rules, j-cli, PicoClaw and agent \
                           hooks) as this agent's hooks, through the hookwire command on PATH.";

/// The launcher every entry runs (see the module's comment).
const LAUNCHER: &str = include_str!("plugin_launcher.sh");

/// Where the launcher is, relative to the plugin's root.
const LAUNCHER_PATH: &str = "bin/hookwire-hook";

#[derive(Debug, Args)]
pub(crate) struct PluginArgs {
    #[command(subcommand)]
    command: PluginCommand,
}

#[derive(Debug, Subcommand)]
enum PluginCommand {
    /// Write hookwire as the agent's plugin into DIR (docs/plugins.md), and print the commands
    /// that install it.
    Build(BuildArgs),
}

#[derive(Debug, Args)]
struct BuildArgs {
    /// The agent: `claude`, `gemini`, `codex` or `copilot`.
    #[arg(long, value_enum)]
    agent: Target,
    /// The directory to write (created; a previous build there is replaced).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Write into DIR although it holds other files (they are kept; ours are overwritten).
    #[arg(long)]
    force: bool,
}

/// The agent a plugin is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Target {
    Claude,
    Gemini,
    Codex,
    Copilot,
}

impl Target {
    /// The plugin's root inside the build directory, and the placeholder the agent replaces
    /// with that root's installed path (or sets in the hook's environment).
    fn root_and_placeholder(self) -> (&'static str, &'static str) {
        match self {
            Target::Claude => ("plugins/hookwire/", "${CLAUDE_PLUGIN_ROOT}"),
            Target::Gemini => ("", "${extensionPath}"),
            Target::Codex => ("plugins/hookwire/", "${PLUGIN_ROOT}"),
            Target::Copilot => ("plugins/hookwire/", "${PLUGIN_ROOT}"),
        }
    }

    /// The manifest a build always writes: it tells a previous build from other files.
    fn manifest(self) -> &'static str {
        match self {
            Target::Claude => ".claude-plugin/marketplace.json",
            Target::Gemini => "gemini-extension.json",
            Target::Codex => ".agents/plugins/marketplace.json",
            Target::Copilot => ".github/plugin/marketplace.json",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Target::Claude => "claude",
            Target::Gemini => "gemini",
            Target::Codex => "codex",
            Target::Copilot => "copilot",
        }
    }
}

/// One file of a build.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PluginFile {
    /// Relative to the build directory.
    path: String,
    text: String,
    executable: bool,
}

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
enum BuildError {
    #[error(
        "{0} is not empty and is not a previous `hookwire plugin build` (no hookwire manifest in it): \
         choose an empty or new directory, or pass --force to write into it anyway"
    )]
    NotABuild(PathBuf),
    #[error("{0} is not a directory")]
    NotADirectory(PathBuf),
    #[error("cannot write the plugin: {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// `io::Error` at `path` as a [`BuildError`].
fn at(path: &Path) -> impl FnOnce(io::Error) -> BuildError + '_ {
    move |source| BuildError::Io { path: path.to_owned(), source }
}

fn string(text: &str) -> Json {
    Json::String(text.to_owned())
}

/// The command an entry runs: the launcher, through `sh` (an agent's copy of the plugin may lose
/// the executable bit), with the agent's name.
fn launcher_command(target: Target, args: &str) -> String {
    let (_, placeholder) = target.root_and_placeholder();
    format!("sh \"{placeholder}/{LAUNCHER_PATH}\" {}{args}", target.name())
}

/// The hooks file of the plugin: one catch-all entry per event, as `hookwire install` writes.
fn hooks_file(target: Target) -> Json {
    let agent = match target {
        Target::Claude => Agent::Claude,
        Target::Gemini => Agent::Gemini,
        Target::Codex => Agent::Codex,
        Target::Copilot => {
            // Copilot's own shape, with the events `hookwire install copilot` writes: a plugin's
            // hooks file is read like a repository's, so every event loads there too.
            // `hookwire hook copilot --event <name>` answers each (Copilot's input carries no
            // event name, so the entry names it). A timeout lets the tool run in Copilot (it
            // fails open), so the entry's is long and hookwire's own deadline decides first.
            let events = install::events_for(Agent::Copilot)
                .into_iter()
                .map(|event| {
                    let command = launcher_command(target, &format!(" --event {event}"));
                    let handler = Json::Object(vec![
                        ("type", string("command")),
                        ("bash", Json::String(command)),
                        ("timeoutSec", Json::Number(install::ENTRY_TIMEOUT_SECS)),
                    ]);
                    (event, Json::Array(vec![handler]))
                })
                .collect();
            return Json::Object(vec![("version", Json::Number(1)), ("hooks", Json::Object(events))]);
        }
    };
    let command = launcher_command(target, "");
    let events =
        install::events_for(agent).into_iter().map(|event| (event, Json::Array(vec![install::entry(agent, &command)])));
    let hooks = ("hooks", Json::Object(events.collect()));
    if target == Target::Codex {
        // Codex refuses a plugin hooks file with any root key but these two.
        Json::Object(vec![("description", string(DESCRIPTION)), hooks])
    } else {
        Json::Object(vec![hooks])
    }
}

/// A marketplace file in Claude Code's shape (Copilot CLI reads the same).
fn claude_marketplace(version: &str) -> Json {
    Json::Object(vec![
        ("name", string(NAME)),
        ("owner", Json::Object(vec![("name", string(NAME))])),
        ("metadata", Json::Object(vec![("description", string("hookwire, the lifecycle hook engine, as a plugin"))])),
        (
            "plugins",
            Json::Array(vec![Json::Object(vec![
                ("name", string(NAME)),
                ("source", string("./plugins/hookwire")),
                ("description", string(DESCRIPTION)),
                ("version", string(version)),
            ])]),
        ),
    ])
}

/// A plugin manifest: name, version, description, author.
fn plugin_manifest(version: &str) -> Json {
    Json::Object(vec![
        ("name", string(NAME)),
        ("version", string(version)),
        ("description", string(DESCRIPTION)),
        ("author", Json::Object(vec![("name", string(NAME))])),
    ])
}

/// Every file of the plugin for `target`, at version `version`.
fn files(target: Target, version: &str) -> Vec<PluginFile> {
    let (root, _) = target.root_and_placeholder();
    let json = |path: &str, value: &Json| PluginFile {
        path: path.to_owned(),
        text: install::render_new(value),
        executable: false,
    };
    let mut files = match target {
        Target::Claude => vec![
            json(".claude-plugin/marketplace.json", &claude_marketplace(version)),
            json("plugins/hookwire/.claude-plugin/plugin.json", &plugin_manifest(version)),
        ],
        Target::Gemini => vec![json(
            "gemini-extension.json",
            &Json::Object(vec![
                ("name", string(NAME)),
                ("version", string(version)),
                ("description", string(DESCRIPTION)),
            ]),
        )],
        Target::Codex => vec![
            json(
                ".agents/plugins/marketplace.json",
                &Json::Object(vec![
                    ("name", string(NAME)),
                    ("interface", Json::Object(vec![("displayName", string(NAME))])),
                    (
                        "plugins",
                        Json::Array(vec![Json::Object(vec![
                            ("name", string(NAME)),
                            (
                                "source",
                                Json::Object(vec![("source", string("local")), ("path", string("./plugins/hookwire"))]),
                            ),
                            (
                                "policy",
                                Json::Object(vec![
                                    ("installation", string("AVAILABLE")),
                                    ("authentication", string("ON_INSTALL")),
                                ]),
                            ),
                            ("category", string("Coding")),
                        ])]),
                    ),
                ]),
            ),
            json("plugins/hookwire/.codex-plugin/plugin.json", &plugin_manifest(version)),
        ],
        Target::Copilot => vec![
            json(".github/plugin/marketplace.json", &claude_marketplace(version)),
            json("plugins/hookwire/plugin.json", &plugin_manifest(version)),
        ],
    };
    files.push(json(&format!("{root}hooks/hooks.json"), &hooks_file(target)));
    files.push(PluginFile { path: format!("{root}{LAUNCHER_PATH}"), text: LAUNCHER.to_owned(), executable: true });
    files
}

/// Whether `dir` holds a previous build (of any agent): one of the manifests, naming hookwire.
fn is_previous_build(dir: &Path) -> bool {
    [Target::Claude, Target::Gemini, Target::Codex, Target::Copilot].iter().any(|target| {
        fs::read_to_string(dir.join(target.manifest()))
            .ok()
            .and_then(|text| hook_protocol::serde_json::from_str::<hook_protocol::serde_json::Value>(&text).ok())
            .is_some_and(|value| value["name"] == NAME)
    })
}

/// Writes `files` under `dir` (created), each file through a temporary file and a rename.
fn write_files(dir: &Path, files: &[PluginFile]) -> Result<(), BuildError> {
    for file in files {
        let path = dir.join(&file.path);
        let parent = path.parent().unwrap_or(dir);
        fs::create_dir_all(parent).map_err(at(parent))?;
        let temporary =
            parent.join(format!(".{}.hookwire-tmp", path.file_name().unwrap_or_default().to_string_lossy()));
        fs::write(&temporary, &file.text).map_err(at(&temporary))?;
        let mode = if file.executable { 0o755 } else { 0o644 };
        fs::set_permissions(&temporary, fs::Permissions::from_mode(mode)).map_err(at(&temporary))?;
        fs::rename(&temporary, &path).map_err(at(&path))?;
    }
    Ok(())
}

/// Writes the build into `out`. A new, empty or previously built `out` is replaced as a whole
/// (the build is written beside it, then renamed into place, so no stale file of an older build
/// stays); with `force`, the files are written into a foreign directory, whose other files stay;
/// the current directory is written in place.
fn build(out: &Path, files: &[PluginFile], force: bool) -> Result<PathBuf, BuildError> {
    let existing = match fs::symlink_metadata(out) {
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(BuildError::Io { path: out.to_owned(), source: e }),
    };
    let out = if existing {
        // Its real path: a link to a directory is built where it points, and the link stays;
        // `.` or `..` get a name.
        fs::canonicalize(out).map_err(at(out))?
    } else {
        let parent = match out.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        fs::create_dir_all(parent).map_err(at(parent))?;
        fs::canonicalize(parent).map_err(at(parent))?.join(out.file_name().unwrap_or_default())
    };
    if existing {
        if !out.is_dir() {
            return Err(BuildError::NotADirectory(out));
        }
        let empty = fs::read_dir(&out).map_err(at(&out))?.next().is_none();
        let previous = !empty && is_previous_build(&out);
        if !empty && !previous && !force {
            return Err(BuildError::NotABuild(out));
        }
        // Someone's directory (with --force), or the one we are in (renaming it away would
        // leave this shell in a deleted directory): the files are written in place.
        let is_cwd = std::env::current_dir().ok().and_then(|cwd| fs::canonicalize(cwd).ok()).as_ref() == Some(&out);
        if (!empty && !previous) || is_cwd {
            write_files(&out, files)?;
            return Ok(out);
        }
    }
    let base = out.parent().unwrap_or(Path::new("/")).to_owned();
    let stem = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let staging = base.join(format!(".{stem}.hookwire-build-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    let staged = write_files(&staging, files);
    if let Err(e) = staged {
        let _ = fs::remove_dir_all(&staging);
        return Err(e);
    }
    if existing {
        let old = base.join(format!(".{stem}.hookwire-old-{}", std::process::id()));
        let _ = fs::remove_dir_all(&old);
        fs::rename(&out, &old).map_err(at(&out))?;
        if let Err(e) = fs::rename(&staging, &out) {
            let _ = fs::rename(&old, &out);
            let _ = fs::remove_dir_all(&staging);
            return Err(BuildError::Io { path: out, source: e });
        }
        let _ = fs::remove_dir_all(&old);
    } else if let Err(e) = fs::rename(&staging, &out) {
        let _ = fs::remove_dir_all(&staging);
        return Err(BuildError::Io { path: out, source: e });
    }
    Ok(out)
}

/// The commands that install a build at `dir`, for people to run.
fn next_commands(target: Target, dir: &Path) -> Vec<String> {
    let dir = install::shell_word(&dir.display().to_string());
    match target {
        Target::Claude => vec![
            format!("claude plugin validate {dir}"),
            format!("claude plugin marketplace add {dir}"),
            "claude plugin install hookwire@hookwire".to_owned(),
        ],
        Target::Gemini => vec![
            format!("gemini extensions validate {dir}"),
            format!("gemini extensions install {dir}    # or: gemini extensions link {dir}"),
        ],
        Target::Codex => {
            vec![format!("codex plugin marketplace add {dir}"), "codex plugin add hookwire@hookwire".to_owned()]
        }
        Target::Copilot => {
            vec![format!("copilot plugin marketplace add {dir}"), "copilot plugin install hookwire@hookwire".to_owned()]
        }
    }
}

/// `hookwire plugin ...`: the exit code.
pub(crate) fn run(args: &PluginArgs) -> u8 {
    let PluginCommand::Build(args) = &args.command;
    let files = files(args.agent, env!("CARGO_PKG_VERSION"));
    match build(&args.out, &files, args.force) {
        Ok(dir) => {
            outln!(
                "wrote the {} plugin of hookwire {} into {}:",
                args.agent.name(),
                env!("CARGO_PKG_VERSION"),
                dir.display()
            );
            for file in &files {
                outln!("  {}", file.path);
            }
            outln!("install it with:");
            for command in next_commands(args.agent, &dir) {
                outln!("  {command}");
            }
            outln!(
                "its hooks run the hookwire on PATH (`hookwire --version` checks it); without one they say so \
                 and deny tool calls (docs/plugins.md)"
            );
            0
        }
        Err(e) => {
            eprintln!("hookwire plugin build: {e}");
            2
        }
    }
}
