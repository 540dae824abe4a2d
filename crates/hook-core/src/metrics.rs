//! Metrics per stable hook id, counted with atomics and shared by every clone of the engine.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use crate::HookId;

/// Counters of one hook id, as [`crate::Engine::metrics`] reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HookMetrics {
    /// Attempts run (each retry counts).
    pub executions: u64,
    /// Attempts that returned an output.
    pub successes: u64,
    /// Attempts that failed or timed out, plus runs refused because the chain budget was used up.
    pub failures: u64,
    /// Fires where the hook did not run: filtered or disabled.
    pub skips: u64,
    /// Time spent in attempts.
    pub total_time: Duration,
    /// Observer notifications delivered (the observer was called).
    pub notifications: u64,
    /// Observer notifications dropped: the queue was full or no runtime was running.
    pub dropped_notifications: u64,
}

/// The live counters behind one [`HookMetrics`].
///
/// An attempt touches two counters (its outcome and the time): executions and failures are sums
/// computed when read, so the hot path does one atomic add fewer.
#[derive(Debug, Default)]
pub(crate) struct MetricCells {
    successes: AtomicU64,
    failed_attempts: AtomicU64,
    /// Runs refused because the chain's deadline was used up: failures without an attempt.
    refused: AtomicU64,
    skips: AtomicU64,
    total_nanos: AtomicU64,
    notifications: AtomicU64,
    dropped_notifications: AtomicU64,
}

impl MetricCells {
    pub(crate) fn attempt(&self, is_success: bool, took: Duration) {
        if is_success {
            self.successes.fetch_add(1, Ordering::Relaxed);
        } else {
            self.failed_attempts.fetch_add(1, Ordering::Relaxed);
        }
        let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        self.total_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    pub(crate) fn failure_without_run(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn skip(&self) {
        self.skips.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn notified(&self) {
        self.notifications.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn dropped(&self) {
        self.dropped_notifications.fetch_add(1, Ordering::Relaxed);
    }

    fn read(&self) -> HookMetrics {
        let successes = self.successes.load(Ordering::Relaxed);
        let failed_attempts = self.failed_attempts.load(Ordering::Relaxed);
        HookMetrics {
            executions: successes + failed_attempts,
            successes,
            failures: failed_attempts + self.refused.load(Ordering::Relaxed),
            skips: self.skips.load(Ordering::Relaxed),
            total_time: Duration::from_nanos(self.total_nanos.load(Ordering::Relaxed)),
            notifications: self.notifications.load(Ordering::Relaxed),
            dropped_notifications: self.dropped_notifications.load(Ordering::Relaxed),
        }
    }
}

/// Every id's counters. An id keeps its counters when its hook is re-registered or reloaded.
#[derive(Debug, Default)]
pub(crate) struct MetricsStore {
    cells: Mutex<HashMap<HookId, Arc<MetricCells>>>,
}

impl MetricsStore {
    /// The counters of `id`, created on first use.
    pub(crate) fn cells(&self, id: &HookId) -> Arc<MetricCells> {
        let mut cells = self.cells.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        cells.entry(id.clone()).or_default().clone()
    }

    /// A reading of every id, sorted by id.
    pub(crate) fn read(&self) -> Vec<(HookId, HookMetrics)> {
        let cells = self.cells.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut all: Vec<(HookId, HookMetrics)> = cells.iter().map(|(id, c)| (id.clone(), c.read())).collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }
}
