//! PicoClaw's config: the `hooks` section (`enabled`, `defaults`, `processes`, `builtins`).

use std::{collections::BTreeMap, time::Duration};

use hook_protocol::{
    Event,
    config::{PicoClawConfig, PicoDefaults},
};
use serde::Deserialize;

use super::{FileCx, check};
use hook_core::{Deadlines, HookDefinition, HookSpec, Kind};

/// The `intercept` names as written: `after_tool` and the canonical `post_tool_execution`
/// parse to the same event but do not mean the same thing (see [`events_of`]).
#[derive(Debug, Default, Deserialize)]
struct RawConfig {
    #[serde(default)]
    hooks: RawHooks,
}

#[derive(Debug, Default, Deserialize)]
struct RawHooks {
    #[serde(default)]
    processes: Option<BTreeMap<String, RawProcess>>,
}

#[derive(Debug, Default, Deserialize)]
struct RawProcess {
    #[serde(default)]
    intercept: Option<Vec<String>>,
}

/// The specs of a PicoClaw config: its enabled builtins, then its processes, each in name order
/// (as PicoClaw mounts them).
pub(super) fn picoclaw(cx: &mut FileCx<'_>) -> Vec<HookSpec> {
    let config: PicoClawConfig = match cx.parse() {
        Ok(config) => config,
        Err(err) => {
            cx.parse_error(err, None);
            return Vec::new();
        }
    };
    let raw: RawConfig = cx.parse().unwrap_or_default();
    let hooks = config.hooks;
    let deadlines = with_defaults(cx.deadlines, hooks.defaults.as_ref());
    let is_file_enabled = hooks.enabled.unwrap_or(true);
    let spans = cx.spans();
    let hooks_node = spans.as_ref().and_then(|tree| tree.root.get("hooks"));
    let mut specs = Vec::new();

    let builtins_node = hooks_node.and_then(|hooks| hooks.get("builtins"));
    for (name, builtin) in hooks.builtins.unwrap_or_default() {
        // PicoClaw mounts only the builtins set to `enabled: true`.
        if builtin.enabled != Some(true) {
            continue;
        }
        let at = builtins_node.and_then(|builtins| builtins.key_at(&name));
        if !check::name(cx, &name, at) {
            continue;
        }
        specs.push(HookSpec {
            level: cx.level,
            kind: Kind::BUILTIN,
            events: Vec::new(),
            dir: None,
            source: cx.location(at),
            priority: builtin.priority.unwrap_or(0),
            enabled: is_file_enabled,
            filter: Default::default(),
            timeout: None,
            retry: None,
            on_error: None,
            env: BTreeMap::new(),
            respond_tools: Vec::new(),
            deadlines,
            session: None,
            work_dir: None,
            trust: None,
            sandbox: None,
            definition: HookDefinition::Builtin(builtin),
            name,
        });
    }

    let processes_node = hooks_node.and_then(|hooks| hooks.get("processes"));
    let raw_processes = raw.hooks.processes.unwrap_or_default();
    for (name, process) in hooks.processes.unwrap_or_default() {
        let at = processes_node.and_then(|processes| processes.key_at(&name));
        if !check::name(cx, &name, at) {
            continue;
        }
        if process.timeout_ms.is_some_and(|ms| Duration::from_millis(ms) > super::MAX_TIMEOUT) {
            let process_node = processes_node.and_then(|processes| processes.get(&name));
            let at = process_node.and_then(|process| process.key_at("timeout_ms")).or(at);
            cx.error(
                at,
                Some(&name),
                "`timeout_ms` is over 24 hours (86400000 ms); write the deadline in milliseconds",
            );
            continue;
        }
        let raw_intercept = raw_processes.get(&name).and_then(|raw| raw.intercept.as_deref());
        let events = events_of(raw_intercept, process.intercept.as_deref());
        if process.enabled.is_none() {
            cx.warn(
                at,
                Some(&name),
                "has no `enabled: true`, so it is off (as in PicoClaw); add `enabled: true` to run it",
            );
        }
        specs.push(HookSpec {
            level: cx.level,
            kind: Kind::PROCESS,
            events,
            dir: None,
            source: cx.location(at),
            priority: process.priority.unwrap_or(0),
            enabled: is_file_enabled && process.enabled == Some(true),
            filter: Default::default(),
            timeout: process.timeout_ms.map(Duration::from_millis),
            retry: None,
            on_error: process.on_error,
            env: process.env.clone().unwrap_or_default(),
            respond_tools: process.respond_tools.clone().unwrap_or_default(),
            deadlines,
            session: None,
            work_dir: None,
            trust: None,
            sandbox: process.sandbox.clone(),
            definition: HookDefinition::Process(process),
            name,
        });
    }

    if !is_file_enabled && !specs.is_empty() {
        let names: Vec<&str> = specs.iter().map(|spec| spec.name.as_str()).collect();
        let at = hooks_node.and_then(|hooks| hooks.key_at("enabled"));
        cx.warn(
            at,
            None,
            format!(
                "`hooks.enabled` is false, so none of this file's hooks run ({}); set it to true to run them",
                names.join(", ")
            ),
        );
    }
    specs
}

/// PicoClaw's `hooks.defaults` over `base`; a value of 0 or less keeps the default, as in PicoClaw.
fn with_defaults(base: Deadlines, defaults: Option<&PicoDefaults>) -> Deadlines {
    let Some(defaults) = defaults else { return base };
    let pick = |ms: Option<i64>, default: Duration| match ms.and_then(|ms| u64::try_from(ms).ok()) {
        Some(ms) if ms > 0 => Duration::from_millis(ms).min(super::MAX_TIMEOUT),
        _ => default,
    };
    Deadlines {
        observer: pick(defaults.observer_timeout_ms, base.observer),
        interceptor: pick(defaults.interceptor_timeout_ms, base.interceptor),
        approval: pick(defaults.approval_timeout_ms, base.approval),
        ..base
    }
}

/// The events a process intercepts. PicoClaw's `after_tool` receives every tool result, failed
/// ones included, so it means both `post_tool_execution` and `post_tool_execution_failure`;
/// the canonical names mean just themselves. Events appear once, in the order written.
fn events_of(raw: Option<&[String]>, parsed: Option<&[Event]>) -> Vec<Event> {
    let mut events = Vec::new();
    let mut push = |event: Event| {
        if !events.contains(&event) {
            events.push(event);
        }
    };
    match raw {
        Some(raw) => {
            for name in raw {
                let Ok(event) = name.parse::<Event>() else { continue };
                push(event);
                if name == "after_tool" {
                    push(Event::PostToolExecutionFailure);
                }
            }
        }
        None => parsed.unwrap_or_default().iter().copied().for_each(&mut push),
    }
    events
}
