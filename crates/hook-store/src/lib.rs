//! hookwire's decision store: every fire, and every hook run in it, as rows of a local SQLite
//! database (`$XDG_STATE_HOME/hookwire/decisions.db` by default), so that `hookwire log`,
//! `hookwire stats` and `hookwire ui` can answer "what did my guards block today, in which
//! session, and which hook is slow?" (docs/observability.md).
//!
//! The store is never on a decision's path. A fire builds a [`FireRecord`] and hands it to a
//! [`Recorder`] with a non-blocking `try_send` on a bounded queue; a thread of the recorder's
//! own opens the database, writes batches in transactions, retries while another process holds
//! the write lock (within a bound), and prunes old rows. When the queue is full, or a batch
//! cannot be written in time, its rows are dropped and counted in a side file next to the
//! database ([`drops_path`]), which the readers report. A short-lived process (the bridge)
//! calls [`Recorder::flush`] with a deadline after its answer is out.
//!
//! A process that makes one fire and exits (the bridge, `hookwire fire`) uses a [`Spool`]
//! instead: its records go to a small file of their own next to the database, which whoever
//! uses the database next imports (the readers, the writer thread, or now and then a spool's
//! writer itself), so that no such process opens SQLite on an agent's path.
//!
//! [`Reader`] is the other side: the queries of `log`, `stats` and the dashboard.
//!
//! Secrets in the input summary are masked by [`redact`] before a row is written.

mod error;
mod query;
mod record;
pub mod redact;
mod schema;
mod spool;
mod writer;

pub use error::StoreError;
pub use query::{Drops, Filter, HookStats, Reader, StoredFire, StoredHookRun};
pub use record::{
    CONFINED_KINDS, FireRecord, HookRun, MAX_STDERR_CHARS, MAX_SUMMARY_CHARS, Origin, rule_in_reason, sandbox_text,
};
pub use schema::SCHEMA_VERSION;
pub use spool::{IMPORT_ABOVE, IMPORT_ONE_IN, ImportReport, Spool, SpoolReport, spool_dir, spool_pending};
pub use writer::{FlushReport, Recorder, Retention, StoreConfig, drops_path};

use std::path::PathBuf;

/// The environment variable that moves the store (a path) or switches it off (`off`, `0`,
/// `false`, `none`).
pub const STORE_ENV: &str = "HOOKWIRE_STORE";

/// The default database path: `$XDG_STATE_HOME/hookwire/decisions.db`, else
/// `$HOME/.local/state/hookwire/decisions.db`; `None` when neither variable is set.
pub fn default_path() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|home| PathBuf::from(home).join(".local/state"))
        })?;
    Some(state.join("hookwire").join("decisions.db"))
}

/// The database this process records to: [`STORE_ENV`] when set (`None` when it says off),
/// else [`default_path`].
pub fn configured_path() -> Option<PathBuf> {
    match std::env::var_os(STORE_ENV) {
        Some(value) if !value.is_empty() => {
            let text = value.to_string_lossy();
            if matches!(text.to_ascii_lowercase().as_str(), "off" | "0" | "false" | "none" | "no") {
                None
            } else {
                Some(PathBuf::from(value))
            }
        }
        _ => default_path(),
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
