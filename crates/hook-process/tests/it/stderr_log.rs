//! stderr lines are logged at warn with the hook's name, at most 20 per window, then a
//! "N lines suppressed" note; the last lines are kept for error messages.

use crate::common;

use std::{
    fmt::Write as _,
    sync::{Arc, Mutex},
    time::Duration,
};

use common::*;
use hook_core::Event;
use tracing::{
    Event as TracingEvent, Level, Metadata, Subscriber,
    field::{Field, Visit},
    span,
};

/// Records every warn event as `hook=<name> <message>`.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={:?} ", field.name(), value);
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, "{}={} ", field.name(), value);
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= Level::WARN
    }
    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }
    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
    fn event(&self, event: &TracingEvent<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
    fn enter(&self, _: &span::Id) {}
    fn exit(&self, _: &span::Id) {}
}

#[tokio::test]
async fn stderr_is_logged_with_the_hook_name_and_rate_limited() {
    let recorder = Recorder::default();
    tracing::subscriber::set_global_default(recorder.clone()).unwrap();
    let spec = python_spec("flooder", "fault_hook.py", &["stderr_flood", "100"], &[Event::PreToolExecution]);
    let hook = start(&spec).await;
    // The pump logs as it reads; give it the lines before closing.
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while recorder.0.lock().unwrap().iter().filter(|l| l.contains("hook stderr") && l.contains("hook=flooder")).count()
        < 20
    {
        assert!(std::time::Instant::now() < until, "stderr was not logged");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    shutdown_and_check(&hook).await;
    let lines = recorder.0.lock().unwrap().clone();
    // The subscriber is global and the crate's tests share one binary: other tests' hooks
    // log here too, so count only this hook's lines.
    let logged: Vec<_> = lines.iter().filter(|l| l.contains("hook stderr") && l.contains("hook=flooder")).collect();
    assert_eq!(logged.len(), 20, "{lines:#?}");
    assert!(logged[0].contains("got hook.hello") && logged[1].contains("flood line 0"), "{logged:#?}");
    // 100 flood lines + the "got hook.hello" line, 20 logged.
    assert!(lines.iter().any(|l| l.contains("81 stderr lines suppressed") && l.contains("hook=flooder")), "{lines:#?}");
}
