//! Observer fan-out: a bounded queue and a draining task per observer, so a slow observer never
//! delays a fire or a notification; what does not fit is dropped and counted.

use std::{
    fmt,
    sync::{Arc, Mutex},
    time::Duration,
};

use hook_protocol::Event;
use tokio::sync::mpsc;
use tracing::{Instrument, debug, warn};

use crate::{
    HookId, Level, Observer, ObserverEvent, fmt_duration,
    metrics::{MetricCells, MetricsStore},
};

/// The metrics id of an observer: its registration's first event id, or `<level>:<name>:session_start`
/// for an observer-only registration (`HookId` has no constructor for a pure observer id yet).
pub(crate) fn observer_id(level: Level, name: &str, events: &[Event]) -> HookId {
    HookId::new(level, name, events.first().copied().unwrap_or(Event::SessionStart))
}

enum Queue {
    /// No notification yet: the draining task starts on the first one.
    Idle,
    Running(mpsc::Sender<Arc<ObserverEvent>>, tokio::task::JoinHandle<()>),
    /// Retired: notifications are dropped and counted.
    Closed,
}

/// One observer, its kinds and its queue.
pub(crate) struct ObserverSlot {
    name: Arc<str>,
    /// Kinds it receives, normalised (`agent.tool.exec_end` → `tool_exec_end`); `None`: every kind.
    kinds: Option<Vec<String>>,
    observer: Arc<dyn Observer>,
    deadline: Duration,
    capacity: usize,
    queue: Mutex<Queue>,
    metrics: Arc<MetricCells>,
}

impl fmt::Debug for ObserverSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObserverSlot").field("name", &self.name).field("kinds", &self.kinds).finish_non_exhaustive()
    }
}

/// `agent.tool.exec_end` and `tool_exec_end` name the same kind.
fn normalise(kind: &str) -> String {
    kind.strip_prefix("agent.").unwrap_or(kind).replace('.', "_")
}

impl ObserverSlot {
    /// A slot for `observer`, or `None` when `kinds` is empty (observing nothing, as in PicoClaw).
    #[allow(clippy::too_many_arguments, reason = "crate-internal constructor fed from one place")]
    pub(crate) fn new(
        level: Level,
        name: &Arc<str>,
        events: &[Event],
        observer: Arc<dyn Observer>,
        kinds: &[String],
        deadline: Duration,
        capacity: usize,
        metrics: &MetricsStore,
    ) -> Option<Self> {
        if kinds.is_empty() {
            return None;
        }
        let is_every_kind = kinds.iter().any(|k| matches!(k.trim(), "*" | "all" | ""));
        Some(ObserverSlot {
            name: name.clone(),
            kinds: if is_every_kind { None } else { Some(kinds.iter().map(|k| normalise(k.trim())).collect()) },
            observer,
            deadline,
            capacity: capacity.max(1),
            queue: Mutex::new(Queue::Idle),
            metrics: metrics.cells(&observer_id(level, name, events)),
        })
    }

    fn wants(&self, kind: &str) -> bool {
        match &self.kinds {
            None => true,
            Some(kinds) => kinds.iter().any(|k| k == kind) || (kind.contains('.') && kinds.contains(&normalise(kind))),
        }
    }

    /// Queues `event` if this observer wants its kind; never waits.
    pub(crate) fn offer(&self, event: &Arc<ObserverEvent>) {
        if !self.wants(&event.kind) {
            return;
        }
        let mut queue = self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Queue::Idle = *queue {
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                warn!(observer = %self.name, kind = %event.kind, "no tokio runtime to deliver an observer notification; dropped");
                self.metrics.dropped();
                return;
            };
            let (sender, receiver) = mpsc::channel(self.capacity);
            let drain = Drain {
                name: self.name.clone(),
                observer: self.observer.clone(),
                deadline: self.deadline,
                metrics: self.metrics.clone(),
            };
            let span = tracing::debug_span!("observer", observer = %self.name);
            let task = runtime.spawn(drain.run(receiver).instrument(span));
            *queue = Queue::Running(sender, task);
        }
        match &*queue {
            Queue::Running(sender, _) if sender.try_send(event.clone()).is_ok() => {}
            _ => {
                debug!(observer = %self.name, kind = %event.kind, "observer queue full or closed; notification dropped");
                self.metrics.dropped();
            }
        }
    }

    /// Stops taking notifications and lets the queued ones be delivered, waiting at most
    /// `grace`; so a hook is not shut down while its last notifications (e.g. `turn_end`) are
    /// still on their way.
    pub(crate) async fn close(&self, grace: Duration) {
        let previous =
            std::mem::replace(&mut *self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner()), Queue::Closed);
        if let Queue::Running(sender, task) = previous {
            // Dropping the sender ends the draining task once the queue is empty.
            drop(sender);
            if tokio::time::timeout(grace, task).await.is_err() {
                debug!(observer = %self.name, "queued notifications not delivered within {}", fmt_duration(grace));
            }
        }
    }
}

/// The task that feeds one observer from its queue; ends when the slot is dropped.
struct Drain {
    name: Arc<str>,
    observer: Arc<dyn Observer>,
    deadline: Duration,
    metrics: Arc<MetricCells>,
}

impl Drain {
    async fn run(self, mut receiver: mpsc::Receiver<Arc<ObserverEvent>>) {
        while let Some(event) = receiver.recv().await {
            let result = tokio::time::timeout(self.deadline, self.observer.observe(&event)).await;
            self.metrics.notified();
            match result {
                Ok(Ok(())) => {}
                Ok(Err(err)) => warn!(observer = %self.name, kind = %event.kind, error = %err, "observer failed"),
                Err(_) => warn!(
                    observer = %self.name,
                    kind = %event.kind,
                    "observer timed out after {}",
                    fmt_duration(self.deadline)
                ),
            }
        }
    }
}
