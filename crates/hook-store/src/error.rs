//! Why the store could not be opened or read.

use std::path::PathBuf;

/// A failure of the store, naming the database.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No database at that path (nothing recorded yet, or the store is off).
    #[error("no decision store at {}: nothing was recorded there yet (the first fire creates it; HOOKWIRE_STORE=off switches it off)", path.display())]
    Missing {
        /// The database path.
        path: PathBuf,
    },
    /// The database was written by a newer hookwire.
    #[error("the decision store {} has schema version {found}, newer than this hookwire's ({supported}): upgrade hookwire, or point HOOKWIRE_STORE at another file", path.display())]
    TooNew {
        /// The database path.
        path: PathBuf,
        /// Its `user_version`.
        found: i64,
        /// [`crate::SCHEMA_VERSION`].
        supported: i64,
    },
    /// SQLite refused.
    #[error("decision store {}: {source}", path.display())]
    Sqlite {
        /// The database path.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The directory could not be created.
    #[error("cannot create the directory of the decision store {}: {source}", path.display())]
    Directory {
        /// The database path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl StoreError {
    pub(crate) fn sqlite(path: &std::path::Path) -> impl FnOnce(rusqlite::Error) -> StoreError + '_ {
        move |source| StoreError::Sqlite { path: path.to_path_buf(), source }
    }

    /// Whether SQLite said the database is busy or locked (another process writes).
    pub fn is_busy(&self) -> bool {
        matches!(self, StoreError::Sqlite { source, .. } if is_busy(source))
    }
}

/// Whether `e` is SQLITE_BUSY or SQLITE_LOCKED.
pub(crate) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}
