//! The hookwire engine: which hooks run for an event, in what order, what each sees, how their
//! answers combine, what happens when one fails, and what the caller gets back.
//!
//! ```
//! use hook_core::{Context, Decision, Engine, Event, HookOutput, Level, Registration, hook_fn};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // An in-process hook: skip any tool call whose arguments mention `rm -rf`.
//! let guard = hook_fn("no-rm-rf", |input| {
//!     let is_dangerous = input.context.tool_arguments.as_deref().is_some_and(|a| a.contains("rm -rf"));
//!     async move { Ok(if is_dangerous { HookOutput::skip("no rm -rf") } else { HookOutput::default() }) }
//! });
//! let engine = Engine::builder().build();
//! engine.register(Registration::new("no-rm-rf", Level::User, [Event::PreToolExecution], guard));
//!
//! let arguments = r#"{"command": "rm -rf /"}"#;
//! let mut context =
//!     Context { tool_name: Some("Bash".into()), tool_arguments: Some(arguments.into()), ..Context::default() };
//! let outcome = engine.fire(Event::PreToolExecution, &mut context).await;
//! assert_eq!(outcome.decision, Decision::Skip);
//! assert_eq!(outcome.reason.as_deref(), Some("no rm -rf"));
//! assert_eq!(outcome.trace[0].id.as_str(), "user:no-rm-rf:pre_tool_execution");
//! # }
//! ```
//!
//! - [`Engine`]: the handle a host holds; [`Engine::fire`] runs the chain of one event and
//!   returns a [`FireOutcome`] (decision, effects, one [`TraceEntry`] per hook).
//! - [`Hook`] (or [`hook_fn`]) for in-process hooks, registered with a [`Registration`];
//!   configured hooks come from a [`HookSpec`] (the `hook-config` crate reads them from files)
//!   built by the [`HookFactory`] of their kind.
//! - [`capability`]: what each event lets hooks change, and which actions take effect.
//! - [`SpecGuard`]: what a spec's hook runs is re-checked before each run (the `hook-trust`
//!   crate's guard implements [`RunGuard`]).
//!
//! What is not here: every dialect's files (`hook-config`), the agents' contracts
//! (`hook-agents`), trust (`hook-trust`), shell parsing (`hook-shell`). This crate imports none
//! of them; `hook-host` is the facade that puts them together.
//!
//! Knows nothing of processes, shells or HTTP: hook kinds plug in through [`HookFactory`]. The
//! chain's semantics (order, merge, halting, failure policy, deadlines) are specified in
//! `docs/design.md`.

mod capability;
mod chain;
mod engine;
mod error;
mod filter;
mod guard;
mod hook;
mod metrics;
mod observer;
mod output;
mod registry;
mod spec;
mod trace;

pub use capability::{Capability, capability};
pub use engine::{Engine, EngineBuilder, LoadError};
pub use error::{BuildError, HookError, OutcomeClass, fmt_duration, head_chars, tail_chars};
pub use filter::{CompiledFilter, FilterError};
pub use guard::{GuardViolation, RunGuard, SpecGuard};
pub use hook::{
    Gate, Hook, HookInput, IntoHookResult, Observer, ObserverEvent, SerializedCache, SharedBytes, hook_fn, hook_fn_sync,
};
pub use hook_protocol::config::{HookFilter, OnError};
pub use hook_protocol::{Context, Event};
pub use metrics::HookMetrics;
pub use output::{Action, ContextPatch, Field, HookOutput, Permission};
pub use registry::{HookSummary, Registration};
pub use spec::{
    AgentHookDef, BuiltHook, Deadlines, HookDefinition, HookFactory, HookId, HookSpec, Kind, Level, SourceLocation,
    default_on_error,
};
pub use trace::{Decision, Dropped, Effects, FireOutcome, TraceEntry};

/// Hook authors implement [`Hook`] with it: `#[hook_core::async_trait]`.
pub use async_trait::async_trait;
