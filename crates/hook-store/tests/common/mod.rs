//! What the store's test files share: a scratch directory removed at the end.

use std::path::PathBuf;

/// A scratch directory of this test process, removed when dropped.
pub(crate) struct Dir(pub(crate) PathBuf);

impl Dir {
    pub(crate) fn new(tag: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("hook-store-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    /// Where a store lives in it (a directory that does not exist yet).
    pub(crate) fn db(&self) -> PathBuf {
        self.0.join("state/decisions.db")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
