//! Errors: what a hook run can fail with, how a run is classified, and what building a hook can fail with.

use std::{fmt, time::Duration};

/// Why one run of a hook failed. A failure is a value in the trace, never a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HookError {
    /// The hook's deadline (or the chain's) passed.
    #[error("timed out after {}", fmt_duration(*after))]
    Timeout {
        /// The deadline that passed.
        after: Duration,
    },
    /// The chain's deadline had passed before the hook could start.
    #[error("the chain's deadline of {} was used up before this hook ran", fmt_duration(*budget))]
    BudgetExhausted {
        /// The chain deadline.
        budget: Duration,
    },
    /// The process could not be started.
    #[error("could not start `{command}`: {message}")]
    SpawnFailed {
        /// What was started.
        command: String,
        /// Why it failed.
        message: String,
    },
    /// The process exited (or died) without a valid answer.
    #[error("process exited with {status}{}", stderr_suffix(stderr_tail))]
    ProcessExited {
        /// `exit code 2`, `signal 9 (SIGKILL)`, ...
        status: String,
        /// The last lines of its stderr.
        stderr_tail: String,
    },
    /// The hook answered, but not with something hookwire can use.
    #[error("{message}{}", raw_suffix(raw_head))]
    InvalidOutput {
        /// What is wrong and what the hook must print instead.
        message: String,
        /// The beginning of what it printed (cut on a character boundary).
        raw_head: String,
    },
    /// The hook (or its model server) answered with an error.
    #[error("error response{}: {message}", code.map(|c| format!(" {c}")).unwrap_or_default())]
    ErrorResponse {
        /// JSON-RPC error code or HTTP status.
        code: Option<i64>,
        /// The error's message.
        message: String,
    },
    /// The hook could not be reached (broken pipe, connection refused, ...).
    #[error("{message}")]
    Unavailable {
        /// What happened.
        message: String,
    },
    /// The fire was cancelled by the caller.
    #[error("cancelled")]
    Cancelled,
}

fn stderr_suffix(tail: &str) -> String {
    if tail.trim().is_empty() { String::new() } else { format!("; stderr: {}", tail.trim_end()) }
}

fn raw_suffix(raw: &str) -> String {
    if raw.is_empty() { String::new() } else { format!("; output began: {raw:?}") }
}

/// `1.5s`, `250ms`.
pub fn fmt_duration(d: Duration) -> String {
    if d.as_millis() < 1000 || d.subsec_millis() != 0 && d.as_secs() < 10 {
        if d.as_millis() >= 1000 { format!("{:.1}s", d.as_secs_f64()) } else { format!("{}ms", d.as_millis()) }
    } else {
        format!("{}s", d.as_secs())
    }
}

impl HookError {
    /// The outcome class this error is reported as.
    pub fn class(&self) -> OutcomeClass {
        match self {
            HookError::Timeout { .. } => OutcomeClass::TimedOut,
            HookError::BudgetExhausted { .. } => OutcomeClass::BudgetExhausted,
            HookError::SpawnFailed { .. } => OutcomeClass::SpawnFailed,
            HookError::ProcessExited { .. } | HookError::Unavailable { .. } => OutcomeClass::Crashed,
            HookError::InvalidOutput { .. } => OutcomeClass::InvalidOutput,
            HookError::ErrorResponse { .. } => OutcomeClass::ErrorResponse,
            HookError::Cancelled => OutcomeClass::Cancelled,
        }
    }

    /// An `InvalidOutput` error whose `raw_head` is the first 200 characters of `raw`.
    pub fn invalid_output(message: impl Into<String>, raw: &str) -> Self {
        HookError::InvalidOutput { message: message.into(), raw_head: head_chars(raw, 200) }
    }
}

/// The first `n` characters of `s`, with `…` when cut; never splits a character.
pub fn head_chars(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        None => s.to_owned(),
        Some((byte_idx, _)) => format!("{}…", &s[..byte_idx]),
    }
}

/// The last `n` characters of `s`, with `…` when cut; never splits a character.
pub fn tail_chars(s: &str, n: usize) -> String {
    let n_chars = s.chars().count();
    if n_chars <= n {
        return s.to_owned();
    }
    let skip = n_chars - n;
    let byte_idx = s.char_indices().nth(skip).map_or(s.len(), |(i, _)| i);
    format!("…{}", &s[byte_idx..])
}

/// How one hook's run ended (the outcome classes of docs/design.md, "Chain semantics").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OutcomeClass {
    /// Ran and changed something or decided something.
    Ok,
    /// Ran and changed nothing.
    NoChange,
    /// Its filter did not match.
    Filtered,
    /// Disabled by id.
    Disabled,
    /// Its deadline passed.
    TimedOut,
    /// Its process died or could not be reached.
    Crashed,
    /// It could not be started.
    SpawnFailed,
    /// Its answer was unusable.
    InvalidOutput,
    /// It answered with an error.
    ErrorResponse,
    /// The chain's deadline was used up.
    BudgetExhausted,
    /// The fire was cancelled.
    Cancelled,
}

impl OutcomeClass {
    /// The snake_case name used in traces, audit logs and `hookwire fire` output.
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeClass::Ok => "ok",
            OutcomeClass::NoChange => "no_change",
            OutcomeClass::Filtered => "filtered",
            OutcomeClass::Disabled => "disabled",
            OutcomeClass::TimedOut => "timed_out",
            OutcomeClass::Crashed => "crashed",
            OutcomeClass::SpawnFailed => "spawn_failed",
            OutcomeClass::InvalidOutput => "invalid_output",
            OutcomeClass::ErrorResponse => "error_response",
            OutcomeClass::BudgetExhausted => "budget_exhausted",
            OutcomeClass::Cancelled => "cancelled",
        }
    }

    /// Whether the hook ran successfully.
    pub fn is_success(self) -> bool {
        matches!(self, OutcomeClass::Ok | OutcomeClass::NoChange)
    }

    /// Whether the hook was not run at all.
    pub fn is_skip(self) -> bool {
        matches!(self, OutcomeClass::Filtered | OutcomeClass::Disabled)
    }
}

impl fmt::Display for OutcomeClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a configured hook could not be built or started.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The configuration asks for something the executor cannot do.
    #[error("{message}")]
    Invalid {
        /// What is wrong and how to fix it.
        message: String,
    },
    /// Starting the hook failed (spawn, handshake, ...).
    #[error("{0}")]
    Start(#[source] HookError),
    /// The hook refused to be mounted (`hook.hello` answered `ok: false`).
    #[error("the hook refused to start: {reason}")]
    Refused {
        /// The reason the hook gave.
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_on_character_boundaries() {
        assert_eq!(head_chars("héllo", 2), "hé…");
        assert_eq!(head_chars("日本語テキスト", 3), "日本語…");
        assert_eq!(tail_chars("日本語テキスト", 3), "…キスト");
        assert_eq!(head_chars("ab", 5), "ab");
        assert_eq!(tail_chars("ab", 5), "ab");
    }

    #[test]
    fn formats_durations() {
        assert_eq!(fmt_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(fmt_duration(Duration::from_secs(30)), "30s");
        assert_eq!(fmt_duration(Duration::from_millis(1500)), "1.5s");
    }
}
