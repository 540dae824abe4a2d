//! Load errors and warnings: what is wrong, where (file, line, column), which hook, and the fix.

use std::{fmt, path::PathBuf};

/// Writes `path:line:col: hook `name`: message`, leaving out the parts that are unknown.
fn write_diagnostic(
    f: &mut fmt::Formatter<'_>,
    file: &std::path::Path,
    line: Option<usize>,
    column: Option<usize>,
    hook: Option<&str>,
    message: &str,
) -> fmt::Result {
    write!(f, "{}", file.display())?;
    if let Some(line) = line {
        write!(f, ":{line}")?;
        if let Some(column) = column {
            write!(f, ":{column}")?;
        }
    }
    f.write_str(": ")?;
    if let Some(hook) = hook {
        write!(f, "hook `{hook}`: ")?;
    }
    f.write_str(message)
}

/// A configuration error: nothing of [`ConfigError::file`] runs until it is fixed.
///
/// Displays as `path:line:col: hook `name`: message`, leaving out the parts that are unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file the error is in.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// The hook the error is about, when known.
    pub hook: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_diagnostic(f, &self.file, self.line, self.column, self.hook.as_deref(), &self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Something that loads but is probably not what was meant (a filter that can never match, a
/// file whose hooks are all switched off).
///
/// Displays as `path:line:col: hook `name`: message`, leaving out the parts that are unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The file the warning is about.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// The hook the warning is about, when known.
    pub hook: Option<String>,
    /// What is odd and what to do about it.
    pub message: String,
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_diagnostic(f, &self.file, self.line, self.column, self.hook.as_deref(), &self.message)
    }
}
