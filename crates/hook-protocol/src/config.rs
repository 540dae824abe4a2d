//! The configuration file model for the three dialects hookwire reads unmodified:
//! j-cli's event-keyed `hooks.yaml`, j-cli's per-hook `hooks/<name>/HOOK.yaml`, and PicoClaw's
//! JSON `hooks` section.
//!
//! Checks that need nothing but the entry itself (a bash hook without `command`, `timeout: 0`,
//! an unknown event or observe kind) run while parsing, so the parser's error points at the
//! line and column of the entry.

use std::{collections::BTreeMap, fmt};

use schemars::JsonSchema;
use serde::{
    Deserialize, Deserializer, Serialize, Serializer,
    de::{MapAccess, Visitor},
    ser::SerializeMap,
};
use serde_json::Value;

pub use crate::sandbox::{NetworkPolicy, PathSet, SandboxMode, SandboxPolicy, WriteDefaults};
use crate::{Event, picoclaw::OBSERVER_KINDS};

/// j-cli's `hooks.yaml`: event name → hooks in chain order. Also hookwire's own format.
///
/// An event may appear once; writing it twice (even under two aliases) is an error.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HooksFile {
    /// Events in the order they were written, each with its hooks.
    pub events: Vec<(Event, Vec<HookDef>)>,
}

impl Serialize for HooksFile {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.events.len()))?;
        for (event, hooks) in &self.events {
            map.serialize_entry(event, hooks)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for HooksFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FileVisitor;
        impl<'de> Visitor<'de> for FileVisitor {
            type Value = HooksFile;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from event name to a list of hooks")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HooksFile, A::Error> {
                let mut events: Vec<(Event, Vec<HookDef>)> = Vec::new();
                while let Some(event) = map.next_key::<Event>()? {
                    if events.iter().any(|(seen, _)| *seen == event) {
                        return Err(serde::de::Error::custom(format!(
                            "event `{event}` is listed twice (perhaps under an alias); merge the two lists"
                        )));
                    }
                    let hooks = map.next_value::<Option<Vec<HookDef>>>()?.unwrap_or_default();
                    for hook in &hooks {
                        if hook.events.is_some() {
                            return Err(serde::de::Error::custom(
                                "`events` belongs in a hook directory's HOOK.yaml; here the event is the map key",
                            ));
                        }
                    }
                    events.push((event, hooks));
                }
                Ok(HooksFile { events })
            }
        }
        deserializer.deserialize_map(FileVisitor)
    }
}

impl JsonSchema for HooksFile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HooksFile".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let hooks = generator.subschema_for::<Vec<HookDef>>();
        let names: Vec<&str> = Event::all_names().collect();
        schemars::json_schema!({
            "description": "j-cli hooks.yaml: event name → hooks run in order.",
            "type": "object",
            "propertyNames": { "enum": names },
            "additionalProperties": hooks,
        })
    }
}

/// The kind of a command hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HookKind {
    /// `sh -c "<command>"` per event (j-cli's default).
    #[default]
    Bash,
    /// A prompt answered by a chat model.
    Llm,
}

impl HookKind {
    /// Whether this is the default kind, `bash`.
    pub fn is_bash(&self) -> bool {
        *self == HookKind::Bash
    }

    /// `bash` or `llm`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookKind::Bash => "bash",
            HookKind::Llm => "llm",
        }
    }
}

/// What to do when a hook fails (exit code, timeout, invalid output, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// Fail open: log, keep the value, go on (default for interceptors).
    Skip,
    /// Halt the chain (`abort` is accepted as the old name).
    #[serde(alias = "abort")]
    Stop,
    /// Fail closed: deny (default for `approve_tool`).
    Deny,
}

impl OnError {
    /// `skip`, `stop` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            OnError::Skip => "skip",
            OnError::Stop => "stop",
            OnError::Deny => "deny",
        }
    }
}

/// Conditions a hook runs under; all set fields must hold (AND). An empty filter always matches.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookFilter {
    /// Exact, case-sensitive tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// j-cli matcher: `Write|Edit|Bash`, split on `|`, each piece trimmed, compared exactly (not a regex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_matcher: Option<String>,
    /// Model name prefix, e.g. `gpt-4` matches `gpt-4o`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_prefix: Option<String>,
    /// Regular expression on the tool name (hookwire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_regex: Option<String>,
    /// Regular expression on the tool arguments' JSON text (hookwire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args_regex: Option<String>,
}

impl HookFilter {
    /// Whether no condition is set.
    pub fn is_empty(&self) -> bool {
        *self == HookFilter::default()
    }

    /// Whether a condition on the tool is set (such a filter never matches a non-tool event).
    pub fn has_tool_condition(&self) -> bool {
        self.tool_name.is_some()
            || self.tool_matcher.is_some()
            || self.tool_regex.is_some()
            || self.args_regex.is_some()
    }
}

/// One command hook (bash or llm), as j-cli writes it, plus hookwire's optional fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "HookDefWire")]
pub struct HookDef {
    /// `bash` (default) or `llm`.
    #[serde(rename = "type", default, skip_serializing_if = "HookKind::is_bash")]
    pub kind: HookKind,
    /// Name used in ids and messages (directory hooks: the directory's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the hook is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// HOOK.yaml only: the events this hook runs on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<Event>>,
    /// bash: the command run with `sh -c`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// llm: the prompt template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// llm: model name overriding the host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Seconds (fractions allowed); must be above 0. Default: bash 10, llm 30.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "seconds_out")]
    pub timeout: Option<f64>,
    /// Extra attempts after a failure. Default: bash 0, llm 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<u32>,
    /// `skip`, `stop` (`abort`) or `deny`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<OnError>,
    /// When the hook runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<HookFilter>,
    /// Order inside a level, ascending (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// `false` keeps the hook configured but off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Environment variables added for the hook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// hookwire: what the hook may reach (docs/sandbox.md); absent: the level's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxPolicy>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HookDefWire {
    #[serde(rename = "type", default)]
    kind: HookKind,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    events: Option<Vec<Event>>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    timeout: Option<f64>,
    #[serde(default)]
    retry: Option<u32>,
    #[serde(default)]
    on_error: Option<OnError>,
    #[serde(default)]
    filter: Option<HookFilter>,
    #[serde(default)]
    priority: Option<i32>,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    env: Option<BTreeMap<String, String>>,
    #[serde(default)]
    sandbox: Option<SandboxPolicy>,
}

/// Reads an event list, skipping `""` entries as PicoClaw does; a bad name is reported where
/// it stands.
fn events_skipping_empty<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<Event>>, D::Error> {
    struct EventsVisitor;
    impl<'de> Visitor<'de> for EventsVisitor {
        type Value = Option<Vec<Event>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of event names")
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
            deserializer.deserialize_seq(self)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut events = Vec::new();
            while let Some(name) = seq.next_element::<EventName>()? {
                events.extend(name.0);
            }
            Ok(Some(events))
        }
    }
    /// One entry: an event, or nothing for `""`.
    struct EventName(Option<Event>);
    impl<'de> Deserialize<'de> for EventName {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
            if name.is_empty() {
                return Ok(EventName(None));
            }
            name.parse().map(|event| EventName(Some(event))).map_err(serde::de::Error::custom)
        }
    }
    deserializer.deserialize_option(EventsVisitor)
}

fn picoclaw_names<S: Serializer>(events: &Option<Vec<Event>>, serializer: S) -> Result<S::Ok, S::Error> {
    match events {
        None => serializer.serialize_none(),
        Some(events) => serializer.collect_seq(events.iter().map(|e| e.picoclaw_name().unwrap_or(e.as_str()))),
    }
}

/// Writes whole seconds as an integer (`5`, not `5.0`), as they are usually written.
fn seconds_out<S: Serializer>(seconds: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match seconds {
        Some(t) if t.fract() == 0.0 && *t >= 0.0 && *t < u64::MAX as f64 => serializer.serialize_u64(*t as u64),
        Some(t) => serializer.serialize_f64(*t),
        None => serializer.serialize_none(),
    }
}

/// Checks a timeout in seconds: finite and above zero.
fn check_timeout(seconds: Option<f64>) -> Result<(), String> {
    match seconds {
        Some(t) if !(t.is_finite() && t > 0.0) => Err(format!(
            "`timeout: {t}` is not allowed: a hook needs a deadline above 0 seconds (leave `timeout` out for the default)"
        )),
        _ => Ok(()),
    }
}

impl TryFrom<HookDefWire> for HookDef {
    type Error = String;

    fn try_from(wire: HookDefWire) -> Result<Self, String> {
        let blank = |s: &Option<String>| s.as_deref().is_none_or(|s| s.trim().is_empty());
        match wire.kind {
            HookKind::Bash if blank(&wire.command) => {
                return Err("a bash hook needs a non-empty `command` (or set `type: llm` and a `prompt`)".into());
            }
            HookKind::Llm if blank(&wire.prompt) => {
                return Err("an llm hook needs a non-empty `prompt`".into());
            }
            _ => {}
        }
        check_timeout(wire.timeout)?;
        if wire.events.as_ref().is_some_and(Vec::is_empty) {
            return Err("`events` is empty: list at least one event this hook runs on".into());
        }
        Ok(HookDef {
            kind: wire.kind,
            name: wire.name,
            description: wire.description,
            events: wire.events,
            command: wire.command,
            prompt: wire.prompt,
            model: wire.model,
            timeout: wire.timeout,
            retry: wire.retry,
            on_error: wire.on_error,
            filter: wire.filter,
            priority: wire.priority,
            enabled: wire.enabled,
            env: wire.env,
            sandbox: wire.sandbox,
        })
    }
}

/// A PicoClaw configuration file: only its `hooks` section is read; other sections are ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PicoClawConfig {
    /// The hooks section.
    pub hooks: PicoHooks,
}

/// PicoClaw's `hooks` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PicoHooks {
    /// `false` turns every configured hook off (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Default deadlines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaults: Option<PicoDefaults>,
    /// Process hooks by name (run in priority, then name order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processes: Option<BTreeMap<String, ProcessDef>>,
    /// Compiled-in hooks by name, enabled here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtins: Option<BTreeMap<String, BuiltinDef>>,
}

/// PicoClaw's default deadlines, in milliseconds. A value of 0 or less keeps the default, as in PicoClaw.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PicoDefaults {
    /// Observer notifications (default 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observer_timeout_ms: Option<i64>,
    /// Interceptor calls (default 5000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interceptor_timeout_ms: Option<i64>,
    /// Approval calls (default 60000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_timeout_ms: Option<i64>,
}

/// A process hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "ProcessDefWire")]
pub struct ProcessDef {
    /// `false` keeps it configured but off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Order, ascending (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// Only `stdio`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// Program and arguments (no shell).
    pub command: Vec<String>,
    /// Working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// Environment variables added to the inherited environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Observer kinds to receive as `hook.event` (`*` for all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<Vec<String>>,
    /// Events to intercept: PicoClaw's names or hookwire's canonical names (written back with
    /// PicoClaw's names where they exist).
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "picoclaw_names")]
    pub intercept: Option<Vec<Event>>,
    /// hookwire: tools, besides those it injects, this hook may answer with `respond` (`*` for any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub respond_tools: Option<Vec<String>>,
    /// hookwire: per-call deadline in milliseconds, overriding the defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// hookwire: `skip`, `stop` or `deny`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<OnError>,
    /// hookwire: what the process may reach (docs/sandbox.md); absent: the level's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxPolicy>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProcessDefWire {
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    priority: Option<i32>,
    #[serde(default)]
    transport: Option<String>,
    #[serde(default)]
    command: Vec<String>,
    #[serde(default)]
    dir: Option<String>,
    #[serde(default)]
    env: Option<BTreeMap<String, String>>,
    #[serde(default)]
    observe: Option<Vec<String>>,
    #[serde(default, deserialize_with = "events_skipping_empty")]
    #[schemars(with = "Option<Vec<Event>>")]
    intercept: Option<Vec<Event>>,
    #[serde(default)]
    respond_tools: Option<Vec<String>>,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    on_error: Option<OnError>,
    #[serde(default)]
    sandbox: Option<SandboxPolicy>,
}

impl TryFrom<ProcessDefWire> for ProcessDef {
    type Error = String;

    fn try_from(wire: ProcessDefWire) -> Result<Self, String> {
        if wire.command.first().is_none_or(|program| program.trim().is_empty()) {
            return Err("`command` is required: the program and its arguments, e.g. [\"python3\", \"hook.py\"]".into());
        }
        if let Some(transport) = wire.transport.as_deref().filter(|t| !t.is_empty() && *t != "stdio") {
            return Err(format!("unsupported transport `{transport}`: only `stdio` is supported"));
        }
        for kind in wire.observe.iter().flatten() {
            if !is_observe_kind(kind) {
                return Err(format!(
                    "unsupported observe kind `{kind}`; expected `*` or one of {}",
                    OBSERVER_KINDS.join(", ")
                ));
            }
        }
        if wire.timeout_ms == Some(0) {
            return Err("`timeout_ms: 0` is not allowed: a hook needs a deadline above 0".into());
        }
        let n_modes = wire.observe.as_ref().map_or(0, Vec::len) + wire.intercept.as_ref().map_or(0, Vec::len);
        if n_modes == 0 {
            return Err("no hook modes enabled: list events under `intercept` or kinds under `observe`".into());
        }
        Ok(ProcessDef {
            enabled: wire.enabled,
            priority: wire.priority,
            transport: wire.transport,
            command: wire.command,
            dir: wire.dir,
            env: wire.env,
            observe: wire.observe,
            intercept: wire.intercept,
            respond_tools: wire.respond_tools,
            timeout_ms: wire.timeout_ms,
            on_error: wire.on_error,
            sandbox: wire.sandbox,
        })
    }
}

/// Whether `kind` is accepted in `observe`: a seed kind, `*`, `all` or `""` (PicoClaw's wildcards).
pub fn is_observe_kind(kind: &str) -> bool {
    matches!(kind, "*" | "all" | "") || OBSERVER_KINDS.contains(&kind)
}

/// A compiled-in hook enabled by configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BuiltinDef {
    /// `true` mounts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Order (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// Passed to the builtin's factory as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Value>,
}
