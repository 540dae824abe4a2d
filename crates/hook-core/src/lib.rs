//! The hookwire engine: which hooks run for an event, in what order, what each sees, how their
//! answers combine, what happens when one fails, and what the caller gets back.
//!
//! Knows nothing of processes, shells or HTTP: hook kinds plug in through [`HookFactory`].

mod capability;
mod chain;
mod engine;
mod error;
mod filter;
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
pub use filter::CompiledFilter;
pub use hook::{Gate, Hook, HookInput, Observer, ObserverEvent, SerializedCache, hook_fn};
pub use hook_protocol::config::{HookFilter, OnError};
pub use hook_protocol::{Context, Event};
pub use metrics::HookMetrics;
pub use output::{Action, ContextPatch, Field, HookOutput, Permission};
pub use registry::{HookSummary, Registration};
pub use spec::{
    AgentHookDef, BuiltHook, Deadlines, HookDefinition, HookFactory, HookId, HookSpec, Level, SourceLocation,
    default_on_error,
};
pub use trace::{Decision, Effects, FireOutcome, TraceEntry};

/// Hook authors implement [`Hook`] with it: `#[hook_core::async_trait]`.
pub use async_trait::async_trait;

pub mod agent;
pub mod config;
pub mod trust;
