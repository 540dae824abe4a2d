//! OpenTelemetry export (docs/telemetry.md): when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, every fire of `fire`, `hook` and `serve` becomes
//! one `hookwire.fire` span with a `hookwire.hook` child per hook of its trace, sent over
//! OTLP/HTTP (protobuf) by a batch span processor on a thread of its own; the daemon also
//! exports its per-hook metrics periodically.
//!
//! Unset, nothing here is initialised: no thread, no client, no allocation — a fire pays one
//! look at a cached flag.
//!
//! Spans are built from the [`FireOutcome`] after the fire, with the opentelemetry API and
//! explicit timestamps, rather than through `tracing-opentelemetry`: the outcome carries each
//! hook's outcome, action, attempts and duration, which hook-core's `tracing` spans do not, and
//! the bridge installs no `tracing` subscriber at all unless asked for logs.

use std::{
    collections::BTreeMap,
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, SystemTime},
};

use hook_core::{Context, FireOutcome, OutcomeClass};
use hook_protocol::daemon::StatsResult;
use opentelemetry::{
    KeyValue,
    metrics::MeterProvider as _,
    trace::{Span as _, SpanKind, Status, TraceContextExt as _, Tracer as _, TracerProvider as _},
};
use opentelemetry_otlp::{Protocol, WithExportConfig as _};
use opentelemetry_sdk::{
    Resource,
    error::OTelSdkResult,
    metrics::{PeriodicReader, SdkMeterProvider},
    trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracer, SdkTracerProvider, SpanData, SpanExporter},
};

/// How long a command waits at exit for its spans to leave.
const FLUSH_BOUND: Duration = Duration::from_secs(1);

/// Spans queued for export at most; more are dropped (and counted by the SDK).
const MAX_QUEUE: usize = 2048;

/// The default period of the daemon's metric export.
const DEFAULT_METRICS_INTERVAL: Duration = Duration::from_secs(60);

/// Spans whose export failed (the collector down or refusing): dropped, counted.
static DROPPED_SPANS: AtomicU64 = AtomicU64::new(0);

/// Whether export is asked for: read once.
fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| {
        ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
    })
}

/// Whether context payloads (the context, reasons, hook errors) are exported too.
fn payloads() -> bool {
    std::env::var("HOOKWIRE_OTEL_PAYLOADS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The exporters, once initialised.
struct Telemetry {
    tracer_provider: SdkTracerProvider,
    tracer: SdkTracer,
    payloads: bool,
    meter_provider: Mutex<Option<SdkMeterProvider>>,
}

static TELEMETRY: OnceLock<Option<Telemetry>> = OnceLock::new();

fn resource() -> Resource {
    let builder = Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_some() {
        builder.build()
    } else {
        builder.with_service_name("hookwire").build()
    }
}

/// A span exporter that counts the spans of the batches it could not deliver.
#[derive(Debug)]
struct Counting<E>(E);

impl<E: SpanExporter> SpanExporter for Counting<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let n = batch.len() as u64;
        let result = self.0.export(batch).await;
        if result.is_err() {
            DROPPED_SPANS.fetch_add(n, Ordering::Relaxed);
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.0.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.0.set_resource(resource);
    }
}

/// The exporters, initialised on first use when export is asked for.
fn telemetry() -> Option<&'static Telemetry> {
    if !enabled() {
        return None;
    }
    TELEMETRY
        .get_or_init(|| {
            // The exporters' HTTP clients (reqwest over rustls) need a crypto provider: ring.
            hook_llm::install_tls_provider();
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_protocol(Protocol::HttpBinary)
                .build()
                .inspect_err(|e| tracing::warn!("telemetry: cannot build the OTLP span exporter: {e}"))
                .ok()?;
            let batch = BatchConfigBuilder::default().with_max_queue_size(MAX_QUEUE).build();
            let processor = BatchSpanProcessor::builder(Counting(exporter)).with_batch_config(batch).build();
            let tracer_provider =
                SdkTracerProvider::builder().with_span_processor(processor).with_resource(resource()).build();
            let tracer = tracer_provider.tracer("hookwire");
            Some(Telemetry { tracer_provider, tracer, payloads: payloads(), meter_provider: Mutex::new(None) })
        })
        .as_ref()
}

/// The start of a fire, when export is on: call before the fire, pass to [`record`].
pub(crate) fn started() -> Option<SystemTime> {
    enabled().then(SystemTime::now)
}

fn outcome_failed(outcome: OutcomeClass) -> bool {
    !matches!(outcome, OutcomeClass::Ok | OutcomeClass::NoChange | OutcomeClass::Filtered | OutcomeClass::Disabled)
}

/// Exports `outcome` (fired from `started` until now) as a `hookwire.fire` span with one
/// `hookwire.hook` child per trace entry. Queues and returns: the export runs on its own thread.
pub(crate) fn record(started: Option<SystemTime>, outcome: &FireOutcome, context: &Context) {
    let (Some(start), Some(telemetry)) = (started, telemetry()) else { return };
    let end = SystemTime::now().max(start);
    let tracer = &telemetry.tracer;
    let mut attributes = vec![
        KeyValue::new("hookwire.event", outcome.event.as_str()),
        KeyValue::new("hookwire.action", outcome.decision.as_str()),
        KeyValue::new("hookwire.hooks", outcome.trace.len() as i64),
        KeyValue::new("hookwire.changed", outcome.changed.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(",")),
    ];
    if telemetry.payloads {
        if let Some(reason) = &outcome.reason {
            attributes.push(KeyValue::new("hookwire.reason", reason.clone()));
        }
        attributes.push(KeyValue::new("hookwire.context", serde_json::to_string(context).unwrap_or_default()));
    }
    let fire = tracer
        .span_builder("hookwire.fire")
        .with_kind(SpanKind::Internal)
        .with_start_time(start)
        .with_attributes(attributes)
        .start(tracer);
    let cx = opentelemetry::Context::current_with_span(fire);
    // The trace has durations, not start times: hooks are laid end to end from the fire's start
    // (the order they ran in; hooks that ran in parallel overlap in reality).
    let mut at = start;
    for entry in &outcome.trace {
        let mut attributes = vec![
            KeyValue::new("hookwire.event", outcome.event.as_str()),
            KeyValue::new("hookwire.hook.id", entry.id.as_str().to_owned()),
            KeyValue::new("hookwire.hook.outcome", entry.outcome.as_str()),
            KeyValue::new("hookwire.hook.attempts", i64::from(entry.attempts)),
            KeyValue::new("hookwire.hook.duration_ms", entry.duration.as_secs_f64() * 1000.0),
        ];
        if let Some(action) = entry.action {
            attributes.push(KeyValue::new("hookwire.hook.action", action.as_str()));
        }
        if !entry.changed.is_empty() {
            let changed: Vec<&str> = entry.changed.iter().map(|f| f.as_str()).collect();
            attributes.push(KeyValue::new("hookwire.hook.changed", changed.join(",")));
        }
        if telemetry.payloads
            && let Some(error) = &entry.error
        {
            attributes.push(KeyValue::new("hookwire.hook.error", error.to_string()));
        }
        let mut span = tracer
            .span_builder("hookwire.hook")
            .with_kind(SpanKind::Internal)
            .with_start_time(at)
            .with_attributes(attributes)
            .start_with_context(tracer, &cx);
        if outcome_failed(entry.outcome) {
            span.set_status(Status::error(entry.outcome.as_str()));
        }
        at += entry.duration;
        span.end_with_timestamp(at.min(end).max(start));
    }
    cx.span().end_with_timestamp(end);
}

/// Exports the daemon's per-hook metrics (`stats`) every `HOOKWIRE_OTEL_METRICS_INTERVAL_MS`
/// (else `OTEL_METRIC_EXPORT_INTERVAL`, else 60 s). Nothing when export is off.
pub(crate) fn export_daemon_metrics(stats: impl Fn() -> StatsResult + Send + Sync + 'static) {
    let Some(telemetry) = telemetry() else { return };
    let exporter =
        match opentelemetry_otlp::MetricExporter::builder().with_http().with_protocol(Protocol::HttpBinary).build() {
            Ok(exporter) => exporter,
            Err(e) => {
                tracing::warn!("telemetry: cannot build the OTLP metric exporter: {e}");
                return;
            }
        };
    let interval = std::env::var("HOOKWIRE_OTEL_METRICS_INTERVAL_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .map(Duration::from_millis)
        .or_else(|| std::env::var_os("OTEL_METRIC_EXPORT_INTERVAL").is_none().then_some(DEFAULT_METRICS_INTERVAL));
    let mut reader = PeriodicReader::builder(exporter);
    if let Some(interval) = interval {
        reader = reader.with_interval(interval);
    }
    let provider = SdkMeterProvider::builder().with_reader(reader.build()).with_resource(resource()).build();
    let meter = provider.meter("hookwire");
    let stats = Arc::new(stats);
    // One reading per hook: (agent or `fire`, hook id) → metrics, summed over configurations.
    let per_hook = {
        let stats = stats.clone();
        move || {
            let mut out: BTreeMap<(String, String), [f64; 5]> = BTreeMap::new();
            for configuration in stats().configurations {
                let agent = configuration.selection.agent.map_or_else(|| "fire".to_owned(), |a| a.to_string());
                for hook in configuration.hooks {
                    let cell = out.entry((agent.clone(), hook.id)).or_default();
                    cell[0] += hook.executions as f64;
                    cell[1] += hook.successes as f64;
                    cell[2] += hook.failures as f64;
                    cell[3] += hook.skips as f64;
                    cell[4] += hook.total_ms;
                }
            }
            out
        }
    };
    let per_hook = Arc::new(per_hook);
    let counters = [
        ("hookwire.hook.executions", "attempts run (each retry counts)"),
        ("hookwire.hook.successes", "attempts that returned an output"),
        ("hookwire.hook.failures", "attempts that failed or timed out"),
        ("hookwire.hook.skips", "fires where the hook did not run (filtered or disabled)"),
    ];
    for (index, (name, description)) in counters.into_iter().enumerate() {
        let per_hook = per_hook.clone();
        meter
            .u64_observable_counter(name)
            .with_description(description)
            .with_callback(move |observer| {
                for ((agent, id), values) in per_hook() {
                    let attributes = [KeyValue::new("hookwire.agent", agent), KeyValue::new("hookwire.hook.id", id)];
                    observer.observe(values[index] as u64, &attributes);
                }
            })
            .build();
    }
    meter
        .f64_observable_counter("hookwire.hook.time")
        .with_unit("ms")
        .with_description("time spent in attempts")
        .with_callback(move |observer| {
            for ((agent, id), values) in per_hook() {
                let attributes = [KeyValue::new("hookwire.agent", agent), KeyValue::new("hookwire.hook.id", id)];
                observer.observe(values[4], &attributes);
            }
        })
        .build();
    meter
        .u64_observable_counter("hookwire.telemetry.dropped_spans")
        .with_description("spans not delivered: the collector was down or refused them")
        .with_callback(|observer| observer.observe(DROPPED_SPANS.load(Ordering::Relaxed), &[]))
        .build();
    meter
        .u64_observable_gauge("hookwire.daemon.requests")
        .with_description("requests the daemon answered")
        .with_callback(move |observer| observer.observe(stats().requests, &[]))
        .build();
    if let Ok(mut slot) = telemetry.meter_provider.lock() {
        *slot = Some(provider);
    }
}

/// Sends what is queued and stops the exporters, waiting at most [`FLUSH_BOUND`]: a short-lived
/// `fire` still delivers its spans, and a collector that does not answer holds nobody. Nothing
/// when export never started.
pub(crate) fn shutdown() {
    let Some(Some(telemetry)) = TELEMETRY.get() else { return };
    let tracer_provider = telemetry.tracer_provider.clone();
    let meter_provider = telemetry.meter_provider.lock().ok().and_then(|mut slot| slot.take());
    let (done, wait) = std::sync::mpsc::channel();
    // On a thread of its own: the exporters block, and must not hold an async runtime's thread.
    let spawned = std::thread::Builder::new().name("otel-shutdown".into()).spawn(move || {
        let _ = tracer_provider.shutdown_with_timeout(FLUSH_BOUND);
        if let Some(meter_provider) = meter_provider {
            let _ = meter_provider.shutdown();
        }
        let _ = done.send(());
    });
    if spawned.is_ok() {
        let _ = wait.recv_timeout(FLUSH_BOUND);
    }
    let dropped = DROPPED_SPANS.load(Ordering::Relaxed);
    if dropped > 0 {
        tracing::debug!("telemetry: {dropped} spans were not delivered (collector unreachable)");
    }
}
