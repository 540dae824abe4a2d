//! hookwire embedded in a Rust agent: every dialect's hook files, found where their tools put
//! them, run by the built-in executors, with trust for project hooks and hot reload — what the
//! `hookwire` command does, as a library.
//!
//! ```
//! use hook_core::{Context, Decision, Event};
//! use hook_host::Host;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! # let dir = std::env::temp_dir().join(format!("hook-host-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(dir.join("config")).unwrap();
//! // A j-cli hook in the user's hookwire directory: skip any tool call that mentions `rm -rf`.
//! let hook = "pre_tool_execution:\n  - command: \"grep -q 'rm -rf' && echo '{\\\"action\\\": \\\"skip\\\"}' || echo '{}'\"\n";
//! std::fs::write(dir.join("config/hooks.yaml"), hook).unwrap();
//!
//! let host = Host::builder().project_dir(&dir).home_dir(&dir).user_config_dir(dir.join("config")).build();
//! let report = host.reload().await; // discover, check trust, build, mount
//! assert_eq!(report.problem(), None, "{:?}", report.errors());
//!
//! let arguments = r#"{"command": "rm -rf /"}"#;
//! let mut context = Context { tool_name: Some("Bash".into()), tool_arguments: Some(arguments.into()), ..Context::default() };
//! let outcome = host.engine().fire(Event::PreToolExecution, &mut context).await;
//! assert_eq!(outcome.decision, Decision::Skip);
//! host.shutdown().await;
//! # let _ = std::fs::remove_dir_all(&dir);
//! # }
//! ```
//!
//! - [`Host`] ([`Host::builder`]) discovers the configuration ([`discover`]: j-cli YAML and hook
//!   directories, PicoClaw JSON, Claude Code, Gemini CLI and Codex settings, at user and
//!   project level, plus any file the host names), holds project hooks back until the project
//!   is trusted ([`TrustPolicy`]), builds an engine with every built-in executor
//!   ([`engine_with_factories`]), and mounts each file's hooks at its level.
//! - [`Host::reload`] reads again and swaps only the levels that changed; a configuration with
//!   an error keeps the hooks in force. [`Host::watch`] polls the files and reloads on a change.
//! - [`Host::engine`] is the [`hook_core::Engine`] to fire events through; in-process hooks
//!   (a [`hook_core::Hook`], or a closure through [`hook_core::hook_fn`] or
//!   [`hook_core::hook_fn_sync`]) register there.
//!
//! `docs/embedding.md` walks through the options.

#![warn(missing_docs)]

pub mod discover;
mod factories;
mod host;
mod load;
mod watch;

pub use discover::Locations;
pub use factories::{chat_model, engine_with_factories, factory, kinds, lazy_model, mount, remount};
pub use hook_llm::ChatModel;
#[cfg(feature = "decision-store")]
pub use hook_store::{self, Retention, StoreConfig};
pub use host::{Host, HostBuilder, ReadError, Refresh, Reload, Watcher};
pub use load::{Loaded, Scope, TrustPolicy, calls_the_bridge, load_scoped, load_sources, missing_configs};

/// What `hook_core::config` held before the engine was split: every dialect's files into hook
/// specs, now the `hook-config` crate. `hook_core` cannot re-export it (hook-config depends on
/// hook-core), so the old paths live on here for one release.
#[deprecated(since = "0.1.0", note = "moved out of hook-core: use the `hook-config` crate (`hook_config::load`, ...)")]
pub mod config {
    pub use hook_config::*;
}

/// What `hook_core::agent` held before the engine was split: the Claude Code family's runtime
/// contract, now the `hook-agents` crate (the tool view is `hook_protocol::tool`).
#[deprecated(
    since = "0.1.0",
    note = "moved out of hook-core: use the `hook-agents` crate (`hook_agents::context_from_input`, ...)"
)]
pub mod agent {
    pub use hook_agents::*;
    /// The derived tool view, now `hook_protocol::tool`.
    pub mod tool_view {
        pub use hook_protocol::tool::*;
    }
}

/// What `hook_core::trust` held before the engine was split: the trust store, the files a hook
/// runs and the run-time guard, now the `hook-trust` crate.
#[deprecated(
    since = "0.1.0",
    note = "moved out of hook-core: use the `hook-trust` crate (`hook_trust::TrustCheck`, ...)"
)]
pub mod trust {
    pub use hook_trust::*;
}
