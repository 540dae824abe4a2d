//! The hookwire engine: which hooks run for an event, in what order, what each sees, how their
//! answers combine, what happens when one fails, and what the caller gets back.
//!
//! Knows nothing of processes, shells or HTTP: hook kinds plug in through [`HookFactory`].

mod capability;
mod error;
mod hook;
mod output;
mod spec;

pub use capability::{Capability, capability};
pub use error::{BuildError, HookError, OutcomeClass, fmt_duration, head_chars, tail_chars};
pub use hook::{Hook, HookInput, Observer, ObserverEvent, SerializedCache, hook_fn};
pub use hook_protocol::{Context, Event};
pub use output::{Action, ContextPatch, Field, HookOutput};
pub use spec::{BuiltHook, Deadlines, HookDefinition, HookFactory, HookId, HookSpec, Level, SourceLocation};

pub mod config;
pub mod trust;
