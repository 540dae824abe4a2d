//! Which project files a hook runs ([`files_run`]), and their state on disk: hashed with a
//! fixed buffer, with the file's identity and times for a cheap re-check.

use std::{
    collections::HashSet,
    ffi::OsString,
    fs,
    io::{self, Read},
    os::unix::fs::MetadataExt,
    path::{Component, Path, PathBuf},
    time::SystemTime,
};

use hook_protocol::config::HookKind;
use sha2::{Digest, Sha256};

use hook_core::{HookDefinition, HookSpec};
use hook_shell::{self as shell, Analysis, Named, Role, Vars};

/// What a hook runs, as far as hookwire can tell before it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilesRun {
    /// Project files it runs or names (absolute, under the project root), in the order found:
    /// the files its command names, then every file of its own folder.
    pub files: Vec<PathBuf>,
    /// Project paths it would run that do not exist: creating one withdraws the trust.
    pub absent: Vec<PathBuf>,
    /// Its own folders (a directory hook's, the agents' `.claude/hooks/`, a process's `dir`),
    /// every file of which is in [`FilesRun::files`]: a file added there withdraws the trust.
    pub dirs: Vec<PathBuf>,
    /// What hookwire cannot determine, one line each: a command substitution, a variable other
    /// than the project-directory ones, `eval`, a pattern, a path after `cd` to an unknown place,
    /// a link out of the project.
    pub undetermined: Vec<String>,
}

/// How many files one folder walk covers at most.
const MAX_WALK_FILES: usize = 10_000;
/// How deep a folder walk goes.
const MAX_WALK_DEPTH: usize = 64;

/// Where and with what a spec's command is read: its working directory, the variables known,
/// `PATH` and its own folders.
struct Setting {
    path: Vec<PathBuf>,
    own_dirs: Vec<PathBuf>,
    analysis: Analysis,
}

/// `$HOME`, when set.
fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|home| !home.is_empty()).map(PathBuf::from)
}

/// The directories of a `PATH` value.
fn path_dirs(value: Option<&str>) -> Vec<PathBuf> {
    match value {
        Some(value) => std::env::split_paths(value).collect(),
        None => std::env::var_os("PATH").map(|path| std::env::split_paths(&path).collect()).unwrap_or_default(),
    }
}

/// `path` joined to `base` when relative.
fn joined(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() { path.to_owned() } else { base.join(path) }
}

fn setting(spec: &HookSpec, root: &Path) -> Option<Setting> {
    let home = home();
    let work_dir = spec.work_dir.clone().unwrap_or_else(|| root.to_owned());
    let mut vars = Vars::default();
    if let Some(home) = &home {
        vars.set("HOME", home.display().to_string());
    }
    match &spec.definition {
        HookDefinition::Command(def) if def.kind == HookKind::Bash => {
            let hook_dir = spec.dir.as_ref().map(|dir| dir.display().to_string()).unwrap_or_default();
            let cwd_text = work_dir.display().to_string();
            for prefix in ["JCLI", "HOOKWIRE"] {
                vars.set(&format!("{prefix}_HOOK_DIR"), hook_dir.clone());
                vars.set(&format!("{prefix}_CWD"), cwd_text.clone());
                if let Some(event) = spec.events.first() {
                    vars.set(&format!("{prefix}_HOOK_EVENT"), event.as_str());
                }
            }
            vars.set("PWD", cwd_text);
            for (name, value) in &spec.env {
                vars.set(name, value.clone());
            }
            let mut path: Vec<PathBuf> = spec.dir.iter().cloned().collect();
            path.extend(path_dirs(spec.env.get("PATH").map(String::as_str)));
            let command = def.command.as_deref().unwrap_or_default();
            let analysis = shell::analyze_shell(command, &work_dir, &vars, home.as_deref());
            Some(Setting { path, own_dirs: spec.dir.iter().cloned().collect(), analysis })
        }
        HookDefinition::Process(def) => {
            let cwd = match &def.dir {
                Some(dir) => joined(&work_dir, Path::new(dir)),
                None => work_dir,
            };
            let mut env = spec.env.clone();
            env.extend(def.env.clone().unwrap_or_default());
            for (name, value) in &env {
                vars.set(name, value.clone());
            }
            let path = path_dirs(env.get("PATH").map(String::as_str));
            let analysis = shell::analyze_argv(&def.command, &cwd, &vars, home.as_deref());
            // A process's own `dir` is its folder (its modules); the project root is not.
            let own_dirs = if def.dir.is_some() { vec![cwd.clone()] } else { Vec::new() };
            Some(Setting { path, own_dirs, analysis })
        }
        HookDefinition::Agent(def) => {
            let root_text = root.display().to_string();
            for name in ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"] {
                vars.set(name, root_text.clone());
            }
            if let Some(plugin) = &def.plugin_root {
                for name in ["CLAUDE_PLUGIN_ROOT", "PLUGIN_ROOT"] {
                    vars.set(name, plugin.display().to_string());
                }
            }
            for (name, value) in &spec.env {
                vars.set(name, value.clone());
            }
            let own_dirs = [".claude/hooks", ".gemini/hooks", ".codex/hooks"].iter().map(|d| root.join(d)).collect();
            let cwd = root.to_owned();
            let path = path_dirs(spec.env.get("PATH").map(String::as_str));
            let command = def.handler.command.as_deref().unwrap_or_default();
            let analysis = if spec.kind != "command" {
                Analysis::default()
            } else if let Some(args) = &def.handler.args {
                // Exec form: no shell; `${VAR}` of the project and plugin are substituted.
                let substitute = |text: &str| {
                    let mut text = text.to_owned();
                    for name in ["CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT"] {
                        if let Some(value) = vars.get(name) {
                            text = text.replace(&format!("${{{name}}}"), value);
                        }
                    }
                    text
                };
                let argv: Vec<String> =
                    std::iter::once(command).chain(args.iter().map(String::as_str)).map(substitute).collect();
                shell::analyze_argv(&argv, &cwd, &vars, home.as_deref())
            } else {
                shell::analyze_shell(command, &cwd, &vars, home.as_deref())
            };
            Some(Setting { path, own_dirs, analysis })
        }
        _ => None,
    }
}

/// What `spec` can be seen to run before it runs, without touching the disk: the parts of its
/// command hookwire cannot determine.
pub fn undetermined(spec: &HookSpec, root: &Path) -> Vec<String> {
    setting(spec, root).map(|setting| setting.analysis.undetermined).unwrap_or_default()
}

/// The project files `spec` runs, its missing ones, its own folders, and what cannot be
/// determined; `root` is its project root.
///
/// The command is split like `sh` splits it (see the `shell` module): every word that names a
/// project file is covered (`./guard.sh`, `python3 -X dev tools/x.py`, `FOO=1 sh ./g.sh`,
/// `cd hooks && ./x.sh`, `. ./lib.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`), relative
/// to the directory the hook runs in ([`HookSpec::work_dir`], else `root`); a program without a
/// `/` is looked up on `PATH` (a directory hook's folder first). Every file of the hook's own
/// folder is covered too, at any depth, following symbolic links that stay in the project.
/// Programs outside the project (`/usr/bin/python3`, `~/bin/x`) are not the project's to
/// vouch for and are left out.
pub fn files_run(spec: &HookSpec, root: &Path) -> FilesRun {
    let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
    let Some(setting) = setting(spec, &root) else { return FilesRun::default() };
    let mut run = FilesRun { undetermined: setting.analysis.undetermined.clone(), ..FilesRun::default() };
    let is_dir_hook = spec.dir.is_some();
    let mut walked: Vec<PathBuf> = Vec::new();
    for dir in &setting.own_dirs {
        let Some(dir) = in_project(&root, dir) else { continue };
        if dir == root || !dir.is_dir() {
            continue;
        }
        // A directory hook's HOOK.yaml is its config, hashed as such.
        let skip: &[&str] =
            if is_dir_hook && spec.dir.as_deref() == Some(dir.as_path()) { &["HOOK.yaml", "HOOK.yml"] } else { &[] };
        walk(&root, &dir, skip, &mut run);
        walked.push(dir);
    }
    let is_walked = |path: &Path| walked.iter().any(|dir| path.starts_with(dir));
    let mut named_files = Vec::new();
    // The folders of the scripts the command runs: a script's helpers are found next to it
    // (`$(dirname "$0")/lib/x.sh`), which no reading of the command can follow.
    let mut script_dirs: Vec<PathBuf> = Vec::new();
    let mut note_script_dir = |root: &Path, path: &Path| {
        if let Some(file) = in_project(root, path).filter(|file| file.is_file())
            && let Some(dir) = file.parent()
            && dir != root
            && !script_dirs.iter().any(|known| known == dir)
        {
            script_dirs.push(dir.to_owned());
        }
    };
    for named in &setting.analysis.named {
        match named {
            Named::Path { path, role } => {
                consider(&root, path, *role, &mut named_files, &mut run);
                if *role == Role::Run {
                    note_script_dir(&root, path);
                }
            }
            Named::Directory { path } => consider(&root, path, Role::Argument, &mut named_files, &mut run),
            Named::Program { name, cwd } => {
                for dir in &setting.path {
                    let candidate = joined(cwd, dir).join(name);
                    let Some(in_root) = in_project(&root, &candidate) else { continue };
                    if !is_walked(&in_root) {
                        consider(&root, &candidate, Role::Run, &mut named_files, &mut run);
                        note_script_dir(&root, &candidate);
                    }
                }
                // Files the program reads without being told (`make` reads the Makefile).
                for file in implicit_files(name) {
                    consider(&root, &cwd.join(file), Role::Run, &mut named_files, &mut run);
                }
            }
        }
    }
    for dir in script_dirs {
        if !walked.iter().any(|known| dir.starts_with(known)) {
            walk_bounded(&root, &dir, &[], MAX_SCRIPT_DIR_FILES, &mut run);
            walked.push(dir);
        }
    }
    let is_walked = |path: &Path| walked.iter().any(|dir| path.starts_with(dir));
    // Named files first, in the order the command names them; then the folders' files.
    let walked_files = std::mem::take(&mut run.files);
    run.files = named_files;
    for file in walked_files {
        if !run.files.contains(&file) {
            run.files.push(file);
        }
    }
    run.absent.retain(|path| !is_walked(path));
    // What the scripts themselves source from outside the folders covered: shown, since no
    // reading of the command can follow it.
    for file in run.files.clone() {
        for note in sourced_from_outside(&root, &file, &walked) {
            if !run.undetermined.contains(&note) {
                run.undetermined.push(note);
            }
        }
    }
    run
}

/// The largest script whose `source` lines are read.
const MAX_SCRIPT_BYTES: u64 = 256 << 10;

/// Notes for the files a shell script sources (`source X`, `. X`) that hookwire does not cover:
/// a path leaving the script's folder (`$(dirname "$0")/../../lib.sh`), or one it cannot tell
/// (a variable, a command substitution other than the script's own folder).
fn sourced_from_outside(root: &Path, script: &Path, walked: &[PathBuf]) -> Vec<String> {
    let is_shell = script.extension().is_some_and(|ext| ext == "sh" || ext == "bash");
    let Ok(meta) = fs::metadata(script) else { return Vec::new() };
    if meta.len() > MAX_SCRIPT_BYTES {
        return Vec::new();
    }
    let Ok(text) = fs::read_to_string(script) else { return Vec::new() };
    let has_shell_shebang = text.starts_with("#!") && text.lines().next().is_some_and(|line| line.contains("sh"));
    if !is_shell && !has_shell_shebang {
        return Vec::new();
    }
    let rel = script.strip_prefix(root).unwrap_or(script).display().to_string();
    let dir = script.parent().unwrap_or(root);
    let mut notes = Vec::new();
    // The script is read by the one shell parser: its `source X` / `. X` commands, wherever
    // they are (a function, an `if`, after `&&`); one it cannot read is not covered either.
    let commands = match shell::invocations(&text) {
        Ok(commands) => commands,
        Err(error) => {
            return vec![format!(
                "`{rel}` cannot be read as a shell script ({error}), so what it sources is not known"
            )];
        }
    };
    for command in &commands {
        if !matches!(command.words.first().map(String::as_str), Some("source" | ".")) {
            continue;
        }
        let (Some(target), Some(value)) = (command.raw.get(1), command.words.get(1)) else { continue };
        // An expansion is matched as written (`$(dirname "$0")/x`), quotes aside.
        let unquoted = if target.contains(['$', '`']) { target.replace(['"', '\''], "") } else { value.clone() };
        // The script's own folder, however it is spelled.
        let own = ["$(dirname $0)", "$(dirname ${BASH_SOURCE[0]})", "${BASH_SOURCE%/*}", "${0%/*}"];
        let relative =
            own.iter().find_map(|prefix| unquoted.strip_prefix(prefix)).map(|tail| tail.trim_start_matches('/'));
        let reached = match relative {
            Some(tail) if !tail.contains('$') => Some(dir.join(tail)),
            Some(_) => None,
            None if unquoted.contains('$') || unquoted.contains('`') => None,
            None if unquoted.starts_with('/') => Some(PathBuf::from(&unquoted)),
            // Relative to where the hook runs: the project root.
            None => Some(root.join(&unquoted)),
        };
        let covered = reached
            .as_ref()
            .and_then(|path| in_project(root, path))
            .is_some_and(|path| walked.iter().any(|known| path.starts_with(known)));
        if !covered {
            notes.push(format!(
                "`{rel}` sources `{target}`, which trust does not cover (keep a hook's helpers in its folder)"
            ));
        }
    }
    notes
}

/// `path` as a path under `root`: its physical place when that is in the project, else the
/// place it is reached at when that is (a link out of the project); `None` when neither is.
fn in_project(root: &Path, path: &Path) -> Option<PathBuf> {
    if let Ok(canonical) = fs::canonicalize(path)
        && canonical.starts_with(root)
    {
        return Some(canonical);
    }
    let reached = physical_parent(path)?;
    reached.starts_with(root).then_some(reached)
}

/// `path` with its parent directory resolved (symbolic links followed, `.` and `..` applied)
/// and its last component kept as it is: the place a link is found at. For a path whose
/// directory does not exist, the longest existing ancestor is resolved and the rest applied.
fn physical_parent(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    let parent = path.parent()?;
    let mut rest: Vec<Component<'_>> = Vec::new();
    let mut base = parent;
    let resolved = loop {
        if let Ok(canonical) = fs::canonicalize(base) {
            break canonical;
        }
        rest.push(base.components().next_back()?);
        base = base.parent()?;
    };
    let mut resolved = resolved;
    for component in rest.into_iter().rev() {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(part) => resolved.push(part),
            _ => {}
        }
    }
    if name == ".." {
        resolved.pop();
        return Some(resolved);
    }
    Some(resolved.join(name))
}

/// Records `path` (named as `role`) when it is a project file, or a missing project path a
/// hook would run.
fn consider(root: &Path, path: &Path, role: Role, named: &mut Vec<PathBuf>, run: &mut FilesRun) {
    match fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => {
            if role == Role::Run
                && let Some(dir) = in_project(root, path)
            {
                let note = format!(
                    "`{}` is a directory: hookwire covers the files a command names, not what a program finds in a directory",
                    dir.strip_prefix(root).unwrap_or(&dir).display()
                );
                if !run.undetermined.contains(&note) {
                    run.undetermined.push(note);
                }
            }
        }
        Ok(_) => {
            if let Some(file) = in_project(root, path)
                && !named.contains(&file)
            {
                named.push(file);
            }
        }
        Err(_) if role == Role::Run => {
            if let Some(missing) = physical_parent(path).filter(|p| p.starts_with(root))
                && !run.absent.contains(&missing)
            {
                run.absent.push(missing);
            }
        }
        Err(_) => {}
    }
}

/// Every file under `dir` (already in the project), following links that stay in the project;
/// links out of it and folders too big are noted as undetermined.
fn walk(root: &Path, dir: &Path, skip: &[&str], run: &mut FilesRun) {
    walk_bounded(root, dir, skip, MAX_WALK_FILES, run);
}

/// How many files of a script's own folder are covered at most: the folder of a script a
/// command runs is covered whole, and it is hashed on every check.
const MAX_SCRIPT_DIR_FILES: usize = 1_000;

/// Files a program reads from its working directory without naming them, each a candidate
/// (all are recorded: creating one that is missing changes what the program does).
fn implicit_files(program: &str) -> &'static [&'static str] {
    match program {
        "make" | "gmake" => &["GNUmakefile", "makefile", "Makefile"],
        "just" => &["justfile", "Justfile", ".justfile"],
        "npm" | "pnpm" | "yarn" | "bun" => &["package.json"],
        "rake" => &["Rakefile", "rakefile"],
        "task" => &["Taskfile.yml", "Taskfile.yaml"],
        _ => &[],
    }
}

/// [`walk`], covering at most `max_files` files.
fn walk_bounded(root: &Path, dir: &Path, skip: &[&str], max_files: usize, run: &mut FilesRun) {
    let mut visited: HashSet<PathBuf> = HashSet::new();
    let mut n_files = 0;
    let mut stack = vec![(dir.to_owned(), 0_usize)];
    while let Some((current, depth)) = stack.pop() {
        let Ok(canonical) = fs::canonicalize(&current) else { continue };
        if !visited.insert(canonical) {
            continue;
        }
        run.dirs.push(current.clone());
        let Ok(entries) = fs::read_dir(&current) else { continue };
        let mut names: Vec<OsString> = entries.flatten().map(|entry| entry.file_name()).collect();
        names.sort();
        let mut subdirs = Vec::new();
        for name in names {
            let path = current.join(&name);
            if depth == 0 && skip.iter().any(|s| name == *s) {
                continue;
            }
            let Ok(link) = fs::symlink_metadata(&path) else { continue };
            let followed = if link.file_type().is_symlink() { fs::metadata(&path).ok() } else { Some(link.clone()) };
            let rel = path.strip_prefix(root).unwrap_or(&path).display().to_string();
            match followed {
                Some(meta) if meta.is_dir() => {
                    let inside = fs::canonicalize(&path).is_ok_and(|target| target.starts_with(root));
                    if !inside {
                        run.undetermined.push(format!("`{rel}` links to a folder outside the project: not covered"));
                    } else if depth + 1 >= MAX_WALK_DEPTH {
                        run.undetermined.push(format!("`{rel}` is nested too deep: not covered"));
                    } else {
                        subdirs.push((path, depth + 1));
                    }
                }
                _ if n_files >= max_files => {
                    run.undetermined.push(format!(
                        "`{}` holds more than {max_files} files: only the first are covered",
                        dir.strip_prefix(root).unwrap_or(dir).display()
                    ));
                    return;
                }
                // A file, a link to one (its content is hashed through the link), a dangling
                // link (recorded as missing), or a special file (recorded as such).
                _ => {
                    n_files += 1;
                    if !run.files.contains(&path) {
                        run.files.push(path);
                    }
                }
            }
        }
        // Depth first, in name order.
        stack.extend(subdirs.into_iter().rev());
    }
}

/// A file's identity and times: equal stats mean the content was not replaced or written since.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stat {
    pub(crate) fn of(metadata: &fs::Metadata) -> Stat {
        Stat {
            dev: metadata.dev(),
            ino: metadata.ino(),
            len: metadata.len(),
            mtime: (metadata.mtime(), metadata.mtime_nsec()),
            ctime: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }

    /// Whether the file changed within `margin` seconds before `when`: a write in the same
    /// clock tick as the read may leave the times as they were ("racily clean", as git says),
    /// so such a stat does not vouch for the content.
    pub(crate) fn is_racy(&self, when: SystemTime, margin: i64) -> bool {
        let when =
            when.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        self.mtime.0 >= when - margin || self.ctime.0 >= when - margin
    }
}

/// The record value of a path that does not exist.
pub(crate) const ABSENT: &str = "absent";
/// The record value of a path that is not a regular file.
pub(crate) const NOT_A_FILE: &str = "not-a-file";

/// The state of `path` as a record value (lowercase hex SHA-256, [`ABSENT`], [`NOT_A_FILE`],
/// `unreadable`) and, for a regular file read whole, its stat.
///
/// The file is read with a fixed 64 KiB buffer, so a 400 MB file costs 64 KiB of memory. It is
/// checked to be a regular file before it is opened (a FIFO would block the open) and after
/// (through the open descriptor); a file whose stat changed while it was read is read again.
pub(crate) fn hash_file(path: &Path) -> (String, Option<Stat>) {
    match fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() => return (NOT_A_FILE.to_owned(), None),
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => return (ABSENT.to_owned(), None),
        Err(_) => return ("unreadable".to_owned(), None),
    }
    for _ in 0..3 {
        match hash_once(path) {
            Ok(Some(done)) => return done,
            Ok(None) => continue,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return (ABSENT.to_owned(), None),
            Err(_) => return ("unreadable".to_owned(), None),
        }
    }
    ("unreadable".to_owned(), None)
}

/// One read of `path`; `None` when it changed while it was read.
fn hash_once(path: &Path) -> io::Result<Option<(String, Option<Stat>)>> {
    let mut file = fs::File::open(path)?;
    let before = file.metadata()?;
    if !before.is_file() {
        return Ok(Some((NOT_A_FILE.to_owned(), None)));
    }
    let mut hasher = Sha256::new();
    let mut buffer = vec![0_u8; 64 * 1024];
    loop {
        let n = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        hasher.update(&buffer[..n]);
    }
    let after = file.metadata()?;
    let stat = Stat::of(&after);
    if Stat::of(&before) != stat {
        return Ok(None);
    }
    Ok(Some((hook_config::hex(&hasher.finalize()), Some(stat))))
}

/// The names in `dir`, sorted; `None` when it cannot be listed.
pub(crate) fn listing(dir: &Path) -> Option<Vec<OsString>> {
    let mut names: Vec<OsString> = fs::read_dir(dir).ok()?.flatten().map(|entry| entry.file_name()).collect();
    names.sort();
    Some(names)
}
