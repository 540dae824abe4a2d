//! The `Hook` trait every hook kind implements, what a hook is given, and observers.

use std::{
    fmt,
    future::Future,
    sync::{Arc, Mutex},
    time::Instant,
};

use async_trait::async_trait;
use hook_protocol::{Context, Event, Meta, serde_json::Value};

use crate::{HookError, HookOutput};

/// A hook: given one event and its context, decide and change what it wants.
///
/// One trait covers every PicoClaw role: an LLM interceptor is a hook registered on
/// `pre_llm_request` / `post_llm_response`, a tool interceptor on `pre_tool_execution` /
/// `post_tool_execution`, an approver on `approve_tool`; observers implement [`Observer`].
/// Timeouts, retries, filters and the failure policy are applied by the engine around `call`,
/// so an implementation only does its own work. Dropping the future returned by `call` cancels
/// the run: implementations release what they started (kill the process, forget the request).
#[async_trait]
pub trait Hook: Send + Sync + fmt::Debug {
    /// Runs the hook once.
    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError>;

    /// Releases long-lived resources (a process hook's child). Called once when the engine
    /// shuts down or the hook's level is replaced. The default does nothing.
    async fn shutdown(&self) {}

    /// Whether the hook promises never to change the context on `event`: it only decides
    /// (continue, deny, stop, respond) and adds effects (messages, context text). Asked once,
    /// when the hook is registered; the default is `false`.
    ///
    /// Hooks that promise this and stand next to each other in a chain run at once instead of
    /// one after another (nothing one of them could change would reach the next); their
    /// answers are merged in chain order as they arrive, so the first halt in that order
    /// decides, and the hooks after it in the group are cancelled (those that already answered
    /// count in the metrics; their answers are dropped). Approvals always run in turn. Setting a
    /// field the event may change, even to its current value, breaks the promise: the change
    /// is never applied, the hook failed with an invalid output, and its failure policy
    /// applies, `skip` counting as `deny` (a guard that made the promise by mistake must not
    /// pass silently).
    fn changes_nothing(&self, event: Event) -> bool {
        let _ = event;
        false
    }
}

/// A condition a hook's own dialect puts on running it (a Claude Code matcher and `if` rule),
/// checked before anything is serialized or spawned.
pub trait Gate: Send + Sync + fmt::Debug {
    /// Whether the hook runs on `event` with `context`.
    fn admits(&self, event: Event, context: &Context) -> bool;

    /// Why the hook does not run on `event` with `context` (the condition that failed, for the
    /// trace); `None` when it [admits](Gate::admits) them. Only called on the filtered path.
    fn why_not(&self, event: Event, context: &Context) -> Option<String> {
        (!self.admits(event, context)).then(|| "its gate did not admit the event".to_owned())
    }
}

/// What a hook is given for one run.
#[derive(Debug)]
pub struct HookInput<'a> {
    /// The event being fired.
    pub event: Event,
    /// The context as the hooks before this one left it.
    pub context: &'a Context,
    /// When this run must be over (the earlier of the hook's and the chain's deadline).
    pub deadline: Instant,
    /// 1 for the first attempt, 2 for the first retry, ...
    pub attempt: u32,
    cache: &'a SerializedCache,
}

impl<'a> HookInput<'a> {
    /// An input for `event` and `context`, with its own serialization cache.
    pub fn new(
        event: Event,
        context: &'a Context,
        deadline: Instant,
        attempt: u32,
        cache: &'a SerializedCache,
    ) -> Self {
        HookInput { event, context, deadline, attempt, cache }
    }

    /// The payload serialized for one dialect (`key`), computed once per context version and
    /// shared by every hook that reads the same dialect.
    pub fn serialized(&self, key: &'static str, serialize: impl FnOnce(Event, &Context) -> Vec<u8>) -> SharedBytes {
        self.cache.get_or_insert(key, || serialize(self.event, self.context))
    }

    /// The j-cli `HookContext` JSON of this event: what bash and llm hooks read.
    pub fn hook_context_json(&self) -> SharedBytes {
        self.serialized("jcli.hook_context", |event, context| {
            // A `HookContext` holds only strings, maps and sequences: serializing it cannot fail.
            hook_protocol::serde_json::to_vec(&context.to_hook_context(event)).unwrap_or_default()
        })
    }
}

/// Bytes serialized once and shared by every hook of a fire: a clone is a reference count, and
/// the buffer the serializer wrote is kept as it is. (Moving it into an `Arc<[u8]>` would copy
/// it, and for a 5 MB history hold it twice at the moment of the copy.)
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SharedBytes(Arc<Vec<u8>>);

impl SharedBytes {
    /// The bytes of `buffer`, without copying them.
    pub fn new(buffer: Vec<u8>) -> Self {
        SharedBytes(Arc::new(buffer))
    }
}

impl std::ops::Deref for SharedBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for SharedBytes {
    fn from(buffer: Vec<u8>) -> Self {
        SharedBytes::new(buffer)
    }
}

impl fmt::Debug for SharedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SharedBytes({} bytes)", self.0.len())
    }
}

/// One dialect's serialized payload.
type CacheEntry = (&'static str, SharedBytes);

/// Serialized payloads of one context version, by dialect key.
#[derive(Debug, Default)]
pub struct SerializedCache {
    entries: Mutex<Vec<CacheEntry>>,
}

impl SerializedCache {
    /// The bytes for `key`, serializing them on first use.
    pub fn get_or_insert(&self, key: &'static str, serialize: impl FnOnce() -> Vec<u8>) -> SharedBytes {
        let mut entries = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, bytes)) = entries.iter().find(|(k, _)| *k == key) {
            return bytes.clone();
        }
        let bytes = SharedBytes::new(serialize());
        entries.push((key, bytes.clone()));
        bytes
    }

    /// Forgets every entry (the context changed).
    pub fn clear(&self) {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clear();
    }
}

/// A hook made from an async closure, for tests and small in-process hooks.
///
/// ```
/// # use hook_core::{hook_fn, HookOutput};
/// let hook = hook_fn("upper", |input| {
///     let text = input.context.user_input.clone().unwrap_or_default().to_uppercase();
///     async move {
///         let mut output = HookOutput::default();
///         output.patch.user_input = Some(text);
///         Ok(output)
///     }
/// });
/// ```
pub fn hook_fn<F, Fut>(name: impl Into<String>, f: F) -> Arc<dyn Hook>
where
    F: Fn(&HookInput<'_>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<HookOutput, HookError>> + Send + 'static,
{
    Arc::new(HookFn { name: name.into(), f })
}

struct HookFn<F> {
    name: String,
    f: F,
}

impl<F> fmt::Debug for HookFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookFn").field("name", &self.name).finish()
    }
}

#[async_trait]
impl<F, Fut> Hook for HookFn<F>
where
    F: Fn(&HookInput<'_>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<HookOutput, HookError>> + Send + 'static,
{
    async fn call(&self, input: &HookInput<'_>) -> Result<HookOutput, HookError> {
        (self.f)(input).await
    }
}

/// What a synchronous hook closure may return: a [`HookOutput`], or a
/// `Result<HookOutput, HookError>` when it can fail (an `Err` is a failure of the hook, handled by
/// its failure policy like any other).
pub trait IntoHookResult {
    /// The result the engine reads.
    fn into_hook_result(self) -> Result<HookOutput, HookError>;
}

impl IntoHookResult for HookOutput {
    fn into_hook_result(self) -> Result<HookOutput, HookError> {
        Ok(self)
    }
}

impl IntoHookResult for Result<HookOutput, HookError> {
    fn into_hook_result(self) -> Result<HookOutput, HookError> {
        self
    }
}

/// A hook made from a synchronous closure: no `async`, no `async_trait`.
///
/// The closure runs on the task that fires the event, so it must be quick and must not block
/// (no sleeping, no blocking I/O): the engine cannot interrupt it, and its deadline is only
/// checked once it returned. Work that waits belongs in [`hook_fn`] (or a [`Hook`]
/// implementation), where the deadline cancels it.
///
/// ```
/// # use hook_core::{hook_fn_sync, HookInput, HookOutput};
/// let guard = hook_fn_sync("no-rm-rf", |input: &HookInput<'_>| {
///     match input.context.tool_arguments.as_deref() {
///         Some(arguments) if arguments.contains("rm -rf") => HookOutput::skip("no rm -rf"),
///         _ => HookOutput::default(),
///     }
/// });
/// ```
pub fn hook_fn_sync<F, R>(name: impl Into<String>, f: F) -> Arc<dyn Hook>
where
    F: Fn(&HookInput<'_>) -> R + Send + Sync + 'static,
    R: IntoHookResult,
{
    hook_fn(name, move |input: &HookInput<'_>| std::future::ready(f(input).into_hook_result()))
}

/// An observer notification (PicoClaw `hook.event`): `turn_start`, `tool_exec_end`, ...
#[derive(Debug, Clone, PartialEq)]
pub struct ObserverEvent {
    /// The kind, e.g. `tool_exec_start`.
    pub kind: String,
    /// Event metadata.
    pub meta: Meta,
    /// Kind-specific data with PascalCase members.
    pub payload: Value,
}

/// Receives observer notifications. Never delays the turn: the engine queues notifications
/// per observer (bounded) and drops, and counts, what does not fit.
#[async_trait]
pub trait Observer: Send + Sync + fmt::Debug {
    /// Handles one notification; bounded by the observer deadline.
    async fn observe(&self, event: &ObserverEvent) -> Result<(), HookError>;
}
