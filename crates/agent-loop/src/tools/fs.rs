//! What every file tool shares: the confinement to the session's working directory
//! ([`resolve_in_cwd`]), and opening files so that a FIFO, a socket or a device is refused
//! rather than waited on.

use std::path::{Component, Path, PathBuf};

use hook_protocol::ToolResult;

use super::ToolContext;

/// Why [`resolve_in_cwd`] refused a path; the message says what to use instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The working directory itself cannot be resolved.
    #[error("the working directory {} is unusable: {source}", cwd.display())]
    WorkingDir {
        /// The working directory as given.
        cwd: PathBuf,
        /// Why it cannot be resolved.
        source: std::io::Error,
    },
    /// The path is empty (or blank).
    #[error("the path is empty")]
    Empty,
    /// The path contains a NUL byte.
    #[error("the path contains a NUL byte")]
    NulByte,
    /// `..` climbs out of the working directory.
    #[error("`{path}` leaves the working directory")]
    Leaves {
        /// The path as given.
        path: String,
    },
    /// An absolute path outside the working directory.
    #[error("`{path}` is outside the working directory {}; use a path relative to it", root.display())]
    Outside {
        /// The path as given.
        path: String,
        /// The working directory, resolved.
        root: PathBuf,
    },
    /// A component on the way cannot be inspected.
    #[error("`{path}`: cannot inspect {}: {source}", at.display())]
    Inspect {
        /// The path as given.
        path: String,
        /// The component that cannot be inspected.
        at: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A symbolic link on the way leads outside the working directory.
    #[error("`{path}` leads outside the working directory through a symbolic link")]
    LinkOutside {
        /// The path as given.
        path: String,
    },
    /// A symbolic link on the way leads nowhere (or outside, unresolvably).
    #[error("`{path}` goes through a symbolic link that leads nowhere (or outside the working directory); refused")]
    LinkNowhere {
        /// The path as given.
        path: String,
    },
}

/// Resolves `path` (relative to `cwd`, or absolute inside it) to a path inside `cwd`.
///
/// `..` may not climb out of `cwd`; an absolute path must lie inside it; and every symbolic
/// link on the way (the last component included) must resolve to a path inside `cwd` — a link
/// that leads outside, or leads nowhere (a dangling link could be written through to a file
/// outside), is refused. The path returned is normalised (no `.`, `..` or links resolved away
/// lexically), so `link/..` means the directory holding `link`, as it reads.
pub fn resolve_in_cwd(cwd: &Path, path: &str) -> Result<PathBuf, PathError> {
    let root = cwd.canonicalize().map_err(|source| PathError::WorkingDir { cwd: cwd.to_path_buf(), source })?;
    if path.trim().is_empty() {
        return Err(PathError::Empty);
    }
    if path.contains('\0') {
        return Err(PathError::NulByte);
    }
    let given = Path::new(path);
    let joined = if given.is_absolute() {
        // The working directory as given (not canonical) is the same place.
        match given.strip_prefix(cwd) {
            Ok(rest) if cwd.is_absolute() => root.join(rest),
            _ => given.to_path_buf(),
        }
    } else {
        root.join(given)
    };
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                if !normal.pop() {
                    return Err(PathError::Leaves { path: path.to_owned() });
                }
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    let Ok(inside) = normal.strip_prefix(&root) else {
        return Err(PathError::Outside { path: path.to_owned(), root });
    };
    // Symbolic links: each existing component, resolved, must stay inside the root.
    let mut current = root.clone();
    for component in inside.components() {
        current.push(component);
        let meta = match std::fs::symlink_metadata(&current) {
            Ok(meta) => meta,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => break,
            Err(source) => return Err(PathError::Inspect { path: path.to_owned(), at: current, source }),
        };
        if meta.file_type().is_symlink() {
            match current.canonicalize() {
                Ok(real) if real.starts_with(&root) => {}
                Ok(_) => return Err(PathError::LinkOutside { path: path.to_owned() }),
                Err(_) => return Err(PathError::LinkNowhere { path: path.to_owned() }),
            }
        }
    }
    Ok(normal)
}

/// Runs blocking file I/O off the async workers (the workspace's tokio has no `fs` feature).
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|err| Err(std::io::Error::other(err.to_string())))
}

/// `path` resolved inside the working directory of a `tool` call, or the error result naming
/// the tool (every file tool's confinement).
pub(crate) fn resolve_for(tool: &str, ctx: &ToolContext, path: &str) -> Result<PathBuf, ToolResult> {
    resolve_in_cwd(&ctx.cwd, path).map_err(|err| ToolResult::error(format!("{tool}: {err}")))
}

/// What a file that is not a regular one is, for the refusal.
fn kind_of(file_type: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if file_type.is_fifo() {
        "a named pipe (FIFO)"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else {
        "not a file"
    }
}

/// The refusal of a file that is not regular: reading a FIFO or a device could block forever
/// or never end.
fn not_regular(file_type: std::fs::FileType) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("it is {}, not a regular file; only regular files are read or written", kind_of(file_type)),
    )
}

/// Opens `path` without blocking (`O_NONBLOCK`: opening a FIFO never waits for its other end)
/// and checks what was opened through the descriptor itself, so a swap between a check of the
/// path and the open cannot slip a FIFO or a device in. Directories pass (their own error comes
/// from the read or write); anything else but a regular file is refused.
fn open_checked(
    options: &mut std::fs::OpenOptions,
    flags: nix::fcntl::OFlag,
    path: &Path,
) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = match options.custom_flags((flags | nix::fcntl::OFlag::O_NONBLOCK).bits()).open(path) {
        Ok(file) => file,
        // A FIFO opened to write, with no reader: say what it is rather than ENXIO.
        Err(err) if err.raw_os_error() == Some(nix::errno::Errno::ENXIO as i32) => {
            return Err(std::fs::symlink_metadata(path).map_or(err, |meta| not_regular(meta.file_type())));
        }
        Err(err) => return Err(err),
    };
    let file_type = file.metadata()?.file_type();
    if file_type.is_file() {
        Ok(file)
    } else if file_type.is_dir() {
        Err(std::io::Error::from_raw_os_error(nix::errno::Errno::EISDIR as i32))
    } else {
        Err(not_regular(file_type))
    }
}

/// At most `max_bytes` of the regular file at `path`, and whether there was more. A FIFO, a
/// socket or a device is refused (never waited on).
pub(crate) fn read_regular(path: &Path, max_bytes: u64) -> std::io::Result<(Vec<u8>, bool)> {
    use std::io::Read as _;
    let file = open_checked(std::fs::OpenOptions::new().read(true), nix::fcntl::OFlag::empty(), path)?;
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes)?;
    let is_cut = bytes.len() as u64 > max_bytes;
    bytes.truncate(usize::try_from(max_bytes).unwrap_or(usize::MAX).min(bytes.len()));
    Ok((bytes, is_cut))
}

/// Writes `bytes` to `path`, refusing to follow a symbolic link in its last component (one that
/// appeared after [`resolve_in_cwd`] checked it) and to write into anything but a regular file
/// (a FIFO without a reader is never waited on).
pub(crate) fn write_no_follow(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    // Truncated only once known to be a regular file.
    let mut options = std::fs::OpenOptions::new();
    let mut file = open_checked(options.write(true).create(true), nix::fcntl::OFlag::O_NOFOLLOW, path)?;
    file.set_len(0)?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_escaping_the_working_directory_are_rejected() {
        let dir = std::env::temp_dir().join(format!("agent-loop-fs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let root = dir.canonicalize().unwrap();
        assert_eq!(resolve_in_cwd(&dir, "sub/../a.txt").unwrap(), root.join("a.txt"));
        assert!(resolve_in_cwd(&dir, "../x").unwrap_err().to_string().contains("outside"));
        assert!(resolve_in_cwd(&dir, "sub/../../x").unwrap_err().to_string().contains("outside"));
        assert!(resolve_in_cwd(&dir, "/etc/passwd").unwrap_err().to_string().contains("outside"));
        assert_eq!(resolve_in_cwd(&dir, root.join("b").to_str().unwrap()).unwrap(), root.join("b"));
        std::os::unix::fs::symlink("/etc", dir.join("link")).ok();
        assert!(resolve_in_cwd(&dir, "link/passwd").unwrap_err().to_string().contains("symbolic link"));
        assert!(resolve_in_cwd(&dir, "link").unwrap_err().to_string().contains("symbolic link"));
        // A dangling link would be written through to a file outside.
        std::os::unix::fs::symlink("/tmp/agent-loop-no-such-target/x", dir.join("dangling")).ok();
        assert!(resolve_in_cwd(&dir, "dangling").unwrap_err().to_string().contains("symbolic link"));
        std::os::unix::fs::symlink(root.join("sub"), dir.join("inner")).ok();
        assert_eq!(resolve_in_cwd(&dir, "inner/new.txt").unwrap(), root.join("inner/new.txt"));
        assert!(matches!(resolve_in_cwd(&dir, ""), Err(PathError::Empty)));
        assert!(matches!(resolve_in_cwd(&dir, "a\0b"), Err(PathError::NulByte)));
        let outside = resolve_in_cwd(&dir, "/etc/passwd").unwrap_err();
        assert!(matches!(&outside, PathError::Outside { path, .. } if path == "/etc/passwd"), "{outside:?}");
        assert_eq!(
            outside.to_string(),
            format!("`/etc/passwd` is outside the working directory {}; use a path relative to it", root.display())
        );
        let missing = dir.join("no-such-dir");
        let err = resolve_in_cwd(&missing, "a.txt").unwrap_err();
        assert!(err.to_string().starts_with(&format!("the working directory {} is unusable: ", missing.display())));
        assert!(std::error::Error::source(&err).is_some(), "the I/O error is the source");
        std::fs::remove_dir_all(&dir).ok();
    }
}
