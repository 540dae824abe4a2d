//! Long texts of an answer spilled to a file, with a preview left in their place.
//!
//! Claude Code keeps a hook's long strings out of the conversation: any `additionalContext`,
//! `systemMessage` or plain text over 10,000 characters is saved to a file and replaced by its
//! beginning and the file's path. [`spill_long_texts`] does the same to the texts of a
//! [`HookOutput`] that reach the model or the user.
//!
//! Spill files are private (`0600` in a `0700` directory) and do not pile up: each spill
//! removes the spill files of the directory older than [`SPILL_MAX_AGE`]. They are not removed
//! when the spilling process ends, because the preview sends the agent to the file after that
//! (`hookwire hook` answers and exits before the agent reads it).

use std::{
    fs, io,
    io::Write,
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use hook_core::HookOutput;

/// A text longer than this many characters is spilled.
pub const SPILL_THRESHOLD_CHARS: usize = 10_000;

/// How many characters of a spilled text stay in the answer.
pub const PREVIEW_CHARS: usize = 2_000;

/// A spill file older than this is removed by the next spill into its directory: long enough
/// for the conversation that was sent to it to read it.
pub const SPILL_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The fields whose long texts are spilled (the middle of a spill file's name).
const FIELDS: [&str; 4] = ["additional_context", "system_message", "reason", "retry_feedback"];

/// Tells spill files written in the same millisecond apart.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// Spills each of `additional_context`, `system_message`, `reason` and `retry_feedback` that is
/// over [`SPILL_THRESHOLD_CHARS`] characters: the whole text goes to a new file in `dir`
/// (created, private: `0700` directory, `0600` file), and the field keeps its first
/// [`PREVIEW_CHARS`] characters followed by
/// `"\n… [output truncated: N characters; full text in <path>]"`.
///
/// Lengths and cuts count characters, never bytes, so a preview never splits a character.
/// When the file cannot be written the text is still cut, and the note says why the full text
/// is missing; this never panics.
pub fn spill_long_texts(output: &mut HookOutput, dir: &Path, hook_name: &str) {
    let fields: [(&str, &mut Option<String>); 4] = [
        ("additional_context", &mut output.additional_context),
        ("system_message", &mut output.system_message),
        ("reason", &mut output.reason),
        ("retry_feedback", &mut output.retry_feedback),
    ];
    for (field, slot) in fields {
        let Some(text) = slot.as_deref() else { continue };
        if !is_long(text) {
            continue;
        }
        let total = text.chars().count();
        let note = match write_spill(dir, hook_name, field, text) {
            Ok(path) => format!("full text in {}", path.display()),
            Err(error) => {
                tracing::warn!(hook = hook_name, field, dir = %dir.display(), %error, "could not spill a long hook answer");
                format!("the full text could not be saved in {}: {error}", dir.display())
            }
        };
        let preview = head(text, PREVIEW_CHARS);
        *slot = Some(format!("{preview}\n… [output truncated: {total} characters; {note}]"));
    }
}

/// Whether `text` has more than [`SPILL_THRESHOLD_CHARS`] characters (without counting them all).
fn is_long(text: &str) -> bool {
    // A character is at most 4 bytes and at least 1: short byte lengths settle it at once.
    if text.len() <= SPILL_THRESHOLD_CHARS {
        return false;
    }
    text.char_indices().nth(SPILL_THRESHOLD_CHARS).is_some()
}

/// The first `n` characters of `text`.
fn head(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// Writes `text` to a new private file in `dir` and returns its path.
fn write_spill(dir: &Path, hook_name: &str, field: &str, text: &str) -> io::Result<PathBuf> {
    create_private_dir(dir)?;
    prune(dir, SystemTime::now());
    let millis = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or_default();
    let stem = file_stem(hook_name);
    let pid = std::process::id();
    let mut last_error = None;
    for _ in 0..8 {
        let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{stem}-{field}-{millis}-{pid}-{seq}.txt"));
        match create_new_private(&path) {
            Ok(mut file) => {
                file.write_all(text.as_bytes())?;
                file.flush()?;
                return Ok(path);
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => last_error = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last_error.unwrap_or_else(|| io::Error::other("no free file name")))
}

/// Whether `name` is a spill file's: `<stem>-<field>-<millis>-<pid>-<seq>.txt`.
fn is_spill_name(name: &str) -> bool {
    let Some(rest) = name.strip_suffix(".txt") else { return false };
    let mut parts = rest.rsplitn(4, '-');
    let numbers = [parts.next(), parts.next(), parts.next()];
    let is_numbers = numbers.iter().all(|n| n.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())));
    is_numbers && parts.next().is_some_and(|head| FIELDS.iter().any(|field| head.ends_with(&format!("-{field}"))))
}

/// Removes the spill files in `dir` last modified over [`SPILL_MAX_AGE`] before `now`; other
/// files, links and directories are left alone. Failures are ignored: pruning is a courtesy.
fn prune(dir: &Path, now: SystemTime) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_spill_name) {
            continue;
        }
        // The entry's own metadata: a link is not followed.
        let Ok(meta) = entry.metadata() else { continue };
        let is_old = meta
            .modified()
            .ok()
            .and_then(|modified| now.duration_since(modified).ok())
            .is_some_and(|age| age > SPILL_MAX_AGE);
        if meta.is_file() && is_old {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The hook's name as a file name part: letters, digits, `.`, `_` and `-`; at most 64 characters.
fn file_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' })
        .take(64)
        .collect();
    let stem = stem.trim_start_matches('.');
    if stem.is_empty() { "hook".to_owned() } else { stem.to_owned() }
}

/// Creates `dir` (and its parents) `0700`; an existing one must be a real directory (not a
/// symbolic link) of this user's, and is closed to others if it was open.
#[cfg(unix)]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let meta = fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(io::Error::other(format!("{} is not a directory (a symbolic link?)", dir.display())));
    }
    let own = fs::metadata("/proc/self").map(|m| m.uid()).ok();
    if own.is_some_and(|uid| uid != meta.uid()) {
        return Err(io::Error::other(format!("{} belongs to another user", dir.display())));
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

#[cfg(unix)]
fn create_new_private(path: &Path) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
}

#[cfg(not(unix))]
fn create_new_private(path: &Path) -> io::Result<fs::File> {
    fs::OpenOptions::new().write(true).create_new(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hookwire-spill-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    /// The path a preview names, and the character count it reports.
    fn parse_note(preview: &str) -> (usize, PathBuf) {
        let (_, note) = preview.rsplit_once("\n… [output truncated: ").expect("a truncation note");
        let (count, rest) = note.split_once(" characters; full text in ").expect("a path in the note");
        let path = rest.strip_suffix(']').expect("the note ends with ]");
        (count.parse().expect("a count"), PathBuf::from(path))
    }

    #[test]
    fn short_texts_are_left_alone() {
        let dir = temp_dir("short");
        let exact = "é".repeat(SPILL_THRESHOLD_CHARS);
        let mut output = HookOutput {
            additional_context: Some(exact.clone()),
            system_message: Some("hi".into()),
            ..HookOutput::default()
        };
        spill_long_texts(&mut output, &dir, "h");
        assert_eq!(output.additional_context.as_deref(), Some(exact.as_str()), "exactly 10,000 characters stay");
        assert_eq!(output.system_message.as_deref(), Some("hi"));
        assert!(!dir.exists(), "nothing was written");
    }

    #[test]
    fn a_long_text_becomes_a_preview_and_a_private_file() {
        let dir = temp_dir("long");
        // 10,001 characters of 2 to 4 bytes each: any byte-based cut would split one.
        let text: String = "é€😀".chars().cycle().take(SPILL_THRESHOLD_CHARS + 1).collect();
        let mut output = HookOutput { additional_context: Some(text.clone()), ..HookOutput::default() };
        spill_long_texts(&mut output, &dir, "my/hook name");
        let preview = output.additional_context.expect("kept");
        let expected_head: String = text.chars().take(PREVIEW_CHARS).collect();
        assert!(preview.starts_with(&format!("{expected_head}\n… [output truncated: ")), "{}", &preview[..50]);
        let (count, path) = parse_note(&preview);
        assert_eq!(count, SPILL_THRESHOLD_CHARS + 1);
        assert_eq!(path.parent(), Some(dir.as_path()));
        let name = path.file_name().and_then(|n| n.to_str()).expect("utf-8 name");
        assert!(name.starts_with("my_hook_name-additional_context-"), "{name}");
        assert_eq!(fs::read_to_string(&path).expect("spilled"), text);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).expect("file").permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
            let mode = fs::metadata(&dir).expect("dir").permissions().mode() & 0o777;
            assert_eq!(mode, 0o700);
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn every_long_field_gets_its_own_file() {
        let dir = temp_dir("fields");
        let long = |c: char| c.to_string().repeat(12_000);
        let mut output = HookOutput {
            additional_context: Some(long('a')),
            system_message: Some(long('b')),
            reason: Some(long('c')),
            retry_feedback: Some(long('d')),
            ..HookOutput::default()
        };
        spill_long_texts(&mut output, &dir, "h");
        let mut paths = Vec::new();
        for (text, c) in [
            (&output.additional_context, 'a'),
            (&output.system_message, 'b'),
            (&output.reason, 'c'),
            (&output.retry_feedback, 'd'),
        ] {
            let text = text.as_deref().expect("kept");
            assert!(text.starts_with(&c.to_string().repeat(PREVIEW_CHARS)));
            let (preview, _) = text.split_once('\n').expect("a note after the preview");
            assert_eq!(preview, c.to_string().repeat(PREVIEW_CHARS));
            let (count, path) = parse_note(text);
            assert_eq!(count, 12_000);
            assert_eq!(fs::read_to_string(&path).expect("spilled"), long(c));
            paths.push(path);
        }
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), 4);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unwritable_dir_still_cuts_the_text_and_says_why() {
        let base = temp_dir("unwritable");
        fs::create_dir_all(&base).expect("base");
        // A regular file where the directory should be: no directory can be created there.
        let blocker = base.join("file");
        fs::write(&blocker, "x").expect("blocker");
        let mut output = HookOutput { reason: Some("r".repeat(20_000)), ..HookOutput::default() };
        spill_long_texts(&mut output, &blocker.join("sub"), "h");
        let reason = output.reason.expect("kept");
        assert!(reason.starts_with(&"r".repeat(PREVIEW_CHARS)));
        assert!(
            reason.contains("[output truncated: 20000 characters; the full text could not be saved in"),
            "{reason}"
        );
        assert!(reason.chars().count() < PREVIEW_CHARS + 300);
        let _ = fs::remove_dir_all(&base);
    }

    /// A spill file named `name` in `dir`, last modified `age` ago.
    fn aged(dir: &Path, name: &str, age: Duration) -> PathBuf {
        let path = dir.join(name);
        let file = fs::File::create(&path).expect("file");
        file.set_modified(SystemTime::now() - age).expect("mtime");
        path
    }

    #[test]
    fn old_spill_files_are_pruned_by_the_next_spill_and_nothing_else() {
        let dir = temp_dir("prune");
        fs::create_dir_all(&dir).expect("dir");
        let day = Duration::from_secs(24 * 60 * 60);
        let old = aged(&dir, "h-additional_context-1700000000000-42-0.txt", day * 2);
        let old_reason = aged(&dir, "my.hook-reason-1700000000000-42-7.txt", day + Duration::from_secs(60));
        let fresh = aged(&dir, "h-system_message-1700000000000-43-1.txt", Duration::from_secs(3600));
        let unrelated = aged(&dir, "notes.txt", day * 30);
        let lookalike = aged(&dir, "h-other_field-1700000000000-42-0.txt", day * 30);
        let mut output = HookOutput { additional_context: Some("x".repeat(20_000)), ..HookOutput::default() };
        spill_long_texts(&mut output, &dir, "h");
        let (_, new) = parse_note(output.additional_context.as_deref().expect("kept"));
        assert!(new.exists());
        assert!(!old.exists() && !old_reason.exists(), "old spill files stayed");
        assert!(fresh.exists() && unrelated.exists() && lookalike.exists(), "pruned too much");
        let _ = fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn an_open_spill_directory_is_closed_and_a_linked_one_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_dir("open");
        fs::create_dir_all(&dir).expect("dir");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).expect("chmod");
        let mut output = HookOutput { reason: Some("r".repeat(20_000)), ..HookOutput::default() };
        spill_long_texts(&mut output, &dir, "h");
        let (_, path) = parse_note(output.reason.as_deref().expect("kept"));
        assert_eq!(fs::metadata(&path).expect("file").permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::metadata(&dir).expect("dir").permissions().mode() & 0o777, 0o700);
        // A symbolic link where the directory should be (another user's target, say).
        let target = temp_dir("link-target");
        fs::create_dir_all(&target).expect("target");
        let link = temp_dir("link");
        std::os::unix::fs::symlink(&target, &link).expect("link");
        let mut output = HookOutput { reason: Some("r".repeat(20_000)), ..HookOutput::default() };
        spill_long_texts(&mut output, &link, "h");
        assert!(output.reason.expect("kept").contains("could not be saved"));
        assert_eq!(fs::read_dir(&target).expect("target").count(), 0, "the link was followed");
        for d in [&dir, &target, &link] {
            let _ = fs::remove_dir_all(d);
            let _ = fs::remove_file(d);
        }
    }

    #[test]
    fn cuts_count_characters() {
        assert_eq!(head("añb", 2), "añ");
        assert_eq!(head("ab", 5), "ab");
        assert!(!is_long(&"😀".repeat(SPILL_THRESHOLD_CHARS)), "40,000 bytes but 10,000 characters");
        assert!(is_long(&"😀".repeat(SPILL_THRESHOLD_CHARS + 1)));
        assert_eq!(file_stem("../x"), "_x");
        assert_eq!(file_stem(""), "hook");
    }
}
