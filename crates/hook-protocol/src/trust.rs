//! The trust store file (`~/.config/hookwire/trust.json`): which projects the user trusted, and
//! the SHA-256 of every file that decides what their hooks do.
//!
//! ```json
//! {
//!   "version": 1,
//!   "records": [
//!     {
//!       "root": "/home/me/project",
//!       "trusted_at": "2026-11-25T23:10:44Z",
//!       "files": {
//!         ".hookwire/hooks.yaml": "4f2a…",
//!         "scripts/guard.sh": "9c1e…",
//!         "scripts/missing.sh": "absent"
//!       }
//!     }
//!   ]
//! }
//! ```
//!
//! A reader must check [`TrustFile::version`] first: a file of a version it does not know was
//! written by a newer hookwire, and is neither read nor overwritten.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The version of [`TrustFile`] this crate describes.
pub const TRUST_FILE_VERSION: u32 = 1;

/// Everything the user trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TrustFile {
    /// The format's version: 1. A reader refuses (and never overwrites) a version it does not know.
    pub version: u32,
    /// One record per project root, sorted by root.
    #[serde(default)]
    pub records: Vec<TrustFileRecord>,
}

impl Default for TrustFile {
    fn default() -> Self {
        TrustFile { version: TRUST_FILE_VERSION, records: Vec::new() }
    }
}

/// Only the version of a trust file: read first, so a newer format is recognised before its
/// records are interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct TrustFileVersion {
    /// See [`TrustFile::version`].
    pub version: u32,
}

/// One trusted project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TrustFileRecord {
    /// The project root, an absolute canonical path.
    pub root: String,
    /// When it was trusted, UTC, e.g. `2026-11-25T23:10:44Z`.
    #[serde(default)]
    pub trusted_at: String,
    /// Every config file and every file its hooks run, relative to the root, with the lowercase
    /// hex SHA-256 of its content; `absent` for a path a hook names that did not exist (creating
    /// it withdraws the trust), `not-a-file` for a path that is not a regular file.
    pub files: BTreeMap<String, String>,
    /// Trusted only sandboxed (`hookwire trust --sandboxed`): every hook of the project, of every
    /// dialect, runs with `sandbox: required` (its own policy, else the default one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sandboxed: bool,
}
