//! `hookwire trust`: show a project's hooks with every command and every file they run (with
//! its hash), ask, and record trust.

use std::{
    io::{BufRead, IsTerminal, Write},
    path::{Path, PathBuf},
};

use clap::Args;
use hook_core::{HookDefinition, HookId, HookSpec};
use hook_protocol::config::SandboxPolicy;
use hook_trust::{FileTrustStore, ProjectReport, TrustRecord, TrustStore, review};

use crate::{Format, discover};

#[derive(Debug, Args)]
pub(crate) struct TrustArgs {
    /// List every trust record.
    #[arg(long, conflicts_with_all = ["revoke", "yes"])]
    list: bool,
    /// Revoke the trust record of the project.
    #[arg(long, conflicts_with = "yes")]
    revoke: bool,
    /// Record the trust without asking. Without it hookwire asks on the terminal, and refuses
    /// when there is none: read the listing first.
    #[arg(long, short = 'y')]
    yes: bool,
    /// Trust the project only sandboxed: every hook of it, of every dialect, runs with
    /// `sandbox: required` (its own policy, else the default: write the project, temp and
    /// scratch directories, no network); where Landlock cannot enforce that, the hook fails.
    #[arg(long, conflicts_with_all = ["list", "revoke"])]
    sandboxed: bool,
    /// The project directory (default: the nearest directory with `.hookwire/`, `.jcli/` or an
    /// agent's settings file such as `.claude/settings.json`).
    dir: Option<PathBuf>,
    /// Output format. With `json`, trusting needs `--yes` (nothing is asked).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// A trust record as JSON: root, when, and each file with its hash.
fn record_json(record: &hook_trust::TrustRecord) -> serde_json::Value {
    let files: serde_json::Map<String, serde_json::Value> =
        record.files.iter().map(|(file, hash)| (file.display().to_string(), hash.clone().into())).collect();
    serde_json::json!({
        "root": record.root.display().to_string(),
        "trusted_at": record.trusted_at,
        "sandboxed": record.sandboxed,
        "files": files,
    })
}

pub(crate) fn run(args: TrustArgs) -> u8 {
    let Some(store_path) = discover::trust_store_path() else {
        eprintln!("error: cannot find the user configuration directory (set HOME or XDG_CONFIG_HOME)");
        return 2;
    };
    let store = FileTrustStore::new(store_path);
    if args.list {
        let records = match store.try_list() {
            Ok(records) => records,
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        };
        if args.format == Format::Json {
            outln!("{}", serde_json::Value::Array(records.iter().map(record_json).collect()));
            return 0;
        }
        for record in records {
            let only = if record.sandboxed { ", only sandboxed" } else { "" };
            outln!("{}  (trusted {}{only})", record.root.display(), record.trusted_at);
            for (file, hash) in &record.files {
                outln!("  {hash}  {}", file.display());
            }
        }
        return 0;
    }
    let start = args.dir.unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
    let start = start.canonicalize().unwrap_or(start);
    let Some(root) = discover::project_root(&start) else {
        eprintln!(
            "error: no `.hookwire/`, `.jcli/` or agent settings file (`.claude/settings.json`, ...) in {} or above it",
            start.display()
        );
        return 2;
    };
    if args.revoke && args.format == Format::Json {
        return match store.revoke(&root) {
            Ok(revoked) => {
                outln!("{}", serde_json::json!({"root": root.display().to_string(), "revoked": revoked}));
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                2
            }
        };
    }
    if args.revoke {
        return match store.revoke(&root) {
            Ok(true) => {
                outln!("revoked trust for {}", root.display());
                0
            }
            Ok(false) => {
                outln!("{} was not trusted", root.display());
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                2
            }
        };
    }
    let report = match review(&root, &discover::project_sources(&root)) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if args.format == Format::Json {
        let record = TrustRecord { sandboxed: args.sandboxed, ..report.record() };
        let mut out = record_json(&record);
        out["recorded"] = args.yes.into();
        if args.yes
            && let Err(e) = store.put(record)
        {
            eprintln!("error: {e}");
            return 2;
        }
        outln!("{out}");
        return if args.yes { 0 } else { 1 };
    }
    show(&report, args.sandboxed);
    if !args.yes {
        match ask(&report.root) {
            Answer::Yes => {}
            Answer::No => {
                outln!("not trusted: nothing was recorded");
                return 1;
            }
            Answer::NoTerminal => {
                eprintln!(
                    "error: not recorded: there is no terminal to ask on; read the list above and run `hookwire trust --yes {}`",
                    report.root.display()
                );
                return 2;
            }
        }
    }
    match store.put(TrustRecord { sandboxed: args.sandboxed, ..report.record() }) {
        Ok(()) => {
            let how = if args.sandboxed { " sandboxed" } else { "" };
            outln!("trusted: these hooks will run{how} until one of these files changes");
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

/// The listing: each hook with its command, the files it runs and their hashes, what cannot
/// be told; then every file of the record.
fn show(report: &ProjectReport, sandboxed: bool) {
    let root = &report.root;
    let relative = |path: &Path| path.strip_prefix(root).unwrap_or(path).display().to_string();
    outln!("project {}", root.display());
    let mut n_undetermined = 0;
    for hook in &report.hooks {
        let spec = &hook.spec;
        let ids: Vec<String> =
            spec.events.iter().map(|event| HookId::new(spec.level, &spec.name, *event).to_string()).collect();
        let mut at = relative(&spec.source.file);
        if let Some(line) = spec.source.line {
            at.push_str(&format!(":{line}"));
            if let Some(column) = spec.source.column {
                at.push_str(&format!(":{column}"));
            }
        }
        outln!("  hook {} ({})  {at}", ids.join(", "), spec.kind);
        for (label, text) in what_it_runs(spec) {
            let mut lines = text.lines();
            outln!("    {label}: {}", lines.next().unwrap_or_default());
            for line in lines {
                outln!("      {line}");
            }
        }
        let sandbox = match spec.sandbox.clone() {
            _ if sandboxed => Some(SandboxPolicy::required(spec.sandbox.clone())),
            Some(policy) if policy.is_on() => Some(policy),
            _ => None,
        };
        match sandbox {
            Some(policy) => outln!("    sandbox: {}", policy.summary()),
            None => outln!("    sandbox: off (runs with your permissions)"),
        }
        for file in &hook.files.files {
            outln!("    runs {}  {}", report.value_of(file).unwrap_or("?"), relative(file));
        }
        for file in &hook.files.absent {
            outln!(
                "    runs {}  {} (missing: creating it withdraws the trust)",
                report.value_of(file).unwrap_or("absent"),
                relative(file)
            );
        }
        for dir in hook.files.dirs.iter().filter(|dir| !hook.files.dirs.iter().any(|d| d != *dir && dir.starts_with(d)))
        {
            outln!("    every file of {}/ (a file added there withdraws the trust)", relative(dir));
        }
        for note in &hook.files.undetermined {
            n_undetermined += 1;
            outln!("    cannot tell: {note}");
        }
    }
    outln!("files and their SHA-256:");
    for (file, hash) in &report.files {
        outln!("  {hash}  {}", file.display());
    }
    if n_undetermined > 0 {
        outln!(
            "note: hookwire cannot tell every file {n_undetermined} command part(s) above run (`cannot tell`); \
             read them yourself: trust covers only the files listed"
        );
    }
}

/// The command, prompt or URL of a hook as written, with a label.
fn what_it_runs(spec: &HookSpec) -> Vec<(&'static str, String)> {
    let mut shown = Vec::new();
    match &spec.definition {
        HookDefinition::Command(def) => {
            if let Some(command) = &def.command {
                shown.push(("command", command.clone()));
            }
            if let Some(prompt) = &def.prompt {
                shown.push(("prompt", prompt.clone()));
            }
        }
        HookDefinition::Process(def) => {
            shown.push(("command", def.command.iter().map(|arg| quoted(arg)).collect::<Vec<_>>().join(" ")));
            if let Some(dir) = &def.dir {
                shown.push(("dir", dir.clone()));
            }
        }
        HookDefinition::Agent(def) => {
            let handler = &def.handler;
            if let Some(command) = &handler.command {
                let mut text = command.clone();
                for arg in handler.args.iter().flatten() {
                    text.push(' ');
                    text.push_str(&quoted(arg));
                }
                shown.push(("command", text));
            }
            for (label, value) in [("url", &handler.url), ("prompt", &handler.prompt)] {
                if let Some(value) = value {
                    shown.push((label, value.clone()));
                }
            }
        }
        _ => {}
    }
    if let Some(dir) = &spec.work_dir {
        shown.push(("runs in", dir.display().to_string()));
    }
    shown
}

/// `arg` as a shell word.
fn quoted(arg: &str) -> String {
    let is_plain = !arg.is_empty()
        && arg.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | '+' | ','));
    if is_plain { arg.to_owned() } else { format!("'{}'", arg.replace('\'', r"'\''")) }
}

enum Answer {
    Yes,
    No,
    NoTerminal,
}

/// Asks on the terminal whether to trust the project.
fn ask(root: &Path) -> Answer {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Answer::NoTerminal;
    }
    eprint!(
        "Trust these hooks? They will run with your permissions whenever hookwire runs in {}. [y/N] ",
        root.display()
    );
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    if stdin.lock().read_line(&mut line).is_err() {
        return Answer::No;
    }
    if matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes") { Answer::Yes } else { Answer::No }
}
